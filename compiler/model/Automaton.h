//===- Automaton.h - an alternative compiled to a deterministic automaton -===//
//
// The runtime never interprets a pattern: each alternative is compiled here,
// once, into a DFA over the assertion's symbols whose states carry what the
// engine needs to decide and to explain (the model is data, the engine is
// tiny).  The semantics the construction encodes (docs/assertion-language.md
// states them for users):
//
//  * Before the site (phase 1) the automaton follows every way the events
//    since the window began can end in a match of the pattern before the
//    site ("Pre"): a pattern event that does not continue an attempt ends
//    it, and a new attempt may begin at any Pre event (TESLA's and
//    ThinTESLA's conditional restarts).  An event of the pattern after the
//    site ("Post") that comes before it taints the attempts under way; a
//    tainted attempt that reaches the site fails it with
//    event-before-site.  When Pre may be empty, the window itself is an
//    attempt, tainted until the next Pre event.  Strict mode has no restarts
//    and no taint: an event that is not a transition is a violation.
//  * The site moves every clean, complete attempt into phase 2, where Post
//    must follow; a Post event out of order is wrong-order, a Pre-only event
//    is ignored, and in conditional mode a complete pass followed by a Pre
//    event or the site begins a new pass (a new window).
//
// A transition to NoState is a violation; StateInfo says which, and what to
// name in the report.  Subset construction, then Moore minimisation.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_MODEL_AUTOMATON_H
#define VIGIL_MODEL_AUTOMATON_H

#include "Pattern.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vigil {

constexpr unsigned MaxStates = 4096;      // DFA states of one alternative
constexpr unsigned MaxNfaStates = 20000;  // after unrolling repetitions
constexpr unsigned FastMaxStates = 253;   // the inline fast path's state byte
constexpr uint16_t NoState = 0xffff;
constexpr uint8_t NoSymbol = 0xff;

enum Mode : uint8_t { MODE_GUIDELINE = 0, MODE_CONDITIONAL = 1, MODE_STRICT = 2 };

enum StateFlags : uint8_t {
  SF_PAST_SITE = 1u << 0, // phase 2: the site was reached in this pass
  SF_FINAL = 1u << 1,     // phase 2: the pass is complete (the end may come)
  SF_SITE_OK = 1u << 2,   // phase 1: the site is a transition
  SF_INITIAL = 1u << 3    // the state at the start of a window
};

struct StateInfo {
  uint64_t Need = 0;    // symbols that make progress here (the site included)
  uint64_t NewPass = 0; // conditional, complete pass: symbols that begin a new one
  uint8_t Flags = 0;
  uint8_t Named = NoSymbol; // the event a failure here names as missing
  uint8_t Early = NoSymbol; // phase 1: the event that tainted a complete attempt
  uint8_t Dist = 255;       // fewest events to the end of the phase
  bool operator<(const StateInfo &O) const;
  bool operator==(const StateInfo &O) const;
};

struct Dfa {
  unsigned NStates = 0, NSymbols = 0;
  std::vector<uint16_t> Next; // NStates x NSymbols
  std::vector<StateInfo> States;
  uint16_t PostStart = NoState; // the state the site leads to from phase 1
  uint16_t next(unsigned D, unsigned S) const { return Next[D * NSymbols + S]; }
};

/// Compiles a top-level sequence holding the site once (Subs resolved) over
/// NSymbols symbols.  Returns false with Err on patterns over the limits.
bool compileDfa(const Node &Pattern, unsigned NSymbols, uint8_t Mode, Dfa &Out,
                std::string &Err);

} // namespace vigil

#endif
