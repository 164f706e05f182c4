#pragma once
// A float32 CPU tensor: a shape and shared storage. Copies share storage (weights are never
// copied); kernels write into freshly made tensors.
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/core/shape.hpp"

namespace autograph {

class Tensor {
 public:
  Tensor() = default;
  /// A zero-filled tensor of the given shape.
  explicit Tensor(Shape s) : shape_(s), data_(std::make_shared<std::vector<float>>(static_cast<std::size_t>(s.numel()))) {}
  Tensor(Shape s, std::initializer_list<float> values) : Tensor(s, std::vector<float>(values)) {}
  Tensor(Shape s, std::vector<float> values) : shape_(s), data_(std::make_shared<std::vector<float>>(std::move(values))) {
    check_size();
  }
  Tensor(Shape s, std::shared_ptr<std::vector<float> const> values)
      : shape_(s), data_(std::const_pointer_cast<std::vector<float>>(std::move(values))) {
    if (!data_) throw Error("tensor of shape " + shape_.to_string() + " made from null storage");
    check_size();
  }

  Shape const& shape() const { return shape_; }
  std::int64_t numel() const { return shape_.numel(); }
  bool empty() const { return !data_; }

  std::span<float const> data() const { return data_ ? std::span<float const>(*data_) : std::span<float const>{}; }
  std::span<float> mutable_data() { return data_ ? std::span<float>(*data_) : std::span<float>{}; }
  float const* ptr() const { return data_->data(); }
  float* mutable_ptr() { return data_->data(); }
  std::shared_ptr<std::vector<float> const> storage() const { return data_; }

  /// Same storage viewed with another shape of equal element count.
  Tensor reshaped(Shape s) const {
    if (s.numel() != shape_.numel())
      throw ShapeError("cannot view " + shape_.to_string() + " as " + s.to_string());
    Tensor t = *this;
    t.shape_ = s;
    return t;
  }

  /// Uniform random values in [lo, hi), reproducible for a seed.
  static Tensor random(Shape s, std::uint64_t seed, float lo = -1.f, float hi = 1.f) {
    Tensor t(s);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (float& x : t.mutable_data()) x = dist(rng);
    return t;
  }

 private:
  void check_size() const {
    if (static_cast<std::int64_t>(data_->size()) != shape_.numel())
      throw ShapeError("tensor of shape " + shape_.to_string() + " needs " + std::to_string(shape_.numel()) +
                       " values, got " + std::to_string(data_->size()));
  }
  Shape shape_;
  std::shared_ptr<std::vector<float>> data_;
};

}  // namespace autograph
