//===- StaticWitness.cpp - a concrete run that breaks an assertion --------===//
//
// The search (StaticWitness.h): a depth-first walk of the program's paths
// from main, forking at branches decided by argv[1] when Z3 finds both sides
// feasible, stepping the assertion's DFAs as the runtime does (bounds nest
// and only the outermost counts; an alternative fails on a symbol without a
// transition or at an end its state does not accept; the assertion fails
// when its last live alternative does).  Budgets keep it to a moment per
// assertion; running out leaves the verdict unknown.
//
// Inputs: argc is 2 (then 1).  argv[1] is ArgBytes unknown printable bytes
// of which the run reads a prefix: reading byte i makes bytes 0..i-1
// non-zero, so the string the model gives is the one the run read.  Or it
// is the decimal number atoi/strtol read from it, never both.
//
//===----------------------------------------------------------------------===//
#include "StaticWitnessSearch.h"

#include <algorithm>

using namespace llvm;

namespace vigil {
namespace pass {
namespace witness {

Search::Search(Module &M, const Assertion &A, const DenseSet<const CallInst *> &Mine)
    : M(M), DL(M.getDataLayout()), A(A), Mine(Mine), P(bindEventPoints(M, A)) {
  Z3_config Cfg = Z3_mk_config();
  Ctx = Z3_mk_context(Cfg); // not reference-counted: ASTs live as long as it
  Z3_del_config(Cfg);
  Solver = Z3_mk_solver(Ctx);
  Z3_solver_inc_ref(Ctx, Solver);
  Z3_params Ps = Z3_mk_params(Ctx);
  Z3_params_inc_ref(Ctx, Ps);
  Z3_params_set_uint(Ctx, Ps, Z3_mk_string_symbol(Ctx, "timeout"), 1000);
  Z3_solver_set_params(Ctx, Solver, Ps);
  Z3_params_dec_ref(Ctx, Ps);
  for (unsigned I = 0; I < ArgBytes; ++I)
    ArgByte.push_back(Z3_mk_const(
        Ctx, Z3_mk_string_symbol(Ctx, ("argv1_" + std::to_string(I)).c_str()), Z3_mk_bv_sort(Ctx, 8)));
}

Search::~Search() {
  Z3_solver_dec_ref(Ctx, Solver);
  Z3_del_context(Ctx);
}

/// main entered with argc arguments: every global and function is an
/// object (the same index in every state), then argv and its strings.
State Search::initial(unsigned Argc) {
  State S;
  S.Argc = Argc;
  S.Mem.emplace_back(); // null
  for (GlobalVariable &G : M.globals()) {
    GlobalObj[&G] = (int)S.Mem.size();
    S.Mem.emplace_back().G = &G;
  }
  for (Function &F : M) {
    GlobalObj[&F] = (int)S.Mem.size();
    S.Mem.emplace_back().Fn = &F;
  }
  int Argv = (int)S.Mem.size(), Name = Argv + 1, Arg = Argv + 2;
  S.Mem.resize(Argv + 3);
  const char *Prog = "prog";
  for (unsigned I = 0; I <= 4; ++I)
    S.Mem[Name].Cells[I] = {Val::known(APInt(8, I < 4 ? Prog[I] : 0)), 1};
  S.Mem[Arg].ArgString = true;
  unsigned PtrBytes = DL.getPointerSize();
  S.Mem[Argv].Cells[0] = {Val::pointer({Name, 0}), PtrBytes};
  S.Mem[Argv].Cells[PtrBytes] = {Val::pointer({Argc > 1 ? Arg : 0, 0}), PtrBytes};
  if (Argc > 1)
    S.Mem[Argv].Cells[2 * PtrBytes] = {Val::pointer({0, 0}), PtrBytes};
  const Function *Main = M.getFunction("main");
  Frame F;
  F.F = Main;
  if (Main->arg_size() >= 2 && Main->getArg(0)->getType()->isIntegerTy()) {
    F.Env[Main->getArg(0)] = Val::known(APInt(Main->getArg(0)->getType()->getIntegerBitWidth(), Argc));
    F.Env[Main->getArg(1)] = Val::pointer({Argv, 0});
  }
  S.Stack.push_back(std::move(F));
  enterBlock(S, &Main->getEntryBlock());
  S.Q.assign(A.Alternatives.size(), -1);
  S.Dead.assign(A.Alternatives.size(), false);
  return S;
}

Outcome Search::runPath(State &S) {
  if (!S.Started) {
    S.Started = true;
    const Function *Main = S.Stack.back().F;
    if (Outcome O = observe(S, EventPoints::at(P.CalleeEntry, Main->getName()),
                            &*Main->getEntryBlock().begin(), paramsOf(S, *Main));
        O != GO)
      return O;
  }
  for (;;) {
    if (++Steps > MaxSteps)
      return stop("the search's budget of instructions ran out");
    Frame &F = S.Stack.back();
    const Instruction &I = *F.It++;
    if (Outcome O = exec(S, I); O != GO)
      return O;
  }
}

Witness Search::run() {
  Deadline = std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(MaxSeconds));
  const Function *Main = M.getFunction("main");
  bool NoInput = std::all_of(Main->arg_begin(), Main->arg_end(),
                             [](const Argument &Arg) { return Arg.use_empty(); });
  for (unsigned Argc : {2u, 1u}) {
    if (NoInput && Argc == 1)
      break; // one run: argc is never read
    Work.clear();
    Work.push_back(initial(Argc));
    while (!Work.empty() && Steps <= MaxSteps) {
      if (++Paths > MaxPaths || std::chrono::steady_clock::now() > Deadline) {
        stop("the search's budget ran out");
        return W;
      }
      State S = std::move(Work.front());
      Work.pop_front();
      if (runPath(S) == FAIL)
        return W;
    }
  }
  W.Exhaustive = NoInput && !Allocated && W.GaveUp.empty() && Steps <= MaxSteps;
  return W;
}

// ---- the assertion --------------------------------------------------------

Outcome Search::observe(State &S, const std::vector<Obs> *Os, const Instruction *At,
                        const Observed &W) {
  if (!Os)
    return GO;
  for (const Obs &O : *Os) {
    bool Match = true;
    if (O.Maybe)
      if (Outcome R = matches(S, A.Symbols[O.Sym], W, At, Match); R != GO)
        return R;
    if (!Match)
      continue; // other values: not this event (the runtime's inline check)
    if (Outcome R = stepSym(S, O.Sym, At); R != GO)
      return R;
  }
  return GO;
}

/// Whether E's values match the observed words, as the pass's inline check
/// decides it: each word zero-extended to 64 bits, compared with the
/// constant.  A match that depends on the input both ways ends the path.
Outcome Search::matches(State &S, const Event &E, const Observed &W, const Instruction *At,
                        bool &Match) {
  std::vector<Z3_ast> Conds;
  Match = true;
  for (const vigil::Value &V : E.Values) {
    if (V.Kind == VAL_ANY)
      continue;
    const Val *Word = V.Role == ROLE_RETURN ? &W.Ret
                      : V.Role == ROLE_ARG && V.ArgIndex < W.Args.size() ? &W.Args[V.ArgIndex]
                                                                         : nullptr;
    if (!Word || V.Indirect || Word->K == Val::NONE ||
        (Word->K == Val::PTR && !(V.Kind == VAL_CONST && V.Constant == 0)))
      return stopAt(*At, "an event whose values the search does not know");
    if (Word->K == Val::PTR) {
      Match &= Word->P.Obj == 0;
      continue;
    }
    Z3_ast X = Z3_mk_zero_ext(Ctx, 64 - Word->Bits, ast(*Word));
    Z3_ast K = ast(Val::known(APInt(64, V.Constant)));
    Z3_ast Zero = ast(Val::known(APInt(64, 0)));
    Z3_ast C = V.Kind == VAL_CONST ? Z3_mk_eq(Ctx, X, K)
             : V.Kind == VAL_FLAGS ? Z3_mk_eq(Ctx, Z3_mk_bvand(Ctx, X, K), K)
             : V.Kind == VAL_MASK  ? Z3_mk_eq(Ctx, Z3_mk_bvand(Ctx, X, Z3_mk_bvnot(Ctx, K)), Zero)
                                   : nullptr;
    if (!C)
      return stopAt(*At, "an event whose values the search does not compare");
    Conds.push_back(C);
  }
  if (!Match || Conds.empty())
    return GO;
  Z3_ast All = Z3_mk_and(Ctx, Conds.size(), Conds.data());
  Z3_ast Sim = Z3_simplify(Ctx, All);
  if (Z3_lbool Known = Z3_get_bool_value(Ctx, Sim); Known != Z3_L_UNDEF) {
    Match = Known == Z3_L_TRUE;
    return GO;
  }
  bool Yes = feasible(S, All), No = feasible(S, Z3_mk_not(Ctx, All));
  if (Yes && No)
    return stopAt(*At, "an event whose values depend on the input");
  Match = Yes;
  return GO;
}

Observed Search::argsOf(State &S, const CallBase &CB) {
  Observed W;
  for (const Use &U : CB.args())
    W.Args.push_back(eval(S, U.get()));
  return W;
}

Observed Search::paramsOf(State &S, const Function &F) {
  Observed W;
  for (const Argument &Arg : F.args())
    W.Args.push_back(eval(S, &Arg));
  return W;
}

static int initialState(const Dfa &D) {
  for (unsigned Q = 0; Q < D.NStates; ++Q)
    if (D.States[Q].Flags & SF_INITIAL)
      return (int)Q;
  return 0;
}

/// The runtime's rules (docs/engine.md, "Runtime semantics"): a guideline
/// alternative in a FINAL state is done and ignores later events; an
/// assertion with one alternative fails at the failing step, one with
/// several when the bound ends with every alternative failed.
Outcome Search::stepSym(State &S, unsigned Sym, const Instruction *At) {
  unsigned K = A.Alternatives.size();
  if (Sym == 0) {
    if (S.Depth++ == 0) {
      for (unsigned I = 0; I < K; ++I)
        S.Q[I] = initialState(A.Alternatives[I].D), S.Dead[I] = false;
      S.Why.clear();
      trace(S, At, "the bound begins");
    }
    return GO;
  }
  if (S.Depth == 0 || (Sym == 1 && --S.Depth))
    return GO; // outside a bound, or a nested end
  bool Failed = false;
  for (unsigned I = 0; I < K; ++I) {
    if (S.Dead[I])
      continue;
    const Dfa &D = A.Alternatives[I].D;
    const StateInfo &Info = D.States[S.Q[I]];
    if (Sym == 1) {
      bool Fails = (Info.Flags & SF_PAST_SITE) ? !(Info.Flags & SF_FINAL)
                                               : A.Mode == MODE_STRICT && !(Info.Flags & SF_INITIAL);
      if (Fails)
        S.Why = (Info.Flags & SF_PAST_SITE) ? "the bound ends before the events the assertion needs after its site"
                                            : "the bound ends before the site (strict)";
      S.Dead[I] = Fails, Failed |= Fails;
      continue;
    }
    if (A.Mode == MODE_GUIDELINE && (Info.Flags & SF_FINAL))
      continue; // done: later events are ignored
    uint16_t T = D.next(S.Q[I], Sym);
    if (T != NoState) {
      S.Q[I] = T;
      continue;
    }
    S.Dead[I] = Failed = true;
    S.Why = Sym == 2 ? "the site is reached without the events the assertion needs before it"
                     : "an event of the assertion happens out of order";
  }
  trace(S, At, Sym == 1 ? "the bound ends" : Sym == 2 ? "reaches the assertion's site"
                                                      : "event " + A.Symbols[Sym].Text);
  bool AllDead = std::all_of(S.Dead.begin(), S.Dead.end(), [](bool D) { return D; });
  if (Sym == 1)
    std::fill(S.Q.begin(), S.Q.end(), -1);
  if (AllDead && (K == 1 ? Failed : Sym == 1))
    return violated(S, At, S.Why);
  return GO;
}

Outcome Search::violated(State &S, const Instruction *At, const std::string &Why) {
  if (!feasible(S, nullptr))
    return END;
  W.Found = true;
  W.At = where(At);
  W.Why = Why;
  W.Args = inputOf(S);
  W.Trace = S.Trace;
  return FAIL;
}

// ---- the solver -------------------------------------------------------------

bool Search::feasible(const State &S, Z3_ast Extra) {
  Z3_solver_reset(Ctx, Solver);
  for (Z3_ast C : S.Path)
    Z3_solver_assert(Ctx, Solver, C);
  if (Extra)
    Z3_solver_assert(Ctx, Solver, Extra);
  return Z3_solver_check(Ctx, Solver) == Z3_L_TRUE; // a timeout counts as no
}

Outcome Search::decide(State &S, const Instruction &I, std::vector<Choice> Cs) {
  std::vector<unsigned> Ok;
  for (unsigned K = 0; K < Cs.size(); ++K)
    if (feasible(S, Cs[K].Cond))
      Ok.push_back(K);
  if (Ok.empty())
    return END;
  if (Ok.size() > 1 && ++S.Decisions > MaxDecisions)
    return stopAt(I, "the path's budget of input-dependent branches ran out");
  for (unsigned N = 1; N < Ok.size() && Work.size() < MaxPaths; ++N) { // the others wait
    State Other = S;
    Other.Path.push_back(Cs[Ok[N]].Cond);
    trace(Other, &I, Cs[Ok[N]].What);
    enterBlock(Other, Cs[Ok[N]].To);
    Work.push_back(std::move(Other));
  }
  if (Ok.size() > 1) { // a forced direction is implied by the path: no news
    S.Path.push_back(Cs[Ok[0]].Cond);
    trace(S, &I, Cs[Ok[0]].What);
  }
  enterBlock(S, Cs[Ok[0]].To);
  return GO;
}

/// The command line of the model of S's path (feasible() just said yes).
std::vector<std::string> Search::inputOf(const State &S) {
  if (S.Argc < 2 || (S.ArgRead < 0 && !S.ArgNumber))
    return {}; // argv[1] was never read: any command line fails
  Z3_model Mo = Z3_solver_get_model(Ctx, Solver);
  Z3_model_inc_ref(Ctx, Mo);
  auto Value = [&](Z3_ast E) {
    Z3_ast R = nullptr;
    uint64_t V = 0;
    if (Z3_model_eval(Ctx, Mo, E, true, &R))
      Z3_get_numeral_uint64(Ctx, R, &V);
    return V;
  };
  std::string Arg;
  if (S.ArgNumber) {
    Arg = std::to_string((int64_t)Value(S.ArgNumber));
  } else {
    for (int I = 0; I <= S.ArgRead && I < (int)ArgBytes; ++I) {
      uint64_t B = Value(ArgByte[I]);
      if (!B)
        break;
      Arg += (char)B;
    }
  }
  Z3_model_dec_ref(Ctx, Mo);
  return {Arg};
}

} // namespace witness

Witness findFailingRun(Module &M, const Assertion &A, const DenseSet<const CallInst *> &Mine) {
  if (!M.getFunction("main") || M.getFunction("main")->isDeclaration())
    return Witness();
  return witness::Search(M, A, Mine).run();
}

} // namespace pass
} // namespace vigil
