#pragma once
// Hashing helpers: one mixing function, and hash_value() for the parameter types ops use,
// so an op's hash is derived from its params() tuple.
#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace autograph {

/// 64-bit mix (splitmix64 finaliser): good avalanche, cheap.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t v) {
  return mix64(seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

template <class T>
  requires std::integral<T> || std::is_enum_v<T>
constexpr std::uint64_t hash_value(T v) {
  return mix64(static_cast<std::uint64_t>(v));
}

inline std::uint64_t hash_value(double v) { return mix64(std::bit_cast<std::uint64_t>(v == 0.0 ? 0.0 : v)); }
inline std::uint64_t hash_value(float v) { return hash_value(static_cast<double>(v)); }
inline std::uint64_t hash_value(std::string_view s) { return mix64(std::hash<std::string_view>{}(s)); }
inline std::uint64_t hash_value(std::string const& s) { return hash_value(std::string_view{s}); }

template <class T>
  requires requires(T const& t) { { t.hash() } -> std::convertible_to<std::uint64_t>; }
std::uint64_t hash_value(T const& t) {
  return t.hash();
}

template <class T, std::size_t N>
std::uint64_t hash_value(std::array<T, N> const& a) {
  std::uint64_t h = mix64(N);
  for (auto const& x : a) h = hash_combine(h, hash_value(x));
  return h;
}

template <class T>
std::uint64_t hash_value(std::vector<T> const& a) {
  std::uint64_t h = mix64(a.size());
  for (auto const& x : a) h = hash_combine(h, hash_value(x));
  return h;
}

/// Hash of every element of a tuple (an op's params()).
template <class... Ts>
std::uint64_t hash_tuple(std::tuple<Ts...> const& t) {
  return std::apply(
      [](auto const&... xs) {
        std::uint64_t h = mix64(sizeof...(Ts));
        ((h = hash_combine(h, hash_value(xs))), ...);
        return h;
      },
      t);
}

}  // namespace autograph
