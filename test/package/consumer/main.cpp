// A project outside autograph: builds a small graph with the installed headers, runs it on
// the reference executor and checks the result.
#include <autograph/autograph.hpp>

#include <cmath>
#include <cstdio>

int main() {
  using namespace autograph;
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto w = b.weight("w", Tensor(Shape{4, 2}, {1, 0, 0, 1, 1, 0, 0, 1}));
  auto y = b.relu(b.matmul(x, w));
  auto g = std::move(b).build({y});
  auto out = ReferenceExecutor<>{}.run(g, {Tensor(Shape{1, 4}, {1, -2, 3, 1})});
  // [1,-2,3,1] x w = [1+3, -2+1] = [4, -1] -> relu -> [4, 0]
  bool ok = out.size() == 1 && std::fabs(out[0].data()[0] - 4.f) < 1e-6f && out[0].data()[1] == 0.f;
  std::printf("consumer: %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
