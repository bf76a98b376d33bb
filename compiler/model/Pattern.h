//===- Pattern.h - the regular expression an assertion describes ----------===//
//
// An alternative of an assertion is a pattern over its symbols (Event.h): a
// sequence, TESLA's inclusive OR inside a sequence (each member at most
// once, in any order, interleaved, at least one), the exclusive choice of
// automaton definitions, bounded or unbounded repetition (optional(e) is
// REPEAT(0, 1, e)), references to named automata, and the assertion site,
// which appears once, in the top-level sequence.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_MODEL_PATTERN_H
#define VIGIL_MODEL_PATTERN_H

#include "Event.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vigil {

constexpr unsigned Unbounded = ~0u;

struct Node {
  enum Kind : uint8_t {
    Sym,    // one occurrence of symbol Symbol
    Site,   // TESLA_ASSERTION_SITE
    Seq,    // Kids in order
    Or,     // inclusive OR (TESLA's `||` inside an assertion)
    Xor,    // exclusive choice (`||` inside automaton definitions)
    Repeat, // Kids (a sequence) Min..Max times
    Sub     // the automaton Name applied to Args
  };
  uint8_t K = Seq;
  unsigned Symbol = 0;
  std::vector<Node> Kids;
  unsigned Min = 1, Max = 1;
  std::string Name;
  std::vector<Value> Args;
  std::string Text; // source text, for diagnostics and explain

  static Node sym(unsigned S, std::string Text = "");
  static Node site();
  static Node seq(std::vector<Node> Kids);
  static Node repeat(unsigned Min, unsigned Max, std::vector<Node> Body);
};

/// Sequences inside sequences become one sequence; single-element
/// sequences and ORs collapse.
Node flatten(const Node &N);

/// Whether N contains the site.
bool containsSite(const Node &N);
/// Whether N contains an unresolved Sub.
bool containsSub(const Node &N);

/// Splits a top-level sequence at its site: Pre and Post are sequences.
/// Returns false when the site is not an element of the top-level
/// sequence (after flattening).
bool splitAtSite(const Node &Top, Node &Pre, Node &Post);

/// The symbols N mentions.
uint64_t symbolsOf(const Node &N);

/// The largest number of times symbol S can occur in one word of N
/// (Unbounded with unbounded repetition).
unsigned multiplicity(const Node &N, unsigned S);

/// Whether the empty word is a word of N.
bool nullable(const Node &N);

/// A compact rendering for explain: "A (B|C)* D{2,3}", symbols by text.
std::string render(const Node &N, const std::vector<Event> &Symbols);

} // namespace vigil

#endif
