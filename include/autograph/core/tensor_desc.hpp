#pragma once
#include <string>

#include "autograph/core/dtype.hpp"
#include "autograph/core/shape.hpp"

namespace autograph {

/// What a value in the graph is: its element type and shape (NCHW for 4-D activations).
struct TensorDesc {
  Shape shape;
  DType dtype = DType::float32;

  friend bool operator==(TensorDesc const&, TensorDesc const&) = default;
  std::int64_t numel() const { return shape.numel(); }
  std::int64_t bytes() const { return shape.numel() * static_cast<std::int64_t>(size_of(dtype)); }
  std::uint64_t hash() const { return hash_combine(shape.hash(), hash_value(dtype)); }
  std::string to_string() const { return std::string(autograph::to_string(dtype)) + shape.to_string(); }
};

}  // namespace autograph
