#pragma once
// A graph of independent branches for schedule tests: `n` convolutions + ReLUs that all read
// one input, concatenated. Nimble gives each branch a stream; schedules onto fewer streams
// must share them out.
#include <autograph/graph/builder.hpp>

#include <vector>

namespace autograph::test {

inline Graph<> conv_relu_branches(int n = 4) {
  GraphBuilder b;
  auto x = b.input("x", {1, 64, 28, 28});
  std::vector<Value> branches;
  for (int i = 0; i < n; ++i) branches.push_back(b.relu(b.conv2d(x, 64, {3, 3})));
  return std::move(b).build({b.concat(branches)});
}

}  // namespace autograph::test
