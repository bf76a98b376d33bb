//===- MonitorBindings.h - automaton monitors on C functions ---*- C++ -*-===//
//
// Instruments the calls and returns that feed automaton monitors
// (include/vigil/monitor.h): reads every __vigil_monitor_bindings_<name>
// table in the merged LTO module and inserts a call of each rule's hook at
// the function's entry / returns (defined in the program) or around its
// direct calls (not defined).
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_MONITOR_BINDINGS_H
#define VIGIL_PASS_MONITOR_BINDINGS_H

namespace llvm {
class Module;
}

namespace vigil {
/// Returns true when the module was changed.  Runs once per module (marks
/// it `vigil.monitors.instrumented`).
bool instrumentMonitorBindings(llvm::Module &M);
} // namespace vigil

#endif
