//===- StaticWitnessExec.cpp - the witness search's instructions ----------===//
//
// Executes one instruction of a path exactly, or gives up on it.  Integers
// stay known numbers (APInt) until argv[1] makes them Z3 terms; poison
// (an overflowing nsw/nuw operation, a shift past the width) becomes NONE
// when known and a path constraint when symbolic, so the run the model
// describes is one the compiled program takes.  Division by an unknown or
// zero divisor, calls outside the program that are not modelled, unknown
// addresses in stores and unknown call targets end the path.
//
//===----------------------------------------------------------------------===//
#include "StaticWitnessSearch.h"

#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/InlineAsm.h"

using namespace llvm;

namespace vigil {
namespace pass {
namespace witness {

// ---- values ---------------------------------------------------------------

Val Search::constant(const Constant *C) {
  if (auto *CI = dyn_cast<ConstantInt>(C))
    return CI->getBitWidth() <= 64 ? Val::known(CI->getValue()) : Val();
  if (isa<ConstantPointerNull>(C))
    return Val::pointer({0, 0});
  if (auto *GV = dyn_cast<GlobalValue>(C)) {
    auto It = GlobalObj.find(GV);
    return It == GlobalObj.end() ? Val() : Val::pointer({It->second, 0});
  }
  if (auto *G = dyn_cast<GEPOperator>(C)) {
    APInt Off(DL.getIndexTypeSizeInBits(G->getType()), 0);
    Val Base = constant(cast<Constant>(G->getPointerOperand()));
    if (Base.K != Val::PTR || !G->accumulateConstantOffset(DL, Off))
      return Val();
    Base.P.Off += Off.getSExtValue();
    return Base;
  }
  return Val(); // undef, poison, floats, vectors, constant expressions
}

Val Search::eval(State &S, const llvm::Value *V) {
  if (auto *C = dyn_cast<Constant>(V))
    return constant(C);
  auto &Env = S.Stack.back().Env;
  auto It = Env.find(V);
  return It == Env.end() ? Val() : It->second;
}

Val Search::gep(State &S, const GEPOperator &G) {
  Val Base = eval(S, G.getPointerOperand());
  if (Base.K != Val::PTR || G.getType()->isVectorTy())
    return Val();
  int64_t Off = 0;
  auto Idx = G.idx_begin();
  for (gep_type_iterator T = gep_type_begin(G), E = gep_type_end(G); T != E; ++T, ++Idx) {
    Val IV = eval(S, *Idx);
    if (IV.K != Val::INT || IV.Sym)
      return Val(); // a symbolic address: the memory model has none
    int64_t I = IV.apint().getSExtValue();
    if (StructType *ST = T.getStructTypeOrNull())
      Off += DL.getStructLayout(ST)->getElementOffset(I);
    else
      Off += I * (int64_t)T.getSequentialElementStride(DL);
  }
  Base.P.Off += Off;
  return Base;
}

Val Search::binary(State &S, const BinaryOperator &B) {
  Val L = eval(S, B.getOperand(0)), R = eval(S, B.getOperand(1));
  if (L.K != Val::INT || R.K != Val::INT)
    return Val();
  unsigned Op = B.getOpcode();
  bool NSW = isa<OverflowingBinaryOperator>(B) && B.hasNoSignedWrap();
  bool NUW = isa<OverflowingBinaryOperator>(B) && B.hasNoUnsignedWrap();
  bool Exact = isa<PossiblyExactOperator>(B) && B.isExact();
  bool Disjoint = isa<PossiblyDisjointInst>(B) && cast<PossiblyDisjointInst>(B).isDisjoint();
  if (!L.Sym && !R.Sym) {
    APInt X = L.apint(), Y = R.apint(), Z;
    bool Ov = false, Ov2 = false;
    switch (Op) {
    case Instruction::Add: Z = X.sadd_ov(Y, Ov), (void)X.uadd_ov(Y, Ov2); break;
    case Instruction::Sub: Z = X.ssub_ov(Y, Ov), (void)X.usub_ov(Y, Ov2); break;
    case Instruction::Mul: Z = X.smul_ov(Y, Ov), (void)X.umul_ov(Y, Ov2); break;
    case Instruction::And: Z = X & Y; break;
    case Instruction::Or: Z = X | Y; Ov = Disjoint && (X & Y) != 0; break;
    case Instruction::Xor: Z = X ^ Y; break;
    case Instruction::Shl:
      if (Y.uge(X.getBitWidth())) return Val();
      Z = X.shl(Y); Ov = (NSW && Z.ashr(Y) != X) || (NUW && Z.lshr(Y) != X); NSW = NUW = false; break;
    case Instruction::LShr:
    case Instruction::AShr:
      if (Y.uge(X.getBitWidth())) return Val();
      Z = Op == Instruction::LShr ? X.lshr(Y) : X.ashr(Y); Ov = Exact && Z.shl(Y) != X; break;
    case Instruction::UDiv: case Instruction::URem: case Instruction::SDiv: case Instruction::SRem:
      if (Y.isZero() || ((Op == Instruction::SDiv || Op == Instruction::SRem) && Y.isAllOnes() && X.isMinSignedValue())) return Val();
      Z = Op == Instruction::UDiv ? X.udiv(Y) : Op == Instruction::URem ? X.urem(Y)
        : Op == Instruction::SDiv ? X.sdiv(Y) : X.srem(Y);
      Ov = Exact && (Op == Instruction::UDiv ? !X.urem(Y).isZero() : Op == Instruction::SDiv && !X.srem(Y).isZero());
      break;
    default: return Val();
    }
    bool Wraps = Op == Instruction::Add || Op == Instruction::Sub || Op == Instruction::Mul;
    if (Wraps ? (NSW && Ov) || (NUW && Ov2) : Ov)
      return Val(); // poison
    return Val::known(Z);
  }
  if (Exact || Op == Instruction::Shl || (Op >= Instruction::UDiv && Op <= Instruction::SRem))
    return Val(); // symbolic divisors and shifts: not modelled
  Z3_ast X = ast(L), Y = ast(R), Z;
  auto &Path = S.Path;
  switch (Op) {
  case Instruction::Add:
    Z = Z3_mk_bvadd(Ctx, X, Y);
    if (NSW) Path.push_back(Z3_mk_bvadd_no_overflow(Ctx, X, Y, true)), Path.push_back(Z3_mk_bvadd_no_underflow(Ctx, X, Y));
    if (NUW) Path.push_back(Z3_mk_bvadd_no_overflow(Ctx, X, Y, false));
    break;
  case Instruction::Sub:
    Z = Z3_mk_bvsub(Ctx, X, Y);
    if (NSW) Path.push_back(Z3_mk_bvsub_no_overflow(Ctx, X, Y)), Path.push_back(Z3_mk_bvsub_no_underflow(Ctx, X, Y, true));
    if (NUW) Path.push_back(Z3_mk_bvsub_no_underflow(Ctx, X, Y, false));
    break;
  case Instruction::Mul:
    Z = Z3_mk_bvmul(Ctx, X, Y);
    if (NSW) Path.push_back(Z3_mk_bvmul_no_overflow(Ctx, X, Y, true)), Path.push_back(Z3_mk_bvmul_no_underflow(Ctx, X, Y));
    if (NUW) Path.push_back(Z3_mk_bvmul_no_overflow(Ctx, X, Y, false));
    break;
  case Instruction::And: Z = Z3_mk_bvand(Ctx, X, Y); break;
  case Instruction::Or:
    Z = Z3_mk_bvor(Ctx, X, Y);
    if (Disjoint)
      Path.push_back(Z3_mk_eq(Ctx, Z3_mk_bvand(Ctx, X, Y), ast(Val::known(APInt(L.Bits, 0)))));
    break;
  case Instruction::Xor: Z = Z3_mk_bvxor(Ctx, X, Y); break;
  case Instruction::LShr:
  case Instruction::AShr:
    if (R.Sym || R.C >= L.Bits) return Val();
    Z = Op == Instruction::LShr ? Z3_mk_bvlshr(Ctx, X, Y) : Z3_mk_bvashr(Ctx, X, Y);
    break;
  default: return Val();
  }
  return Val::symbolic(Z, L.Bits);
}

Val Search::convert(State &S, const CastInst &C) {
  Val V = eval(S, C.getOperand(0));
  if (V.K == Val::PTR && (isa<BitCastInst>(C) || isa<AddrSpaceCastInst>(C)))
    return V;
  if (V.K != Val::INT || !C.getType()->isIntegerTy() || C.getType()->getIntegerBitWidth() > 64)
    return Val();
  unsigned To = C.getType()->getIntegerBitWidth();
  bool NNeg = isa<PossiblyNonNegInst>(C) && C.hasNonNeg();
  bool TruncFlags = isa<TruncInst>(C) && (cast<TruncInst>(C).hasNoUnsignedWrap() ||
                                          cast<TruncInst>(C).hasNoSignedWrap());
  if (!V.Sym) {
    APInt X = V.apint();
    if ((NNeg && X.isNegative()) || (TruncFlags && X.trunc(To).zext(X.getBitWidth()) != X &&
                                      X.trunc(To).sext(X.getBitWidth()) != X))
      return Val(); // poison
    switch (C.getOpcode()) {
    case Instruction::ZExt: return Val::known(X.zext(To));
    case Instruction::SExt: return Val::known(X.sext(To));
    case Instruction::Trunc: return Val::known(X.trunc(To));
    default: return Val();
    }
  }
  if (TruncFlags)
    return Val();
  if (NNeg)
    S.Path.push_back(Z3_mk_bvsge(Ctx, V.E, ast(Val::known(APInt(V.Bits, 0)))));
  switch (C.getOpcode()) {
  case Instruction::ZExt: return Val::symbolic(Z3_mk_zero_ext(Ctx, To - V.Bits, V.E), To);
  case Instruction::SExt: return Val::symbolic(Z3_mk_sign_ext(Ctx, To - V.Bits, V.E), To);
  case Instruction::Trunc: return Val::symbolic(Z3_mk_extract(Ctx, To - 1, 0, V.E), To);
  default: return Val();
  }
}

Val Search::compare(State &S, const ICmpInst &C) {
  Val L = eval(S, C.getOperand(0)), R = eval(S, C.getOperand(1));
  CmpInst::Predicate Pr = C.getPredicate();
  if (L.K == Val::PTR && R.K == Val::PTR) {
    if (L.P.Obj != R.P.Obj && !C.isEquality())
      return Val(); // the order of two objects is the allocator's
    APInt X(64, L.P.Off + ((int64_t)L.P.Obj << 32)), Y(64, R.P.Off + ((int64_t)R.P.Obj << 32));
    return Val::known(APInt(1, ICmpInst::compare(X, Y, Pr)));
  }
  if (L.K != Val::INT || R.K != Val::INT)
    return Val();
  if (!L.Sym && !R.Sym)
    return Val::known(APInt(1, ICmpInst::compare(L.apint(), R.apint(), Pr)));
  Z3_ast X = ast(L), Y = ast(R), B;
  switch (Pr) {
  case CmpInst::ICMP_EQ: B = Z3_mk_eq(Ctx, X, Y); break;
  case CmpInst::ICMP_NE: B = Z3_mk_not(Ctx, Z3_mk_eq(Ctx, X, Y)); break;
  case CmpInst::ICMP_UGT: B = Z3_mk_bvugt(Ctx, X, Y); break;
  case CmpInst::ICMP_UGE: B = Z3_mk_bvuge(Ctx, X, Y); break;
  case CmpInst::ICMP_ULT: B = Z3_mk_bvult(Ctx, X, Y); break;
  case CmpInst::ICMP_ULE: B = Z3_mk_bvule(Ctx, X, Y); break;
  case CmpInst::ICMP_SGT: B = Z3_mk_bvsgt(Ctx, X, Y); break;
  case CmpInst::ICMP_SGE: B = Z3_mk_bvsge(Ctx, X, Y); break;
  case CmpInst::ICMP_SLT: B = Z3_mk_bvslt(Ctx, X, Y); break;
  case CmpInst::ICMP_SLE: B = Z3_mk_bvsle(Ctx, X, Y); break;
  default: return Val();
  }
  Z3_sort Bit = Z3_mk_bv_sort(Ctx, 1);
  return Val::symbolic(Z3_mk_ite(Ctx, B, Z3_mk_unsigned_int64(Ctx, 1, Bit), Z3_mk_unsigned_int64(Ctx, 0, Bit)), 1);
}

/// Instructions without side effects; NONE when not modelled.
Val Search::arith(State &S, const Instruction &I) {
  if (auto *B = dyn_cast<BinaryOperator>(&I))
    return binary(S, *B);
  if (auto *C = dyn_cast<CastInst>(&I))
    return convert(S, *C);
  if (auto *C = dyn_cast<ICmpInst>(&I))
    return compare(S, *C);
  if (auto *G = dyn_cast<GEPOperator>(&I))
    return gep(S, *G);
  if (auto *F = dyn_cast<FreezeInst>(&I))
    return eval(S, F->getOperand(0)); // known values are never poison here
  if (auto *Sel = dyn_cast<SelectInst>(&I)) {
    Val C = eval(S, Sel->getCondition()), T = eval(S, Sel->getTrueValue()), F = eval(S, Sel->getFalseValue());
    if (C.K != Val::INT || C.Bits != 1)
      return Val();
    if (!C.Sym)
      return C.C ? T : F;
    if (T.K != Val::INT || F.K != Val::INT)
      return Val();
    return Val::symbolic(Z3_mk_ite(Ctx, Z3_mk_eq(Ctx, C.E, ast(Val::known(APInt(1, 1)))), ast(T), ast(F)),
                         T.Bits);
  }
  return Val();
}

// ---- memory -----------------------------------------------------------------

static bool overlaps(const Object &O, int64_t Off, unsigned Size) {
  for (auto It = O.Cells.lower_bound(Off - 16); It != O.Cells.end() && It->first < Off + (int64_t)Size; ++It)
    if (It->first + (int64_t)It->second.second > Off && (It->first != Off || It->second.second != Size))
      return true;
  return false;
}

/// Bytes up to Upto of argv[1] are read: each is printable or the NUL (the
/// model's string is then one a shell passes as it is).
void Search::touchArgBytes(State &S, int64_t Upto) {
  Z3_ast Zero = ast(Val::known(APInt(8, 0)));
  for (int64_t I = S.ArgRead + 1; I <= Upto && I < (int64_t)ArgBytes; ++I) {
    Z3_ast B = ArgByte[I];
    Z3_ast Range[2] = {Z3_mk_bvuge(Ctx, B, ast(Val::known(APInt(8, 0x21)))),
                       Z3_mk_bvule(Ctx, B, ast(Val::known(APInt(8, 0x7e))))};
    Z3_ast Either[2] = {Z3_mk_and(Ctx, 2, Range), Z3_mk_eq(Ctx, B, Zero)};
    S.Path.push_back(Z3_mk_or(Ctx, 2, Either));
  }
  S.ArgRead = std::max<int>(S.ArgRead, (int)std::min<int64_t>(Upto, ArgBytes - 1));
}

Val Search::loadArgByte(State &S, int64_t Off) {
  if (S.ArgNumber || Off < 0 || Off > (int64_t)ArgBytes)
    return Val(); // read as a number too, or past the string: not modelled
  if (Off == ArgBytes)
    return Val::known(APInt(8, 0));
  touchArgBytes(S, Off);
  Z3_ast Zero = ast(Val::known(APInt(8, 0)));
  for (int64_t I = S.ArgNonZero; I < Off; ++I) // a read past a NUL reads another string
    S.Path.push_back(Z3_mk_not(Ctx, Z3_mk_eq(Ctx, ArgByte[I], Zero)));
  S.ArgNonZero = std::max<int>(S.ArgNonZero, (int)Off);
  return Val::symbolic(ArgByte[Off], 8);
}

/// The bytes of the string P points to, up to its NUL: argv[1]'s (then
/// Symbolic, up to ArgBytes) or a constant's.
bool Search::stringBytes(State &S, const Val &P, std::vector<Z3_ast> &Bytes, bool &Symbolic) {
  if (P.K != Val::PTR || P.P.Obj == 0)
    return false;
  const Object &O = S.Mem[P.P.Obj];
  Symbolic = O.ArgString;
  for (int64_t I = P.P.Off; Bytes.size() < 256; ++I) {
    if (O.ArgString) {
      if (S.ArgNumber || I < 0 || I > (int64_t)ArgBytes)
        return false;
      Bytes.push_back(I == ArgBytes ? ast(Val::known(APInt(8, 0))) : ArgByte[I]);
      if (I == ArgBytes)
        return true;
      continue;
    }
    if (!O.G || !O.G->isConstant() || !O.G->hasDefinitiveInitializer())
      return false;
    Constant *C = ConstantFoldLoadFromConst(const_cast<Constant *>(O.G->getInitializer()),
                                            Type::getInt8Ty(M.getContext()), APInt(64, I), DL);
    auto *CI = dyn_cast_or_null<ConstantInt>(C);
    if (!CI)
      return false;
    Bytes.push_back(ast(Val::known(CI->getValue())));
    if (CI->isZero())
      return true;
  }
  return false;
}

/// strcmp with one side argv[1] and the other a constant, as glibc answers
/// it: the difference of the first differing bytes (unsigned), else 0.
Outcome Search::stringCompare(State &S, const CallBase &CB) {
  std::vector<Z3_ast> L, R;
  bool LSym = false, RSym = false;
  if (!stringBytes(S, eval(S, CB.getArgOperand(0)), L, LSym) ||
      !stringBytes(S, eval(S, CB.getArgOperand(1)), R, RSym) || (LSym && RSym))
    return stopAt(CB, "a strcmp the search does not model");
  size_t N = LSym ? R.size() : RSym ? L.size() : std::min(L.size(), R.size());
  if (LSym || RSym)
    touchArgBytes(S, (int64_t)N - 1 + eval(S, CB.getArgOperand(LSym ? 0 : 1)).P.Off);
  Z3_sort I32 = Z3_mk_bv_sort(Ctx, 32);
  Z3_ast Result = Z3_mk_unsigned_int64(Ctx, 0, I32), Zero8 = ast(Val::known(APInt(8, 0)));
  for (size_t I = std::min({N, L.size(), R.size()}); I-- > 0;) { // from the last byte back
    Z3_ast Diff = Z3_mk_bvsub(Ctx, Z3_mk_zero_ext(Ctx, 24, L[I]), Z3_mk_zero_ext(Ctx, 24, R[I]));
    Z3_ast Same = Z3_mk_eq(Ctx, L[I], R[I]);
    Z3_ast Next = Z3_mk_ite(Ctx, Z3_mk_eq(Ctx, L[I], Zero8), Z3_mk_unsigned_int64(Ctx, 0, I32), Result);
    Result = Z3_mk_ite(Ctx, Same, Next, Diff);
  }
  S.Stack.back().Env[&CB] = Val::symbolic(Result, 32);
  return GO;
}

Val Search::load(State &S, const LoadInst &L) {
  Val Addr = eval(S, L.getPointerOperand());
  Type *Ty = L.getType();
  bool Int = Ty->isIntegerTy() && Ty->getIntegerBitWidth() <= 64;
  if (L.isVolatile() || L.isAtomic() || Addr.K != Val::PTR || Addr.P.Obj == 0 || (!Int && !Ty->isPointerTy()))
    return Val();
  Object &O = S.Mem[Addr.P.Obj];
  int64_t Off = Addr.P.Off;
  unsigned Size = DL.getTypeStoreSize(Ty);
  if (O.ArgString)
    return Size == 1 && Int ? loadArgByte(S, Off) : Val();
  auto It = O.Cells.find(Off);
  if (It != O.Cells.end() && It->second.second == Size) {
    const Val &V = It->second.first;
    bool Same = Int ? V.K == Val::INT && V.Bits == Ty->getIntegerBitWidth() : V.K == Val::PTR;
    return Same ? V : Val();
  }
  if (overlaps(O, Off, Size))
    return Val();
  if (O.Zeroed)
    return Int ? Val::known(APInt(Ty->getIntegerBitWidth(), 0)) : Val::pointer({0, 0});
  if (!O.G || !O.G->hasDefinitiveInitializer())
    return Val();
  Constant *C = ConstantFoldLoadFromConst(const_cast<Constant *>(O.G->getInitializer()), Ty,
                                          APInt(64, Off), DL);
  return C ? constant(C) : Val();
}

Outcome Search::store(State &S, const StoreInst &St) {
  Val Addr = eval(S, St.getPointerOperand());
  if (Addr.K != Val::PTR || Addr.P.Obj == 0)
    return stopAt(St, "a store to an address the search does not know");
  Object &O = S.Mem[Addr.P.Obj];
  unsigned Size = DL.getTypeStoreSize(St.getValueOperand()->getType());
  if (O.ArgString || O.Fn || (O.G && O.G->isConstant()) || overlaps(O, Addr.P.Off, Size))
    return stopAt(St, "a store the memory model does not follow");
  O.Cells[Addr.P.Off] = {eval(S, St.getValueOperand()), Size};
  return GO;
}

} // namespace witness
} // namespace pass
} // namespace vigil
