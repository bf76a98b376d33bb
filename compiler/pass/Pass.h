//===- Pass.h - vigil's link-time instrumentation, shared declarations ----===//
//
// The pass runs once on the merged LTO module (VigilPass.cpp):
//
//   Collect.cpp   __vigil_site(descriptor, captures...) calls -> assertions
//                 (definitions resolved, struct usages instantiated, DFAs
//                 compiled, deduplicated, numbered)
//   Plan.cpp      bound groups and observation points (who observes what)
//   Tables.cpp    the constant tables of include/vigil/abi.h, instances
//   Hooks.cpp     inline fast-path hooks (vigil/fastpath.h), bound hooks
//   HooksGlobal.cpp  the same for global groups, under the bound's lock
//   HooksOr.cpp   top-level OR: settling when an alternative is done
//   HooksStore.cpp   inline log of events recorded before the site
//   Points.cpp    one hook per observation point: slot words, inline value
//                 checks, dispatch; function entry / return / call sites
//   Fields.cpp    which stores write which struct field
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_PASS_H
#define VIGIL_PASS_PASS_H

#include "../model/Assertion.h"
#include "vigil/fastpath.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace vigil {
namespace pass {

using llvm::Value; // vigil::Value is the model's value slot

void warn(const llvm::Twine &Msg);
/// Prints "vigil: error: <Where>: <Msg>" and fails the link.
[[noreturn]] void fail(const llvm::Twine &Where, const llvm::Twine &Msg);

/// One alternative as the C structs of abi.h, for vigil/fastpath.h.
struct HostAlt {
  std::vector<uint16_t> Next;
  std::vector<vigil_state_desc> States;
  vigil_automaton Au{};
  vigil_fast_model M{};
  bool Eligible = false;
  /// Per DFA state: the symbols every path from the window's start took,
  /// so `ever` already has them there (an inline hook need not set them).
  std::vector<uint64_t> Surely;
  /// The symbols whose `ever` bit a failure may read (a state before the
  /// site names it and may be reached having taken it); hooks of other
  /// symbols do not set theirs.
  uint64_t EverRead = 0;
  /// Per DFA state: the symbol a shortest path from the start to a final
  /// state takes there (a passing program's likely event: its hook tests
  /// that state first), or 0xff.
  std::vector<uint8_t> HotSym;
  /// Per DFA state: the symbols that take some shortest path from it to a
  /// final state (HotSym's among them), as a mask (Hooks.cpp likelyRank:
  /// which states a hook tests before its table or switch).
  std::vector<uint64_t> Likely;
  /// Per DFA state: the symbols that move to another state as far from a
  /// final state (an optional event, an OR block's other member).
  std::vector<uint64_t> Sideways;
};

/// Assertions sharing both bounds and the locality.
struct Group {
  bool Global = false;
  const Event *Start = nullptr, *End = nullptr;
  llvm::GlobalVariable *GV = nullptr;
  llvm::Function *Enter = nullptr, *Exit = nullptr; // inline (per-thread)
  /// Per-thread call(f)..returnfrom(f) on a target with
  /// llvm.addressofreturnaddress: the entry passes its frame, so that a
  /// bound left by longjmp is found and closed (runtime/abandon.c).
  bool Anchored = false;
  /// Eager members (vigil/abi.h "Eager instances"), in the order the
  /// runtime is given them; EagerAs is the constant array of their
  /// assertions.  HasLazy: some member is touched late (by its first event).
  std::vector<unsigned> Eager;
  llvm::GlobalVariable *EagerAs = nullptr;
  bool HasLazy = false;
  /// Every member eager: VIGIL_BOUND_ENTRIES (vigil/abi.h).
  bool Entries = false;
};

/// Who looks at one observation point.
struct Observer {
  enum Type { BoundStart = 0, Event = 1, BoundEnd = 2 } T;
  unsigned A = 0;      // Event: the assertion
  unsigned S = 0;      // Event: the symbol
  unsigned G = 0;      // the bound group (struct automata: unused)
  const vigil::Event *Ev = nullptr;
};

/// A function entry or return (callee or caller side), or a field store.
struct Point {
  bool Field = false;
  std::string Function; // call / return
  bool AtReturn = false, CallerSide = false;
  std::string Record; // field
  uint64_t Offset = 0, Size = 0, RecordSize = 0;
  std::vector<Observer> Obs;
  std::map<unsigned, llvm::Function *> Hooks; // by 2 * parameters + has-return
};

/// A store (or atomic read-modify-write) that writes a field point.
struct FieldRef {
  llvm::Instruction *I = nullptr;
  unsigned Point = 0;
};

/// A struct a store may write into: its LLVM type name ("struct.object"),
/// the byte offset of the store in it, its size (0: unknown).
struct FieldCandidate {
  std::string Name;
  uint64_t Offset = 0, Size = 0;
};

/// One alternative's new fast state after a symbol: (alternative, the fast
/// state it was in, the table entry).
struct Step {
  unsigned Alt;
  llvm::Value *Fs, *Next;
  std::vector<uint8_t> Row; // the table Next was read from
};

class Instrumenter {
public:
  explicit Instrumenter(llvm::Module &M);
  /// Step 1: reads the assertions (Collect.cpp); false when the module
  /// was instrumented already.  run() calls it if nobody did.
  bool prepare();
  /// The functions the assertions name (bounds and events; not field
  /// stores), for --vigil-trace-events.
  std::set<std::string> functions() const;
  /// The remaining steps.
  bool run();

private:
  llvm::Module &M;
  llvm::LLVMContext &C;
  const llvm::DataLayout &DL;
  llvm::Type *I8, *I16, *I32, *I64, *Void;
  llvm::PointerType *Ptr;
  llvm::StructType *ValueDescTy, *EventDescTy, *StateDescTy, *AutomatonTy,
      *AssertionTy;
  llvm::FunctionCallee BoundEnterFn, BoundExitFn, BoundSettleFn, SiteReachedFn,
      EventFn, ObjectEventFn, SiteLockedFn, EventLockedFn, BoundSettleEagerFn,
      BoundEnterEagerFn;
  bool FastPath = true;
  int Prepared = -1; // prepare(): -1 not yet, else its result

  // Collect.cpp
  std::vector<Assertion> As;
  std::vector<std::pair<llvm::CallInst *, int>> Sites; // -1: erase only
  Definitions Defs;

  // Plan.cpp
  std::vector<unsigned> GroupOf; // per assertion (inline kinds)
  std::vector<Group> Groups;
  std::vector<Point> Points;
  std::map<std::string, unsigned> PointIndex;
  llvm::StringMap<unsigned> CalleeEntry, CalleeReturn, CallerEntry,
      CallerReturn;
  std::vector<unsigned> FieldPoints;

  // Tables.cpp
  std::vector<std::vector<std::unique_ptr<HostAlt>>> Host; // [A][Alt]
  std::vector<bool> Fast;                                  // a->fast
  std::vector<bool> Eager;                                 // a->eager
  std::vector<llvm::GlobalVariable *> AssertionGVs, InstanceGVs;
  llvm::StringMap<llvm::Constant *> Strings;

  // Hooks.cpp
  std::map<std::pair<unsigned, unsigned>, llvm::Function *> EventFns;
  std::map<unsigned, llvm::Function *> SiteFns;
  std::map<std::vector<uint8_t>, llvm::GlobalVariable *> RowGVs;

  // HooksGlobal.cpp
  std::map<std::pair<unsigned, unsigned>, llvm::Function *> GlobalEventFns;
  std::map<unsigned, llvm::Function *> GlobalSiteFns;
  /// eventHook / siteHook build the body of a global hook (no dispatch).
  bool BuildingGlobalBody = false;

  // Collect.cpp
  void collect();
  bool descriptorOf(llvm::CallInst *CI, std::string &D);

  // Plan.cpp
  bool defined(llvm::StringRef Name) const;
  bool callerSide(const vigil::Event &E) const;
  bool anchorable(const vigil::Event &S, const vigil::Event &E) const;
  static bool isField(const vigil::Event &E);
  std::string eventKey(const vigil::Event &E) const;
  unsigned pointOf(const vigil::Event &E);
  void plan();
  void planGroups();
  void planEager();
  bool eagerCandidate(unsigned A) const;
  void warnUnused();

  // Tables.cpp
  void makeTypes();
  void buildHost();
  llvm::Constant *str(llvm::StringRef S);
  llvm::Constant *table(llvm::Type *ElemTy, llvm::ArrayRef<llvm::Constant *> E,
                        const llvm::Twine &Name);
  llvm::Constant *symbolTable(unsigned AI, const std::string &P);
  llvm::Constant *alternativeTable(unsigned AI, const std::string &P);
  void emitTables();
  void emitStorage();

  // Hooks.cpp
  llvm::Value *instance(llvm::IRBuilder<> &B, unsigned A);
  llvm::Value *groupPtr(llvm::IRBuilder<> &B, unsigned G);
  llvm::Function *newHook(const llvm::Twine &Name,
                          llvm::ArrayRef<llvm::Type *> Params);
  uint64_t fastInit(unsigned A) const;
  llvm::Constant *fastWord(unsigned A, uint64_t V) const;
  std::vector<uint8_t> eventRow(unsigned A, unsigned Alt, unsigned S) const;
  std::vector<uint8_t> siteRow(unsigned A, unsigned Alt) const;
  bool symbolInline(unsigned A, unsigned S) const;
  bool siteInline(unsigned A) const;
  llvm::Value *lookup(llvm::IRBuilder<> &B, const std::vector<uint8_t> &Row,
                      llvm::Value *Fs);
  void emitTouch(llvm::IRBuilder<> &B, unsigned A, llvm::Value *Bound,
                 llvm::Value *Inst, llvm::BasicBlock *Slow,
                 llvm::BasicBlock *Ret);
  std::vector<Step> emitSteps(llvm::IRBuilder<> &B, unsigned A, unsigned S,
                              llvm::Value *Inst);
  void emitApply(llvm::IRBuilder<> &B, unsigned A, unsigned S,
                 llvm::Value *Bound, llvm::Value *Inst,
                 llvm::ArrayRef<Step> Steps, llvm::BasicBlock *Ret);
  void storeCapture(llvm::IRBuilder<> &B, unsigned A, unsigned I,
                    llvm::Value *W, llvm::Value *Inst);
  llvm::Value *capturesDiffer(llvm::IRBuilder<> &B, unsigned A,
                              llvm::Value *Inst,
                              llvm::ArrayRef<std::pair<unsigned, llvm::Value *>>
                                  Words);
  llvm::Function *enterHook(unsigned G);
  void keepFrame(llvm::Function &F, unsigned P);
  llvm::Function *exitHook(unsigned G);
  llvm::Function *coldHook(const llvm::Twine &Name,
                           llvm::ArrayRef<llvm::Type *> Params);
  llvm::Function *nestHook(unsigned G);
  llvm::Function *settleEagerHook(unsigned G);
  llvm::Function *slowCall(
      llvm::Function *F, const llvm::Twine &Name,
      llvm::function_ref<void(llvm::IRBuilder<> &, llvm::Value *)> Call);
  llvm::Function *unnestHook(unsigned G);
  llvm::Value *eagerInstances(llvm::IRBuilder<> &B, unsigned G);
  void emitEagerInit(llvm::IRBuilder<> &B, unsigned G);
  void emitEagerEnd(llvm::IRBuilder<> &B, unsigned G, llvm::BasicBlock *Settle);
  void emitPassIfDone(llvm::IRBuilder<> &B, llvm::Value *Inst, uint8_t Done,
                      llvm::BasicBlock *Pass, llvm::BasicBlock *Next);
  void emitEagerEndOr(llvm::IRBuilder<> &B, unsigned A, llvm::BasicBlock *Asked);
  void emitEagerEndOrAsked(llvm::IRBuilder<> &B, unsigned A, llvm::BasicBlock *Next);
  llvm::Value *eagerEndJoint(llvm::IRBuilder<> &B, unsigned A);
  void emitNestedEntry(llvm::IRBuilder<> &B, unsigned G, llvm::Value *Bound,
                       llvm::Value *Frame, llvm::Value *D,
                       llvm::BasicBlock *Ret);
  void emitEagerStep(llvm::IRBuilder<> &B, unsigned A, unsigned S,
                     llvm::Value *Inst, const Step &St, llvm::BasicBlock *Slow,
                     llvm::BasicBlock *Ret);
  void emitSwitch(llvm::IRBuilder<> &B, unsigned A, unsigned S,
                  llvm::Value *Bound, llvm::Value *Inst, const Step &St,
                  llvm::ArrayRef<std::pair<unsigned, llvm::Value *>> Caps,
                  llvm::BasicBlock *Slow, llvm::BasicBlock *Ret);
  llvm::Function *finishEventHook(llvm::Function *F, unsigned A, unsigned S,
                                  llvm::Value *Bound, llvm::Value *Inst,
                                  llvm::BasicBlock *Slow, llvm::BasicBlock *Ret);
  llvm::Function *finishSiteHook(llvm::Function *F, unsigned A,
                                 llvm::Value *Bound, llvm::Value *Inst,
                                 llvm::BasicBlock *Slow, llvm::BasicBlock *Ret);
  llvm::Function *eventHook(unsigned A, unsigned S);
  llvm::Function *siteHook(unsigned A);
  llvm::Value *wordBuffer(llvm::IRBuilder<> &B,
                          llvm::ArrayRef<llvm::Value *> Words);

  // HooksOr.cpp: top-level OR inline
  static bool orDeadIn(const std::vector<uint8_t> &Row);
  void emitOrSettle(llvm::IRBuilder<> &B, llvm::Value *Bound, llvm::Value *Inst);
  void emitOrSettleSteps(llvm::IRBuilder<> &B, unsigned A, llvm::Value *Bound,
                         llvm::Value *Inst, llvm::ArrayRef<Step> Steps,
                         llvm::BasicBlock *Ret);
  void emitOrSiteCases(llvm::IRBuilder<> &B, unsigned A, llvm::Value *Bound,
                       llvm::Value *Inst, llvm::ArrayRef<llvm::Value *> Caps,
                       llvm::BasicBlock *Ret);

  // HooksGlobal.cpp
  void emitGlobalLock(llvm::IRBuilder<> &B, llvm::Value *Bound,
                      llvm::BasicBlock *Contended, llvm::BasicBlock *Ret);
  void emitGlobalUnlock(llvm::IRBuilder<> &B, llvm::Value *Bound);
  llvm::Function *lockedHook(
      const llvm::Twine &Name, llvm::ArrayRef<llvm::Type *> Params, unsigned G,
      bool Peek,
      llvm::function_ref<void(llvm::IRBuilder<> &, llvm::Value *, llvm::BasicBlock *)> Body,
      llvm::function_ref<void(llvm::IRBuilder<> &, llvm::Value *)> Runtime);
  llvm::Function *globalEnterHook(unsigned G);
  llvm::Function *globalExitHook(unsigned G);
  llvm::Function *globalWrapper(
      const llvm::Twine &Name, unsigned A, llvm::Function *Body,
      llvm::function_ref<void(llvm::IRBuilder<> &, llvm::ArrayRef<llvm::Value *>)>
          Runtime);
  llvm::Function *globalEventHook(unsigned A, unsigned S);
  llvm::Function *globalSiteHook(unsigned A);

  // HooksStore.cpp
  std::map<std::pair<unsigned, unsigned>, llvm::Function *> LogFns;
  unsigned logSlots(unsigned A) const;
  unsigned logStride(unsigned A) const;
  llvm::Function *logHook(unsigned A, unsigned S);
  llvm::Value *logHead(llvm::IRBuilder<> &B, unsigned A, llvm::Value *Inst);
  void emitLogAppend(llvm::IRBuilder<> &B, unsigned A, unsigned S,
                     llvm::Function *F, llvm::Value *Inst, llvm::BasicBlock *Ret,
                     llvm::BasicBlock *Slow);
  bool logSite(unsigned A) const;
  void emitLogFirst(llvm::IRBuilder<> &B, unsigned A, unsigned S,
                    llvm::Value *Inst, llvm::BasicBlock *Slow,
                    llvm::BasicBlock *Ret);
  // HooksLogSite.cpp: the site decided from the log
  llvm::Value *emitLogReplay(llvm::IRBuilder<> &B, unsigned A,
                             llvm::Value *Inst, llvm::ArrayRef<llvm::Value *> Caps,
                             llvm::BasicBlock *Slow, llvm::Value *&N);
  llvm::Function *logSiteHook(unsigned A);

  // Points.cpp
  llvm::Value *toWord(llvm::IRBuilder<> &B, llvm::Value *V);
  bool slotsUsable(const vigil::Event &E, unsigned NArgs, bool HasRet,
                   llvm::StringRef Where);
  llvm::Function *pointHook(unsigned P, unsigned NArgs, bool HasRet,
                            llvm::StringRef Where,
                            bool OutOfLine = false);
  llvm::Value *slotWord(llvm::IRBuilder<> &B, llvm::Function *F,
                        const vigil::Event &E, const vigil::Value &V,
                        unsigned NArgs, llvm::BasicBlock *Skip);
  void emitObserver(llvm::IRBuilder<> &B, llvm::Function *F,
                    const Observer &O, unsigned NArgs);
  void dispatch(llvm::IRBuilder<> &B, const Observer &O,
                llvm::ArrayRef<llvm::Value *> Words);
  void callPoint(llvm::Instruction *Before, unsigned P,
                 llvm::ArrayRef<llvm::Value *> Args, llvm::Value *Ret,
                 llvm::StringRef Where, bool Entry);
  void instrumentCalls(llvm::Function &F,
                       llvm::ArrayRef<llvm::CallInst *> Calls);
  void instrumentFunction(llvm::Function &F);
  void replaceSite(llvm::CallInst *CI, unsigned A);

  // Fields.cpp
  void matchStores(llvm::Function &F, std::vector<FieldRef> &Out);
  void storeCandidates(llvm::Instruction *I, llvm::Value *P,
                       std::vector<FieldCandidate> &Out);
  void typesOf(llvm::Value *V, uint64_t Off, std::vector<FieldCandidate> &Out);
  void instrumentStore(const FieldRef &R);
};

/// Byte Off of Base as a pointer.
llvm::Value *at(llvm::IRBuilder<> &B, llvm::Value *Base, unsigned Off);
/// *P += Delta.
void bump(llvm::IRBuilder<> &B, llvm::Type *Ty, llvm::Value *P, int Delta);
/// A debug location for instrumentation placed before I.
void locate(llvm::IRBuilder<> &B, llvm::Instruction *I);

/// After the LTO pipeline: the block of a rare out-of-line call gets its
/// own copy of a small call-free rest of the function, so that the fast
/// path needs no stack frame (SlowTails.cpp).
struct SlowTails : llvm::PassInfoMixin<SlowTails> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &);
};

} // namespace pass
} // namespace vigil

#endif
