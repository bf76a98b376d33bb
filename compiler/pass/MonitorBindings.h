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

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace vigil {
/// The same in steps: read() the tables, then instrument(); functions()
/// in between says which C functions the rules name (call: and return:
/// sources), for --vigil-trace-events.
class MonitorBindings {
public:
  explicit MonitorBindings(llvm::Module &M);
  ~MonitorBindings();
  void read();
  std::vector<std::string> functions() const;
  bool instrument();
  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

/// Returns true when the module was changed.  Runs once per module (marks
/// it `vigil.monitors.instrumented`).
bool instrumentMonitorBindings(llvm::Module &M);
} // namespace vigil

#endif
