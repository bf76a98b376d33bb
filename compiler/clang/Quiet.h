//===- Quiet.h - no "comparison result unused" in automaton bodies --------===//
//
// The steps of an automaton() definition are expression statements, so a
// step `f(x) == 0;` would be clang's -Wunused-comparison.  The plugin
// watches the expansions of automaton(...) followed by `{` and of
// tesla_done, and turns that warning off between them, exactly as
// `#pragma clang diagnostic push / ignored / pop` would (declarations
// `automaton(name, ...);` are left alone).
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_CLANG_QUIET_H
#define VIGIL_CLANG_QUIET_H

#include "clang/Frontend/CompilerInstance.h"

namespace vigil {

/// Registers the preprocessor callbacks on CI's preprocessor.
void quietAutomatonBodies(clang::CompilerInstance &CI);

} // namespace vigil

#endif
