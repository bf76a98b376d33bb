//===- Explain.h - human/machine-readable dumps of assertions -------------===//
#ifndef VIGIL_CLANG_EXPLAIN_H
#define VIGIL_CLANG_EXPLAIN_H

#include "../model/Assertion.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace vigil {

enum class ExplainFormat { None, Text, Dot, Json };

/// One assertion of the file: as written (the descriptor) and, when every
/// automaton it names is defined in the file, resolved and compiled.
struct Explained {
  Assertion Source;
  Assertion Compiled;
  bool IsCompiled = false;
  std::string Why; // why it is not compiled here
};

/// Which part of the runtime runs an alternative.
std::string engineName(const Assertion &A, const Automaton &Au);
/// "initial,past-site,..." or "-".
std::string stateFlagNames(uint8_t Flags);
/// "3,4" or "-".
std::string symbolList(uint64_t Mask);

/// Prints every assertion of File in the chosen format.
void explain(llvm::raw_ostream &OS, ExplainFormat F, llvm::StringRef File,
             const std::vector<Explained> &Assertions);

} // namespace vigil

#endif
