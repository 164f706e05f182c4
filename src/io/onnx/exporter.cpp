// The ONNX exporter (declared in autograph/io/onnx/exporter.hpp). Every graph value gets a
// unique ONNX name; nodes are written in topological order, each built-in op as the standard
// ONNX operators that compute it.
#include "autograph/io/onnx/exporter.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <numbers>
#include <set>

#include "autograph/graph/topological_order.hpp"

namespace autograph {
namespace {

/// Float to IEEE half, round to nearest even (for float16 graphs).
std::uint16_t float_to_half(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0u));  // inf, nan
  if (mag >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);                                       // overflow
  if (mag < 0x38800000u) {  // subnormal or zero
    float scaled = std::bit_cast<float>(mag) * 16777216.f;  // 2^24: the half subnormal unit becomes 1
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
  }
  std::uint32_t rounded = mag + 0xfffu + ((mag >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

int elem_type(DType t) { return t == DType::float16 ? ::onnx::TensorProto::FLOAT16 : ::onnx::TensorProto::FLOAT; }

class Exporter {
 public:
  Exporter(Graph<BuiltinOps> const& g, OnnxExportOptions const& opt) : g_(g), opt_(opt) {}

  ::onnx::ModelProto run() {
    ::onnx::ModelProto m;
    m.set_ir_version(::onnx::IR_VERSION);
    m.set_producer_name(opt_.producer_name);
    if (!opt_.doc.empty()) m.set_doc_string(opt_.doc);
    m.add_opset_import()->set_version(onnx_export_opset);
    graph_ = m.mutable_graph();
    graph_->set_name(opt_.graph_name);
    if (!opt_.output_names.empty() && opt_.output_names.size() != g_.outputs().size())
      throw OnnxExportError(std::to_string(opt_.output_names.size()) + " output names for " + std::to_string(g_.outputs().size()) + " outputs");

    // Input labels are the model's interface: they keep their names.
    for (NodeId id : g_.inputs()) {
      auto const& in = *g_[id].get_if<Input>();
      if (in.label.empty()) throw OnnxExportError(g_.label(id) + " has no label; ONNX inputs need names");
      if (!used_.insert(in.label).second) throw OnnxExportError("two graph inputs are named '" + in.label + "'");
      names_[Value{id, 0}] = in.label;
      value_info(graph_->add_input(), in.label, in.desc);
    }
    // Outputs produced by an operator take the requested names directly; the rest (a weight
    // or an input passed through, a value listed twice) get an Identity below. Requested names
    // are reserved first so no other value takes them.
    std::vector<bool> via_identity(g_.outputs().size(), false);
    std::set<std::string> requested;
    for (std::size_t i = 0; i < opt_.output_names.size(); ++i) {
      std::string const& want = opt_.output_names[i];
      Value v = g_.outputs()[i];
      bool passthrough = g_[v.node].is<Input>() && names_[v] == want;  // an input that is also an output
      if (want.empty() || !requested.insert(want).second || (used_.count(want) && !passthrough))
        throw OnnxExportError("output name '" + want + "' is empty, repeated, or the name of an input");
    }
    used_.insert(requested.begin(), requested.end());
    for (std::size_t i = 0; i < g_.outputs().size(); ++i) {
      Value v = g_.outputs()[i];
      bool named = names_.count(v) != 0;
      if (!opt_.output_names.empty() && named && names_[v] == opt_.output_names[i]) continue;  // an input passed through
      if (opt_.output_names.empty() || g_[v.node].op.is_source() || named) {
        via_identity[i] = g_[v.node].op.is_source() || named;
        continue;
      }
      names_[v] = opt_.output_names[i];
    }

    for (NodeId id : topological_order(g_)) node(id);

    for (std::size_t i = 0; i < g_.outputs().size(); ++i) {
      Value v = g_.outputs()[i];
      std::string name = name_of(v);
      if (via_identity[i]) {
        std::string want = opt_.output_names.empty() ? fresh("output_" + std::to_string(i)) : opt_.output_names[i];
        add_node("Identity", {name}, {want}, want);
        name = want;
      }
      value_info(graph_->add_output(), name, g_.desc(v));
    }
    return m;
  }

 private:
  // ---- names ------------------------------------------------------------------------------
  std::string fresh(std::string base) {
    if (base.empty()) base = "value";
    std::string name = base;
    for (int k = 1; !used_.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    return name;
  }
  std::string base_name(NodeId id) const {
    auto const& n = g_[id];
    return n.name.empty() ? std::string(n.op_name()) + "_" + std::to_string(id) : n.name;
  }
  /// The ONNX name of a value, made on first use.
  std::string name_of(Value v) {
    if (auto it = names_.find(v); it != names_.end()) return it->second;
    std::string base = base_name(v.node);
    if (g_[v.node].outputs.size() > 1) base += ":" + std::to_string(v.port);
    return names_[v] = fresh(base);
  }

  static void value_info(::onnx::ValueInfoProto* vi, std::string const& name, TensorDesc const& d) {
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type(d.dtype));
    auto* s = t->mutable_shape();
    for (std::int64_t dim : d.shape) s->add_dim()->set_dim_value(dim);
  }

  // ---- building blocks --------------------------------------------------------------------
  ::onnx::NodeProto* add_node(std::string const& op, std::vector<std::string> const& in, std::vector<std::string> const& out,
                              std::string const& name) {
    auto* n = graph_->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto const& s : in) n->add_input(s);
    for (auto const& s : out) n->add_output(s);
    return n;
  }
  static void attr(::onnx::NodeProto* n, std::string const& name, std::int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr(::onnx::NodeProto* n, std::string const& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr(::onnx::NodeProto* n, std::string const& name, std::string const& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  static void attr(::onnx::NodeProto* n, std::string const& name, std::span<std::int64_t const> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  /// An int64 initializer (shapes, axes, pads).
  std::string ints_constant(std::string const& base, std::span<std::int64_t const> v) {
    auto* t = graph_->add_initializer();
    t->set_name(fresh(base));
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(static_cast<std::int64_t>(v.size()));
    t->set_raw_data(std::string(reinterpret_cast<char const*>(v.data()), v.size() * sizeof(std::int64_t)));
    return t->name();
  }
  /// A float initializer of the given shape, in the graph's float type, named `base` made unique.
  std::string floats_constant(std::string const& base, Shape const& shape, std::span<float const> v, DType dtype) {
    return float_initializer(fresh(base), shape, v, dtype);
  }
  std::string float_initializer(std::string const& name, Shape const& shape, std::span<float const> v, DType dtype) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    for (auto d : shape) t->add_dims(d);
    t->set_data_type(elem_type(dtype));
    if (dtype == DType::float16) {
      std::string bytes(v.size() * 2, '\0');
      for (std::size_t i = 0; i < v.size(); ++i) {
        std::uint16_t h = float_to_half(v[i]);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
      }
      t->set_raw_data(bytes);
    } else {
      t->set_raw_data(std::string(reinterpret_cast<char const*>(v.data()), v.size() * sizeof(float)));
    }
    return t->name();
  }
  std::string scalar(std::string const& base, float v, DType dtype) {
    float one[] = {v};
    return floats_constant(base, Shape{}, one, dtype);
  }
  /// y = GELU(x) = 0.5 x (1 + erf(x / sqrt 2)) in ONNX's primitive ops (opset 17 has no Gelu;
  /// opset 20 added it).
  void gelu(std::string const& x, std::string const& y, std::string const& base, DType dt) {
    std::string scaled = fresh(base + "/scaled"), e = fresh(base + "/erf"), one_plus = fresh(base + "/one_plus"), xe = fresh(base + "/x_times");
    add_node("Mul", {x, scalar(base + "/inv_sqrt2", static_cast<float>(1.0 / std::numbers::sqrt2), dt)}, {scaled}, base + "/scale");
    add_node("Erf", {scaled}, {e}, base + "/erf");
    add_node("Add", {e, scalar(base + "/one", 1.f, dt)}, {one_plus}, base + "/add_one");
    add_node("Mul", {x, one_plus}, {xe}, base + "/mul_x");
    add_node("Mul", {xe, scalar(base + "/half", 0.5f, dt)}, {y}, base);
  }
  /// y = act(x), the activation of a fused Conv/MatMul, as its ONNX node(s).
  void activation(Activation a, std::string const& x, std::string const& y, std::string const& base, DType dt) {
    switch (a) {
      case Activation::relu: add_node("Relu", {x}, {y}, base); return;
      case Activation::sigmoid: add_node("Sigmoid", {x}, {y}, base); return;
      case Activation::tanh: add_node("Tanh", {x}, {y}, base); return;
      case Activation::gelu: gelu(x, y, base, dt); return;
      case Activation::none: add_node("Identity", {x}, {y}, base); return;
    }
  }

  /// Conv (with its activation after it) from inputs `in` to `y`.
  void conv(Conv2D const& c, std::vector<std::string> const& in, std::string const& y, Shape const& w, std::string const& base, DType dt) {
    ::onnx::NodeProto* k = nullptr;
    if (c.act == Activation::none) {
      k = add_node("Conv", in, {y}, base);
    } else {
      std::string mid = fresh(base + "/pre_activation");
      k = add_node("Conv", in, {mid}, base);
      activation(c.act, mid, y, base + "/activation", dt);
    }
    std::int64_t ks[] = {w[2], w[3]};
    attr(k, "kernel_shape", ks);
    attr(k, "strides", c.stride);
    attr(k, "pads", c.pad);
    attr(k, "dilations", c.dilation);
    attr(k, "group", c.groups);
  }
  /// act(a b + bias): ONNX's MatMul, then an Add of the bias (broadcast along the rows), then
  /// the activation.
  void matmul(MatMul const& m, std::vector<std::string> const& in, std::string const& y, std::string const& base, DType dt) {
    bool bias = in.size() == 3, act = m.act != Activation::none;
    std::string prod = bias || act ? fresh(base + "/product") : y;
    add_node("MatMul", {in[0], in[1]}, {prod}, base);
    if (bias) {
      std::string biased = act ? fresh(base + "/biased") : y;
      add_node("Add", {prod, in[2]}, {biased}, base + "/bias");
      prod = biased;
    }
    if (act) activation(m.act, prod, y, base + "/activation", dt);
  }
  /// An epilogue's chain over the producer's output `x`, one ONNX node (or GELU's few) per
  /// step; the last writes `y`.
  template <class Producer>
  void chain(Epilogue<Producer> const& e, std::vector<std::string> const& in, std::string x, std::string const& y, std::string const& base,
             DType dt) {
    std::size_t operand = e.producer_inputs();
    for (std::size_t i = 0; i < e.count; ++i) {
      EpilogueStep const& s = e.steps[i];
      std::string step = base + "/step" + std::to_string(i);
      std::string to = i + 1 == e.count ? y : fresh(step);
      switch (s.kind) {
        case EpilogueKind::add: add_node("Add", {x, in[operand++]}, {to}, step); break;
        case EpilogueKind::mul: add_node("Mul", {x, in[operand++]}, {to}, step); break;
        case EpilogueKind::activation: activation(s.act, x, to, step, dt); break;
        case EpilogueKind::scale: {
          std::string scaled = fresh(step + "/scaled");
          add_node("Mul", {x, scalar(step + "/scale", s.scale, dt)}, {scaled}, step + "/mul");
          add_node("Add", {scaled, scalar(step + "/shift", s.shift, dt)}, {to}, step);
          break;
        }
      }
      x = to;
    }
  }

  // ---- one graph node -----------------------------------------------------------------------
  void node(NodeId id) {
    auto const& n = g_[id];
    AnyOp const& op = n.op;
    if (op.is<Input>()) return;
    std::string base = base_name(id);
    DType dt = n.outputs.empty() ? DType::float32 : n.outputs[0].dtype;
    if (auto const* w = op.get_if<Weight>()) {
      if (!w->data)
        throw OnnxExportError(g_.label(id) + " " + w->desc.shape.to_string() +
                          " has no data; ONNX needs weight values (load them, or call fill_random_weights(graph, seed))");
      names_[Value{id, 0}] = float_initializer(fresh(base), w->desc.shape, *w->data, w->desc.dtype);
      return;
    }
    std::vector<std::string> in;
    for (Value v : n.inputs) in.push_back(name_of(v));
    std::vector<std::string> out;
    for (std::uint32_t p = 0; p < n.outputs.size(); ++p) out.push_back(name_of(Value{id, p}));
    std::string const& y = out[0];

    if (auto const* c = op.get_if<Conv2D>()) {
      conv(*c, in, y, g_.desc(n.inputs[1]).shape, base, dt);
    } else if (auto const* ce = op.get_if<Conv2DEpilogue>()) {
      std::string produced = fresh(base + "/produced");
      conv(ce->producer, std::vector(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(ce->producer_inputs())), produced,
           g_.desc(n.inputs[1]).shape, base, dt);
      chain(*ce, in, produced, y, base, dt);
    } else if (auto const* me = op.get_if<MatMulEpilogue>()) {
      std::string produced = fresh(base + "/produced");
      matmul(me->producer, std::vector(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(me->producer_inputs())), produced, base, dt);
      chain(*me, in, produced, y, base, dt);
    } else if (auto const* t = op.get_if<ConvTranspose2D>()) {
      auto* k = add_node("ConvTranspose", in, out, base);
      Shape const& w = g_.desc(n.inputs[1]).shape;
      std::int64_t ks[] = {w[2], w[3]};
      attr(k, "kernel_shape", ks);
      attr(k, "strides", t->stride);
      attr(k, "pads", t->pad);
      attr(k, "dilations", t->dilation);
      attr(k, "output_padding", t->output_padding);
      attr(k, "group", t->groups);
    } else if (auto const* p = op.get_if<Pool2D>()) {
      bool max = p->kind == PoolKind::max;
      if (p->global) {
        add_node(max ? "GlobalMaxPool" : "GlobalAveragePool", in, out, base);
      } else {
        auto* k = add_node(max ? "MaxPool" : "AveragePool", in, out, base);
        attr(k, "kernel_shape", p->kernel);
        attr(k, "strides", p->stride);
        attr(k, "pads", p->pad);
        attr(k, "ceil_mode", std::int64_t{p->ceil_mode});
        if (!max) attr(k, "count_include_pad", std::int64_t{p->count_include_pad});
      }
    } else if (auto const* mm = op.get_if<MatMul>()) {
      matmul(*mm, in, y, base, dt);
    } else if (auto const* fa = op.get_if<FusedAttention>()) {
      // softmax(scale (q kT) [+ mask]) v in its primitive ops, so that onnxruntime runs it.
      std::string scores = fresh(base + "/scores"), scaled = fresh(base + "/scaled"), probs = fresh(base + "/probs");
      add_node("MatMul", {in[0], in[1]}, {scores}, base + "/scores");
      add_node("Mul", {scores, scalar(base + "/scale", fa->scale, dt)}, {scaled}, base + "/scale");
      if (in.size() == 4) {
        std::string masked = fresh(base + "/masked");
        add_node("Add", {scaled, in[3]}, {masked}, base + "/mask");
        scaled = masked;
      }
      attr(add_node("Softmax", {scaled}, {probs}, base + "/softmax"), "axis", std::int64_t{-1});
      add_node("MatMul", {probs, in[2]}, out, base);
    } else if (auto const* aln = op.get_if<AddLayerNorm>()) {
      // The sum (output 1 when kept), then LayerNormalization of it.
      std::string sum = aln->keep_sum ? out[1] : fresh(base + "/sum");
      add_node("Add", {in[0], in[1]}, {sum}, base + "/add");
      auto* k = add_node("LayerNormalization", {sum, in[2], in[3]}, {y}, base);
      attr(k, "axis", aln->axis);
      attr(k, "epsilon", aln->epsilon);
    } else if (op.is<Add>() || op.is<Sub>() || op.is<Mul>() || op.is<Div>() || op.is<Pow>() || op.is<Max>() || op.is<Min>()) {
      add_node(std::string(op.name()), in, out, base);
    } else if (op.is<Relu>() || op.is<Sigmoid>() || op.is<Tanh>() || op.is<Exp>() || op.is<Log>() || op.is<Sqrt>() || op.is<Erf>() ||
               op.is<Neg>() || op.is<Abs>() || op.is<Reciprocal>() || op.is<HardSwish>() || op.is<Identity>()) {
      add_node(std::string(op.name()), in, out, base);
    } else if (auto const* lr = op.get_if<LeakyRelu>()) {
      attr(add_node("LeakyRelu", in, out, base), "alpha", lr->alpha);
    } else if (auto const* hs = op.get_if<HardSigmoid>()) {
      auto* k = add_node("HardSigmoid", in, out, base);
      attr(k, "alpha", hs->alpha);
      attr(k, "beta", hs->beta);
    } else if (auto const* cl = op.get_if<Clip>()) {
      add_node("Clip", {in[0], scalar(base + "/min", cl->alpha, dt), scalar(base + "/max", cl->beta, dt)}, out, base);
    } else if (op.is<Gelu>()) {
      gelu(in[0], y, base, dt);
    } else if (auto const* s = op.get_if<Scale>()) {
      bool mul = s->scale != 1.f, add = s->shift != 0.f;
      if (!mul && !add) {
        add_node("Identity", in, out, base);
      } else {
        std::string x = in[0];
        if (mul) {
          std::string mid = add ? fresh(base + "/scaled") : y;
          add_node("Mul", {x, scalar(base + "/scale", s->scale, dt)}, {mid}, add ? base + "/mul" : base);
          x = mid;
        }
        if (add) add_node("Add", {x, scalar(base + "/shift", s->shift, dt)}, out, base);
      }
    } else if (auto const* bn = op.get_if<BatchNorm>()) {
      attr(add_node("BatchNormalization", in, out, base), "epsilon", bn->epsilon);
    } else if (auto const* ln = op.get_if<LayerNorm>()) {
      auto* k = add_node("LayerNormalization", in, out, base);
      attr(k, "axis", ln->axis);
      attr(k, "epsilon", ln->epsilon);
    } else if (auto const* sm = op.get_if<Softmax>()) {
      attr(add_node("Softmax", in, out, base), "axis", sm->axis);
    } else if (auto const* cc = op.get_if<Concat>()) {
      attr(add_node("Concat", in, out, base), "axis", cc->axis);
    } else if (auto const* sp = op.get_if<Split>()) {
      attr(add_node("Split", {in[0], ints_constant(base + "/split", sp->sizes)}, out, base), "axis", sp->axis);
    } else if (op.is<Reshape>()) {
      // The resolved output shape: no -1 to infer, and zeros are literal (allowzero).
      Shape const& s = n.outputs[0].shape;
      std::vector<std::int64_t> dims(s.begin(), s.end());
      auto* k = add_node("Reshape", {in[0], ints_constant(base + "/shape", dims)}, out, base);
      if (std::ranges::find(dims, 0) != dims.end()) attr(k, "allowzero", std::int64_t{1});
    } else if (auto const* tr = op.get_if<Transpose>()) {
      attr(add_node("Transpose", in, out, base), "perm", tr->perm);
    } else if (auto const* sl = op.get_if<Slice>()) {
      std::vector<std::string> ins{in[0], ints_constant(base + "/starts", sl->starts), ints_constant(base + "/ends", sl->ends),
                                   ints_constant(base + "/axes", sl->axes)};
      if (!sl->steps.empty()) ins.push_back(ints_constant(base + "/steps", sl->steps));
      add_node("Slice", ins, out, base);
    } else if (auto const* pd = op.get_if<Pad>()) {
      add_node("Pad", {in[0], ints_constant(base + "/pads", pd->pads), scalar(base + "/value", pd->value, dt)}, out, base);
    } else if (auto const* en = op.get_if<Enlarge>()) {
      Shape const& w = g_.desc(n.inputs[0]).shape;
      std::int64_t top = (en->kernel[0] - w[2]) / 2, left = (en->kernel[1] - w[3]) / 2;
      std::int64_t pads[] = {0, 0, top, left, 0, 0, en->kernel[0] - w[2] - top, en->kernel[1] - w[3] - left};
      add_node("Pad", {in[0], ints_constant(base + "/pads", pads)}, out, base);
    } else if (auto const* r = op.get_if<Reduce>()) {
      if (r->kind == ReduceKind::mean) {
        auto* k = add_node("ReduceMean", in, out, base);
        if (!r->axes.empty()) attr(k, "axes", r->axes);
        attr(k, "keepdims", std::int64_t{r->keepdims});
      } else {
        std::vector<std::string> ins{in[0]};
        if (!r->axes.empty()) ins.push_back(ints_constant(base + "/axes", r->axes));
        attr(add_node("ReduceSum", ins, out, base), "keepdims", std::int64_t{r->keepdims});
      }
    } else if (auto const* rs = op.get_if<Resize>()) {
      std::vector<std::string> ins{in[0], "", ""};
      if (rs->coordinate == ResizeCoordinate::tf_crop_and_resize) {
        std::vector<float> roi(rs->roi.begin(), rs->roi.end());
        ins[1] = floats_constant(base + "/roi", Shape{static_cast<std::int64_t>(roi.size())}, roi, DType::float32);
      }
      if (!rs->scales.empty()) {
        std::vector<float> sc(rs->scales.begin(), rs->scales.end());
        ins[2] = floats_constant(base + "/scales", Shape{static_cast<std::int64_t>(sc.size())}, sc, DType::float32);
      } else {
        ins.push_back(ints_constant(base + "/sizes", rs->sizes));
      }
      auto* k = add_node("Resize", ins, out, base);
      attr(k, "mode", std::string(to_string(rs->mode)));
      attr(k, "coordinate_transformation_mode", std::string(to_string(rs->coordinate)));
      attr(k, "nearest_mode", std::string(to_string(rs->nearest)));
      attr(k, "cubic_coeff_a", rs->cubic_coeff_a);
      attr(k, "exclude_outside", std::int64_t{rs->exclude_outside});
      attr(k, "extrapolation_value", rs->extrapolation_value);
    } else {
      throw OnnxExportError(g_.label(id) + ": operator " + std::string(op.name()) + " has no ONNX form");
    }
  }

  Graph<BuiltinOps> const& g_;
  OnnxExportOptions const& opt_;
  ::onnx::GraphProto* graph_ = nullptr;
  std::map<Value, std::string> names_;
  std::set<std::string> used_;
};

}  // namespace

::onnx::ModelProto export_onnx_model(Graph<BuiltinOps> const& g, OnnxExportOptions const& options) { return Exporter(g, options).run(); }

void export_onnx(Graph<BuiltinOps> const& g, std::filesystem::path const& path, OnnxExportOptions const& options) {
  ::onnx::ModelProto m = export_onnx_model(g, options);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw OnnxExportError("cannot write " + path.string());
  if (!m.SerializeToOstream(&out)) throw OnnxExportError("cannot serialize the model to " + path.string() + " (over 2 GiB?)");
  out.close();
  if (!out) throw OnnxExportError("cannot write " + path.string());
}

}  // namespace autograph
