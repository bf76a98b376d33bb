//===- harness.h - building assertions and driving libvigil on traces -----===//
//
// Patterns are written in a small notation (see parsePattern):
//   A B? (C|D) S E*        sequence, optional, inclusive OR, site, repeat
//   [A B]{2,3} <A|B> C+    group, bounded repeat, exclusive choice, 1..inf
//   A(c) B($x) C(_, 5)     capture c, free variable x, ANY, constant
//   A S # B S              top-level OR (alternatives)
// Traces: "[ A B(5) S(5) ]" — bounds, events with argument values, the site
// with its captured values; for struct automata "<(5) E(5) >(5)".
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_TESTS_HARNESS_H
#define VIGIL_TESTS_HARNESS_H

#include "tables.h"

#include <memory>
#include <string>
#include <vector>

/// What the test does to a pattern before compiling it (the same case,
/// another path through the runtime).
enum Variant {
  V_PLAIN = 0, // as written
  V_RECORD,    // every Pre symbol carries a captured value: recording + replay
  V_MIXED,     // every Post-only symbol carries one: forward, mixed recording
  V_FREE       // every Pre symbol carries a free variable
};

struct Config {
  const char *Name;
  int Algorithm;   // 0 tags, 1 history
  bool Fast;       // the inline fast path model
  size_t Limit;    // VIGIL_STORE_LIMIT
  bool Shortcuts;  // the runtime takes plain steps itself (runtime/shortcut.c)
  bool Eager = false; // the fast path model initialises the instance at the
                      // bound's entry (vigil/abi.h "Eager instances")
};

struct Built {
  std::unique_ptr<Tables> T;
  std::vector<bool> AutoK; // per symbol: the variant prepended a value
  bool SiteK = false;      // the variant appended capture k
  std::string Err;
  // One instance and one bound for every run of this assertion (later runs
  // are later bounds, as in a program).
  std::shared_ptr<void> Inst;
  std::shared_ptr<vigil_bound> Bound;
};

/// Parses and compiles; Mode 0 guideline, 1 conditional, 2 strict.
Built buildAssertion(const std::string &Pattern, unsigned Mode, Variant V,
                     bool Global, bool Inline, uint32_t Id);
/// A struct automaton: Pattern is the body after the site; "<" and ">"
/// are the bounds (each with one KEY argument).
Built buildStruct(const std::string &Body, bool Global, uint32_t Id);

struct Tok {
  enum K { Enter, Exit, Site, Event } Kind = Event;
  std::string Name;
  std::vector<uint64_t> Args;
  bool Noise = false; // "A~": the variant's value is a different one
};
std::vector<Tok> parseTrace(const std::string &Trace);

/// Runs the trace (fresh instance and bound) and returns the reasons
/// reported, in order.
std::vector<std::string> runTrace(Built &B, const std::vector<Tok> &Trace,
                                  const Config &C);
/// Instances of the last run's assertion dropped (unknowable verdicts).
uint64_t lastDropped();
/// The bounds the last runTrace counted as passed (the instance's passes).
uint64_t lastPasses();
/// The last run's reports, one line each (for failure messages).
std::string lastReports();

/// A global assertion's inline path (the model of HooksGlobal.cpp) driven
/// by Threads threads at once, each running Trace Rounds times on the one
/// shared instance and bound; the reasons reported.
std::vector<std::string> runGlobalThreads(Built &B, const std::vector<Tok> &Trace,
                                          unsigned Threads, unsigned Rounds);

/// Struct automata: events go to __vigil_object_event.
std::vector<std::string> runObjects(Built &B, const std::vector<Tok> &Trace);

void harnessInit();
extern uint64_t FastInline, FastSlow, LogInline, LogSlow, LogSiteInline;
extern uint64_t EagerOrEnds[3];
std::vector<std::string> takeReports();

#endif
