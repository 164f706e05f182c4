#pragma once
// Errors the library throws. Every message names what is wrong (which op, which input,
// which shape); callers add context (the node) as the error travels up.
#include <stdexcept>
#include <string>

namespace autograph {

/// Base of every error autograph throws.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An operator was given inputs it cannot accept (arity, rank, dims, dtype).
struct ShapeError : Error {
  using Error::Error;
};

/// A graph is malformed (unknown value, cycle, dangling input) or an edit would make it so.
struct GraphError : Error {
  using Error::Error;
};

/// An executor cannot run a graph (missing input or weight data, unsupported op).
struct ExecutionError : Error {
  using Error::Error;
};

}  // namespace autograph
