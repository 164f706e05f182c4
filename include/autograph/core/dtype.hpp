#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace autograph {

enum class DType : std::uint8_t { float32, float16 };

constexpr std::size_t size_of(DType t) { return t == DType::float32 ? 4 : 2; }

constexpr std::string_view to_string(DType t) { return t == DType::float32 ? "f32" : "f16"; }

}  // namespace autograph
