//===- Atomic.h - atomic regions (Kivati), the link-time annotator ------===//
//
// `vigil-cc --vigil-atomic[=checks|watchpoints]` (VIGIL_ATOMIC in the link's
// environment) makes the pass find the program's atomic regions and
// instrument them for runtime/atomic*.c (include/vigil/atomic.h is the
// contract and the vocabulary).  Four steps, one file each:
//
//   AtomicShared.cpp   which memory is shared (the list of shared
//                      variables) and which is synchronisation (mutexes,
//                      condition variables, anything accessed atomically or
//                      volatile); which functions take or release a lock;
//                      names of variables from the debug info
//   AtomicRegions.cpp  per function: the accesses to shared memory, grouped
//                      by must-alias, and a forward data-flow that pairs
//                      each access with the accesses that can follow it next
//                      on some path, except pairs under one held lock
//   AtomicWhitelist.cpp the user's whitelist (`variable` or `file:line`)
//   AtomicEmit.cpp     the tables, begin/end/clear around the accesses, the
//                      inline access checks, the registration constructor;
//                      or, for `vigil explain --atomic`, the list of ARs
//
// Whole program: the pass runs on the merged LTO module, so the shared
// variables and lock wrappers of every translation unit are known.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_ATOMIC_H
#define VIGIL_PASS_ATOMIC_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace vigil {
namespace pass {

/// One load or store of shared memory inside a function.
struct SharedAccess {
  llvm::Instruction *I = nullptr;
  llvm::Value *Ptr = nullptr;
  unsigned Kind = 0; // VIGIL_AR_READ / VIGIL_AR_WRITE
  unsigned Size = 0; // bytes, 0 if more than 8 or unknown
  unsigned Class = 0; // must-alias class within the function
  unsigned Var = 0;   // index into AtomicProgram::Vars
  /// Inside an AR of its own thread on every path (its check is useless).
  bool Covered = false;
};

/// One atomic region: a first access and the accesses that end it.
struct Region {
  unsigned First = 0;               // index into the function's accesses
  std::vector<unsigned> Ends;       // indices of the second accesses
  unsigned Id = 0;                  // program-wide AR id
  unsigned FunctionFirst = 0;       // first AR id of its function
};

struct FunctionRegions {
  llvm::Function *F = nullptr;
  std::vector<SharedAccess> Accesses;
  std::vector<Region> Regions;
  unsigned Protected = 0; // pairs left out because one lock covers both
};

/// A shared variable as the report names it.
struct SharedVar {
  std::string Name;
  std::string File;
  unsigned Line = 0;
  /// The global it lives in (or null: heap, argument, escaped local).
  const llvm::GlobalVariable *Global = nullptr;
};

/// What the whole program tells about memory (AtomicShared.cpp).
class SharedMemory {
public:
  explicit SharedMemory(llvm::Module &M);
  /// Is this access one the annotator considers (shared, not
  /// synchronisation, not vigil's own)?  Also gives the variable's name.
  bool isShared(const llvm::Value *Ptr, const llvm::DataLayout &DL) const;
  bool isSync(const llvm::Value *Ptr, const llvm::DataLayout &DL) const;
  /// +1 for a call that takes a lock, -1 for one that releases it,
  /// pthread_cond_wait (releases and takes again) -2, a join or barrier,
  /// after which the other threads' writes are meant to be seen, -3;
  /// 0 otherwise.
  int lockEffect(const llvm::CallBase &CB) const;
  /// The loads that decide a loop waiting for another thread (AtomicWaits.cpp):
  /// ordering points like a barrier (-3).
  bool waits(const llvm::Instruction &I) const { return WaitLoads.count(&I); }
  SharedVar describe(const SharedAccess &A, const llvm::DataLayout &DL) const;
  /// Globals whose address escapes into pointers the analysis cannot follow.
  bool addressTaken(const llvm::GlobalVariable *GV) const {
    return AddressTaken.count(GV);
  }

private:
  void findSync(llvm::Module &M);
  void findLockWrappers(llvm::Module &M);
  void findWaitLoops(llvm::Module &M);
  void findThreadArguments(llvm::Module &M);
  bool sharedObject(const llvm::Value *Obj) const;

  struct Range {
    const llvm::Value *Base;
    int64_t Begin, End;
  };
  std::vector<Range> Sync;
  llvm::DenseSet<const llvm::Value *> SyncWhole;
  llvm::DenseMap<const llvm::Function *, int> LockFns;
  llvm::DenseSet<const llvm::Instruction *> WaitLoads;
  llvm::DenseSet<const llvm::Function *> ThreadEntries;
  llvm::DenseSet<const llvm::GlobalVariable *> AddressTaken;
};

/// The user's whitelist (AtomicWhitelist.cpp).
class Whitelist {
public:
  /// Reads VIGIL_ATOMIC_STATIC_WHITELIST; a malformed line fails the link
  /// with file:line.
  void load();
  bool variable(const std::string &Name) const { return Vars.count(Name); }
  bool location(llvm::StringRef File, unsigned Line) const;
  size_t size() const { return Vars.size() + Lines_.size(); }

private:
  std::set<std::string> Vars;
  std::set<std::pair<std::string, unsigned>> Lines_; // basename, line
};

/// Finds the regions of one function (AtomicRegions.cpp).
FunctionRegions findRegions(llvm::Function &F, const SharedMemory &Mem,
                            llvm::AAResults &AA, const Whitelist &WL);

/// AtomicExchange.cpp: the accesses the runtime makes as one instruction.
/// Bytes of a naturally aligned scalar of 1, 2, 4 or 8 bytes, else 0.
unsigned exchangeableSize(llvm::Type *Ty, llvm::Align A, const llvm::DataLayout &DL);
llvm::Value *toI64(llvm::IRBuilderBase &B, llvm::Value *V, const llvm::DataLayout &DL);
llvm::Value *fromI64(llvm::IRBuilderBase &B, llvm::Value *V, llvm::Type *Ty,
                     const llvm::DataLayout &DL);
/// An AR's first read made by __vigil_ar_begin_read; returns the load, now
/// unused (to erase after emission), or null if it stays as it is.
llvm::LoadInst *beginRead(llvm::Module &M, llvm::LoadInst *LI, unsigned ArId,
                          const llvm::DataLayout &DL);
/// A checked write as a seq_cst exchange (the store is erased), or null.
/// The runtime's read of a checked load that found the filter set, at B's
/// insertion point; the value in LI's type, or null (not exchangeable).
llvm::Instruction *readAgain(llvm::Module &M, llvm::LoadInst *LI, unsigned SiteId,
                             const llvm::DataLayout &DL, llvm::IRBuilderBase &B);
/// `v = __vigil_ar_end_read(end, p, size)` in place of B's load LI (its uses
/// take v); returns LI, dead, or null when LI keeps the plain form.
llvm::LoadInst *endRead(llvm::Module &M, llvm::LoadInst *LI, unsigned EndId,
                        const llvm::DataLayout &DL);
llvm::AtomicRMWInst *exchangeWrite(llvm::StoreInst *SI, const llvm::DataLayout &DL);
/// The filter's type, and its bucket Idx's AR count (the word's count byte,
/// include/vigil/atomic.h) loaded with ordering O at B.
llvm::ArrayType *filterType(llvm::LLVMContext &C);
llvm::Value *filterWord(llvm::IRBuilderBase &B, llvm::Value *Filter, llvm::Value *Idx);
llvm::LoadInst *loadFilterCount(llvm::IRBuilderBase &B, llvm::Value *Filter, llvm::Value *Idx,
                                llvm::AtomicOrdering O, const llvm::DataLayout &DL);
/// The check after an exchanged write: __vigil_access_written if bucket
/// Filter[Idx] counts an AR.
void secondCheck(llvm::Module &M, llvm::AtomicRMWInst *X, llvm::Value *Filter,
                 llvm::Value *Idx, unsigned SiteId, const llvm::DataLayout &DL);

/// The pass's entry point for atomic regions.
class AtomicRegions {
public:
  AtomicRegions(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
  /// Was --vigil-atomic given (or the explain mode)?
  bool wanted() const { return Mode != Off; }
  bool run();

private:
  enum ModeKind { Off, Checks, Watchpoints } Mode = Off;
  enum ExplainKind { NoExplain, Text, Json } Explain = NoExplain;
  void simplify(llvm::Function &F);
  void analyse();
  void emit();           // AtomicEmit.cpp
  void explain() const;  // AtomicEmit.cpp
  void instrumentFunction(FunctionRegions &FR); // AtomicEmit.cpp
  void insertChecks();   // AtomicEmit.cpp
  void checkAccess(llvm::Instruction *I, llvm::Value *P, unsigned SiteId, bool Write,
                   llvm::FunctionCallee Access, llvm::GlobalVariable *Filter);
  bool needsCheck(const llvm::Value *Ptr) const;

  llvm::Module &M;
  llvm::ModuleAnalysisManager &MAM;
  std::unique_ptr<SharedMemory> Mem;
  Whitelist WL;
  std::vector<FunctionRegions> Fns;
  std::vector<SharedVar> Vars;
  std::map<std::string, unsigned> VarIndex;
  std::vector<llvm::Constant *> EndRows, SiteRows;
  llvm::GlobalVariable *Program = nullptr;
  bool NonGlobalVars = false; // some AR's variable is not a global
  bool AddressTakenVars = false; // some AR's global has its address taken
  llvm::DenseSet<const llvm::GlobalVariable *> GlobalVars;
  llvm::DenseSet<const llvm::Instruction *> Annotated; // begin/end accesses
  std::vector<llvm::LoadInst *> ReadByBegin; // reads begin_read/end_read made: erased last
  llvm::SmallPtrSet<llvm::LoadInst *, 16> ReadByRuntime;
};

} // namespace pass
} // namespace vigil

#endif
