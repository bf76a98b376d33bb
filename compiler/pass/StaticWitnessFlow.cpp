//===- StaticWitnessFlow.cpp - the witness search's control flow ----------===//
//
// Branches, calls and returns of one path, with the assertion's events at
// the points Static.cpp binds them to (a defined function's entry and
// return, or the call of one outside the program).  Calls outside the
// program are followed only where their effect is known: output (it writes
// nothing the program reads back), malloc/calloc/free, atoi/strtol on
// argv[1], and exit.  Any other one ends the path: it might write memory,
// call back, or never return.
//
//===----------------------------------------------------------------------===//
#include "StaticWitnessSearch.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace vigil {
namespace pass {
namespace witness {

void Search::enterBlock(State &S, const BasicBlock *To) {
  Frame &F = S.Stack.back();
  std::vector<std::pair<const PHINode *, Val>> New; // phis read the old values
  for (const PHINode &Phi : To->phis())
    New.push_back({&Phi, eval(S, Phi.getIncomingValueForBlock(F.BB))});
  for (auto &[Phi, V] : New)
    F.Env[Phi] = V;
  F.BB = To;
  F.It = To->getFirstNonPHIIt();
}

Outcome Search::exec(State &S, const Instruction &I) {
  if (auto *CB = dyn_cast<CallBase>(&I))
    return call(S, *CB);
  if (auto *L = dyn_cast<LoadInst>(&I)) {
    S.Stack.back().Env[&I] = load(S, *L);
    return GO;
  }
  if (auto *St = dyn_cast<StoreInst>(&I))
    return store(S, *St);
  if (isa<AllocaInst>(I)) {
    S.Stack.back().Env[&I] = Val::pointer({(int)S.Mem.size(), 0});
    S.Mem.emplace_back();
    return GO;
  }
  if (isa<BranchInst>(I) || isa<SwitchInst>(I))
    return branch(S, I);
  if (auto *R = dyn_cast<ReturnInst>(&I))
    return ret(S, *R);
  if (isa<UnreachableInst>(I))
    return stopAt(I, "the path reaches unreachable code");
  if (I.mayHaveSideEffects())
    return stopAt(I, Twine("an instruction the search does not execute: ") + I.getOpcodeName());
  S.Stack.back().Env[&I] = arith(S, I);
  return GO;
}

Outcome Search::branch(State &S, const Instruction &I) {
  if (auto *Br = dyn_cast<BranchInst>(&I)) {
    if (Br->isUnconditional()) {
      enterBlock(S, Br->getSuccessor(0));
      return GO;
    }
    Val C = eval(S, Br->getCondition());
    if (C.K != Val::INT)
      return stopAt(I, "a branch on a value the search does not know");
    if (!C.Sym) {
      enterBlock(S, Br->getSuccessor(C.C ? 0 : 1));
      return GO;
    }
    Z3_ast T = isTrue(C);
    return decide(S, I, {{T, Br->getSuccessor(0), "takes the true branch"},
                         {Z3_mk_not(Ctx, T), Br->getSuccessor(1), "takes the false branch"}});
  }
  auto &Sw = cast<SwitchInst>(I);
  Val C = eval(S, Sw.getCondition());
  if (C.K != Val::INT)
    return stopAt(I, "a switch on a value the search does not know");
  if (!C.Sym) {
    enterBlock(S, Sw.findCaseValue(cast<ConstantInt>(ConstantInt::get(Sw.getCondition()->getType(), C.C)))
                      ->getCaseSuccessor());
    return GO;
  }
  std::vector<Choice> Cs;
  std::vector<Z3_ast> NotAny;
  for (auto Case : Sw.cases()) {
    Z3_ast Eq = Z3_mk_eq(Ctx, C.E, ast(Val::known(Case.getCaseValue()->getValue())));
    Cs.push_back({Eq, Case.getCaseSuccessor(), "takes case " + std::to_string(Case.getCaseValue()->getSExtValue())});
    NotAny.push_back(Z3_mk_not(Ctx, Eq));
  }
  Cs.push_back({NotAny.empty() ? Z3_mk_true(Ctx) : Z3_mk_and(Ctx, NotAny.size(), NotAny.data()),
                Sw.getDefaultDest(), "takes the default case"});
  return decide(S, I, std::move(Cs));
}

Outcome Search::call(State &S, const CallBase &CB) {
  if (auto *II = dyn_cast<IntrinsicInst>(&CB))
    return intrinsic(S, *II);
  if (CB.isInlineAsm())
    return CB.getType()->isVoidTy() && CB.arg_empty() && cast<InlineAsm>(CB.getCalledOperand())->getAsmString().empty()
               ? GO // asm volatile(""): a compiler barrier, nothing runs
               : stopAt(CB, "inline assembly");
  const Function *T = CB.getCalledFunction();
  if (!T) {
    Val Target = eval(S, CB.getCalledOperand());
    if (Target.K != Val::PTR || Target.P.Off != 0 || !(T = S.Mem[Target.P.Obj].Fn))
      return stopAt(CB, "an indirect call whose target the search does not know");
  }
  if (auto *CI = dyn_cast<CallInst>(&CB); CI && Mine.count(CI))
    return stepSym(S, 2, &CB);
  if (T->getName() == "__vigil_site")
    return GO; // another assertion's site
  if (isa<InvokeInst>(CB) || T->isVarArg() != CB.getFunctionType()->isVarArg())
    return stopAt(CB, "a call the search does not follow");
  StringRef Name = T->getName();
  if (Outcome O = observe(S, EventPoints::at(P.CallerEntry, Name), &CB, argsOf(S, CB)); O != GO)
    return O;
  if (T->isDeclaration()) {
    if (Outcome O = callExternal(S, CB, T); O != GO)
      return O;
    Observed W = argsOf(S, CB);
    W.Ret = eval(S, &CB);
    return observe(S, EventPoints::at(P.CallerRet, Name), &CB, W);
  }
  if (S.Stack.size() >= MaxFrames)
    return stopAt(CB, "recursion deeper than the search follows");
  Frame F;
  F.F = T;
  for (unsigned I = 0; I < T->arg_size() && I < CB.arg_size(); ++I)
    F.Env[T->getArg(I)] = eval(S, CB.getArgOperand(I));
  trace(S, &CB, "calls " + Name);
  S.Stack.push_back(std::move(F));
  enterBlock(S, &T->getEntryBlock());
  return observe(S, EventPoints::at(P.CalleeEntry, Name), &*T->getEntryBlock().begin(),
                 paramsOf(S, *T));
}

Outcome Search::ret(State &S, const ReturnInst &R) {
  const Function *F = S.Stack.back().F;
  Val V = R.getReturnValue() ? eval(S, R.getReturnValue()) : Val();
  Observed W = paramsOf(S, *F);
  W.Ret = V;
  if (Outcome O = observe(S, EventPoints::at(P.CalleeRet, F->getName()), &R, W); O != GO)
    return O;
  S.Stack.pop_back();
  if (S.Stack.empty())
    return END; // main returned: the run is over without a failure
  Frame &Caller = S.Stack.back();
  const Instruction &Call = *std::prev(Caller.It);
  Caller.Env[&Call] = V;
  Observed CW = argsOf(S, cast<CallBase>(Call));
  CW.Ret = V;
  return observe(S, EventPoints::at(P.CallerRet, F->getName()), &Call, CW);
}

Outcome Search::intrinsic(State &S, const IntrinsicInst &II) {
  switch (II.getIntrinsicID()) {
  case Intrinsic::dbg_declare: case Intrinsic::dbg_value: case Intrinsic::dbg_label:
  case Intrinsic::lifetime_start: case Intrinsic::lifetime_end: case Intrinsic::assume:
  case Intrinsic::experimental_noalias_scope_decl: case Intrinsic::var_annotation:
    return GO;
  case Intrinsic::expect:
    S.Stack.back().Env[&II] = eval(S, II.getArgOperand(0));
    return GO;
  default:
    break;
  }
  if (II.mayWriteToMemory() || II.mayHaveSideEffects())
    return stopAt(II, "calls " + II.getCalledFunction()->getName() + ", which the search does not model");
  S.Stack.back().Env[&II] = Val(); // smax, ctpop, ...: known to write nothing
  return GO;
}

/// What the few modelled functions outside the program do.
Outcome Search::callExternal(State &S, const CallBase &CB, const Function *T) {
  StringRef N = T->getName();
  auto &Env = S.Stack.back().Env;
  static const char *Output[] = {"puts", "printf", "fprintf", "fputs", "putchar", "fputc", "putc",
                                 "fflush", "fwrite", "perror", "dprintf"};
  for (const char *O : Output)
    if (N == O) { // they read the program's memory and write only FILE state
      Env[&CB] = Val();
      return GO;
    }
  if (N == "exit" || N == "_exit" || N == "_Exit" || N == "abort" || N == "__assert_fail")
    return END;
  if (N == "free")
    return GO;
  if (N == "strcmp" && CB.getType()->isIntegerTy(32))
    return stringCompare(S, CB);
  if (N == "malloc" || N == "calloc") {
    Env[&CB] = Val::pointer({(int)S.Mem.size(), 0}); // assumed to succeed
    Allocated = true;
    S.Mem.emplace_back().Zeroed = N == "calloc";
    return GO;
  }
  bool Number = N == "atoi" || N == "atol" || N == "atoll" || N == "strtol" || N == "strtoll";
  if (Number && CB.getType()->isIntegerTy()) {
    Val Str = eval(S, CB.getArgOperand(0));
    bool Plain = CB.arg_size() == 1;
    if (!Plain) { // strtol(s, NULL, 10)
      Val End = eval(S, CB.getArgOperand(1)), Base = eval(S, CB.getArgOperand(2));
      Plain = End.K == Val::PTR && End.P.Obj == 0 && Base.K == Val::INT && !Base.Sym && Base.C == 10;
    }
    if (Plain && Str.K == Val::PTR && Str.P.Off == 0 && S.Mem[Str.P.Obj].ArgString && S.ArgRead < 0) {
      if (!S.ArgNumber)
        S.ArgNumber = Z3_mk_const(Ctx, Z3_mk_string_symbol(Ctx, "argv1_number"), Z3_mk_bv_sort(Ctx, 64));
      unsigned Bits = CB.getType()->getIntegerBitWidth();
      Env[&CB] = Val::symbolic(Bits == 64 ? S.ArgNumber : Z3_mk_extract(Ctx, Bits - 1, 0, S.ArgNumber), Bits);
      return GO;
    }
  }
  return stopAt(CB, "calls " + N + ", which is outside the program");
}

} // namespace witness
} // namespace pass
} // namespace vigil
