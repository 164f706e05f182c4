// The importer records which inputs had dynamic dimensions that the caller fixed, so that a
// tool writing the graph back can say the written model is static.
#include <gtest/gtest.h>

#include "autograph/graph/builder.hpp"
#include "autograph/io/onnx/exporter.hpp"
#include "autograph/io/onnx/importer.hpp"

namespace autograph {
namespace {

TEST(OnnxDynamicInputs, FixedDynamicDimensionsAreRecorded) {
  GraphBuilder b;
  Value x = b.input("x", {1, 4}), y = b.input("y", {2, 4});
  auto model = export_onnx_model(std::move(b).build({b.relu(x), b.relu(y)}));
  model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("batch");

  auto m = import_onnx_model(model, {.input_shapes = {{"x", Shape{3, 4}}}});
  EXPECT_EQ(m.dynamic_inputs, (std::map<std::string, std::string>{{"x", "[batch,4]"}}));  // y was static
  EXPECT_EQ(m.graph.desc(m.graph.outputs()[0]).shape, (Shape{3, 4}));

  auto fixed = import_onnx_model(export_onnx_model(m.graph));
  EXPECT_TRUE(fixed.dynamic_inputs.empty());
}

}  // namespace
}  // namespace autograph
