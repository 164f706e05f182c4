#pragma once
// A thread-safe memo from an operator signature (operator with its parameters + input
// descriptors) to a KernelCost. Lookups hash the signature and confirm it (operator equality
// and descriptor equality), so a hash collision never returns another op's cost.
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "autograph/cost/op_cost_model.hpp"

namespace autograph::detail {

/// Hash of (op, input descriptors). Dimensions are folded in with one multiply each and mixed
/// once at the end: a lookup must cost less than the roofline it saves.
inline std::uint64_t signature_hash(AnyOp const& op, std::span<TensorDesc const> in) {
  std::uint64_t h = op.hash();
  for (auto const& d : in) {
    h = (h ^ (d.shape.rank() | static_cast<std::uint64_t>(d.dtype) << 8)) * 0x9e3779b97f4a7c15ULL;
    for (std::int64_t x : d.shape) h = (h ^ static_cast<std::uint64_t>(x)) * 0x100000001b3ULL;
  }
  return mix64(h);
}

class SignatureCache {
 public:
  /// The cached cost of (op, in), computing it with `compute()` the first time.
  template <class F>
  KernelCost get(AnyOp const& op, std::span<TensorDesc const> in, F&& compute) {
    std::uint64_t h = signature_hash(op, in);
    {
      std::shared_lock lock(mutex_);
      if (auto const* c = find(h, op, in)) return *c;
    }
    KernelCost c = compute();
    std::unique_lock lock(mutex_);
    if (auto const* old = find(h, op, in)) return *old;  // another thread got there first
    map_[h].push_back(Entry{op, std::vector<TensorDesc>(in.begin(), in.end()), c});
    ++size_;
    return c;
  }
  std::size_t size() const {
    std::shared_lock lock(mutex_);
    return size_;
  }

 private:
  struct Entry {
    AnyOp op;
    std::vector<TensorDesc> in;
    KernelCost cost;
  };
  KernelCost const* find(std::uint64_t h, AnyOp const& op, std::span<TensorDesc const> in) const {
    auto it = map_.find(h);
    if (it == map_.end()) return nullptr;
    for (auto const& e : it->second)
      if (e.op == op && std::ranges::equal(e.in, in)) return &e.cost;
    return nullptr;
  }
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, std::vector<Entry>> map_;
  std::size_t size_ = 0;
};

}  // namespace autograph::detail
