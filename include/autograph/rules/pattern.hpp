#pragma once
// Pattern: a rule's source as data — a small DAG of operator constraints over shared variables —
// and PatternBuilder, the declarative way rules write it:
//
//   PatternBuilder<Set> p;
//   Var x = p.var(), w = p.var();
//   auto conv = p.op(is<Conv2D>, {x, w}).extra_inputs().when([](Conv2D const& c) { return c.act == Activation::none; });
//   auto relu = p.op(is<Relu>, {conv});
//   p.output(relu);                     // the value the target replaces; the last op is the root
//   return std::move(p).build();
//
// A variable used twice is one value (x * sigmoid(x)); a node may accept any of several operator
// types (a concept such as ChannelMergeable); `commutative()` lets a binary node match either
// operand order; `order(a, b)` breaks the symmetry of interchangeable nodes so that each
// unordered set of siblings is matched once. build() plans the match: starting at the root,
// each later node is reached through an edge from a node already bound, and only nodes with no
// such edge are looked up in the type index.
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/rules/match.hpp"
#include "autograph/rules/status.hpp"

namespace autograph::rules {

/// Tag naming an operator type in a pattern: `p.op(is<Conv2D>, {x, w})`.
template <class O>
struct OpTag {
  using type = O;
};
template <class O>
inline constexpr OpTag<O> is{};

/// A pattern operand: a variable, or output `port` of a pattern node.
struct Operand {
  enum class Kind : std::uint8_t { var, node };
  Kind kind = Kind::var;
  std::uint32_t index = 0;
  std::uint32_t port = 0;
  friend bool operator==(Operand, Operand) = default;
};
struct Var : Operand {
  explicit Var(std::uint32_t i) : Operand{Kind::var, i, 0} {}
};

template <class Set>
struct Pattern {
  using G = Graph<Set>;
  using NodeCheck = std::function<Status(G const&, NodeId)>;
  using MatchCheck = std::function<Status(G const&, Match const&)>;

  struct Node {
    boost::container::small_vector<void const*, 2> types;  // accepted AnyOp::type_id()s
    std::vector<Operand> inputs;
    bool extra_inputs = false;  // the graph node may have more inputs than listed (Conv2D's bias)
    bool commutative = false;   // a binary node may match its operands in either order
    std::vector<NodeCheck> checks;
    std::string label;          // for error messages and explain()
  };
  enum class How : std::uint8_t { root, input_of, user_of, by_type };
  struct Step {
    std::uint32_t node = 0;
    How how = How::root;
    std::uint32_t anchor = 0;  // input_of: the bound reader; user_of: unused
    std::uint32_t slot = 0;    // input_of: the reader's input slot; user_of: this node's input slot
    Operand operand;           // user_of: the bound value this node reads
  };
  struct Reader {
    std::uint32_t node, slot, port;
  };

  std::vector<Node> nodes;
  std::uint32_t num_vars = 0;
  std::vector<Operand> outputs;  // node operands, in the order the target replaces them
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ordered;
  std::vector<MatchCheck> checks;
  std::uint32_t root = 0;
  std::vector<Step> plan;
  std::vector<std::vector<Reader>> readers;  // readers[n]: pattern nodes that read node n
};

template <class Set>
class PatternBuilder {
 public:
  using G = Graph<Set>;
  using P = Pattern<Set>;

  /// Handle to a node being declared; chain .when(), .commutative(), .extra_inputs().
  template <class O>
  class NodeRef : public Operand {
   public:
    NodeRef(PatternBuilder* b, std::uint32_t i) : Operand{Kind::node, i, 0}, b_(b) {}
    /// Output `port` of this node (multi-output ops such as Split).
    Operand out(std::uint32_t port) const { return Operand{Kind::node, index, port}; }
    /// A constraint on the matched node: f(op) for a typed node, or f(graph, node_id); returns
    /// bool or Status (a Status names the reason).
    template <class F>
    NodeRef& when(F f) {
      if constexpr (std::is_invocable_v<F&, G const&, NodeId>) {
        node().checks.push_back([f](G const& g, NodeId n) { return to_status(f(g, n)); });
      } else {
        static_assert(!std::is_void_v<O>, "a concept node's constraint takes (graph, node_id)");
        node().checks.push_back([f](G const& g, NodeId n) { return to_status(f(*g[n].op.template get_if<O>())); });
      }
      return *this;
    }
    NodeRef& commutative() {
      if (node().inputs.size() != 2) throw Error("pattern: only binary nodes can be commutative");
      node().commutative = true;
      return *this;
    }
    NodeRef& extra_inputs() {
      node().extra_inputs = true;
      return *this;
    }

   private:
    typename P::Node& node() { return b_->p_.nodes[index]; }
    PatternBuilder* b_;
  };

  Var var() { return Var(p_.num_vars++); }

  template <class O>
  NodeRef<O> op(OpTag<O>, std::initializer_list<Operand> inputs) {
    void const* type = AnyOp::type_id_of<O>();
    return add_node<O>({&type, 1}, inputs, std::string(O::name));
  }
  /// A node matching any of `types` (the operator types of a concept, computed from the set).
  NodeRef<void> op_of(std::span<void const* const> types, std::initializer_list<Operand> inputs, std::string label) {
    return add_node<void>(types, inputs, std::move(label));
  }

  void output(Operand node_output) {
    if (node_output.kind != Operand::Kind::node) throw Error("pattern: an output must be a node's output, not a variable");
    p_.outputs.push_back(node_output);
  }
  /// Interchangeable nodes: accept only mappings where a's graph node id is below b's.
  void order(Operand a, Operand b) { p_.ordered.emplace_back(a.index, b.index); }
  /// A constraint over the whole match (cross-node: "same kernel, stride and padding").
  template <class F>
  void check(F f) {
    p_.checks.push_back([f](G const& g, Match const& m) { return to_status(f(g, m)); });
  }
  /// The node the matcher starts from (default: the last node declared).
  void root(Operand n) {
    root_ = n.index;
    root_set_ = true;
  }

  P build() && {
    if (p_.nodes.empty()) throw Error("pattern: no nodes");
    if (p_.outputs.empty()) throw Error("pattern: no outputs (which source value does the target replace?)");
    p_.root = root_set_ ? root_ : static_cast<std::uint32_t>(p_.nodes.size() - 1);
    plan();
    return std::move(p_);
  }

 private:
  template <class O>
  NodeRef<O> add_node(std::span<void const* const> types, std::initializer_list<Operand> inputs, std::string label) {
    auto i = static_cast<std::uint32_t>(p_.nodes.size());
    for (Operand const& in : inputs)
      if ((in.kind == Operand::Kind::node && in.index >= i) || (in.kind == Operand::Kind::var && in.index >= p_.num_vars))
        throw Error("pattern: node " + std::to_string(i) + " (" + label + ") reads an operand declared after it");
    // Built in place: moving a small_vector whose elements sit in its inline buffer makes
    // GCC 12 at -O3 warn (-Wstringop-overread) that boost's memmove may read past that
    // buffer. It cannot: the count is the vector's size, at most its inline capacity there;
    // GCC only fails to see the bound. Filling the element where it lives needs no move.
    auto& node = p_.nodes.emplace_back();
    node.types.assign(types.begin(), types.end());
    node.inputs.assign(inputs.begin(), inputs.end());
    node.label = std::move(label);
    return NodeRef<O>(this, i);
  }

  // Binding order: from the root, prefer producers of bound nodes (one candidate each), then
  // readers of bound values (the value's users), then the type index (disconnected parts).
  void plan() {
    auto n = static_cast<std::uint32_t>(p_.nodes.size());
    p_.readers.assign(n, {});
    for (std::uint32_t q = 0; q < n; ++q)
      for (std::uint32_t j = 0; j < p_.nodes[q].inputs.size(); ++j)
        if (auto o = p_.nodes[q].inputs[j]; o.kind == Operand::Kind::node) p_.readers[o.index].push_back({q, j, o.port});
    std::vector<char> bound(n, 0), var_bound(p_.num_vars, 0);
    auto bind = [&](std::uint32_t x) {
      bound[x] = 1;
      for (Operand o : p_.nodes[x].inputs)
        if (o.kind == Operand::Kind::var) var_bound[o.index] = 1;
    };
    p_.plan.push_back({p_.root, P::How::root, 0, 0, {}});
    bind(p_.root);
    while (p_.plan.size() < n) {
      bool found = false;
      for (std::uint32_t q = 0; q < n && !found; ++q) {
        if (!bound[q]) continue;
        for (std::uint32_t j = 0; j < p_.nodes[q].inputs.size() && !found; ++j)
          if (auto o = p_.nodes[q].inputs[j]; o.kind == Operand::Kind::node && !bound[o.index]) {
            p_.plan.push_back({o.index, P::How::input_of, q, j, {}});
            bind(o.index);
            found = true;
          }
      }
      for (std::uint32_t x = 0; x < n && !found; ++x) {
        if (bound[x]) continue;
        for (std::uint32_t j = 0; j < p_.nodes[x].inputs.size() && !found; ++j) {
          Operand o = p_.nodes[x].inputs[j];
          if ((o.kind == Operand::Kind::node && bound[o.index]) || (o.kind == Operand::Kind::var && var_bound[o.index])) {
            p_.plan.push_back({x, P::How::user_of, 0, j, o});
            bind(x);
            found = true;
          }
        }
      }
      for (std::uint32_t x = 0; x < n && !found; ++x)
        if (!bound[x]) {
          p_.plan.push_back({x, P::How::by_type, 0, 0, {}});
          bind(x);
          found = true;
        }
    }
    for (std::uint32_t v = 0; v < p_.num_vars; ++v)
      if (!var_bound[v]) throw Error("pattern: variable " + std::to_string(v) + " is declared but no node reads it");
  }

  P p_;
  std::uint32_t root_ = 0;
  bool root_set_ = false;
};

}  // namespace autograph::rules
