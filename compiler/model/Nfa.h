//===- Nfa.h - Thompson construction of a pattern -------------------------===//
//
// Patterns become NFAs with epsilon edges.  Repetition is unrolled (a bounded
// REPEAT(m, n) is m copies and n - m skippable ones; an unbounded one ends in
// a loop).  TESLA's inclusive OR is built as a product: each member is
// determinised on its own and the product state says, per member, whether
// it has started and where it is; a product state accepts when every
// started member is complete and at least one member was used (or may be
// empty) — the shuffle of the members' words, each used at most once.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_MODEL_NFA_H
#define VIGIL_MODEL_NFA_H

#include "Pattern.h"

#include <string>
#include <utility>
#include <vector>

namespace vigil {

constexpr int Eps = -1;

struct Nfa {
  /// Per state: (symbol or Eps, target).
  std::vector<std::vector<std::pair<int, int>>> Out;
  bool Overflow = false;
  unsigned Limit = 0;

  explicit Nfa(unsigned Limit) : Limit(Limit) {}
  int add();
  void edge(int From, int Sym, int To) { Out[From].push_back({Sym, To}); }
  /// The epsilon closure of a set of states, sorted.
  std::vector<int> closure(const std::vector<int> &States) const;
};

struct Fragment {
  int Start = 0, Accept = 0;
};

/// Adds N to A.  Returns false with Err when a limit is exceeded.
bool buildNfa(const Node &N, Nfa &A, Fragment &Out, std::string &Err);

} // namespace vigil

#endif
