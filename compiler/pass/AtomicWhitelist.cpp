//===- AtomicWhitelist.cpp - ARs the user says need no atomicity ----------===//
//
// `vigil-cc --vigil-atomic-whitelist=FILE` (VIGIL_ATOMIC_STATIC_WHITELIST at
// link time): one entry per line, `#` starts a comment:
//
//   counter            a variable: none of its accesses opens an AR
//   queue.c:42         the AR whose first access is at line 42 of a file
//                      named queue.c (any directory)
//
// It is the same format the runtime reads from VIGIL_ATOMIC_WHITELIST and
// that `VIGIL_ATOMIC_MODE=train` writes, so a trained list can be compiled
// in, where a whitelisted AR costs nothing at all.  A malformed line fails
// the link with FILE:LINE.
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"
#include "Pass.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdlib>

using namespace llvm;

namespace vigil {
namespace pass {

namespace {
[[noreturn]] void bad(const Twine &Where, const Twine &Msg) {
  errs() << "vigil: error: " << Where << ": " << Msg << "\n";
  errs().flush();
  report_fatal_error("vigil: the atomic-region whitelist cannot be used",
                     /*gen_crash_diag=*/false);
}

bool identifierLike(StringRef S) {
  for (char C : S)
    if (!(std::isalnum((unsigned char)C) || C == '_' || C == '.' ||
          C == '-' || C == '>' || C == '[' || C == ']' || C == '*'))
      return false;
  return !S.empty();
}
} // namespace

void Whitelist::load() {
  const char *Path = std::getenv("VIGIL_ATOMIC_STATIC_WHITELIST");
  if (!Path || !*Path)
    return;
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    bad(Path, "cannot read the atomic-region whitelist: " +
                   Buf.getError().message());
  unsigned N = 0;
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (StringRef L : Lines) {
    ++N;
    StringRef E = L.split('#').first.trim();
    if (E.empty())
      continue;
    std::string Where = std::string(Path) + ":" + std::to_string(N);
    auto [File, Num] = E.rsplit(':');
    unsigned Line = 0;
    if (E.contains(':')) {
      if (File.empty() || Num.getAsInteger(10, Line) || Line == 0)
        bad(Where, "expected FILE:LINE with a line number above 0, found `" +
                        E + "`");
      Lines_.emplace(sys::path::filename(File).str(), Line);
      continue;
    }
    if (!identifierLike(E))
      bad(Where, "expected a variable name or FILE:LINE, found `" + E + "`");
    Vars.insert(E.str());
  }
}

bool Whitelist::location(StringRef File, unsigned Line) const {
  return Lines_.count({sys::path::filename(File).str(), Line});
}

} // namespace pass
} // namespace vigil
