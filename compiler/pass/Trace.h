//===- Trace.h - function tracing into the event stream --------*- C++ -*-===//
//
// vigil-cc --vigil-trace=GLOBS (VIGIL_TRACE in the linker's environment)
// and --vigil-trace-events (VIGIL_TRACE_EVENTS=1): the entry and the
// return of each chosen function record an event in the calling thread's
// stream buffer (include/vigil/stream.h), with its integer and pointer
// arguments and its return value.  Chosen: every function whose name
// matches one of the comma-separated globs and, with --vigil-trace-events,
// every function an assertion or a monitor binding names.  A function
// defined in the module is traced in its body (callee side: indirect calls
// are seen); any other is traced around each direct call of it (caller
// side: an indirect call of it is not seen).  Without VIGIL_STREAM at run
// time each traced point costs one load and a branch not taken, and a
// function traced in its body pays it once, at entry.
//
// The records go in two phases around the assertion and monitor hooks, so
// that at every point the record comes before the hooks placed there, and
// a verdict a hook raises follows the event that raised it in the stream:
//
//   instrumentBeforeHooks   callee-side returns, caller-side entries (the
//                           hooks, inserted later before the same
//                           instruction, land after the record)
//   instrumentAfterHooks    callee-side entries, caller-side returns
//                           (inserted before the hooks already there);
//                           then each callee-side traced function is
//                           split in a traced copy and itself without
//                           records, which tail-calls the copy when the
//                           stream is on (TraceClone.cpp says why, and
//                           why the hooks still run once, in order)
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_TRACE_H
#define VIGIL_PASS_TRACE_H

#include <memory>
#include <set>
#include <string>

namespace llvm {
class Module;
}

namespace vigil {

class Tracer {
public:
  explicit Tracer(llvm::Module &M);
  ~Tracer();
  /// VIGIL_TRACE or VIGIL_TRACE_EVENTS is set and the module is not traced
  /// yet (it is marked `vigil.traced`).
  bool wanted() const;
  /// VIGIL_TRACE_EVENTS: the functions assertions and monitors name too.
  bool wantsEvents() const;
  /// Chooses the traced functions; `Named` are those the assertions and
  /// monitor bindings name (used with VIGIL_TRACE_EVENTS).  Exits with a
  /// message on a malformed glob.
  void plan(const std::set<std::string> &Named);
  /// The first phase (see above); true when the module changed.
  bool instrumentBeforeHooks();
  /// The second phase, then the constructor declaring the events.
  bool instrumentAfterHooks();

  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

} // namespace vigil

#endif
