#pragma once
// The IOS dynamic programme over one block of at most 64 kernels (Ding et al., "IOS:
// Inter-Operator Scheduler for CNN Acceleration", MLSys 2021, Algorithm 1):
//
//   cost[S] = min over endings E of S ( cost[S − E] + stage(E) ),   cost[∅] = 0
//
// S is the set of kernels still to run before the stages already chosen (closed under
// predecessors); an ending E of S is a non-empty subset closed under successors within S —
// it can run last. E's groups are its connected pieces; no path joins two of them, so each
// runs on its own stream. Pruning bounds a group to r kernels and a stage to s groups.
//
// Endings are enumerated from their groups. A group is a connected successor-closed subset of
// S; every such set is a union of "closures" clos(u) = ({u} ∪ descendants(u)) ∩ S that
// overlap one another, so growing closures by overlapping closures (never past r kernels)
// yields every group exactly once (deduplicated). Two disjoint groups are never joined by an
// edge, so every set of pairwise disjoint groups (at most s) is one ending, and every ending
// arises once. The published IOS code builds endings differently and misses some whose groups'
// reachable sets overlap (github.com/mit-han-lab/inter-operator-scheduler issue #10); the
// exhaustive-search test checks that none are missed here.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace autograph::schedule::detail {

using Mask = std::uint64_t;

/// Thrown when a block's DP visits more (state, ending) pairs than its budget allows.
struct DpBudgetExceeded {};

struct StageChoice {
  double ms = 0;
  bool merge = false;  // operator merge beat concurrent execution
};

inline Mask bit(std::size_t i) { return Mask{1} << i; }

/// A set of masks for the inner loop: open addressing, cleared in O(1) by a generation stamp,
/// no allocation once warm.
class MaskSet {
 public:
  void clear() {
    if (keys_.empty()) resize(64);
    if (++generation_ == 0) {  // stamps wrapped: forget them all
      std::fill(stamp_.begin(), stamp_.end(), 0);
      generation_ = 1;
    }
    size_ = 0;
  }
  /// True when m was not in the set.
  bool insert(Mask m) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    std::size_t h = hash(m);
    while (stamp_[h] == generation_) {
      if (keys_[h] == m) return false;
      h = (h + 1) & (keys_.size() - 1);
    }
    stamp_[h] = generation_;
    keys_[h] = m;
    ++size_;
    return true;
  }

 private:
  std::size_t hash(Mask m) const {
    m ^= m >> 33;
    m *= 0xff51afd7ed558ccdULL;
    m ^= m >> 33;
    return static_cast<std::size_t>(m) & (keys_.size() - 1);
  }
  void resize(std::size_t n) {
    keys_.assign(n, 0);
    stamp_.assign(n, 0);
    generation_ = 1;
  }
  void grow() {
    std::vector<Mask> live;
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (stamp_[i] == generation_) live.push_back(keys_[i]);
    resize(2 * keys_.size());
    size_ = 0;
    for (Mask m : live) insert(m);
  }
  std::vector<Mask> keys_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t generation_ = 0;
  std::size_t size_ = 0;
};

/// Connected pieces of E under the block's edges (succ/pred are direct edges within the
/// block), ordered by their lowest kernel, into `out`.
inline void components(Mask e, std::vector<Mask> const& succ, std::vector<Mask> const& pred, std::vector<Mask>& out) {
  out.clear();
  while (e) {
    Mask comp = e & (~e + 1), frontier = comp;
    while (frontier) {
      Mask grown = 0;
      for (Mask f = frontier; f; f &= f - 1) {
        auto i = static_cast<std::size_t>(std::countr_zero(f));
        grown |= (succ[i] | pred[i]) & e;
      }
      frontier = grown & ~comp;
      comp |= grown;
    }
    out.push_back(comp);
    e &= ~comp;
  }
}
inline std::vector<Mask> components(Mask e, std::vector<Mask> const& succ, std::vector<Mask> const& pred) {
  std::vector<Mask> out;
  components(e, succ, pred, out);
  return out;
}

/// How many predecessor-closed subsets (DP states) a block has, counting up to `cap`.
/// @pre kernels are numbered in a topological order (pred[i] only has bits below i).
inline std::size_t count_states(std::vector<Mask> const& pred, std::size_t cap) {
  std::size_t count = 0;
  std::size_t m = pred.size();
  // Depth-first over include/exclude decisions in topological order; a kernel may be
  // included only with all its predecessors.
  std::vector<std::pair<std::size_t, Mask>> stack{{0, 0}};
  while (!stack.empty() && count < cap) {
    auto [i, s] = stack.back();
    stack.pop_back();
    if (i == m) {
      ++count;
      continue;
    }
    stack.push_back({i + 1, s});
    if ((pred[i] & ~s) == 0) stack.push_back({i + 1, s | bit(i)});
  }
  return count;
}

/// A map from masks to values for the DP's memo: open addressing, no per-entry allocation.
template <class V>
class MaskMap {
 public:
  V const* find(Mask m) const {
    if (keys_.empty()) return nullptr;
    for (std::size_t h = slot(m);; h = (h + 1) & (keys_.size() - 1)) {
      if (!used_[h]) return nullptr;
      if (keys_[h] == m) return &values_[h];
    }
  }
  /// Inserts or overwrites; returns the stored value.
  V const& put(Mask m, V v) {
    if (2 * (size_ + 1) > keys_.size()) rehash(keys_.empty() ? 1024 : 2 * keys_.size());
    std::size_t h = slot(m);
    while (used_[h] && keys_[h] != m) h = (h + 1) & (keys_.size() - 1);
    if (!used_[h]) ++size_;
    used_[h] = 1;
    keys_[h] = m;
    values_[h] = std::move(v);
    return values_[h];
  }
  std::size_t size() const { return size_; }

 private:
  std::size_t slot(Mask m) const {
    m ^= m >> 33;
    m *= 0xff51afd7ed558ccdULL;
    m ^= m >> 33;
    return static_cast<std::size_t>(m) & (keys_.size() - 1);
  }
  void rehash(std::size_t n) {
    std::vector<Mask> keys = std::move(keys_);
    std::vector<V> values = std::move(values_);
    std::vector<char> used = std::move(used_);
    keys_.assign(n, 0);
    values_.assign(n, V{});
    used_.assign(n, 0);
    size_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (used[i]) put(keys[i], std::move(values[i]));
  }
  std::vector<Mask> keys_;
  std::vector<V> values_;
  std::vector<char> used_;
  std::size_t size_ = 0;
};

class IosBlockDp {
 public:
  using StageCost = std::function<StageChoice(Mask)>;

  /// succ/pred/desc: per local kernel, direct successors, direct predecessors and all
  /// descendants within the block (as bit masks). r, s: the pruning bounds.
  IosBlockDp(std::vector<Mask> succ, std::vector<Mask> pred, std::vector<Mask> desc, std::size_t r, std::size_t s, std::size_t budget,
             StageCost stage)
      : succ_(std::move(succ)), pred_(std::move(pred)), desc_(std::move(desc)), r_(r), s_(s), budget_(budget), stage_(std::move(stage)) {}

  Mask full() const { return succ_.size() == 64 ? ~Mask{0} : bit(succ_.size()) - 1; }

  /// The least total stage latency of running S. @throws DpBudgetExceeded
  double solve(Mask S) {
    if (S == 0) return 0;
    if (auto const* hit = memo_.find(S)) return hit->cost;
    double best = std::numeric_limits<double>::infinity();
    Mask best_e = 0;
    std::vector<Mask> ends;  // one per recursion level: solve() below reuses the scratch
    endings(S, ends);
    for (Mask e : ends) {
      if (++transitions_ > budget_) throw DpBudgetExceeded{};
      double c = solve(S & ~e) + stage(e).ms;
      if (c < best) {
        best = c;
        best_e = e;
      }
    }
    memo_.put(S, Entry{best, best_e});
    return best;
  }

  /// The optimal stages of S in execution order. @pre solve(S) returned.
  std::vector<Mask> stages(Mask S) const {
    std::vector<Mask> out;
    while (S) {
      Mask e = memo_.find(S)->ending;
      out.push_back(e);
      S &= ~e;
    }
    return {out.rbegin(), out.rend()};
  }

  /// Every ending of S within the bounds (see the header comment).
  std::vector<Mask> endings(Mask S) {
    std::vector<Mask> out;
    endings(S, out);
    return out;
  }
  void endings(Mask S, std::vector<Mask>& out) {
    out.clear();
    closures_.clear();  // clos(u) for the u in S whose closure fits in a group
    groups_.clear();
    seen_.clear();
    for (Mask m = S; m; m &= m - 1) {
      auto u = static_cast<std::size_t>(std::countr_zero(m));
      Mask c = (bit(u) | desc_[u]) & S;
      if (static_cast<std::size_t>(std::popcount(c)) <= r_) closures_.push_back(c);
    }
    for (Mask c : closures_)
      if (seen_.insert(c)) groups_.push_back(c);
    for (std::size_t i = 0; i < groups_.size(); ++i) {  // groups_ grows while we walk it
      Mask g = groups_[i];
      for (Mask c : closures_) {
        if ((c & g) == 0 || (c & ~g) == 0) continue;
        Mask grown = g | c;
        if (static_cast<std::size_t>(std::popcount(grown)) <= r_ && seen_.insert(grown)) groups_.push_back(grown);
      }
    }
    pick(0, 0, 0, out);
  }

  StageChoice stage(Mask e) {
    if (auto const* hit = stage_cache_.find(e)) return *hit;
    return stage_cache_.put(e, stage_(e));
  }
  std::size_t states() const { return memo_.size(); }
  std::size_t transitions() const { return transitions_; }
  std::size_t stages_measured() const { return stage_cache_.size(); }

 private:
  // Every set of pairwise disjoint groups from groups_[from..], at most s of them.
  void pick(std::size_t from, Mask used, std::size_t count, std::vector<Mask>& out) const {
    for (std::size_t i = from; i < groups_.size(); ++i) {
      if (groups_[i] & used) continue;
      Mask e = used | groups_[i];
      out.push_back(e);
      if (count + 1 < s_) pick(i + 1, e, count + 1, out);
    }
  }

  struct Entry {
    double cost = 0;
    Mask ending = 0;
  };
  std::vector<Mask> succ_, pred_, desc_;
  std::size_t r_, s_, budget_;
  StageCost stage_;
  MaskMap<Entry> memo_;
  MaskMap<StageChoice> stage_cache_;
  std::size_t transitions_ = 0;
  std::vector<Mask> closures_, groups_;
  MaskSet seen_;
};

}  // namespace autograph::schedule::detail
