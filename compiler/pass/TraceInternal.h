//===- TraceInternal.h - tracing's pieces, shared by Trace*.cpp -*- C++ -*-===//
//
//   Trace.cpp      what is traced (globs, the functions assertions and
//                  monitors name), on which side, in which phase; the
//                  constructor that declares the events
//   TraceArgs.cpp  the words of a function's records: which arguments,
//                  how they widen, their source names
//   TracePlace.cpp where each record goes (function entry and returns,
//                  around calls) in each phase
//   TraceEmit.cpp  the inline producer written at one point
//   TraceClone.cpp a callee-side traced function split in two: a traced
//                  copy, and F reduced to a flag test, a tail call of the
//                  copy and its body without records
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_TRACE_INTERNAL_H
#define VIGIL_PASS_TRACE_INTERNAL_H

#include "Trace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/GlobPattern.h"

#include <string>
#include <vector>

namespace vigil {
namespace trace {

constexpr unsigned MaxWords = 16; // VIGIL_STREAM_MAX_ARGS

/// The metadata kind on each record's flag test (emitRecord), by which
/// TraceClone.cpp finds the records of a function it splits.
constexpr const char *RecordTag = "vigil.trace.record";

/// One recorded argument: the IR parameter it comes from, how it widens to
/// 64 bits, its type in the event table and its source name ("" unknown).
struct ArgWord {
  unsigned Index = 0;
  bool Signed = false;
  std::string Type, Name;
};

/// The words of a function's entry record (Args) and return record (the
/// return value, when it is a scalar).
struct Signature {
  std::vector<ArgWord> Args;
  bool HasRet = false, RetSigned = false;
  std::string RetType;
  /// Every argument word has a source name.
  bool named() const;
};

/// From F's IR (parameter attributes) and, when F has one, its
/// DISubprogram (C types, and for a definition the parameters' names).
Signature signatureOf(llvm::Function &F);

/// What the inline producer reads and calls (include/vigil/stream.h).
struct Producer {
  llvm::GlobalVariable *On = nullptr;     // __vigil_stream_on
  llvm::GlobalVariable *Cursor = nullptr; // __vigil_stream_cursor (TLS)
  llvm::GlobalVariable *Ids = nullptr;    // event ids, set by the constructor
  llvm::FunctionCallee Reserve;           // __vigil_stream_reserve
};

/// A value to record and how it widens: sign- or zero-extended; null or a
/// value that is neither an integer nor a pointer records 0.
struct Word {
  llvm::Value *V;
  bool Signed;
};

/// Writes the record of event Ids[Id] with Words just before `Before`.
/// Widening happens on the recording path only, so that a program run
/// without VIGIL_STREAM pays one load and one branch not taken.
void emitRecord(const Producer &P, llvm::Instruction *Before, unsigned Id,
                llvm::ArrayRef<Word> Words);

/// One traced function.
struct Traced {
  llvm::Function *F = nullptr;
  bool CallerSide = false;
  Signature Sig;
  unsigned Entry = 0, Return = 0;      // event indices (Producer::Ids)
  std::vector<llvm::CallBase *> Calls; // caller side: its direct calls
};

/// One declared event.
struct Event {
  std::string Name;
  const char *Kind;
  std::vector<std::string> Types, Names; // Names empty: unknown
};

} // namespace trace

struct Tracer::Impl {
  llvm::Module &M;
  llvm::LLVMContext &C;
  std::string Spec; // VIGIL_TRACE
  bool Events = false, Wanted = false;
  std::vector<llvm::GlobPattern> Globs;
  std::vector<trace::Traced> Fns;
  std::vector<trace::Event> Table;
  trace::Producer P;

  explicit Impl(llvm::Module &M);
  // Trace.cpp
  void parseGlobs();
  bool matches(llvm::StringRef Name) const;
  std::vector<llvm::CallBase *> directCalls(llvm::Function &F) const;
  void add(llvm::Function &F, bool CallerSide, std::vector<llvm::CallBase *> Calls);
  void makeProducer();
  // TracePlace.cpp
  void beforeHooks(trace::Traced &T);
  void afterHooks(trace::Traced &T);
  void declareEvents();
  // TraceClone.cpp
  bool split(trace::Traced &T);
  void dispatch(llvm::Function &F, llvm::Function &Traced);
};

} // namespace vigil

#endif
