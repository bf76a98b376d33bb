//===- oracle.h - the semantics of docs/engine.md, by brute force ---------===//
//
// An independent statement of what a static alternative's verdict is on a
// trace: it splits the trace by hand (every position an attempt may start
// at, every way an inclusive OR may interleave) and matches words against
// the pattern tree directly — no NFA, no DFA.  Used by the property test.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_TESTS_ORACLE_H
#define VIGIL_TESTS_ORACLE_H

#include "harness.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

class Oracle {
public:
  Oracle(const vigil::Assertion &M, Variant V);
  /// The reasons the engine must report for Trace.  A failure at the site
  /// before it is "before" (missing-before-site or wrong-order: which one
  /// depends on the event the DFA names); with free variables "fail" (any
  /// reason: the candidate reported is the engine's choice).
  std::vector<std::string> run(const std::vector<Tok> &Trace) const;
  bool agrees(const std::vector<std::string> &Got,
              const std::vector<std::string> &Want) const;
  /// Keyed checks (guideline, one alternative, V_RECORD): sites carry
  /// tuple 7 or ("S~") 8; each tuple is its own check.  The reasons, in no
  /// particular order; compare with agreesAsSets.
  std::vector<std::string> keyed(const std::vector<Tok> &Trace) const;
  bool agreesAsSets(std::vector<std::string> Got, std::vector<std::string> Want) const;

private:
  const vigil::Assertion &M;
  Variant V;
  uint64_t Marked = 0; // symbols the variant gave a value slot

  std::string alternative(unsigned Alt, const std::vector<int> &W) const;
  std::string tupled(unsigned Alt, const std::vector<std::pair<int, int>> &Events) const;
  std::string bound(const std::vector<std::pair<int, int>> &Events) const;
};

struct PropertyCase {
  std::string Pattern;
  unsigned Mode;
  std::string Trace;
};
struct PropertyStats {
  unsigned Verdicts = 0; // cases whose oracle verdict is a violation
};
/// Keyed: one alternative, guideline, sites with two tuples.
PropertyStats runProperty(unsigned N, uint64_t Seed,
                          const std::function<void(const PropertyCase &)> &F,
                          bool Keyed = false);

#endif
