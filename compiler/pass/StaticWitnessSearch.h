//===- StaticWitnessSearch.h - the witness search's executor (private) ----===//
//
// Shared by StaticWitness.cpp (the search, the solver, the assertion's
// steps) and StaticWitnessExec.cpp (instructions and memory).  The memory
// model is exact or absent: every object (global, alloca, malloc, argv) maps
// byte offsets to what was stored there, a pointer is an object and a known
// offset, and a load must find exactly what a store or an initialiser put
// there.  A value the executor cannot know is NONE; a path ends (STOP) only
// when a NONE would decide something: a branch, an address, a call target.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_PASS_STATIC_WITNESS_SEARCH_H
#define VIGIL_PASS_STATIC_WITNESS_SEARCH_H

#include "StaticEvents.h"
#include "StaticWitness.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"

#include <z3.h>

#include <chrono>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace vigil {
namespace pass {
namespace witness {

constexpr unsigned ArgBytes = 24; // argv[1]'s longest string
// Budgets: a moment per assertion; running out leaves the verdict unknown.
constexpr unsigned MaxPaths = 2000, MaxFrames = 64, MaxDecisions = 48;
constexpr uint64_t MaxSteps = 400000; // instructions, over every path
constexpr double MaxSeconds = 2.0;

struct Ptr {
  int Obj = 0; // 0 is null
  int64_t Off = 0;
};

/// An integer is known (C) or a Z3 bit-vector (Sym); a pointer is known.
struct Val {
  enum Kind { NONE, INT, PTR } K = NONE;
  unsigned Bits = 0;
  bool Sym = false;
  uint64_t C = 0;
  Z3_ast E = nullptr;
  Ptr P;
  static Val known(const llvm::APInt &V) {
    Val R;
    R.K = INT, R.Bits = V.getBitWidth(), R.C = V.getZExtValue();
    return R;
  }
  static Val symbolic(Z3_ast E, unsigned Bits) {
    Val R;
    R.K = INT, R.Bits = Bits, R.Sym = true, R.E = E;
    return R;
  }
  static Val pointer(Ptr P) {
    Val R;
    R.K = PTR, R.P = P;
    return R;
  }
  llvm::APInt apint() const { return llvm::APInt(Bits, C); }
};

struct Object {
  std::map<int64_t, std::pair<Val, unsigned>> Cells; // offset -> value, bytes
  const llvm::GlobalVariable *G = nullptr;           // its initial contents
  const llvm::Function *Fn = nullptr;                // a function's address
  bool ArgString = false;                            // argv[1]'s bytes
  bool Zeroed = false;                               // calloc
};

struct Frame {
  const llvm::Function *F = nullptr;
  const llvm::BasicBlock *BB = nullptr;
  llvm::BasicBlock::const_iterator It;
  llvm::DenseMap<const llvm::Value *, Val> Env;
};

struct State {
  std::vector<Frame> Stack;
  std::vector<Object> Mem;
  std::vector<Z3_ast> Path;
  std::vector<int> Q; // per alternative: its DFA state; -1 out of a bound
  std::vector<bool> Dead;
  std::string Why;            // the latest failure in this bound
  unsigned Depth = 0;         // bound nesting: only the outermost counts
  int ArgRead = -1;           // the highest byte of argv[1] read
  int ArgNonZero = 0;         // bytes below this one are known not NUL
  Z3_ast ArgNumber = nullptr; // or argv[1] read as a number (64 bits)
  unsigned Argc = 2;
  unsigned Decisions = 0; // branches decided by the input
  bool Started = false;
  std::vector<std::string> Trace;
};

enum Outcome { GO, END, FAIL, STOP };

/// The words an event's values read: a call's arguments, and its result at
/// a return.
struct Observed {
  std::vector<Val> Args;
  Val Ret;
};

class Search {
public:
  Search(llvm::Module &M, const Assertion &A, const llvm::DenseSet<const llvm::CallInst *> &Mine);
  ~Search();
  Witness run();

private:
  llvm::Module &M;
  const llvm::DataLayout &DL;
  const Assertion &A;
  const llvm::DenseSet<const llvm::CallInst *> &Mine;
  EventPoints P;
  Z3_context Ctx;
  Z3_solver Solver;
  std::vector<Z3_ast> ArgByte;
  llvm::DenseMap<const llvm::GlobalValue *, int> GlobalObj;
  std::deque<State> Work; // breadth first: the shortest failing run first
  std::chrono::steady_clock::time_point Deadline;
  uint64_t Steps = 0;
  unsigned Paths = 0;
  bool Allocated = false; // malloc might have failed on another run
  Witness W;

  // StaticWitness.cpp: the search, the assertion, the solver
  State initial(unsigned Argc);
  Outcome runPath(State &S);
  Outcome observe(State &S, const std::vector<Obs> *Os, const llvm::Instruction *At,
                  const Observed &W);
  Outcome matches(State &S, const Event &E, const Observed &W, const llvm::Instruction *At,
                  bool &Match);
  Observed argsOf(State &S, const llvm::CallBase &CB);
  Observed paramsOf(State &S, const llvm::Function &F);
  Outcome stepSym(State &S, unsigned Sym, const llvm::Instruction *At);
  Outcome violated(State &S, const llvm::Instruction *At, const std::string &Why);
  bool feasible(const State &S, Z3_ast Extra);
  std::vector<std::string> inputOf(const State &S);
  struct Choice {
    Z3_ast Cond;
    const llvm::BasicBlock *To;
    std::string What;
  };
  Outcome decide(State &S, const llvm::Instruction &I, std::vector<Choice> Cs);

  // StaticWitnessExec.cpp: instructions and memory
  Outcome exec(State &S, const llvm::Instruction &I);
  void enterBlock(State &S, const llvm::BasicBlock *To);
  Outcome branch(State &S, const llvm::Instruction &I);
  Outcome call(State &S, const llvm::CallBase &CB);
  Outcome callExternal(State &S, const llvm::CallBase &CB, const llvm::Function *T);
  Outcome intrinsic(State &S, const llvm::IntrinsicInst &II);
  Outcome ret(State &S, const llvm::ReturnInst &R);
  Val load(State &S, const llvm::LoadInst &L);
  Outcome store(State &S, const llvm::StoreInst &St);
  Val loadArgByte(State &S, int64_t Off);
  void touchArgBytes(State &S, int64_t Upto);
  Outcome stringCompare(State &S, const llvm::CallBase &CB);
  bool stringBytes(State &S, const Val &P, std::vector<Z3_ast> &Bytes, bool &Symbolic);
  Val arith(State &S, const llvm::Instruction &I);
  Val binary(State &S, const llvm::BinaryOperator &B);
  Val convert(State &S, const llvm::CastInst &C);
  Val compare(State &S, const llvm::ICmpInst &C);
  Val gep(State &S, const llvm::GEPOperator &G);
  Val eval(State &S, const llvm::Value *V);
  Val constant(const llvm::Constant *C);

  // helpers
  Z3_ast ast(const Val &V) {
    return V.Sym ? V.E : Z3_mk_unsigned_int64(Ctx, V.C, Z3_mk_bv_sort(Ctx, V.Bits));
  }
  Z3_ast isTrue(const Val &V) { return Z3_mk_eq(Ctx, ast(V), Z3_mk_unsigned_int64(Ctx, 1, Z3_mk_bv_sort(Ctx, 1))); }
  Outcome stop(const std::string &Why) {
    if (W.GaveUp.empty())
      W.GaveUp = Why;
    return STOP;
  }
  Outcome stopAt(const llvm::Instruction &I, const llvm::Twine &Why) {
    return stop((where(&I) + ": " + Why).str());
  }
  void trace(State &S, const llvm::Instruction *At, const llvm::Twine &What) {
    S.Trace.push_back((where(At) + ": " + What).str());
  }
};

} // namespace witness
} // namespace pass
} // namespace vigil

#endif
