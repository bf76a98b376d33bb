//===- tables.h - the pass's ABI tables, built in memory for the tests ----===//
//
// The runtime's unit tests build assertions with the model
// (compiler/model/), compile them, and turn them into the constant data of
// include/vigil/abi.h the way the link-time pass emits it as IR globals,
// including `fast` and the fast-path decisions of vigil/fastpath.h.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_TESTS_TABLES_H
#define VIGIL_TESTS_TABLES_H

#include "Assertion.h"
#include "vigil/abi.h"
#include "vigil/fastpath.h"

#include <deque>
#include <string>
#include <vector>

struct Tables {
  vigil::Assertion M; // compiled
  std::deque<std::string> Strings;
  std::vector<std::vector<vigil_value_desc>> Values;
  std::vector<vigil_event_desc> Events;
  std::vector<std::vector<uint16_t>> Next;
  std::vector<std::vector<vigil_state_desc>> States;
  std::vector<vigil_automaton> Alts;
  std::vector<const char *> CaptureTexts, FreeTexts;
  vigil_assertion A{};
  uint64_t Statics = 0;
  vigil_fast_model Models[8]{};
  uint8_t FastInit[8]{};

  Tables() = default;
  Tables(const Tables &) = delete;
  Tables &operator=(const Tables &) = delete;
};

/// Fills T from the compiled assertion M.  `Inline` says whether the pass
/// inlines the fast path (it may only for per-thread inline assertions with
/// a fast-eligible alternative); A.fast and FastInit follow from it exactly
/// as the runtime computes them.
void buildTables(const vigil::Assertion &M, uint32_t Id, bool Inline, Tables &T);

#endif
