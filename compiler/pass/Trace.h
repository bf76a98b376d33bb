//===- Trace.h - function tracing into the event stream --------*- C++ -*-===//
//
// vigil-cc --vigil-trace=GLOBS (VIGIL_TRACE in the linker's environment):
// the entry and every return of each defined function whose name matches
// one of the comma-separated globs records an event in the calling
// thread's stream buffer (include/vigil/stream.h), with its integer and
// pointer arguments and its return value.  Without VIGIL_STREAM at run
// time each traced point costs one load and a branch not taken.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_TRACE_H
#define VIGIL_PASS_TRACE_H

namespace llvm {
class Module;
}

namespace vigil {
/// Returns true when the module was changed.  Runs once per module.
bool instrumentTrace(llvm::Module &M);
} // namespace vigil

#endif
