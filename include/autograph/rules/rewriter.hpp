#pragma once
// Rewriter: the one way rules edit a graph. It records what each rewrite changed (nodes added
// and removed, values replaced): rewrite() reads the log to remove the source ops nothing reads
// any more and to check the new nodes for cycles, and returns it with the rewritten graph.
//
// It can constant-fold weight transforms: given a WeightFolder (RewriteOptions::fold), when
// every input of a transform (Concat, Split, Enlarge, Pad, Mul, Div, Sqrt, ...) is a Weight with
// data, the folder computes it once and the result is a new Weight with data, so optimized
// graphs with real weights carry no weight-transform ops. The folder is injected, not included:
// the reference one (fold_with_reference(), rules/fold_weights.hpp) runs the CPU kernels, and
// matching and rewriting need none of the runtime. Without a folder, and for weights without
// data, the transform nodes stay (weight_only_nodes() tells cost models they are constants).
//
// A rewrite costs about its own size: the graph is a copy-on-write copy of its parent, and
// weight data is shared (folded results are new storage; a FoldCache shares them between
// graphs that fold the same thing, so equal derivations stay structurally equal).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/graph/graph.hpp"

namespace autograph::rules {

/// Operators a rule may apply to weights; these are folded when their inputs have data.
using WeightTransformOps = OpSet<Concat, Split, Enlarge, Pad, Slice, Reshape, Transpose, Add, Sub, Mul, Div, Sqrt, Reciprocal, Neg, Scale>;

/// Folded weight data by (operator, input weights): the same fold in two graphs gives the same
/// storage. Not thread-safe: one cache per search thread.
class FoldCache {
 public:
  using Storage = std::shared_ptr<std::vector<float> const>;
  std::vector<Storage> const* find(std::uint64_t key) const {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second;
  }
  void insert(std::uint64_t key, std::vector<Storage> v) { map_.emplace(key, std::move(v)); }
  std::size_t size() const { return map_.size(); }

 private:
  std::unordered_map<std::uint64_t, std::vector<Storage>> map_;
};

/// Computes a weight transform `op` on weight data `in` (shapes `out` inferred already): one
/// tensor per output. A plain function, so that options holding one stay literal types.
using WeightFolder = std::vector<Tensor> (*)(AnyOp const& op, std::span<Tensor const> in, std::span<TensorDesc const> out);

struct RewriteOptions {
  WeightFolder fold = nullptr;      // folds weight transforms as they are added (nullptr: keep them as nodes)
  FoldCache* fold_cache = nullptr;  // shares folded weights between graphs (search)
};

/// What a rewrite changed, in order. rewrite() reads `added` to remove the new nodes a target
/// left unused and to check the new nodes for cycles, fold_weight_transforms() counts `folded`,
/// and callers get the log with the rewritten graph. Nothing undoes a rewrite: the parent graph
/// is kept instead (the rewritten one is a copy-on-write copy).
struct ChangeLog {
  std::vector<NodeId> added;
  std::vector<NodeId> removed;
  std::vector<std::pair<Value, Value>> replaced;  // (old value, new value)
  std::size_t folded = 0;                         // weight transforms folded into new weights
};

template <class Set>
class Rewriter {
 public:
  /// `o.fold`: constant-folds weight transforms as they are added (search leaves it out and
  /// folds the graph it keeps once, with fold_weight_transforms()).
  explicit Rewriter(Graph<Set>& g, RewriteOptions const& o = {}) : g_(g), options_(o) {}

  Graph<Set> const& graph() const { return g_; }
  ChangeLog const& changes() const { return log_; }

  /// Adds `op` reading `inputs` and returns its outputs; folds it when it is a weight transform
  /// whose inputs are all weights with data. Throws ShapeError/GraphError (the graph unchanged).
  std::vector<Value> add_multi(AnyOp const& op, std::span<Value const> inputs, std::string name = {});
  /// Adds a single-output op (see add_multi).
  Value add(AnyOp const& op, std::span<Value const> inputs, std::string name = {});
  Value add(AnyOp const& op, std::initializer_list<Value> inputs, std::string name = {}) {
    return add(op, std::span<Value const>(inputs.begin(), inputs.size()), std::move(name));
  }
  /// A new weight holding `data` (a constant a rule needs, such as a zero bias).
  Value constant(Tensor const& data, std::string name = {});

  /// Points every reader of `from` (and graph outputs) at `to`.
  void replace_uses(Value from, Value to) {
    g_.replace_uses(from, to);
    log_.replaced.emplace_back(from, to);
  }

  /// Removes the given nodes when nothing reads them any more, then their producers that became
  /// dead, and so on (Input nodes stay). Costs the size of what it removes.
  std::size_t erase_dead(std::span<NodeId const> candidates);

 private:
  std::optional<std::vector<Value>> try_fold(AnyOp const& op, std::span<Value const> inputs, std::string const& name);

  Graph<Set>& g_;
  RewriteOptions options_;
  ChangeLog log_;
};

// The members with bodies of any size are defined outside the class so that the `extern
// template` below holds at -O2 (see rules/engine.hpp).

template <class Set>
std::vector<Value> Rewriter<Set>::add_multi(AnyOp const& op, std::span<Value const> inputs, std::string name) {
  if (auto folded = try_fold(op, inputs, name)) return *folded;
  NodeId id = g_.add(op, inputs, std::move(name));
  log_.added.push_back(id);
  std::vector<Value> outs;
  for (std::uint32_t p = 0; p < g_[id].outputs.size(); ++p) outs.push_back({id, p});
  return outs;
}

template <class Set>
Value Rewriter<Set>::add(AnyOp const& op, std::span<Value const> inputs, std::string name) {
  auto outs = add_multi(op, inputs, std::move(name));
  if (outs.size() != 1) throw GraphError("Rewriter::add(): " + std::string(op.name()) + " has " + std::to_string(outs.size()) + " outputs; use add_multi()");
  return outs[0];
}

template <class Set>
Value Rewriter<Set>::constant(Tensor const& data, std::string name) {
  Weight w{{data.shape(), DType::float32}, data.storage(), hash_value(name) ^ reinterpret_cast<std::uintptr_t>(data.storage().get()), WeightInit::uniform};
  NodeId id = g_.add(AnyOp(std::move(w)), std::span<Value const>{}, std::move(name));
  log_.added.push_back(id);
  return {id, 0};
}

template <class Set>
std::size_t Rewriter<Set>::erase_dead(std::span<NodeId const> candidates) {
  std::vector<NodeId> work(candidates.begin(), candidates.end());
  std::size_t removed = 0;
  while (!work.empty()) {
    NodeId n = work.back();
    work.pop_back();
    if (!g_.contains(n) || !g_.users(n).empty() || g_.is_output(n) || g_[n].op.template is<Input>()) continue;
    std::vector<Value> ins = g_[n].inputs;
    g_.remove(n);
    log_.removed.push_back(n);
    ++removed;
    for (Value in : ins) work.push_back(in.node);
  }
  return removed;
}

template <class Set>
std::optional<std::vector<Value>> Rewriter<Set>::try_fold(AnyOp const& op, std::span<Value const> inputs, std::string const& name) {
  if (!options_.fold || inputs.empty() || !WeightTransformOps::holds(op)) return std::nullopt;
  std::vector<Tensor> in;
  std::vector<TensorDesc> in_desc;
  std::uint64_t key = op.hash();
  for (Value v : inputs) {
    auto const* w = g_.contains(v) ? g_[v.node].op.template get_if<Weight>() : nullptr;
    if (!w || !w->data) return std::nullopt;
    in.emplace_back(w->desc.shape, w->data);
    in_desc.push_back(w->desc);
    key = hash_combine(key, hash_tuple(w->params()));
  }
  std::vector<TensorDesc> out_desc;
  try {
    out_desc = op.infer(in_desc);
  } catch (ShapeError const& e) {
    throw ShapeError(std::string(op.name()) + " '" + name + "' on weights: " + e.what());
  }
  std::vector<FoldCache::Storage> data;
  if (auto const* hit = options_.fold_cache ? options_.fold_cache->find(key) : nullptr) {
    data = *hit;
  } else {
    auto out = options_.fold(op, in, out_desc);
    if (out.size() != out_desc.size())
      throw Error("weight folder: " + std::string(op.name()) + " '" + name + "' gave " + std::to_string(out.size()) + " tensors for " +
                  std::to_string(out_desc.size()) + " outputs");
    for (auto const& t : out) data.push_back(t.storage());
    if (options_.fold_cache) options_.fold_cache->insert(key, data);
  }
  std::vector<Value> outs;
  for (std::size_t i = 0; i < out_desc.size(); ++i) {
    Weight w{out_desc[i], data[i], hash_combine(key, i), WeightInit::uniform};
    NodeId id = g_.add(AnyOp(std::move(w)), std::span<Value const>{}, name.empty() ? "folded" : name);
    log_.added.push_back(id);
    outs.push_back({id, 0});
  }
  ++log_.folded;
  return outs;
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template class Rewriter<BuiltinOps>;  // src/defaults/rules_core.cpp
#endif

}  // namespace autograph::rules
