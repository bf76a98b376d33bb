//===- TraceArgs.cpp - the words of a traced function's records -----------===//
//
// An entry record carries each integer or pointer parameter (an sret
// pointer is not a C parameter; floating point and aggregates are left
// out), at most 16; a return record carries the scalar return value.
//
// Signedness decides how a word narrower than 64 bits widens and whether
// the event table says "i64" or "u64".  The IR says it only for the types
// the ABI extends (signext: char and short on x86-64); the C type in the
// debug info says it for every `int`, so it is used when present.
//
// Names come from the debug info: the DILocalVariables with an argument
// number whose scope is the function's DISubprogram, found among its
// retained nodes (optimised builds) or in its #dbg_declare / #dbg_value
// records (-O0).  A declaration (a libc function traced at its calls) has
// at most a DISubprogram without parameter variables, so its arguments
// have names only if the IR kept them (-fno-discard-value-names).  The
// debug info is used only when its parameter count matches the IR's: a
// struct passed in two registers would shift every index after it.
//
//===----------------------------------------------------------------------===//
#include "TraceInternal.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace vigil {
namespace trace {

bool Signature::named() const {
  for (const ArgWord &A : Args)
    if (A.Name.empty())
      return false;
  return true;
}

static bool recordable(Type *T) {
  return T->isPointerTy() || (T->isIntegerTy() && T->getIntegerBitWidth() <= 64);
}

static const char *typeName(Type *T, bool Signed) {
  return T->isPointerTy() ? "ptr" : Signed ? "i64" : "u64";
}

/// Whether a C type is a signed integer (typedefs and qualifiers looked
/// through).
static bool signedC(DIType *T) {
  while (auto *D = dyn_cast_or_null<DIDerivedType>(T)) {
    unsigned Tag = D->getTag();
    if (Tag != dwarf::DW_TAG_typedef && Tag != dwarf::DW_TAG_const_type &&
        Tag != dwarf::DW_TAG_volatile_type && Tag != dwarf::DW_TAG_atomic_type)
      return false;
    T = D->getBaseType();
  }
  auto *B = dyn_cast_or_null<DIBasicType>(T);
  return B && (B->getEncoding() == dwarf::DW_ATE_signed ||
               B->getEncoding() == dwarf::DW_ATE_signed_char);
}

/// The C parameters' types from SP (element 0 is the return type; a
/// trailing null marks `...`), or none when they cannot be matched to the
/// IR's NIR parameters.
static std::vector<DIType *> cTypes(DISubprogram *SP, unsigned NIR, DIType *&Ret) {
  std::vector<DIType *> Out;
  Ret = nullptr;
  DISubroutineType *ST = SP ? SP->getType() : nullptr;
  if (!ST)
    return Out;
  DITypeRefArray A = ST->getTypeArray();
  if (A.size() == 0)
    return Out;
  Ret = A[0];
  unsigned N = A.size();
  if (N > 1 && !A[N - 1])
    --N; // variadic
  for (unsigned I = 1; I < N; ++I)
    Out.push_back(A[I]);
  if (Out.size() != NIR)
    Out.clear();
  return Out;
}

/// Names of the C parameters (by 0-based C index) of a defined function.
static std::vector<std::string> cNames(Function &F, DISubprogram *SP, unsigned N) {
  std::vector<std::string> Names(N);
  auto Take = [&](DILocalVariable *V) {
    if (V && V->getArg() && V->getArg() <= N && V->getScope() == SP)
      Names[V->getArg() - 1] = V->getName().str();
  };
  for (DINode *Node : SP->getRetainedNodes())
    Take(dyn_cast<DILocalVariable>(Node));
  for (Instruction &I : instructions(F)) {
    if (auto *DVI = dyn_cast<DbgVariableIntrinsic>(&I))
      Take(DVI->getVariable());
    for (DbgVariableRecord &R : filterDbgVars(I.getDbgRecordRange()))
      Take(R.getVariable());
  }
  return Names;
}

Signature signatureOf(Function &F) {
  Signature S;
  std::vector<unsigned> CParams; // IR indices of the C parameters
  for (Argument &A : F.args())
    if (!A.hasStructRetAttr())
      CParams.push_back(A.getArgNo());
  DISubprogram *SP = F.getSubprogram();
  DIType *RetDI = nullptr;
  std::vector<DIType *> Types = cTypes(SP, CParams.size(), RetDI);
  std::vector<std::string> Names;
  if (!Types.empty() && !F.isDeclaration())
    Names = cNames(F, SP, CParams.size());
  for (unsigned C = 0; C < CParams.size() && S.Args.size() < MaxWords; ++C) {
    Argument *A = F.getArg(CParams[C]);
    if (!recordable(A->getType()))
      continue;
    ArgWord W;
    W.Index = CParams[C];
    W.Signed = A->hasSExtAttr() || (!Types.empty() && signedC(Types[C]));
    W.Type = typeName(A->getType(), W.Signed);
    W.Name = !Names.empty() && !Names[C].empty() ? Names[C] : A->getName().str();
    S.Args.push_back(std::move(W));
  }
  Type *RT = F.getReturnType();
  S.HasRet = recordable(RT);
  S.RetSigned = F.getAttributes().hasRetAttr(Attribute::SExt) ||
                (SP && SP->getType() && signedC(RetDI));
  if (S.HasRet)
    S.RetType = typeName(RT, S.RetSigned);
  return S;
}

} // namespace trace
} // namespace vigil
