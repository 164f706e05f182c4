#pragma once
// A graph literal for tests: one line of text is one graph, so a rule test reads as a law.
//
//   graph   := expr (',' expr)*                  one expression per graph output
//   expr    := op params? '(' expr (',' expr)* ')' port?  |  leaf
//   params  := '<' number (',' number)* '>'       concat<1>, transpose<1,0,2>, scale<-1,1>
//   port    := '#' int                           split<1,2,2>(x)#1: the second output
//   leaf    := name (':' shape | ':weight:' shape)?
//   shape   := int ('x' int)*                    x:1x4x8x8; a leaf without one is 2x3
//
// Ops (lower case): add sub mul div max min, relu sigmoid tanh gelu, scale<mul,shift>,
// matmul (and matmul_relu, matmul_sigmoid, matmul_tanh: the fused activation),
// transpose (swaps the last two axes) or transpose<perm...>, concat<axis>, split<axis,sizes...>,
// conv2d<pad> (stride 1, pad on every side; conv2d_relu etc. fused).
// Each distinct leaf name is one Input (labelled by its name) or one data-less Weight; a shape
// may be given at any one mention. The same subexpression text is the same node:
// `add(mul(a,b),mul(a,b))` has one mul. A syntax error throws autograph::Error naming the
// position and what was expected; an op that rejects its inputs throws the graph's ShapeError
// prefixed with the position of the op.
//
// to_literal() prints a graph in the same syntax (ops it cannot spell print as
// `Name[attributes](...)`), so a failing law shows the graph it got as a literal.
#include <autograph/core/error.hpp>
#include <autograph/graph/graph.hpp>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autograph::testing {

namespace detail {

inline Shape const default_leaf_shape{2, 3};

/// One parsed expression: an op application or a leaf.
struct Expr {
  std::size_t pos = 0;
  std::string name;             // op or leaf name
  std::vector<double> params;   // <...>
  std::vector<Expr> args;       // empty for a leaf
  bool is_leaf = true;
  std::optional<std::uint32_t> port;
  std::optional<Shape> shape;   // leaf only
  bool weight = false;          // leaf only
  std::string key;              // canonical text without shapes: equal keys, one node
};

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::vector<Expr> graph() {
    std::vector<Expr> outs{expr()};
    while (eat(',')) outs.push_back(expr());
    skip_space();
    if (i_ != s_.size()) fail("',' or the end of the literal");
    return outs;
  }

 private:
  [[noreturn]] void fail(std::string const& expected) const {
    std::string got = i_ < s_.size() ? "'" + std::string(1, s_[i_]) + "'" : "the end";
    throw Error("graph literal \"" + std::string(s_) + "\" at position " + std::to_string(i_) + ": expected " + expected + ", got " + got);
  }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("'") + c + "'");
  }
  std::string identifier() {
    skip_space();
    std::size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
    if (b == i_ || std::isdigit(static_cast<unsigned char>(s_[b]))) {
      i_ = b;
      fail("a name");
    }
    return std::string(s_.substr(b, i_ - b));
  }
  double number() {
    skip_space();
    std::size_t b = i_;
    if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) ++i_;
    std::string t(s_.substr(b, i_ - b));
    try {
      std::size_t used = 0;
      double v = std::stod(t, &used);
      if (used == t.size()) return v;
    } catch (std::exception const&) {
    }
    i_ = b;
    fail("a number");
  }
  std::int64_t count() {
    skip_space();
    std::size_t b = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (b == i_) fail("a dimension (digits)");
    return std::stoll(std::string(s_.substr(b, i_ - b)));
  }
  Shape shape() {
    std::vector<std::int64_t> dims{count()};
    while (i_ < s_.size() && s_[i_] == 'x') {
      ++i_;
      dims.push_back(count());
    }
    return Shape(dims);
  }

  Expr expr() {
    skip_space();
    Expr e;
    e.pos = i_;
    e.name = identifier();
    e.key = e.name;
    if (eat('<')) {
      do e.params.push_back(number());
      while (eat(','));
      expect('>');
      e.key = e.name + '<' + join(e.params) + '>';
      e.is_leaf = false;
      skip_space();
      if (i_ >= s_.size() || s_[i_] != '(') fail("'(' after the parameters");
    }
    if (eat('(')) {
      e.is_leaf = false;
      e.key += '(';
      do {
        e.args.push_back(expr());
        e.key += (e.args.size() > 1 ? "," : "") + e.args.back().key;
      } while (eat(','));
      expect(')');
      e.key += ')';
      if (eat('#')) {
        e.port = static_cast<std::uint32_t>(count());
        e.key += '#' + std::to_string(*e.port);
      }
    } else if (eat(':')) {
      skip_space();
      if (s_.substr(i_).starts_with("weight")) {
        i_ += 6;
        expect(':');
        e.weight = true;
      }
      e.shape = shape();
    }
    return e;
  }

 public:
  /// A parameter as the literal spells it: 1.5, -1, 2.
  static std::string format(double d) {
    std::string t = std::to_string(d);
    t.erase(t.find_last_not_of('0') + 1);
    if (t.ends_with('.')) t.pop_back();
    return t;
  }

 private:
  static std::string join(std::vector<double> const& v) {
    std::string r;
    for (double d : v) r += (r.empty() ? "" : ",") + format(d);
    return r;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace detail

namespace detail {
inline std::optional<Activation> activation_suffix(std::string_view name, std::string_view base) {
  if (name == base) return Activation::none;
  if (!name.starts_with(base) || name.size() <= base.size() + 1 || name[base.size()] != '_') return std::nullopt;
  std::string_view act = name.substr(base.size() + 1);
  for (Activation a : {Activation::relu, Activation::sigmoid, Activation::tanh, Activation::gelu})
    if (act == to_string(a)) return a;
  return std::nullopt;
}

/// The operator an expression names; `where(e)` prefixes errors with the position.
template <class Set, class Where>
AnyOp make_op(Expr const& e, std::vector<Value> const& in, Graph<Set> const& g, Where const& where) {
  auto params = [&](std::size_t lo, std::size_t hi) {
    if (e.params.size() < lo || e.params.size() > hi)
      throw Error(where(e) + e.name + " takes " + std::to_string(lo) + (lo == hi ? "" : " to " + std::to_string(hi)) + " parameters, got " +
                  std::to_string(e.params.size()));
  };
  auto integer = [&](std::size_t i) { return static_cast<std::int64_t>(e.params[i]); };
  std::string_view n = e.name;
  using Make = AnyOp (*)();
  static std::map<std::string_view, Make> const plain{
      {"add", [] { return AnyOp{Add{}}; }},         {"sub", [] { return AnyOp{Sub{}}; }},
      {"mul", [] { return AnyOp{Mul{}}; }},         {"div", [] { return AnyOp{Div{}}; }},
      {"max", [] { return AnyOp{Max{}}; }},         {"min", [] { return AnyOp{Min{}}; }},
      {"relu", [] { return AnyOp{Relu{}}; }},       {"sigmoid", [] { return AnyOp{Sigmoid{}}; }},
      {"tanh", [] { return AnyOp{Tanh{}}; }},       {"gelu", [] { return AnyOp{Gelu{}}; }},
  };
  if (auto it = plain.find(n); it != plain.end()) {
    params(0, 0);
    return it->second();
  }
  if (n == "scale") {
    params(1, 2);
    return Scale{static_cast<float>(e.params[0]), e.params.size() > 1 ? static_cast<float>(e.params[1]) : 0.f};
  }
  if (n == "concat") {
    params(1, 1);
    return Concat{integer(0)};
  }
  if (n == "split") {
    params(2, 64);
    std::vector<std::int64_t> sizes;
    for (std::size_t i = 1; i < e.params.size(); ++i) sizes.push_back(integer(i));
    return Split{integer(0), sizes};
  }
  if (n == "transpose") {
    params(0, 16);
    std::vector<std::int64_t> perm;
    for (std::size_t i = 0; i < e.params.size(); ++i) perm.push_back(integer(i));
    if (perm.empty() && in.size() == 1) {  // the default: swap the last two axes
      std::size_t rank = g.desc(in[0]).shape.rank();
      for (std::size_t i = 0; i < rank; ++i) perm.push_back(static_cast<std::int64_t>(i));
      if (rank >= 2) std::swap(perm[rank - 1], perm[rank - 2]);
    }
    return Transpose{perm};
  }
  if (auto act = activation_suffix(n, "matmul")) {
    params(0, 0);
    return MatMul{*act};
  }
  if (auto act = activation_suffix(n, "conv2d")) {
    params(0, 1);
    std::int64_t p = e.params.empty() ? 0 : integer(0);
    Conv2D c;
    c.pad = {p, p, p, p};
    c.act = *act;
    return c;
  }
  throw Error(where(e) + "unknown op '" + e.name +
              "' (expected add sub mul div max min relu sigmoid tanh gelu scale matmul transpose concat split conv2d, or a leaf without '(')");
}

}  // namespace detail

/// The graph the literal describes, its expressions in order as the graph's outputs.
template <class Set = BuiltinOps>
Graph<Set> graph_literal(std::string_view text) {
  std::vector<detail::Expr> outs = detail::Parser(text).graph();
  auto where = [&](detail::Expr const& e) { return "graph literal \"" + std::string(text) + "\" at position " + std::to_string(e.pos) + ": "; };
  // Leaves first: a name's shape may be given at any mention.
  struct Leaf {
    std::optional<Shape> shape;
    bool weight = false;
    std::size_t pos = 0;
  };
  std::map<std::string, Leaf> leaves;
  std::function<void(detail::Expr const&)> collect = [&](detail::Expr const& e) {
    for (auto const& a : e.args) collect(a);
    if (!e.is_leaf) return;
    auto [it, fresh] = leaves.try_emplace(e.name, Leaf{e.shape, e.weight, e.pos});
    if (fresh) return;
    if (e.shape && it->second.shape && *e.shape != *it->second.shape)
      throw Error(where(e) + "'" + e.name + "' is " + e.shape->to_string() + " here but " + it->second.shape->to_string() + " before");
    if (e.shape && it->second.shape && e.weight != it->second.weight)
      throw Error(where(e) + "'" + e.name + "' is " + (e.weight ? "a weight" : "an input") + " here but " + (e.weight ? "an input" : "a weight") + " before");
    if (e.shape && !it->second.shape) it->second = Leaf{e.shape, e.weight, e.pos};
  };
  for (auto const& e : outs) collect(e);

  Graph<Set> g;
  std::map<std::string, NodeId> nodes;  // by key: shared subexpressions
  std::uint64_t weight_id = 0;
  for (auto& [name, leaf] : leaves) {  // ascending by name: the same literal always numbers alike
    TensorDesc d{leaf.shape.value_or(detail::default_leaf_shape)};
    // Weight ids count in name order, so two literals naming the same weights build equal ones.
    nodes[name] = leaf.weight ? g.add(Weight{d, nullptr, ++weight_id}, {}, name) : g.add(Input{d, name}, {}, name);
  }
  std::function<Value(detail::Expr const&)> build = [&](detail::Expr const& e) -> Value {
    if (e.is_leaf) return Value{nodes.at(e.name)};
    std::string node_key = e.key.substr(0, e.port ? e.key.rfind('#') : e.key.size());
    auto found = nodes.find(node_key);
    if (found == nodes.end()) {
      std::vector<Value> in;
      for (auto const& a : e.args) in.push_back(build(a));
      AnyOp op = detail::make_op(e, in, g, where);
      try {
        found = nodes.emplace(node_key, g.add(op, std::span<Value const>(in))).first;
      } catch (Error const& err) {
        throw ShapeError(where(e) + err.what());
      }
    }
    std::uint32_t port = e.port.value_or(0);
    if (port >= g[found->second].outputs.size())
      throw Error(where(e) + e.name + " has " + std::to_string(g[found->second].outputs.size()) + " outputs, no #" + std::to_string(port));
    return Value{found->second, port};
  };
  std::vector<Value> out_values;
  for (auto const& e : outs) out_values.push_back(build(e));
  g.set_outputs(out_values);
  return g;
}

/// `g` in the literal syntax: one expression per output, shared nodes written out each time.
template <class Set>
std::string to_literal(Graph<Set> const& g) {
  std::map<NodeId, bool> shape_shown;  // a leaf's shape is written at its first mention only
  std::function<std::string(Value)> print = [&](Value v) -> std::string {
    auto const& n = g[v.node];
    auto shape_suffix = [&](TensorDesc const& d, std::string prefix) -> std::string {
      if (shape_shown[v.node] || (prefix.empty() && d.shape == detail::default_leaf_shape)) return "";
      shape_shown[v.node] = true;
      std::string s;
      for (std::size_t i = 0; i < d.shape.rank(); ++i) s += (i ? "x" : "") + std::to_string(d.shape[i]);
      return ":" + prefix + s;
    };
    if (auto const* in = n.template get_if<Input>()) return in->label + shape_suffix(in->desc, "");
    if (auto const* w = n.template get_if<Weight>()) return (n.name.empty() ? "w" + std::to_string(w->id) : n.name) + shape_suffix(w->desc, "weight:");
    std::string head;
    auto ints = [](auto const& v) {
      std::string s;
      for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
      return s;
    };
    auto act = [](Activation a) { return a == Activation::none ? std::string{} : "_" + std::string(to_string(a)); };
    if (auto const* c = n.template get_if<Concat>()) head = "concat<" + std::to_string(c->axis) + ">";
    else if (auto const* s = n.template get_if<Split>()) head = "split<" + std::to_string(s->axis) + "," + ints(s->sizes) + ">";
    else if (auto const* t = n.template get_if<Transpose>()) {
      std::vector<std::int64_t> swap_last(t->perm.size());
      for (std::size_t i = 0; i < swap_last.size(); ++i) swap_last[i] = static_cast<std::int64_t>(i);
      if (swap_last.size() >= 2) std::swap(swap_last[swap_last.size() - 1], swap_last[swap_last.size() - 2]);
      head = t->perm == swap_last ? "transpose" : "transpose<" + ints(t->perm) + ">";
    } else if (auto const* sc = n.template get_if<Scale>()) {
      head = "scale<" + detail::Parser::format(sc->scale) + "," + detail::Parser::format(sc->shift) + ">";
    } else if (auto const* m = n.template get_if<MatMul>()) head = "matmul" + act(m->act);
    else if (auto const* cv = n.template get_if<Conv2D>(); cv && cv->stride == std::array<std::int64_t, 2>{1, 1} &&
             cv->dilation == std::array<std::int64_t, 2>{1, 1} && cv->groups == 1 && cv->pad[0] == cv->pad[1] && cv->pad[0] == cv->pad[2] &&
             cv->pad[0] == cv->pad[3])
      head = "conv2d" + act(cv->act) + (cv->pad[0] ? "<" + std::to_string(cv->pad[0]) + ">" : "");
    else {
      head = std::string(n.op_name());
      bool spelled = true;
      for (char& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      spelled = head == "add" || head == "sub" || head == "mul" || head == "div" || head == "max" || head == "min" || head == "relu" ||
                head == "sigmoid" || head == "tanh" || head == "gelu";
      if (!spelled) head = std::string(n.op_name()) + "[" + n.op.attributes() + "]";
    }
    std::string r = head + "(";
    for (std::size_t i = 0; i < n.inputs.size(); ++i) r += (i ? "," : "") + print(n.inputs[i]);
    r += ")";
    if (n.outputs.size() > 1) r += "#" + std::to_string(v.port);
    return r;
  };
  std::string r;
  for (Value o : g.outputs()) r += (r.empty() ? "" : ", ") + print(o);
  return r;
}

}  // namespace autograph::testing
