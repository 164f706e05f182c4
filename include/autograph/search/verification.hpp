#pragma once
// verify_equivalent(), the check of an optimized graph against the original, lives with the
// other equivalence checks in runtime/equivalence.hpp, where rule verification (rules/verify.hpp)
// can reach it too; the search and its users include it from here.
#include "autograph/runtime/equivalence.hpp"
