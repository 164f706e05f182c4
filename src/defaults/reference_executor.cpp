// autograph::defaults: the heavy default templates compiled once, for the project's programs
// and for users who link autograph::defaults. Every header that names one of them declares it
// `extern template` when AUTOGRAPH_PRECOMPILED is defined (an interface definition of this
// library), so a program that links it compiles none of them; header-only users, without the
// macro, instantiate what they use as before. Each file here is one piece, so that a parallel
// build compiles them side by side. An explicit instantiation definition may follow the
// `extern template` declaration in the same file ([temp.explicit]), so these files include the
// headers as every user does.
#include <autograph/runtime/reference_executor.hpp>

template class autograph::ReferenceExecutor<autograph::BuiltinOps>;
