//===- Static.h - link-time verdicts on per-thread assertions -------------===//
//
// The static checker (docs/static.md): before anything is instrumented, each
// inline assertion of the merged module gets a verdict, *proven* (no path of
// the program can make any of its checks fail) or *unknown* (with the reason:
// a feature the checker does not model, or a path on which a check may fail).
// It never says proven wrongly: everything it cannot see (indirect calls,
// code outside the module, other threads) is over-approximated, and what it
// cannot over-approximate (longjmp, signal handlers, global assertions,
// checks keyed by captured values) makes the verdict unknown.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_STATIC_H
#define VIGIL_PASS_STATIC_H

#include "../model/Assertion.h"
#include "StaticWitness.h"

#include "llvm/IR/Module.h"

#include <string>
#include <utility>
#include <vector>

namespace vigil {
namespace pass {

enum StaticMode { STATIC_OFF, STATIC_REPORT, STATIC_PRUNE };

/// VIGIL_STATIC (set by `vigil cc --vigil-static=...`): off (the default),
/// report or prune; anything else is a fatal error naming the variable.
StaticMode staticModeFromEnv();

enum VerdictKind : uint8_t { VERDICT_UNKNOWN, VERDICT_PROVEN, VERDICT_VIOLATED };

struct StaticVerdict {
  VerdictKind Kind = VERDICT_UNKNOWN;
  std::string Reason; // why proven, violated, or neither
  Witness Run;        // violated: a run that fails
  bool proven() const { return Kind == VERDICT_PROVEN; }
};

/// The verdict of every assertion As[i] (inline ones; others are unknown),
/// given the module's site calls (call, assertion index or -1).
std::vector<StaticVerdict>
checkStatically(llvm::Module &M, const std::vector<Assertion> &As,
                const std::vector<std::pair<llvm::CallInst *, int>> &Sites);

/// Prints a summary on stderr, and a line per assertion: every one in
/// report mode, the kept ones (with the reason) in prune mode; a violated
/// one with its failing run.  Returns the number violated (prune mode then
/// fails the link).
unsigned reportStatic(const std::vector<Assertion> &As, const std::vector<StaticVerdict> &V,
                      StaticMode Mode);

/// VIGIL_STATIC_JSON names a file: the verdicts as JSON (docs/static.md,
/// "Reports"), for `vigil explain --static` and SARIF.
void writeStaticJson(const std::vector<Assertion> &As, const std::vector<StaticVerdict> &V);

/// Prune mode: removes the proven assertions from As and marks their site
/// calls erase-only (-1), renumbering the others, before anything is
/// planned: a proven assertion then leaves no site hook, observer, point,
/// bound group or table behind.
void pruneProven(std::vector<Assertion> &As, std::vector<std::pair<llvm::CallInst *, int>> &Sites,
                 const std::vector<StaticVerdict> &V);

} // namespace pass
} // namespace vigil

#endif
