#pragma once
// `--input NAME=DIMS`, shared by every command that reads an ONNX file (optimize, import, run):
// one parser so they accept and refuse the same things.
//
//   images=1x3x224x224   images=1,3,224,224   images=1X3X224X224
//
// Refused, each with the spec and the reason: no '=', an empty name, a name given twice, an
// empty or non-numeric dimension, a sign, a zero dimension (a model with an empty input has
// nothing to optimize or run), more than Shape::max_rank dimensions, and a dimension or element
// count past int64.
#include <autograph/core/error.hpp>
#include <autograph/core/shape.hpp>

#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace autograph::cli {

/// One spec: "images=1x3x224x224" -> {"images", [1,3,224,224]}.
inline std::pair<std::string, Shape> parse_input_shape(std::string const& spec) {
  auto fail = [&](std::string const& why) { return Error("--input '" + spec + "': " + why); };
  auto eq = spec.rfind('=');  // ONNX names may contain '=', dimensions never do
  if (eq == std::string::npos) throw fail("expected NAME=DIMS, e.g. images=1x3x224x224");
  if (eq == 0) throw fail("the input name is empty");
  std::string name = spec.substr(0, eq), dims_text = spec.substr(eq + 1);
  if (dims_text.empty()) throw fail("no dimensions after '=' (expected e.g. " + name + "=1x3x224x224)");

  std::vector<std::int64_t> dims;
  std::int64_t numel = 1;
  std::size_t begin = 0;
  while (begin <= dims_text.size()) {
    std::size_t end = dims_text.find_first_of("xX,", begin);
    if (end == std::string::npos) end = dims_text.size();
    std::string dim = dims_text.substr(begin, end - begin);
    std::int64_t v = 0;
    // from_chars takes digits only (no sign, no spaces) and reports overflow instead of wrapping.
    auto [ptr, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), v);
    if (dim.empty() || ec == std::errc::invalid_argument || ptr != dim.data() + dim.size() || !(dim[0] >= '0' && dim[0] <= '9'))
      throw fail("'" + dim + "' is not a dimension (expected positive integers separated by 'x', e.g. 1x3x224x224)");
    if (ec == std::errc::result_out_of_range) throw fail("dimension " + std::to_string(dims.size()) + " (" + dim + ") is too large");
    if (v == 0)
      throw fail("dimension " + std::to_string(dims.size()) + " is zero; a model with an empty input has nothing to optimize or run");
    if (numel > std::numeric_limits<std::int64_t>::max() / v) throw fail("the shape has more than 2^63 elements");
    numel *= v;
    dims.push_back(v);
    if (dims.size() > Shape::max_rank) throw fail("more than " + std::to_string(Shape::max_rank) + " dimensions");
    begin = end + 1;
  }
  return {std::move(name), Shape(dims)};
}

/// Every spec of a repeated --input option, by input name.
inline std::map<std::string, Shape> parse_input_shapes(std::vector<std::string> const& specs) {
  std::map<std::string, Shape> shapes;
  for (auto const& spec : specs) {
    auto [name, shape] = parse_input_shape(spec);
    if (!shapes.emplace(name, shape).second) throw Error("--input '" + name + "' is given twice");
  }
  return shapes;
}

}  // namespace autograph::cli
