//===- AtomicShared.cpp - which memory is shared, which is synchronisation ===//
//
// Kivati (§3.1) seeds each function's list of shared variables with every
// global, adds arguments passed by reference and pointers returned by
// calls, and closes over data flow.  Here the same question is asked of the
// object an access's pointer is based on (getUnderlyingObjects), with what
// the whole program shows:
//
//   global or static      shared unless thread_local, constant or vigil's
//   local (alloca)        shared only if its address is stored somewhere
//                         or handed to pthread_create (passing &x to a
//                         callee is not enough: the callee's accesses are
//                         its own, and a stack object rarely outlives the
//                         call in another thread's hands)
//   heap (malloc, new)    shared if the pointer may be captured (stored,
//                         returned, passed to a function that keeps it)
//   argument              shared if the function's address is taken (a
//                         thread entry, a callback) or any direct caller
//                         passes shared memory; otherwise it is the
//                         callers' local memory
//   loaded pointer, other shared (what it points to came from memory)
//
// Synchronisation memory is never shared memory: the objects passed to
// pthread mutex / spin / rwlock / condition / barrier / once / semaphore
// functions (their size's worth of bytes at that offset) and anything
// accessed atomically or volatile anywhere in the program.  The paper
// whitelisted these by hand (§3.4, the fourth optimisation).
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"

#include "vigil/atomic.h"

#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace vigil {
namespace pass {

namespace {
struct SyncFn {
  const char *Name;
  int64_t Size; // bytes of the object at the first argument
  int Lock;     // lock effect: +1 takes, -1 releases, -2 waits (releases),
                //   -3 orders the threads (no pair spans a join or barrier)
};
// Sizes are glibc x86-64's; a larger guess only whitelists neighbours.
const SyncFn SyncFns[] = {
    {"pthread_mutex_lock", 40, 1},      {"pthread_mutex_unlock", 40, -1},
    {"pthread_mutex_trylock", 40, 0},   {"pthread_mutex_timedlock", 40, 0},
    {"pthread_mutex_init", 40, 0},      {"pthread_mutex_destroy", 40, 0},
    {"pthread_spin_lock", 4, 1},        {"pthread_spin_unlock", 4, -1},
    {"pthread_spin_trylock", 4, 0},     {"pthread_spin_init", 4, 0},
    {"pthread_spin_destroy", 4, 0},     {"pthread_rwlock_rdlock", 56, 1},
    {"pthread_rwlock_wrlock", 56, 1},   {"pthread_rwlock_unlock", 56, -1},
    {"pthread_rwlock_tryrdlock", 56, 0}, {"pthread_rwlock_trywrlock", 56, 0},
    {"pthread_rwlock_init", 56, 0},     {"pthread_rwlock_destroy", 56, 0},
    {"pthread_cond_wait", 48, -2},      {"pthread_cond_timedwait", 48, -2},
    {"pthread_cond_signal", 48, 0},     {"pthread_cond_broadcast", 48, 0},
    {"pthread_cond_init", 48, 0},       {"pthread_cond_destroy", 48, 0},
    {"pthread_barrier_wait", 32, -3},   {"pthread_barrier_init", 32, 0},
    {"pthread_join", 0, -3},
    {"pthread_once", 4, 0},             {"sem_wait", 32, -2},
    {"sem_post", 32, 0},                {"sem_trywait", 32, 0},
    {"sem_timedwait", 32, -2},          {"sem_init", 32, 0},
};

const SyncFn *syncFn(const Function *F) {
  if (!F)
    return nullptr;
  StringRef N = F->getName();
  for (const SyncFn &S : SyncFns)
    if (N == S.Name)
      return &S;
  return nullptr;
}

bool vigilName(StringRef N) {
  return N.starts_with("__vigil") || N.starts_with("llvm.");
}

/// Does the address of Obj reach a store's value operand or a thread?
bool escapesToMemory(const Value *Obj) {
  SmallVector<const Value *, 8> Work{Obj};
  DenseSet<const Value *> Seen;
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    for (const User *U : V->users()) {
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getValueOperand() == V)
          return true;
      } else if (auto *CB = dyn_cast<CallBase>(U)) {
        const Function *F = CB->getCalledFunction();
        if (F && F->getName() == "pthread_create")
          return true;
      } else if (isa<GetElementPtrInst>(U) || isa<BitCastInst>(U) ||
                 isa<PHINode>(U) || isa<SelectInst>(U) ||
                 isa<AddrSpaceCastInst>(U) || isa<PtrToIntInst>(U)) {
        Work.push_back(U);
      }
    }
  }
  return false;
}

bool isAllocation(const CallBase *CB) {
  const Function *F = CB->getCalledFunction();
  if (!F)
    return false;
  StringRef N = F->getName();
  return N == "malloc" || N == "calloc" || N == "realloc" ||
         N == "aligned_alloc" || N == "strdup" || N == "strndup" ||
         N == "_Znwm" || N == "_Znam";
}
} // namespace

SharedMemory::SharedMemory(Module &M) {
  findSync(M);
  findWaitLoops(M);
  findLockWrappers(M);
  findThreadArguments(M);
  for (GlobalVariable &GV : M.globals())
    for (const User *U : GV.users())
      if (!isa<LoadInst>(U) && !isa<StoreInst>(U)) {
        AddressTaken.insert(&GV);
        break;
      }
}

void SharedMemory::findSync(Module &M) {
  const DataLayout &DL = M.getDataLayout();
  auto Add = [&](const Value *P, int64_t Size) {
    int64_t Off = 0;
    const Value *Base = GetPointerBaseWithConstantOffset(P, Off, DL);
    Sync.push_back({Base, Off, Off + Size});
  };
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (const SyncFn *S = syncFn(CB->getCalledFunction()))
          if (CB->arg_size() > 0 && S->Size)
            Add(CB->getArgOperand(0), S->Size);
        continue;
      }
      if (auto *LI = dyn_cast<LoadInst>(&I)) {
        if (LI->isAtomic() || LI->isVolatile())
          Add(LI->getPointerOperand(), DL.getTypeStoreSize(LI->getType()));
      } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
        if (SI->isAtomic() || SI->isVolatile())
          Add(SI->getPointerOperand(),
              DL.getTypeStoreSize(SI->getValueOperand()->getType()));
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
        Add(RMW->getPointerOperand(),
            DL.getTypeStoreSize(RMW->getValOperand()->getType()));
      } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
        Add(CX->getPointerOperand(),
            DL.getTypeStoreSize(CX->getNewValOperand()->getType()));
      }
    }
}

/// A function that, counted over its body, takes more locks than it
/// releases acts as a lock (apr_thread_mutex_lock, a project's LOCK());
/// one that releases more, as an unlock; one that waits on a condition
/// variable, as a wait; one that joins, passes a barrier or waits in a
/// loop for another thread's store, as a barrier.  Three rounds follow
/// wrappers of wrappers.
void SharedMemory::findLockWrappers(Module &M) {
  for (int Round = 0; Round < 3; ++Round)
    for (Function &F : M) {
      if (F.isDeclaration() || vigilName(F.getName()) || syncFn(&F))
        continue;
      int Net = 0;
      bool Waits = false, Orders = false;
      for (Instruction &I : instructions(F)) {
        Orders |= waits(I);
        if (auto *CB = dyn_cast<CallBase>(&I)) {
          int E = lockEffect(*CB);
          Waits |= E == -2;
          Orders |= E == -3;
          if (E == 1 || E == -1)
            Net += E;
        }
      }
      int Effect = Net > 0 ? 1 : Net < 0 ? -1 : Waits ? -2 : Orders ? -3 : 0;
      if (Effect)
        LockFns[&F] = Effect;
    }
}

void SharedMemory::findThreadArguments(Module &M) {
  for (Function &F : M)
    if (F.hasAddressTaken())
      ThreadEntries.insert(&F);
}

int SharedMemory::lockEffect(const CallBase &CB) const {
  const Function *F = CB.getCalledFunction();
  if (const SyncFn *S = syncFn(F))
    return S->Lock;
  auto It = LockFns.find(F);
  return It == LockFns.end() ? 0 : It->second;
}

bool SharedMemory::isSync(const Value *Ptr, const DataLayout &DL) const {
  int64_t Off = 0;
  const Value *Base = GetPointerBaseWithConstantOffset(Ptr, Off, DL);
  for (const Range &R : Sync)
    if (R.Base == Base && Off >= R.Begin && Off < R.End)
      return true;
  return false;
}

bool SharedMemory::sharedObject(const Value *Obj) const {
  if (auto *GV = dyn_cast<GlobalVariable>(Obj))
    return !GV->isThreadLocal() && !GV->isConstant() &&
           !vigilName(GV->getName());
  if (isa<AllocaInst>(Obj))
    return escapesToMemory(Obj);
  if (auto *CB = dyn_cast<CallBase>(Obj))
    return !isAllocation(CB) ||
           PointerMayBeCaptured(Obj, /*ReturnCaptures=*/true,
                                /*StoreCaptures=*/true);
  if (auto *A = dyn_cast<Argument>(Obj)) {
    const Function *F = A->getParent();
    if (ThreadEntries.count(F) || F->getName() == "main")
      return true;
    // Whole program: a function whose address is not taken is called only
    // from the module (dlopen'ed callers aside); one level of callers.
    const DataLayout &DL = F->getParent()->getDataLayout();
    for (const User *U : F->users()) {
      auto *CB = dyn_cast<CallBase>(U);
      if (!CB || CB->getCalledFunction() != F ||
          A->getArgNo() >= CB->arg_size())
        return true;
      const Value *Actual = CB->getArgOperand(A->getArgNo());
      SmallVector<const Value *, 4> Objs;
      getUnderlyingObjects(Actual, Objs, nullptr, 8);
      for (const Value *O : Objs)
        if (isa<Argument>(O) || sharedObject(O))
          return true;
      (void)DL;
    }
    return F->use_empty(); // never called here: assume the worst
  }
  return true;
}

bool SharedMemory::isShared(const Value *Ptr, const DataLayout &DL) const {
  if (isSync(Ptr, DL))
    return false;
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(Ptr, Objs, nullptr, 8);
  for (const Value *O : Objs)
    if (sharedObject(O))
      return true;
  return false;
}

} // namespace pass
} // namespace vigil
