#pragma once
// Graphviz DOT export. Nodes show op type, name and attributes; edges show the tensor shape.
// A colouring callback lets schedules draw one colour per stream.
#include <functional>
#include <ostream>
#include <sstream>
#include <string>

#include "autograph/graph/graph.hpp"

namespace autograph {

struct DotOptions {
  bool show_weights = false;                       // weights clutter big models
  std::function<std::string(NodeId)> fill_color = {};  // e.g. per stream; empty string: default
  std::string title = {};
};

namespace detail {
inline std::string dot_escape(std::string_view s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}
}  // namespace detail

template <class Set>
void write_dot(std::ostream& os, Graph<Set> const& g, DotOptions const& opt = {}) {
  os << "digraph autograph {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f4f4f4\", fontname=\"Helvetica\"];\n";
  if (!opt.title.empty()) os << "  label=\"" << detail::dot_escape(opt.title) << "\";\n";
  auto shown = [&](NodeId id) { return opt.show_weights || !g[id].template is<Weight>(); };
  for (NodeId id : g.node_ids()) {
    if (!shown(id)) continue;
    auto const& n = g[id];
    std::string attrs = n.op.attributes();
    os << "  n" << id << " [label=\"" << n.op_name();
    if (!n.name.empty()) os << "\\n" << detail::dot_escape(n.name);
    if (!attrs.empty()) os << "\\n" << detail::dot_escape(attrs);
    os << "\"";
    if (opt.fill_color) {
      std::string c = opt.fill_color(id);
      if (!c.empty()) os << ", fillcolor=\"" << detail::dot_escape(c) << "\"";
    }
    if (n.template is<Input>()) os << ", shape=ellipse";
    os << "];\n";
  }
  for (NodeId id : g.node_ids()) {
    if (!shown(id)) continue;
    for (Value in : g[id].inputs) {
      if (!shown(in.node)) continue;
      os << "  n" << in.node << " -> n" << id << " [label=\"" << g.desc(in).shape.to_string() << "\"];\n";
    }
  }
  for (std::size_t i = 0; i < g.outputs().size(); ++i) {
    Value o = g.outputs()[i];
    os << "  out" << i << " [label=\"output " << i << "\", shape=ellipse];\n  n" << o.node << " -> out" << i << ";\n";
  }
  os << "}\n";
}

template <class Set>
std::string to_dot(Graph<Set> const& g, DotOptions const& opt = {}) {
  std::ostringstream os;
  write_dot(os, g, opt);
  return os.str();
}

}  // namespace autograph
