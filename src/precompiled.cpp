// The project's own programs (tests, tools, benchmarks) link this one translation unit that
// instantiates the heavy default templates once; their headers declare them `extern template`
// when AUTOGRAPH_PRECOMPILED is defined. Users of the header-only package need none of it.
#define AUTOGRAPH_PRECOMPILED_SOURCE
#include <autograph/runtime/reference_executor.hpp>

template class autograph::ReferenceExecutor<autograph::BuiltinOps>;
