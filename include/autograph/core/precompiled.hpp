#pragma once
// Non-template functions too heavy to compile in every file that uses them are compiled once
// in src/defaults/ for the programs that link autograph::defaults (AUTOGRAPH_PRECOMPILED
// defined). Their header declares them and guards the definitions by the unit's macro:
//
//   Schedule insert_waits(KernelDag const& dag, ...);
//   #if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
//   AUTOGRAPH_DEFAULTS_INLINE Schedule insert_waits(KernelDag const& dag, ...) { ... }
//   #endif
//
// Header-only users compile the inline definitions as before. The one file in src/defaults/
// that defines AUTOGRAPH_DEFINE_SCHEDULE also defines AUTOGRAPH_DEFAULTS_INLINE as nothing
// before any include, so that the definitions it sees are the program's only ones.
#ifndef AUTOGRAPH_DEFAULTS_INLINE
#define AUTOGRAPH_DEFAULTS_INLINE inline
#endif
