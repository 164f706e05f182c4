#pragma once
// Graphs the CUDA runtime's tests run: a small builder with random weights (one op at a
// time, any op), and random DAGs of the ops that lower without cuDNN or cuBLASLt. Shared by
// the GPU tests (test/cuda) and the host-side launch tests (test/cuda/host).
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/runtime/reference_executor.hpp"

namespace autograph::cuda::testing {

/// A small graph under construction: inputs x0, x1, ...; weights with random data.
struct Net {
  Graph<> g;
  std::uint64_t seed = 100;

  Value input(Shape s, DType dtype = DType::float32) {
    std::string name = "x" + std::to_string(g.inputs().size());
    return {g.add(Input{{s, dtype}, name}, {}, name), 0};
  }
  Value weight(Shape s, float lo = -1.f, float hi = 1.f) {
    return {g.add(Weight{{s}, Tensor::random(s, seed, lo, hi).storage(), seed}, {}, "w" + std::to_string(seed++)), 0};
  }
  template <class O>
  Value op(O o, std::initializer_list<Value> in) {
    return {g.add(std::move(o), in), 0};
  }
  template <class O>
  std::vector<Value> ops(O o, std::initializer_list<Value> in) {
    NodeId n = g.add(std::move(o), in);
    std::vector<Value> out;
    for (std::uint32_t p = 0; p < g[n].outputs.size(); ++p) out.push_back({n, p});
    return out;
  }
  Graph<> done(std::vector<Value> outs) {
    g.set_outputs(std::move(outs));
    return g;
  }
};

/// A random DAG of `nodes` elementwise ops, pools, normalisations, concatenations and splits;
/// with `layout_ops` also transposes and softmaxes between reshapes.
inline Graph<> random_graph(std::uint64_t seed, int nodes, bool layout_ops) {
  std::mt19937_64 rng(seed);
  GraphBuilder<> b;
  std::vector<Value> values{b.input("x", {1, 4, 4, 4}), b.input("y", {1, 4, 4, 4})};
  auto pick = [&] { return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)]; };
  for (int i = 0; i < nodes; ++i) {
    int kind = std::uniform_int_distribution<int>(0, layout_ops ? 7 : 5)(rng);
    if (!layout_ops && kind == 5) kind = 7;  // the last kind is relu either way
    switch (kind) {
      case 0: values.push_back(b.add(pick(), pick())); break;
      case 1: values.push_back(b.mul(pick(), b.tanh(pick()))); break;
      case 2: values.push_back(b.max_pool(pick(), {3, 3}, {.pad = {1, 1, 1, 1}})); break;
      case 3: values.push_back(b.batch_norm(pick())); break;
      case 4: {
        auto parts = b.split(b.concat({pick(), pick(), pick()}, 1), 1, {4, 4, 4});
        values.push_back(b.sub(parts[0], parts[2]));
        values.push_back(parts[1]);
        break;
      }
      case 5: values.push_back(b.transpose(b.transpose(pick(), {0, 2, 3, 1}), {0, 3, 1, 2})); break;
      case 6: values.push_back(b.reshape(b.softmax(b.reshape(pick(), {4, 16})), {1, 4, 4, 4})); break;
      default: values.push_back(b.relu(pick())); break;
    }
  }
  Graph<> g = std::move(b).build({values.back(), values[values.size() / 2], values[2]});
  g.remove_dead();
  fill_random_weights(g, seed);
  return g;
}

}  // namespace autograph::cuda::testing
