#pragma once
// A float32 CPU tensor: a shape and shared storage. Copies share storage (weights are never
// copied); kernels write into freshly made tensors.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/core/hash.hpp"
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

  /// Uniform random values in [lo, hi], reproducible for a seed. Value i is SplitMix64's
  /// output i for the seed (its finalizer over a Weyl sequence started at a hash of the seed):
  /// no state carried from one value to the next. Every runtime that times a shape-only graph
  /// fills its weights so on each compile. Measured on the 2-core Zen 3 VM, 96 M values, -O2:
  /// 4.6 ns a value, of which 4.2 are the first touch of the tensor's fresh pages; the
  /// std::mt19937_64 + uniform_real_distribution loop of before took 16 (0.4 s per compile of
  /// Inception-v3, 1.6 s of the BERT encoder), and 72 against 21 now at -O0 (the sanitized tests).
  static Tensor random(Shape s, std::uint64_t seed, float lo = -1.f, float hi = 1.f) {
    Tensor t(s);
    constexpr std::uint64_t golden = 0x9E3779B97F4A7C15ull;  // 2^64 / the golden ratio, SplitMix64's step
    // Streams of two seeds start at unrelated points of the sequence (a hash apart, not one step).
    // mix64(x) is SplitMix64's finalizer of x + golden: value i is its output number i + 1.
    std::uint64_t const start = mix64(seed);
    float const step = (hi - lo) * 0x1p-24f;  // the top 24 bits: every float of [0, 1) at that spacing
    std::span<float> out = t.mutable_data();
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = lo + static_cast<float>(static_cast<std::int32_t>(mix64(start + i * golden) >> 40)) * step;
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
