//===- Explain.h - human/machine-readable dumps of assertions -------------===//
#ifndef VIGIL_CLANG_EXPLAIN_H
#define VIGIL_CLANG_EXPLAIN_H

#include "../model/Assertion.h"

#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace vigil {

enum class ExplainFormat { None, Text, Dot, Json };

/// Prints every assertion of File in the chosen format.
void explain(llvm::raw_ostream &OS, ExplainFormat F, llvm::StringRef File,
             const std::vector<Assertion> &Assertions);

} // namespace vigil

#endif
