//===- descriptor_fuzz.cpp - libFuzzer target: descriptor -> automata -----===//
//
// The pass trusts nothing it reads from a __vigil_site() call: a descriptor
// may come from another vigil version or be damaged.  Whatever the bytes,
// parse() must return an error or an assertion, and resolve() + compile()
// (NFA, subset construction, minimisation: the limits in Automaton.h) must
// return an error or automata, without crashing, hanging or leaking
// (ASan/UBSan, libFuzzer's -timeout and -rss_limit_mb).  A parsed definition
// is also offered to itself and to the inline assertions, so references
// and recursion are reached.
//
//===----------------------------------------------------------------------===//
#include "../../compiler/model/Assertion.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace vigil;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  Assertion A;
  std::string Err;
  if (!parse(Text, A, Err)) {
    if (Err.empty())
      __builtin_trap(); // every refusal must say why
    return 0;
  }
  Definitions Defs;
  if (A.Kind == AK_DEFINITION && !A.Name.empty())
    Defs[A.Name] = A;
  if (A.Kind == AK_STRUCT) {
    Assertion Out;
    if (instantiateStruct(A, Defs, Out, Err))
      (void)serialise(Out);
    return 0;
  }
  Assertion B = A;
  if (resolve(B, Defs, Err) && compile(B, Err)) {
    for (const Automaton &Au : B.Alternatives)
      if (Au.D.NStates == 0 || Au.D.Next.size() != size_t(Au.D.NStates) * Au.D.NSymbols)
        __builtin_trap();
    // What the pass would carry on: serialising and parsing again agrees.
    Assertion C;
    if (!parse(serialise(A), C, Err))
      __builtin_trap();
  }
  return 0;
}
