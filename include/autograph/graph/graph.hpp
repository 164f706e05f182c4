#pragma once
// Graph<OpSet>: a DAG of typed operators. Nodes live in copy-on-write chunks, so copying a
// graph is cheap and an edit costs about its own size. Every edit checks first and changes
// nothing when it throws.
#include <algorithm>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/graph/detail/cow_vector.hpp"
#include "autograph/graph/value.hpp"
#include "autograph/ops/builtin.hpp"

namespace autograph {

template <class Set = BuiltinOps>
class Graph {
 public:
  using OpSet = Set;
  using Op = AnyOp;

  struct Node {
    Op op;
    std::vector<Value> inputs;
    std::vector<TensorDesc> outputs;
    std::string name;

    std::string_view op_name() const { return op.name(); }
    template <class O>
    bool is() const { return op.template is<O>(); }
    template <class O>
    O const* get_if() const { return op.template get_if<O>(); }
  };

  // ---- reading ----------------------------------------------------------------------------
  /// One past the largest node id ever used (ids of removed nodes are not reused).
  NodeId id_bound() const { return static_cast<NodeId>(slots_.size()); }
  std::size_t num_nodes() const { return live_; }
  bool contains(NodeId id) const { return id < slots_.size() && slots_[id].node.has_value(); }
  bool contains(Value v) const { return contains(v.node) && v.port < slots_[v.node].node->outputs.size(); }

  Node const& node(NodeId id) const {
    check_node(id, "node()");
    return *slots_[id].node;
  }
  Node const& operator[](NodeId id) const { return node(id); }
  TensorDesc const& desc(Value v) const {
    check_value(v, "desc()");
    return slots_[v.node].node->outputs[v.port];
  }
  /// Every reader of every output of `id`, in the order they were connected.
  std::span<Use const> users(NodeId id) const {
    check_node(id, "users()");
    return slots_[id].users;
  }
  /// Readers of one value.
  std::vector<Use> users(Value v) const {
    std::vector<Use> r;
    for (Use u : users(v.node))
      if (node(u.node).inputs[u.input] == v) r.push_back(u);
    return r;
  }
  std::span<Value const> outputs() const { return outputs_; }
  bool is_output(Value v) const { return std::ranges::find(outputs_, v) != outputs_.end(); }
  bool is_output(NodeId id) const {
    return std::ranges::any_of(outputs_, [id](Value v) { return v.node == id; });
  }

  /// Live node ids, ascending.
  auto node_ids() const {
    return std::views::iota(NodeId{0}, id_bound()) | std::views::filter([this](NodeId i) { return contains(i); });
  }
  /// The Input nodes, ascending by id (the order the executor binds positional inputs).
  std::vector<NodeId> inputs() const {
    std::vector<NodeId> r;
    for (NodeId i : node_ids())
      if (node(i).template is<Input>()) r.push_back(i);
    return r;
  }

  // ---- editing ----------------------------------------------------------------------------
  /// Adds a node; infers its output descriptors. Throws ShapeError/GraphError naming the node.
  /// Takes exactly an AnyOp (no implicit conversion), so a concrete op type outside the set
  /// is rejected at compile time by the overloads below.
  template <std::same_as<AnyOp> A>
  NodeId add(A op, std::span<Value const> inputs, std::string name = {}) {
    if (!op.has_value()) throw GraphError("add(): empty operator" + (name.empty() ? std::string{} : " for '" + name + "'"));
    if (!Set::holds(op)) throw GraphError(describe(op, name) + ": the operator type is not in this graph's operator set");
    // The one arity check: every op's infer() relies on it.
    if (std::string why = detail::arity_mismatch(op.arity(), inputs.size()); !why.empty()) throw ShapeError(describe(op, name) + " " + why);
    std::vector<TensorDesc> in;
    in.reserve(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!contains(inputs[i]))
        throw GraphError(describe(op, name) + ": input " + std::to_string(i) + " refers to node " + std::to_string(inputs[i].node) +
                         " port " + std::to_string(inputs[i].port) + ", which does not exist");
      in.push_back(desc(inputs[i]));
    }
    std::vector<TensorDesc> out = infer(op, in, name);
    for (auto const& d : out)
      if (!checked_numel(d.shape.dims()))
        throw ShapeError(describe(op, name) + ": output shape " + d.shape.to_string() + " has more than 2^48 elements (a batch or resolution too large for any device)");
    NodeId id = id_bound();
    slots_.push_back(Slot{Node{std::move(op), std::vector<Value>(inputs.begin(), inputs.end()), std::move(out), std::move(name)}, {}});
    for (std::uint32_t i = 0; i < inputs.size(); ++i) slots_.mutate(inputs[i].node).users.push_back(Use{id, i});
    ++live_;
    return id;
  }
  template <Operator O>
    requires Set::template contains<O>
  NodeId add(O op, std::initializer_list<Value> inputs, std::string name = {}) {
    return add(AnyOp{std::move(op)}, std::span<Value const>(inputs.begin(), inputs.size()), std::move(name));
  }
  template <Operator O>
    requires Set::template contains<O>
  NodeId add(O op, std::span<Value const> inputs, std::string name = {}) {
    return add(AnyOp{std::move(op)}, inputs, std::move(name));
  }

  /// Sets the graph's outputs (in order).
  void set_outputs(std::vector<Value> outs) {
    for (std::size_t i = 0; i < outs.size(); ++i)
      if (!contains(outs[i]))
        throw GraphError("graph output " + std::to_string(i) + " refers to node " + std::to_string(outs[i].node) + " port " +
                         std::to_string(outs[i].port) + ", which does not exist");
    outputs_ = std::move(outs);
  }

  /// Points every reader of `from` (and graph outputs) at `to`. Descriptors must agree.
  void replace_uses(Value from, Value to) {
    check_value(from, "replace_uses()");
    check_value(to, "replace_uses()");
    if (desc(from) != desc(to))
      throw GraphError("cannot replace " + label(from.node) + " output " + std::to_string(from.port) + " (" + desc(from).to_string() +
                       ") by " + label(to.node) + " output " + std::to_string(to.port) + " (" + desc(to).to_string() + ")");
    if (from == to) return;
    for (Use u : users(from)) rewire(u, to);
    for (Value& o : outputs_)
      if (o == from) o = to;
  }

  /// Points input `u.input` of node `u.node` at `to`; the node's inferred outputs must not change.
  void set_input(Use u, Value to) {
    check_node(u.node, "set_input()");
    check_value(to, "set_input()");
    Node const& n = node(u.node);
    if (u.input >= n.inputs.size())
      throw GraphError(label(u.node) + " has no input " + std::to_string(u.input));
    if (desc(n.inputs[u.input]) != desc(to))
      throw GraphError("cannot connect " + desc(to).to_string() + " to input " + std::to_string(u.input) + " of " + label(u.node) +
                       ", which reads " + desc(n.inputs[u.input]).to_string());
    rewire(u, to);
  }

  /// Replaces a node's operator (same inputs); the inferred outputs must not change.
  void replace_op(NodeId id, Op op) {
    check_node(id, "replace_op()");
    Node const& n = node(id);
    if (std::string why = detail::arity_mismatch(op.arity(), n.inputs.size()); !why.empty())
      throw ShapeError("replace_op(): " + describe(op, n.name, id) + " " + why);
    std::vector<TensorDesc> in;
    for (Value v : n.inputs) in.push_back(desc(v));
    auto out = infer(op, in, n.name);
    if (out != n.outputs) throw GraphError("replace_op(): the new operator changes the outputs of " + label(id));
    slots_.mutate(id).node->op = std::move(op);
  }

  /// Removes a node nobody reads and that is not a graph output.
  void remove(NodeId id) {
    check_node(id, "remove()");
    if (!slots_[id].users.empty())
      throw GraphError("cannot remove " + label(id) + ": it still has " + std::to_string(slots_[id].users.size()) + " readers");
    if (is_output(id)) throw GraphError("cannot remove " + label(id) + ": it is a graph output");
    for (Value in : slots_[id].node->inputs) drop_use(in.node, id);
    slots_.mutate(id).node.reset();
    --live_;
  }

  /// Removes every node from which no graph output can be reached (Input nodes stay).
  std::size_t remove_dead() {
    std::vector<char> live(id_bound(), 0);
    std::vector<NodeId> stack;
    for (Value o : outputs_) stack.push_back(o.node);
    while (!stack.empty()) {
      NodeId n = stack.back();
      stack.pop_back();
      if (live[n]) continue;
      live[n] = 1;
      for (Value in : node(n).inputs) stack.push_back(in.node);
    }
    // A dead node's readers are dead too, so peel dead nodes from the readers' end.
    auto removable = [&](NodeId i) { return contains(i) && !live[i] && !node(i).template is<Input>() && slots_[i].users.empty(); };
    std::vector<NodeId> work;
    for (NodeId i : node_ids())
      if (removable(i)) work.push_back(i);
    std::size_t removed = 0;
    while (!work.empty()) {
      NodeId i = work.back();
      work.pop_back();
      if (!removable(i)) continue;
      std::vector<Value> ins = node(i).inputs;
      remove(i);
      ++removed;
      for (Value in : ins)
        if (removable(in.node)) work.push_back(in.node);
    }
    return removed;
  }

  /// "Conv2D 'mixed_5b/conv'" — how errors name a node.
  std::string label(NodeId id) const {
    if (!contains(id)) return "node " + std::to_string(id) + " (removed)";
    return describe(slots_[id].node->op, slots_[id].node->name, id);
  }

 private:
  struct Slot {
    std::optional<Node> node;
    std::vector<Use> users;
  };

  static std::string describe(Op const& op, std::string const& name, NodeId id = no_node) {
    std::string s(op.name());
    if (!name.empty()) s += " '" + name + "'";
    else if (id != no_node) s += " #" + std::to_string(id);
    return s;
  }
  static std::vector<TensorDesc> infer(Op const& op, std::span<TensorDesc const> in, std::string const& name) {
    try {
      return op.infer(in);
    } catch (ShapeError const& e) {
      std::string shapes;
      for (std::size_t i = 0; i < in.size(); ++i) shapes += (i ? ", " : "") + in[i].shape.to_string();
      throw ShapeError(describe(op, name) + " with inputs (" + shapes + "): " + e.what());
    }
  }
  void check_node(NodeId id, char const* where) const {
    if (!contains(id)) throw GraphError(std::string(where) + ": node " + std::to_string(id) + " does not exist");
  }
  void check_value(Value v, char const* where) const {
    check_node(v.node, where);
    if (v.port >= slots_[v.node].node->outputs.size())
      throw GraphError(std::string(where) + ": " + label(v.node) + " has no output " + std::to_string(v.port));
  }
  void rewire(Use u, Value to) {
    Value from = slots_[u.node].node->inputs[u.input];
    if (from == to) return;
    slots_.mutate(u.node).node->inputs[u.input] = to;
    auto& old_users = slots_.mutate(from.node).users;
    old_users.erase(std::ranges::find(old_users, u));
    slots_.mutate(to.node).users.push_back(u);
  }
  void drop_use(NodeId producer, NodeId reader) {
    auto& us = slots_.mutate(producer).users;
    std::erase_if(us, [reader](Use u) { return u.node == reader; });
  }

  detail::CowVector<Slot> slots_;
  std::vector<Value> outputs_;
  std::size_t live_ = 0;
};

}  // namespace autograph
