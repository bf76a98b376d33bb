//===- StaticEvents.h - where an assertion's events happen in the IR ------===//
//
// Shared by the static checker's two searches (Static.cpp: the abstract
// product, StaticWitness.cpp: the concrete failing run): which symbols of
// an assertion a function's entry or return, or a call of it, observes, in
// the order the runtime applies them (bound start, events, bound end).
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_STATIC_EVENTS_H
#define VIGIL_PASS_STATIC_EVENTS_H

#include "../model/Assertion.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace vigil {
namespace pass {

/// One event observed at a point: its symbol, and whether it may not match
/// (its values are not all ANY).
struct Obs {
  unsigned Sym;
  bool Maybe;
};

struct EventPoints {
  llvm::StringMap<std::vector<Obs>> CalleeEntry, CalleeRet, CallerEntry, CallerRet;
  /// The observations of Name in Map, or null.
  static const std::vector<Obs> *at(const llvm::StringMap<std::vector<Obs>> &Map,
                                    llvm::StringRef Name) {
    auto It = Map.find(Name);
    return It == Map.end() ? nullptr : &It->second;
  }
};

/// Binds every symbol of A but the site (which is its own call) to the
/// points of M that observe it.
EventPoints bindEventPoints(llvm::Module &M, const Assertion &A);

/// "file:line:col" of I, or "in function" without debug information.
std::string where(const llvm::Instruction *I);

} // namespace pass
} // namespace vigil

#endif
