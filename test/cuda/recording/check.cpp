// check(): the rules recording.hpp lists, over a recording, with vector clocks for
// happens-before (one component per stream; an event carries the clock of its stream when it
// was recorded; a wait joins it into the waiting stream's clock).
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "recording.hpp"

namespace autograph::cuda::recording {
namespace {

using Clock = std::vector<std::uint32_t>;

void join(Clock& into, Clock const& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}
std::uint32_t at(Clock const& c, std::size_t i) { return i < c.size() ? c[i] : 0; }
void tick(Clock& c, std::size_t i) {
  if (c.size() <= i) c.resize(i + 1, 0);
  ++c[i];
}

std::string hex(std::uintptr_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/// One piece of work with its place in happens-before.
struct Work {
  std::size_t call = 0;
  std::size_t stream = 0;
  Clock clock;  // after it: clock[stream] is its own tick
  int domain = 0;  // 0: eager; k > 0: capture k
};

struct EventState {
  bool recorded = false;
  int capture = 0;  // 0: recorded outside any capture
  Clock clock;
};

class Checker {
 public:
  Checker(std::vector<Call> const& calls, std::vector<Range> const& live, CheckOptions const& o) : calls_(calls), options_(o) {
    for (Range const& r : live) live_[r.begin] = r.end;
  }

  Report run() {
    for (std::size_t i = 0; i < calls_.size() && !full(); ++i) step(i);
    if (capture_ != 0) violation("the recording ends inside a capture (no cudaStreamEndCapture)");
    races();
    report_.streams = streams_seen_in_capture_.size();
    return std::move(report_);
  }

 private:
  bool full() const { return report_.violations.size() >= options_.max_violations; }
  void violation(std::string what) {
    if (!full()) report_.violations.push_back(std::move(what));
  }
  std::size_t stream(cudaStream_t s) {
    auto [it, fresh] = stream_index_.try_emplace(s, stream_index_.size());
    if (fresh) {
      capture_of_.push_back(0);
      eager_.emplace_back();
      captured_.emplace_back();
    }
    return it->second;
  }
  std::string describe(std::size_t i) const {
    Call const& c = calls_[i];
    std::string d = "call " + std::to_string(i) + " " + c.name;
    if (c.stream) d += " on stream " + std::to_string(stream_index_.at(c.stream));
    else if (c.kind >= Call::Kind::kernel && c.kind <= Call::Kind::library) d += " on the legacy default stream";
    if (!c.node.empty()) d += " (" + c.node + ")";
    return d;
  }

  void step(std::size_t i) {
    Call const& c = calls_[i];
    using K = Call::Kind;
    std::size_t s = stream(c.stream);
    switch (c.kind) {
      case K::stream_create:
      case K::event_create:
      case K::graph_instantiate:
        return;
      case K::stream_destroy:
        if (capture_of_[s]) violation(describe(i) + ": a stream destroyed while it captures");
        return;
      case K::event_destroy:
        events_.erase(c.event);
        return;
      case K::begin_capture:
        if (capture_ != 0) {
          violation(describe(i) + ": a capture begins while capture " + std::to_string(capture_) + " is open");
          return;
        }
        capture_ = ++report_.captures;
        origin_ = s;
        members_ = {s};
        capture_of_[s] = capture_;
        captured_[s] = Clock{};
        tick(captured_[s], s);
        streams_seen_in_capture_.insert(s);
        return;
      case K::end_capture: end_capture(i, s); return;
      case K::event_record: {
        if (!c.stream && capture_) violation(describe(i) + ": recorded on the legacy default stream during a capture");
        EventState& e = events_[c.event];
        e.recorded = true;
        e.capture = capture_of_[s];
        if (e.capture) {
          e.clock = captured_[s];
        } else {
          join(eager_[s], host_);
          e.clock = eager_[s];
        }
        return;
      }
      case K::stream_wait_event: wait(i, s); return;
      case K::kernel:
      case K::memcpy_async:
      case K::library:
      case K::graph_launch:
        work(i, s);
        return;
      case K::malloc:
      case K::free:
      case K::memcpy:
      case K::stream_synchronize:
      case K::event_synchronize:
      case K::library_search:
        blocking(i, s);
        return;
    }
  }

  void wait(std::size_t i, std::size_t s) {
    Call const& c = calls_[i];
    auto it = events_.find(c.event);
    bool recorded = it != events_.end() && it->second.recorded;
    if (capture_of_[s]) {
      if (!recorded || it->second.capture != capture_of_[s]) {
        violation(describe(i) + ": a capturing stream waits for an event " +
                  (recorded ? "recorded outside this capture" : "never recorded") + " (not recorded earlier in the capture)");
        return;
      }
      join(captured_[s], it->second.clock);
      return;
    }
    if (recorded && it->second.capture != 0) {
      if (it->second.capture != capture_) {
        violation(describe(i) + ": waits for an event recorded in capture " + std::to_string(it->second.capture) + ", which has ended");
        return;
      }
      // The stream joins the capture (a fork).
      capture_of_[s] = capture_;
      members_.push_back(s);
      streams_seen_in_capture_.insert(s);
      captured_[s] = it->second.clock;
      tick(captured_[s], s);  // joined: it must be joined back even if it does no work
      return;
    }
    join(eager_[s], host_);
    if (recorded) join(eager_[s], it->second.clock);
  }

  void work(std::size_t i, std::size_t s) {
    Call const& c = calls_[i];
    if (c.kind == Call::Kind::kernel && !c.in_node)
      violation(describe(i) + ": a kernel launched outside any node's launches: its memory is unknown");
    if (capture_of_[s]) {
      tick(captured_[s], s);
      work_.push_back({i, s, captured_[s], capture_of_[s]});
      ++report_.captured_work;
    } else {
      if (capture_ && c.kind != Call::Kind::graph_launch)
        violation(describe(i) + (c.stream ? ": enqueued on a stream outside the capture while capturing (it would run now, not in the graph)"
                                          : ": enqueued on the legacy default stream while capturing"));
      join(eager_[s], host_);
      tick(eager_[s], s);
      work_.push_back({i, s, eager_[s], 0});
      ++report_.eager_work;
    }
    if (c.kind == Call::Kind::library || c.kind == Call::Kind::memcpy_async) declared(i);
    allocated(i);
  }

  /// A library call or copy made for a node touches only that node's memory.
  void declared(std::size_t i) {
    Call const& c = calls_[i];
    if (!c.in_node) return;  // a copy of the host's (inputs, outputs): no node
    for (Access const& a : c.accesses) {
      if (a.range.begin == a.range.end) continue;
      bool ok = std::ranges::any_of(c.declared, [&](Access const& d) { return d.range.contains(a.range) && (d.write || !a.write); });
      if (!ok)
        violation(describe(i) + ": " + (a.write ? "writes" : "reads") + " [" + hex(a.range.begin) + ", " + hex(a.range.end) +
                  ") outside the memory its node declared");
    }
  }

  /// All work touches only live allocations.
  void allocated(std::size_t i) {
    for (Access const& a : calls_[i].accesses) {
      if (a.range.begin == a.range.end) continue;
      auto it = live_.upper_bound(a.range.begin);
      bool ok = it != live_.begin() && std::prev(it)->second >= a.range.end;
      if (!ok)
        violation(describe(i) + ": touches [" + hex(a.range.begin) + ", " + hex(a.range.end) + "), not inside one live cudaMalloc allocation");
    }
  }

  void blocking(std::size_t i, std::size_t s) {
    Call const& c = calls_[i];
    if (capture_) violation(describe(i) + ": not allowed while a stream of this thread captures (cudaStreamCaptureModeThreadLocal)");
    using K = Call::Kind;
    switch (c.kind) {
      case K::malloc: live_[c.accesses[0].range.begin] = c.accesses[0].range.end; break;
      case K::free: live_.erase(c.accesses[0].range.begin); break;
      case K::memcpy:  // synchronous with the host; ordered after the host's view of everything
        join(eager_[s], host_);
        tick(eager_[s], s);
        work_.push_back({i, s, eager_[s], 0});
        allocated(i);
        join(host_, eager_[s]);
        break;
      case K::stream_synchronize: join(host_, eager_[s]); break;
      case K::event_synchronize:
        if (auto it = events_.find(c.event); it != events_.end() && it->second.capture == 0) join(host_, it->second.clock);
        break;
      default: break;
    }
  }

  void end_capture(std::size_t i, std::size_t s) {
    if (!capture_ || capture_of_[s] != capture_) {
      violation(describe(i) + ": ends a capture this stream is not part of");
      return;
    }
    if (s != origin_) violation(describe(i) + ": ends the capture on a stream other than the one that began it");
    Clock const& end = captured_[origin_];
    for (std::size_t t : members_) {
      if (t == origin_) continue;
      if (at(end, t) < at(captured_[t], t))
        violation(describe(i) + ": stream " + std::to_string(t) + " joined the capture and was not joined back into the origin stream (its last " +
                  std::to_string(at(captured_[t], t) - at(end, t)) + " operations are not waited for)");
    }
    for (std::size_t t : members_) capture_of_[t] = 0;
    members_.clear();
    capture_ = 0;
  }

  static bool before(Work const& a, Work const& b) { return at(b.clock, a.stream) >= at(a.clock, a.stream); }

  void races() {
    struct Item {
      Range range;
      bool write;
      std::size_t work;
    };
    std::map<int, std::vector<Item>> by_domain;
    for (std::size_t w = 0; w < work_.size(); ++w)
      for (Access const& a : calls_[work_[w].call].accesses)
        if (a.range.begin != a.range.end) by_domain[work_[w].domain].push_back({a.range, a.write, w});
    for (auto& [domain, items] : by_domain) {
      std::ranges::sort(items, [](Item const& x, Item const& y) { return x.range.begin < y.range.begin; });
      for (std::size_t i = 0; i < items.size() && !full(); ++i)
        for (std::size_t j = i + 1; j < items.size() && items[j].range.begin < items[i].range.end; ++j) {
          Item const& x = items[i];
          Item const& y = items[j];
          if (x.work == y.work || (!x.write && !y.write)) continue;
          Work const& a = work_[x.work];
          Work const& b = work_[y.work];
          if (before(a, b) || before(b, a)) {
            ++report_.ordered_pairs;
            continue;
          }
          Range r{std::max(x.range.begin, y.range.begin), std::min(x.range.end, y.range.end)};
          violation("race " + std::string(domain ? "in capture " + std::to_string(domain) : "outside captures") + ": " + describe(a.call) + " " +
                    (x.write ? "writes" : "reads") + " and " + describe(b.call) + " " + (y.write ? "writes" : "reads") + " [" + hex(r.begin) +
                    ", " + hex(r.end) + ") with no happens-before between them");
          if (full()) return;
        }
    }
  }

  std::vector<Call> const& calls_;
  CheckOptions options_;
  Report report_;
  std::map<cudaStream_t, std::size_t> stream_index_;
  std::vector<int> capture_of_;  // by stream: the capture it is part of, 0: none
  std::vector<Clock> eager_, captured_;
  Clock host_;
  std::map<cudaEvent_t, EventState> events_;
  std::map<std::uintptr_t, std::uintptr_t> live_;  // allocations: begin -> end
  std::vector<Work> work_;
  int capture_ = 0;
  std::size_t origin_ = 0;
  std::vector<std::size_t> members_;
  std::set<std::size_t> streams_seen_in_capture_;
};

}  // namespace

Report check(std::vector<Call> const& calls, std::vector<Range> const& live, CheckOptions const& options) {
  return Checker(calls, live, options).run();
}

std::string Report::to_string() const {
  std::string s = std::to_string(captures) + " captures, " + std::to_string(captured_work) + " captured and " + std::to_string(eager_work) +
                  " eager operations, " + std::to_string(ordered_pairs) + " overlapping pairs ordered, " + std::to_string(streams) + " streams";
  for (auto const& v : violations) s += "\n  " + v;
  return s;
}

}  // namespace autograph::cuda::recording
