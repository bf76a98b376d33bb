//===- Static.cpp - link-time verdicts on per-thread assertions -----------===//
//
// A per-thread assertion without captured values is one run of each
// alternative's DFA per bound (docs/assertion-language.md, Semantics).  The
// checker runs the product of that DFA with the program: the abstract state
// at a program point is the set of DFA states the thread's current bound may
// be in, plus OUT (no bound open).  Each function gets a summary, for each
// single state at its entry the set at its returns, computed to a fixpoint
// over the call graph (recursion included); then the contexts reachable
// from main and from every address-taken function (threads, callbacks,
// constructors) are run once more, recording every step that may fail: a
// symbol without a transition, or a bound end in a state that fails
// (vg_cand_end in runtime/engine.c).  An alternative with no possible
// failure holds in every bound, and so does the assertion.
//
// Over-approximations that keep "proven" sound:
//  - an event whose values are not all ANY may or may not match: both;
//  - an indirect call, inline asm or a call to a function outside the
//    module may run any address-taken function of the module, any number
//    of times, in the current state;
//  - a bound end may be a nested one (unless the bound is call(f) ..
//    returnfrom(f) of a function that cannot recurse): the bound may stay
//    open in the state it was in.
// What it cannot over-approximate makes the verdict unknown: global
// assertions (other threads' events count), captured values (a check per
// value tuple), free variables, field-assignment events, setjmp/longjmp
// (a jump skips returns and bound ends), signal handlers (they run between
// any two instructions), a module without main (a library: its callers are
// not visible).  The assumption it makes: no code outside the module calls
// a function of the program by name (dlsym), as LTO's internalisation does.
//
//===----------------------------------------------------------------------===//
#include "Static.h"
#include "StaticEvents.h"
#include "StaticWitness.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>

using namespace llvm;

namespace vigil {
namespace pass {

StaticMode staticModeFromEnv() {
  const char *E = std::getenv("VIGIL_STATIC");
  if (!E || !*E || std::strcmp(E, "off") == 0)
    return STATIC_OFF;
  if (std::strcmp(E, "report") == 0)
    return STATIC_REPORT;
  if (std::strcmp(E, "prune") == 0)
    return STATIC_PRUNE;
  errs() << "vigil: error: VIGIL_STATIC=" << E << ": expected off, report or prune\n";
  report_fatal_error("vigil: bad VIGIL_STATIC", /*gen_crash_diag=*/false);
}

std::string where(const Instruction *I) {
  if (const DebugLoc &L = I->getDebugLoc())
    return (L->getFilename() + ":" + Twine(L.getLine()) + ":" + Twine(L.getCol())).str();
  if (const DISubprogram *SP = I->getFunction()->getSubprogram()) // a function's entry
    return (SP->getFilename() + ":" + Twine(SP->getLine())).str();
  return ("in " + I->getFunction()->getName()).str();
}

EventPoints bindEventPoints(Module &M, const Assertion &A) {
  EventPoints P;
  auto Defined = [&](StringRef Fn) {
    Function *F = M.getFunction(Fn);
    return F && !F->isDeclaration();
  };
  for (unsigned S = 0; S < A.Symbols.size(); ++S) {
    const Event &E = A.Symbols[S];
    if (S == 2 || E.Function.empty())
      continue; // the site is its own call
    bool Maybe = false;
    for (const vigil::Value &V : E.Values)
      Maybe |= V.Kind != VAL_ANY;
    bool Caller = E.ForceCaller || !Defined(E.Function);
    auto &Map = Caller ? (E.AtReturn ? P.CallerRet : P.CallerEntry)
                       : (E.AtReturn ? P.CalleeRet : P.CalleeEntry);
    Map[E.Function].push_back({S, Maybe});
  }
  // the runtime orders a point's observers: bound start, events, bound end
  for (auto *Map : {&P.CalleeEntry, &P.CalleeRet, &P.CallerEntry, &P.CallerRet})
    for (auto &KV : *Map)
      std::sort(KV.second.begin(), KV.second.end(), [](const Obs &L, const Obs &R) {
        auto Rank = [](unsigned S) { return S == 0 ? 0u : S == 1 ? 2u : 1u; };
        return std::make_pair(Rank(L.Sym), L.Sym) < std::make_pair(Rank(R.Sym), R.Sym);
      });
  return P;
}

namespace {

/// Where the program's text makes it impossible to over-approximate.
std::string moduleBlocker(Module &M) {
  if (!M.getFunction("main") || M.getFunction("main")->isDeclaration())
    return "the module has no main (a library: its callers are not visible)";
  static const char *Jumps[] = {"setjmp",  "_setjmp",    "sigsetjmp", "__sigsetjmp",
                                "longjmp", "_longjmp",   "siglongjmp", "__longjmp_chk"};
  for (const char *N : Jumps)
    if (Function *F = M.getFunction(N); F && !F->use_empty())
      return "the program uses setjmp/longjmp (a jump skips returns and bound ends)";
  static const char *Signals[] = {"signal", "sigaction", "bsd_signal", "sigset", "__sysv_signal"};
  for (const char *N : Signals)
    if (Function *F = M.getFunction(N); F && !F->use_empty())
      return "the program installs signal handlers (they run between any two instructions)";
  return "";
}

std::string assertionBlocker(const Assertion &A) {
  if (A.Kind != AK_INLINE)
    return A.Kind == AK_STRUCT ? "struct automata are not analysed" : "a definition";
  if (A.Locality == GLOBAL)
    return "a global assertion (other threads' events count)";
  if (!A.Captures.empty() || !A.Free.empty())
    return "values captured at the site or free variables (one check per value tuple)";
  for (const Event &E : A.Symbols) {
    if (E.Kind == EV_FIELD)
      return "field-assignment events are not analysed";
    if (!E.isStatic())
      return "an event compares values captured at the site";
  }
  return "";
}

class Checker {
public:
  Checker(Module &M, const Assertion &A, const Dfa &D, const DenseSet<const CallInst *> &Mine)
      : M(M), A(A), D(D), Mine(Mine), N(D.NStates + 1), Out(D.NStates) {
    for (unsigned S = 0; S < D.NStates; ++S)
      if (D.States[S].Flags & SF_INITIAL)
        Init = S;
    for (Function &F : M)
      if (!F.isDeclaration() && F.hasAddressTaken(nullptr, /*IgnoreCallbackUses=*/false,
                                                  true, true, true))
        AddrTaken.push_back(&F);
    bindEvents();
  }

  /// The first possible failure ("" when there is none).
  std::string run();

private:
  Module &M;
  const Assertion &A;
  const Dfa &D;
  const DenseSet<const CallInst *> &Mine;
  unsigned N, Out, Init = 0;
  bool MayNest = true;
  std::vector<Function *> AddrTaken;
  StringMap<std::vector<Obs>> CalleeEntry, CalleeRet, CallerEntry, CallerRet;
  DenseMap<const Function *, std::vector<BitVector>> Summ;
  std::string Failure;

  void bindEvents();
  bool recursive(const Function *F);
  BitVector step(const BitVector &S, const Obs &O, const Instruction *At);
  BitVector apply(const BitVector &S, const std::vector<Obs> *Os, const Instruction *At) {
    BitVector R = S;
    if (Os)
      for (const Obs &O : *Os)
        R = step(R, O, At);
    return R;
  }
  BitVector unknownCode(BitVector S);
  BitVector summaryOf(const Function *G, const BitVector &S);
  using CallSink = std::function<void(const Function *, const BitVector &)>;
  BitVector flow(Function &F, unsigned In, bool Record, const CallSink &Calls);
  BitVector callee(const CallBase &CB, BitVector S, const CallSink &Calls);
  void fail(const Instruction *At, const Twine &Why) {
    if (Failure.empty())
      Failure = (where(At) + ": " + Why).str();
  }
  bool Recording = false; // flow() in the second phase: failures and calls are recorded
};

void Checker::bindEvents() {
  EventPoints P = bindEventPoints(M, A);
  CalleeEntry = std::move(P.CalleeEntry), CalleeRet = std::move(P.CalleeRet);
  CallerEntry = std::move(P.CallerEntry), CallerRet = std::move(P.CallerRet);
  const Event &Start = A.Symbols[0], &End = A.Symbols[1];
  Function *F = M.getFunction(Start.Function);
  if (Start.Function == End.Function && !Start.AtReturn && End.AtReturn && F &&
      !F->isDeclaration() && !Start.ForceCaller && !End.ForceCaller && Start.Values.empty() &&
      End.Values.empty())
    MayNest = recursive(F);
}

/// Can F be entered again while it runs?  Calls of unknown targets reach
/// every address-taken function.
bool Checker::recursive(const Function *F) {
  std::set<const Function *> Seen;
  std::deque<const Function *> Work{F};
  while (!Work.empty()) {
    const Function *G = Work.front();
    Work.pop_front();
    for (const Instruction &I : instructions(G)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      std::vector<const Function *> Next;
      const Function *T = CB->getCalledFunction();
      if (T && T->isIntrinsic())
        continue;
      if (T && !T->isDeclaration())
        Next.push_back(T);
      else
        Next.assign(AddrTaken.begin(), AddrTaken.end());
      for (const Function *X : Next) {
        if (X == F)
          return true;
        if (Seen.insert(X).second)
          Work.push_back(X);
      }
    }
  }
  return false;
}

BitVector Checker::step(const BitVector &S, const Obs &O, const Instruction *At) {
  BitVector R(N);
  for (unsigned Q : S.set_bits()) {
    if (Q == Out) {
      if (O.Sym == 0)
        R.set(Init);
      if (O.Sym != 0 || O.Maybe)
        R.set(Out);
      continue;
    }
    if (O.Maybe)
      R.set(Q);
    if (O.Sym == 0) { // a nested start: the outermost bound goes on
      R.set(Q);
      continue;
    }
    if (O.Sym == 1) {
      const StateInfo &I = D.States[Q];
      bool Fails = (I.Flags & SF_PAST_SITE) ? !(I.Flags & SF_FINAL)
                                            : A.Mode == MODE_STRICT && !(I.Flags & SF_INITIAL);
      if (Fails && Recording)
        fail(At, (I.Flags & SF_PAST_SITE) ? "the bound may end before the events the assertion "
                                            "needs after its site"
                                          : "the bound may end before the site (strict)");
      R.set(Out);
      if (MayNest)
        R.set(Q);
      continue;
    }
    uint16_t T = D.next(Q, O.Sym);
    if (T == NoState) {
      if (Recording)
        fail(At, O.Sym == 2 ? "the site may be reached without the events the assertion needs before it"
                            : "an event of the assertion may happen out of order");
      continue;
    }
    R.set(T);
  }
  return R;
}

BitVector Checker::summaryOf(const Function *G, const BitVector &S) {
  BitVector R(N);
  auto It = Summ.find(G);
  if (It == Summ.end())
    return R;
  for (unsigned Q : S.set_bits())
    R |= It->second[Q];
  return R;
}

BitVector Checker::unknownCode(BitVector S) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const Function *G : AddrTaken) {
      BitVector R = S;
      R |= summaryOf(G, S);
      if (R != S)
        S = R, Changed = true;
    }
  }
  return S;
}

BitVector Checker::callee(const CallBase &CB, BitVector S, const CallSink &Calls) {
  const Function *T = CB.getCalledFunction();
  if (T && T->isIntrinsic())
    return S;
  if (auto *CI = dyn_cast<CallInst>(&CB); CI && Mine.count(CI))
    return step(S, {2, false}, &CB);
  if (T && T->getName() == "__vigil_site")
    return S; // another assertion's site
  StringRef Name = T ? T->getName() : "";
  if (T)
    S = apply(S, CallerEntry.count(Name) ? &CallerEntry[Name] : nullptr, &CB);
  if (T && Summ.count(T)) {
    if (Recording)
      Calls(T, S);
    S = summaryOf(T, S);
  } else {
    S = unknownCode(S);
    if (Recording)
      for (const Function *G : AddrTaken)
        Calls(G, S);
  }
  if (T)
    S = apply(S, CallerRet.count(Name) ? &CallerRet[Name] : nullptr, &CB);
  return S;
}

/// F's states at its returns when it is entered in state In.
BitVector Checker::flow(Function &F, unsigned In, bool Record, const CallSink &Calls) {
  Recording = Record;
  DenseMap<const BasicBlock *, BitVector> At;
  std::deque<const BasicBlock *> Work;
  BitVector Entry(N);
  Entry.set(In);
  StringRef Name = F.getName();
  At[&F.getEntryBlock()] = apply(Entry, CalleeEntry.count(Name) ? &CalleeEntry[Name] : nullptr,
                                 &*F.getEntryBlock().getFirstInsertionPt());
  Work.push_back(&F.getEntryBlock());
  BitVector Result(N);
  while (!Work.empty()) {
    const BasicBlock *BB = Work.front();
    Work.pop_front();
    BitVector S = At[BB];
    for (const Instruction &I : *BB) {
      if (auto *CB = dyn_cast<CallBase>(&I))
        S = callee(*CB, S, Calls);
      else if (isa<ReturnInst>(I))
        Result |= apply(S, CalleeRet.count(Name) ? &CalleeRet[Name] : nullptr, &I);
    }
    for (const BasicBlock *Succ : successors(BB)) {
      auto [It, New] = At.try_emplace(Succ, BitVector(N));
      BitVector Joined = It->second;
      Joined |= S;
      if (New || Joined != It->second) {
        It->second = Joined;
        Work.push_back(Succ);
      }
    }
  }
  Recording = false;
  return Result;
}

std::string Checker::run() {
  std::vector<Function *> Fns;
  for (Function &F : M)
    if (!F.isDeclaration() && !F.getName().starts_with("__vigil"))
      Fns.push_back(&F);
  for (Function *F : Fns)
    Summ[F] = std::vector<BitVector>(N, BitVector(N));
  CallSink None = [](const Function *, const BitVector &) {};
  for (bool Changed = true; Changed;) { // summaries only grow: a fixpoint
    Changed = false;
    for (Function *F : Fns)
      for (unsigned In = 0; In < N; ++In) {
        BitVector R = flow(*F, In, false, None);
        if (R != Summ[F][In])
          Summ[F][In] = R, Changed = true;
      }
  }
  std::set<std::pair<const Function *, unsigned>> Seen;
  std::deque<std::pair<const Function *, unsigned>> Work;
  auto Reach = [&](const Function *G, const BitVector &S) {
    if (!Summ.count(G))
      return;
    for (unsigned Q : S.set_bits())
      if (Seen.insert({G, Q}).second)
        Work.push_back({G, Q});
  };
  BitVector OutOnly(N);
  OutOnly.set(Out);
  Reach(M.getFunction("main"), OutOnly);
  for (const Function *G : AddrTaken) // threads, callbacks, constructors
    Reach(G, OutOnly);
  while (!Work.empty() && Failure.empty()) {
    auto [F, In] = Work.front();
    Work.pop_front();
    flow(*const_cast<Function *>(F), In, true, Reach);
  }
  return Failure;
}

} // namespace

std::vector<StaticVerdict>
checkStatically(Module &M, const std::vector<Assertion> &As,
                const std::vector<std::pair<CallInst *, int>> &Sites) {
  std::vector<StaticVerdict> V(As.size());
  std::string Blocked = moduleBlocker(M);
  for (unsigned AI = 0; AI < As.size(); ++AI) {
    const Assertion &A = As[AI];
    std::string Why = assertionBlocker(A);
    if (Why.empty())
      Why = Blocked;
    if (!Why.empty()) {
      V[AI].Reason = Why;
      continue;
    }
    DenseSet<const CallInst *> Mine;
    for (auto &[CI, Id] : Sites)
      if (Id == (int)AI)
        Mine.insert(CI);
    std::string First;
    for (unsigned K = 0; K < A.Alternatives.size() && !V[AI].proven(); ++K) {
      std::string F = Checker(M, A, A.Alternatives[K].D, Mine).run();
      if (F.empty()) {
        V[AI].Kind = VERDICT_PROVEN;
        V[AI].Reason = A.Alternatives.size() > 1
                           ? "every path follows alternative " + std::to_string(K + 1)
                           : "every path from the bound's start follows the automaton";
      } else if (First.empty()) {
        First = F;
      }
    }
    if (V[AI].proven())
      continue;
    Witness W = findFailingRun(M, A, Mine);
    if (W.Found) {
      V[AI].Kind = VERDICT_VIOLATED;
      V[AI].Reason = W.Why + " at " + W.At;
      V[AI].Run = std::move(W);
      continue;
    }
    if (W.Exhaustive) {
      V[AI].Kind = VERDICT_PROVEN;
      V[AI].Reason = "the program reads no input, and its one run, executed exactly, follows "
                     "the automaton";
      continue;
    }
    V[AI].Reason = "a check may fail at " + First + " (no failing run found";
    V[AI].Reason += W.GaveUp.empty() ? ")" : ": " + W.GaveUp + ")";
  }
  return V;
}

namespace {

/// The command line of a failing run, quoted for a shell.
std::string commandLine(const Witness &W) {
  std::string R = "./prog";
  for (const std::string &A : W.Args) {
    R += " '";
    for (char C : A)
      R += C == '\'' ? std::string("'\\''") : std::string(1, C);
    R += "'";
  }
  return R;
}

/// "1 global assertion (...), 2 may fail": why the kept ones are kept.
std::string keptReasons(const std::vector<Assertion> &As, const std::vector<StaticVerdict> &V) {
  std::map<std::string, unsigned> Count;
  for (unsigned I = 0; I < As.size(); ++I)
    if (As[I].Kind != AK_DEFINITION && V[I].Kind == VERDICT_UNKNOWN)
      ++Count[StringRef(V[I].Reason).starts_with("a check may fail")
                  ? "a check may fail on a path no run was found for"
                  : V[I].Reason];
  std::string R;
  for (auto &[Why, N] : Count)
    R += (R.empty() ? ": " : "; ") + std::to_string(N) + " " + Why;
  return R;
}

} // namespace

unsigned reportStatic(const std::vector<Assertion> &As, const std::vector<StaticVerdict> &V,
                      StaticMode Mode) {
  unsigned N[3] = {0, 0, 0}, Counted = 0;
  for (unsigned I = 0; I < As.size(); ++I) {
    if (As[I].Kind == AK_DEFINITION)
      continue;
    ++Counted, ++N[V[I].Kind];
    if (Mode == STATIC_PRUNE && V[I].proven())
      continue;
    static const char *Names[] = {"unknown", "proven", "violated"};
    errs() << "vigil: static: " << As[I].Location << ": " << Names[V[I].Kind] << ": " << V[I].Reason
           << "\n";
    if (V[I].Kind != VERDICT_VIOLATED)
      continue;
    errs() << "vigil: static:   a run that fails: " << commandLine(V[I].Run) << "\n";
    for (const std::string &Step : V[I].Run.Trace)
      errs() << "vigil: static:     " << Step << "\n";
  }
  if (Counted == 0)
    return 0; // nothing to say about a program without assertions
  errs() << "vigil: static: " << Counted << " assertion" << (Counted == 1 ? "" : "s") << ": "
         << N[VERDICT_PROVEN] << " proven" << (Mode == STATIC_PRUNE ? " and removed" : "") << ", "
         << N[VERDICT_VIOLATED] << " violated, " << N[VERDICT_UNKNOWN]
         << " unknown (kept at run time)" << keptReasons(As, V) << "\n";
  if (Mode == STATIC_PRUNE)
    for (unsigned I = 0; I < As.size(); ++I)
      if (V[I].Kind == VERDICT_VIOLATED)
        errs() << As[I].Location << ": error: vigil: assertion violated on every run like the one "
               << "above (--vigil-static=report reports without failing the link)\n";
  return N[VERDICT_VIOLATED];
}

void writeStaticJson(const std::vector<Assertion> &As, const std::vector<StaticVerdict> &V) {
  const char *Path = std::getenv("VIGIL_STATIC_JSON");
  if (!Path || !*Path)
    return;
  static const char *Names[] = {"unknown", "proven", "violated"};
  json::Array Items;
  for (unsigned I = 0; I < As.size(); ++I) {
    if (As[I].Kind == AK_DEFINITION)
      continue;
    json::Object O{{"location", As[I].Location}, {"assertion", As[I].Text},
                   {"verdict", Names[V[I].Kind]}, {"reason", V[I].Reason}};
    if (V[I].Kind == VERDICT_VIOLATED) {
      json::Array Args, Trace;
      for (const std::string &A : V[I].Run.Args)
        Args.push_back(A);
      for (const std::string &T : V[I].Run.Trace)
        Trace.push_back(T);
      O["failure"] = json::Object{{"at", V[I].Run.At}, {"why", V[I].Run.Why},
                                  {"args", std::move(Args)}, {"trace", std::move(Trace)}};
    }
    Items.push_back(std::move(O));
  }
  std::error_code EC;
  raw_fd_ostream Out(Path, EC);
  if (EC) {
    errs() << "vigil: error: VIGIL_STATIC_JSON=" << Path << ": " << EC.message() << "\n";
    report_fatal_error("vigil: cannot write the static verdicts", /*gen_crash_diag=*/false);
  }
  Out << formatv("{0:2}", json::Value(json::Object{{"version", 1}, {"assertions", std::move(Items)}}))
      << "\n";
}

void pruneProven(std::vector<Assertion> &As, std::vector<std::pair<CallInst *, int>> &Sites,
                 const std::vector<StaticVerdict> &V) {
  std::vector<int> NewId(As.size(), -1);
  std::vector<Assertion> Kept;
  for (unsigned I = 0; I < As.size(); ++I)
    if (!V[I].proven()) {
      NewId[I] = (int)Kept.size();
      Kept.push_back(std::move(As[I]));
    }
  As = std::move(Kept);
  for (auto &[CI, Id] : Sites)
    if (Id >= 0)
      Id = NewId[Id];
}

} // namespace pass
} // namespace vigil
