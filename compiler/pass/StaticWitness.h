//===- StaticWitness.h - a concrete run that breaks an assertion ----------===//
//
// When the abstract product (Static.cpp) finds a step that may fail, the
// verdict is *violated* only if a real run fails.  findFailingRun looks for
// one: it executes the linked program symbolically from main, with argv[1]
// as unknown bytes (or an unknown number read by atoi/strtol), forks at
// branches whose direction depends on them while Z3 says both sides are
// feasible, and steps the assertion's DFAs on the way as the runtime would.
// A failing step on a feasible path gives the input and the path as a
// call/branch trace.  It is an under-approximation: whatever it cannot
// execute exactly (memory it does not know, calls outside the program,
// threads) ends that path, so "violated" is only said with a run to show.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_STATIC_WITNESS_H
#define VIGIL_PASS_STATIC_WITNESS_H

#include "../model/Assertion.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace vigil {
namespace pass {

struct Witness {
  bool Found = false;
  std::string At;                 // file:line:col of the failing step
  std::string Why;                // what fails there
  std::vector<std::string> Args;  // the command line after the program's name
  std::vector<std::string> Trace; // "file:line:col: what happens", in order
  std::string GaveUp;             // when !Found: why paths were abandoned
  /// When !Found: every path was executed to its end, and the program
  /// reads no input (main's parameters unused, no allocation that might
  /// fail), so its one run is the one executed: the assertion holds.
  bool Exhaustive = false;
};

/// A run of M's main that makes assertion A fail, whose site calls are Mine.
Witness findFailingRun(llvm::Module &M, const Assertion &A,
                       const llvm::DenseSet<const llvm::CallInst *> &Mine);

} // namespace pass
} // namespace vigil

#endif
