#pragma once
// Shape: up to 8 dimensions, stored inline (no allocation; shapes are copied everywhere).
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <numeric>
#include <span>
#include <string>

#include "autograph/core/error.hpp"
#include "autograph/core/hash.hpp"

namespace autograph {

/// The most elements a tensor of a graph may have: 2^48 (1 PiB of float32) is beyond every
/// device, and keeps element and byte counts (x 8) far from int64 overflow in every cost and
/// memory computation downstream.
inline constexpr std::int64_t max_tensor_elements = std::int64_t{1} << 48;

/// The element count of `dims`, or nullopt when a dimension is negative or the product exceeds
/// `limit` (checked before multiplying, so it never overflows).
inline std::optional<std::int64_t> checked_numel(std::span<std::int64_t const> dims, std::int64_t limit = max_tensor_elements) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    if (d < 0 || d > limit) return std::nullopt;
    if (d != 0 && n > limit / d) return std::nullopt;
    n *= d;
  }
  return n;
}

class Shape {
 public:
  static constexpr std::size_t max_rank = 8;

  constexpr Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims) : Shape(std::span<std::int64_t const>(dims.begin(), dims.size())) {}
  explicit Shape(std::span<std::int64_t const> dims) {
    if (dims.size() > max_rank)
      throw ShapeError("a shape has at most 8 dimensions, got " + std::to_string(dims.size()));
    for (std::int64_t d : dims)
      if (d < 0) throw ShapeError("negative dimension " + std::to_string(d) + " in a shape");
    std::copy(dims.begin(), dims.end(), dims_.begin());
    rank_ = static_cast<std::uint8_t>(dims.size());
  }
  template <class R>
    requires(!std::same_as<std::remove_cvref_t<R>, Shape>) && requires(R const& r) { std::span<std::int64_t const>(r); }
  explicit Shape(R const& r) : Shape(std::span<std::int64_t const>(r)) {}

  constexpr std::size_t rank() const { return rank_; }
  constexpr std::size_t size() const { return rank_; }
  constexpr std::int64_t operator[](std::size_t i) const { return dims_[i]; }
  constexpr std::int64_t& operator[](std::size_t i) { return dims_[i]; }
  /// Dimension counted from the back for negative i (NumPy style); throws when out of range.
  std::int64_t at(std::int64_t i) const { return dims_[normalize_axis(i)]; }
  std::size_t normalize_axis(std::int64_t axis) const {
    std::int64_t r = rank_;
    if (axis < -r || axis >= r)
      throw ShapeError("axis " + std::to_string(axis) + " is out of range for shape " + to_string());
    return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  }

  constexpr auto begin() const { return dims_.begin(); }
  constexpr auto end() const { return dims_.begin() + rank_; }
  std::span<std::int64_t const> dims() const { return {dims_.data(), rank_}; }

  constexpr std::int64_t numel() const {
    std::int64_t n = 1;
    for (std::size_t i = 0; i < rank_; ++i) n *= dims_[i];
    return n;
  }

  friend constexpr bool operator==(Shape const& a, Shape const& b) {
    return a.rank_ == b.rank_ && std::equal(a.begin(), a.end(), b.begin());
  }

  std::uint64_t hash() const {
    std::uint64_t h = mix64(rank_);
    for (std::int64_t d : *this) h = hash_combine(h, static_cast<std::uint64_t>(d));
    return h;
  }

  std::string to_string() const {
    std::string s = "[";
    for (std::size_t i = 0; i < rank_; ++i) s += (i ? "," : "") + std::to_string(dims_[i]);
    return s + "]";
  }

 private:
  std::array<std::int64_t, max_rank> dims_{};
  std::uint8_t rank_ = 0;
};

/// Row-major strides (in elements) of a shape.
inline std::array<std::int64_t, Shape::max_rank> strides_of(Shape const& s) {
  std::array<std::int64_t, Shape::max_rank> st{};
  std::int64_t acc = 1;
  for (std::size_t i = s.rank(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

/// NumPy broadcasting of two shapes; throws naming both shapes when they do not broadcast.
inline Shape broadcast(Shape const& a, Shape const& b) {
  std::size_t r = std::max(a.rank(), b.rank());
  std::array<std::int64_t, Shape::max_rank> out{};
  for (std::size_t i = 0; i < r; ++i) {
    std::int64_t da = i < r - a.rank() ? 1 : a[i - (r - a.rank())];
    std::int64_t db = i < r - b.rank() ? 1 : b[i - (r - b.rank())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError("shapes " + a.to_string() + " and " + b.to_string() + " do not broadcast (dimension " +
                       std::to_string(i) + ": " + std::to_string(da) + " vs " + std::to_string(db) + ")");
    out[i] = da == 1 ? db : da;
  }
  return Shape(std::span<std::int64_t const>(out.data(), r));
}

}  // namespace autograph
