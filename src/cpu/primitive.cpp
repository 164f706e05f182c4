// The oneDNN plumbing the CPU kernels share (primitive.hpp).
#include "primitive.hpp"

#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace autograph::cpu::builtin::detail {

dnnl::engine const& engine() {
  static dnnl::engine const e(dnnl::engine::kind::cpu, 0);
  return e;
}

Dims dims_of(Shape const& s) {
  if (s.rank() == 0) return {1};
  return Dims(s.begin(), s.end());
}

memory::desc plain(Shape const& s) {
  Dims d = dims_of(s), st(d.size());
  std::int64_t acc = 1;
  for (std::size_t i = d.size(); i-- > 0;) {
    st[i] = acc;
    acc *= d[i];
  }
  return strided(d, st);
}

memory::desc strided(Dims const& dims, Dims const& strides) { return memory::desc(dims, memory::data_type::f32, strides); }

memory::desc laid_out(Shape const& s, Layout layout) {
  if (layout == Layout::plain || s.rank() != 4) return plain(s);
  auto st = layout_strides(s, layout);
  return strided(dims_of(s), Dims(st.begin(), st.begin() + s.rank()));
}
memory::desc input_desc(Preparation const& p, std::size_t i) { return laid_out(p.inputs()[i].shape, p.input_layout(i)); }
memory::desc output_desc(Preparation const& p, std::size_t o) { return laid_out(p.outputs()[o].shape, p.output_layout(o)); }

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

namespace {

/// One primitive with its memory objects, bound to the node's final pointers.
struct Bound {
  dnnl::primitive primitive;
  dnnl::stream stream;
  std::vector<memory> memories;  // keeps the handles alive
  std::vector<dnnl_exec_arg_t> args;
  std::string name;              // "<label>: oneDNN <kind> (<implementation>)"
};

void* pointer(Io const& io, From from, std::size_t index, std::int64_t offset_bytes) {
  void* base = from == From::input       ? const_cast<float*>(io.in[index])  // oneDNN takes a non-const handle; it only reads sources
               : from == From::output    ? static_cast<void*>(io.out[index])
                                         : io.workspace[index];
  return static_cast<char*>(base) + offset_bytes;
}

}  // namespace

void register_primitive(Preparation& p, std::string const& kind, dnnl::primitive_desc_base const& pd, dnnl::primitive const& prim,
                        std::vector<Arg> args) {
  std::size_t scratch = pd.scratchpad_desc().get_size();
  if (scratch > 0) args.push_back({DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc(), From::workspace, p.workspace(scratch)});
  std::string what = "oneDNN " + kind + " (" + pd.impl_info_str() + ")";
  p.run(what, [prim, args = std::move(args), name = p.label() + ": " + what](Io const& io) -> Runner {
    auto b = std::make_shared<Bound>();
    b->primitive = prim;
    b->name = name;
    try {
      b->stream = dnnl::stream(engine());
      for (Arg const& a : args) {
        void* ptr = pointer(io, a.from, a.index, a.offset_bytes);
        if (!a.reorder_from) {
          b->memories.emplace_back(a.desc, engine(), ptr);
        } else {  // a constant in our layout: into the primitive's, once
          memory source(*a.reorder_from, engine(), ptr), target(a.desc, engine());
          dnnl::reorder(source, target).execute(b->stream, source, target);
          b->stream.wait();
          b->memories.push_back(target);
        }
        b->args.push_back({a.id, b->memories.back().get()});
      }
    } catch (dnnl::error const& e) {
      throw ExecutionError(name + ": binding failed: " + e.what());
    }
    return [b] {
      dnnl_status_t s = dnnl_primitive_execute(b->primitive.get(), b->stream.get(), static_cast<int>(b->args.size()), b->args.data());
      if (s != dnnl_success) throw ExecutionError(b->name + ": " + dnnl_status2str(s));
    };
  });
}

dnnl::reorder::primitive_desc reorder_pd(Preparation const& p, std::string const& what, memory::desc const& from, memory::desc const& to) {
  return or_reject(p, what, [&] { return dnnl::reorder::primitive_desc(engine(), from, engine(), to, user_scratchpad()); });
}

Arg input_as(Preparation& p, int id, std::size_t i, memory::desc const& have, memory::desc const& want) {
  if (have == want) return {id, have, From::input, i};
  if (p.constant_input(i)) return {id, want, From::input, i, 0, have};
  std::size_t ws = p.workspace(want.get_size());
  auto pd = reorder_pd(p, "reorder of input " + std::to_string(i) + " " + p.inputs()[i].shape.to_string(), have, want);
  run_primitive<dnnl::reorder>(p, "reorder", pd, {{DNNL_ARG_FROM, have, From::input, i}, {DNNL_ARG_TO, want, From::workspace, ws}});
  return {id, want, From::workspace, ws};
}

Arg output_as(Preparation& p, int id, std::size_t o, memory::desc const& produced, memory::desc const& out) {
  if (produced == out) return {id, produced, From::output, o};
  return {id, produced, From::workspace, p.workspace(produced.get_size())};
}

void finish_output(Preparation& p, Arg const& produced, std::size_t o, memory::desc const& out) {
  if (produced.from == From::output) return;
  auto pd = reorder_pd(p, "reorder of output " + std::to_string(o) + " " + p.outputs()[o].shape.to_string(), produced.desc, out);
  run_primitive<dnnl::reorder>(p, "reorder", pd,
                {{DNNL_ARG_FROM, produced.desc, From::workspace, produced.index}, {DNNL_ARG_TO, out, From::output, o}});
}

bool nothing_to_compute(Preparation& p) {
  for (TensorDesc const& o : p.outputs())
    if (o.numel() > 0) return false;
  p.run("nothing (every output is empty)", [](Io const&) -> Runner { return [] {}; });
  return true;
}

void require_nonempty_inputs(Preparation const& p, std::string const& kind) {
  for (std::size_t i = 0; i < p.inputs().size(); ++i)
    if (p.inputs()[i].numel() == 0)
      p.reject(kind + " of an empty input " + std::to_string(i) + " " + p.inputs()[i].shape.to_string() + " into a non-empty output");
}

void run_copy(Preparation& p, std::string const& what, std::size_t in, std::size_t out) {
  std::int64_t n = p.outputs()[out].numel();
  int threads = p.threads();
  p.run(what, [in, out, n, threads](Io const& io) -> Runner {
    float const* x = io.in[in];
    float* y = io.out[out];
    if (x == y || n == 0) return [] {};  // the runtime let the output share the input's buffer
    return [x, y, n, threads] {
      parallel_for(threads, n, [&](std::int64_t b, std::int64_t e) { std::memcpy(y + b, x + b, static_cast<std::size_t>(e - b) * sizeof(float)); });
    };
  });
}

void run_fill(Preparation& p, std::string const& what, std::size_t o, float value) {
  std::int64_t n = p.outputs()[o].numel();
  int threads = p.threads();
  p.run(what, [o, n, value, threads](Io const& io) -> Runner {
    return [n, value, threads, y = io.out[o]] {
      parallel_for(threads, n, [&](std::int64_t b, std::int64_t e) { std::fill(y + b, y + e, value); });
    };
  });
}

}  // namespace autograph::cpu::builtin::detail
