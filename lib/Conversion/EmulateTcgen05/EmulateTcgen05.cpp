//===- EmulateTcgen05.cpp - tcgen05 ops as sm_90a code --------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// nvfp4-emulate-tcgen05 replaces each NVVM tcgen05 op of a compiled sm_100a
// kernel by a call of a device function that does what the PTX ISA defines,
// reading every operand the way the hardware reads it: the instruction
// descriptor's fields, the shared-memory descriptors' start / LBO / SBO /
// version / swizzle, the scale factors by TMEM lane and column. Nothing here
// knows where the compiler put things; a field the kernel got wrong gives a
// wrong result or a trap, never a silently right one. The emulated kernel
// runs on any sm_90 GPU (docs/design/tcgen05-emulation.md).
//
// The device functions are llvm.funcs added to each gpu.module that needs
// them, with scf/arith bodies; tensor memory and the allocator state are
// global arrays of the module, one slice per CTA. CTA pairs (cta_group::2)
// are emulated too, with the TMA loads of theirs that Hopper's TMA cannot
// complete as the ISA says (rewritePairLoad).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/EmulateTcgen05/EmulateTcgen05.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Conversion/GPUCommon/TensorMapWords.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4EMULATETCGEN05
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;

namespace {

constexpr int64_t kLanes = 128;
constexpr int64_t kColumns = 512;
/// Per-CTA scratch of the MMA: B's rows decoded once per instruction, 16
/// words of doubled E2M1 values (int8) and 4 words of f32 scale products.
constexpr int64_t kScratchRowWords = 20;
constexpr int64_t kMaxN = 256;
/// Per-CTA state words.
enum StateWord : int64_t {
  kAllocMask = 0,    // allocated columns, one bit per 32
  kRelinquished = 1, // tcgen05.relinquish_alloc_permit executed
  kExited = 2,       // threads that reached the kernel's exit
  kIssuer = 3,       // 1 + the thread whose tcgen05 ops are in flight, or 0
  kInFlight = 4,     // how many (records in the CTA's queue)
  kEntered = 5,      // threads that entered the kernel
  kAllocs = 6,       // cta_group::2: tcgen05.alloc calls completed
  kStateWords = 8
};
/// The asynchronous tcgen05 ops (cp, mma) issued and not yet committed: a
/// per-CTA queue of records, each the op's kind and its operands as the
/// executing function takes them (i64 as two words).
constexpr int64_t kQueueCapacity = 64;
constexpr int64_t kRecordWords = 12;
enum RecordKind : int64_t { kRecordCp = 1, kRecordMma16 = 2, kRecordMma32 = 3 };
/// What tcgen05.alloc leaves in the columns it hands out: the ISA leaves
/// them undefined; all-ones is a NaN as f32 and as E4M3 / UE8M0 scales, so
/// reading a column nothing wrote poisons the result.
constexpr int64_t kTmemPoison = 0xFFFFFFFF;

constexpr StringLiteral kTmem = "__nvfp4_emu_tmem";
constexpr StringLiteral kScratch = "__nvfp4_emu_scratch";
constexpr StringLiteral kState = "__nvfp4_emu_state";
constexpr StringLiteral kQueue = "__nvfp4_emu_queue";
/// Shared memory: an mbarrier per warp for forwarded cta_group::2 loads.
constexpr StringLiteral kLoadBarriers = "__nvfp4_emu_load_barriers";
constexpr int64_t kMaxWarps = 32;

/// Every NVVM tcgen05 op but the descriptor builder (plain arithmetic): the
/// emulated ones and those `rewrite` refuses with a diagnostic.
bool isTcgen05(Operation *op) {
  return op->getName().getStringRef().starts_with("nvvm.tcgen05.") &&
         !isa<NVVM::Tcgen05MmaSmemDescOp>(op);
}

/// Builds the emulation's device code: one-op shorthands on i32/i64 and the
/// pieces every function shares (this CTA's slices, the checks).
class Emitter : public nvfp4::KernelArith {
public:
  Emitter(ImplicitLocOpBuilder &b, int64_t maxCtas, bool pair = false)
      : KernelArith(b), maxCtas(maxCtas), pair(pair) {}
  using KernelArith::b;

  Type i1() { return b.getI1Type(); }
  Type i8() { return b.getI8Type(); }
  Type i32() { return b.getI32Type(); }
  Type i64() { return b.getI64Type(); }
  Type f32() { return b.getF32Type(); }
  Type f64() { return b.getF64Type(); }
  Type ptr(unsigned space) {
    return LLVM::LLVMPointerType::get(b.getContext(), space);
  }

  Value c64(int64_t v) { return arith::ConstantIntOp::create(b, i64(), v); }
  Value cf(double v) {
    return arith::ConstantFloatOp::create(b, b.getF32Type(),
                                          APFloat(static_cast<float>(v)));
  }
  Value cf64(double v) {
    return arith::ConstantFloatOp::create(b, b.getF64Type(), APFloat(v));
  }
  Value extf(Value v) { return arith::ExtFOp::create(b, f64(), v); }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, x, y); }
  Value xori(Value x, Value y) { return arith::XOrIOp::create(b, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, x, y); }
  Value ne(Value x, Value y) { return cmp(arith::CmpIPredicate::ne, x, y); }
  Value ult(Value x, Value y) { return cmp(arith::CmpIPredicate::ult, x, y); }
  Value ugt(Value x, Value y) { return cmp(arith::CmpIPredicate::ugt, x, y); }
  Value trunc32(Value v) { return arith::TruncIOp::create(b, i32(), v); }
  Value ext64(Value v) { return arith::ExtUIOp::create(b, i64(), v); }
  Value cbool(bool v) { return arith::ConstantIntOp::create(b, i1(), v); }
  /// !v for an i1.
  Value notb(Value v) { return xori(v, cbool(true)); }
  /// Bits [lo, lo + width) of an i32 or i64.
  Value field(Value v, int64_t lo, int64_t width) {
    Type t = v.getType();
    Value shifted =
        arith::ShRUIOp::create(b, v, arith::ConstantIntOp::create(b, t, lo));
    Value bits = arith::AndIOp::create(
        b, shifted, arith::ConstantIntOp::create(b, t, (1ll << width) - 1));
    return t == i64() ? trunc32(bits) : bits;
  }

  /// `cond`: print "nvfp4 tcgen05 emulation: <message>" with `args` and trap.
  void fail(Value cond, StringRef message, ValueRange args = {}) {
    scf::IfOp ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    gpu::PrintfOp::create(
        b, b.getStringAttr("nvfp4 tcgen05 emulation: " + message + "\n"), args);
    LLVM::Trap::create(b);
  }
  /// for (i = lo; i < hi; i += step) body(i), on i32.
  void loop(Value lo, Value hi, int64_t step, function_ref<void(Value)> body) {
    scf::ForOp forOp = scf::ForOp::create(b, lo, hi, c32(step));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    body(forOp.getInductionVar());
  }

  Value load(Type type, Value p, unsigned align = 4) {
    return LLVM::LoadOp::create(b, type, p, align);
  }
  void store(Value v, Value p, unsigned align = 4) {
    LLVM::StoreOp::create(b, v, p, align);
  }
  /// &base[index] over `element`s.
  Value gep(Value base, Type element, Value index) {
    return LLVM::GEPOp::create(b, base.getType(), element, base,
                               ValueRange{index});
  }

  //===------------------------------------------------------------------===//
  // Special registers
  //===------------------------------------------------------------------===//
  Value linearCta() {
    Value x = NVVM::BlockIdXOp::create(b, i32());
    Value y = NVVM::BlockIdYOp::create(b, i32());
    Value z = NVVM::BlockIdZOp::create(b, i32());
    Value nx = NVVM::GridDimXOp::create(b, i32());
    Value ny = NVVM::GridDimYOp::create(b, i32());
    return add(x, mul(nx, add(y, mul(ny, z))));
  }
  Value linearThread() {
    Value x = NVVM::ThreadIdXOp::create(b, i32());
    Value y = NVVM::ThreadIdYOp::create(b, i32());
    Value z = NVVM::ThreadIdZOp::create(b, i32());
    Value nx = NVVM::BlockDimXOp::create(b, i32());
    Value ny = NVVM::BlockDimYOp::create(b, i32());
    return add(x, mul(nx, add(y, mul(ny, z))));
  }
  Value threadsPerCta() {
    return mul(NVVM::BlockDimXOp::create(b, i32()),
               mul(NVVM::BlockDimYOp::create(b, i32()),
                   NVVM::BlockDimZOp::create(b, i32())));
  }
  Value laneId() { return NVVM::LaneIdOp::create(b, i32()); }
  Value activeMask() {
    return LLVM::InlineAsmOp::create(
               b, i32(), ValueRange{}, "activemask.b32 $0;", "=r",
               /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None,
               LLVM::AsmDialectAttr::get(b.getContext(),
                                         LLVM::AsmDialect::AD_ATT),
               /*operand_attrs=*/ArrayAttr())
        .getResult(0);
  }

  //===------------------------------------------------------------------===//
  // This CTA's slices of the module's arrays
  //===------------------------------------------------------------------===//
  Value global(StringRef name) {
    return LLVM::AddressOfOp::create(b, ptr(1), name);
  }
  /// The cell (lane, column) of this CTA's tensor memory (i32 element).
  Value tmemCell(Value lane, Value column) {
    return tmemCellOf(linearCta(), lane, column);
  }
  /// The cell of CTA `cta`'s (a linear CTA id) tensor memory.
  Value tmemCellOf(Value cta32, Value lane, Value column) {
    Value cta = ext64(cta32);
    Value index =
        add(mul(add(mul(cta, c64(kLanes)), ext64(lane)), c64(kColumns)),
            ext64(column));
    return gep(global(kTmem), i32(), index);
  }
  /// Every emulated access reads this CTA's allocator state first: the one
  /// place that checks the CTA has a slice of the arrays.
  Value stateWord(int64_t word) { return stateWordOf(linearCta(), word); }
  Value stateWordOf(Value cta32, int64_t word) {
    fail(ugt(cta32, c32(maxCtas - 1)),
         "CTA %u has no tensor memory: the emulation was built for " +
             std::to_string(maxCtas) + " CTAs (max-ctas)",
         {cta32});
    Value cta = ext64(cta32);
    return gep(global(kState), i32(),
               add(mul(cta, c64(kStateWords)), c64(word)));
  }

  //===------------------------------------------------------------------===//
  // The CTA pair (cta_group::2)
  //===------------------------------------------------------------------===//
  /// This CTA's rank in its cluster.
  Value ctaRank() { return NVVM::ClusterId::create(b, i32()); }
  /// The cluster rank of the CTA whose shared memory holds shared::cluster
  /// address `addr` (an i32).
  Value rankOf(Value addr) {
    Value p = LLVM::IntToPtrOp::create(b, ptr(3), addr);
    return LLVM::CallIntrinsicOp::create(
               b, i32(), b.getStringAttr("llvm.nvvm.getctarank.shared.cluster"),
               ValueRange{p})
        .getResult(0);
  }
  /// Shared-memory offset `addr` (an i32, a descriptor's start address or a
  /// shared::cta address) in the window of the CTA of cluster rank `rank`:
  /// a shared::cluster address. mapa keeps the offset and puts the CTA's
  /// window bits in (on an H200 the window of rank r starts at r << 24, and
  /// the bare offset of a descriptor traps as a shared::cta address in every
  /// CTA but rank 0's).
  Value sharedIn(Value addr, Value rank) {
    Value p = LLVM::IntToPtrOp::create(b, ptr(3), addr);
    return NVVM::MapaOp::create(b, ptr(7), p, rank);
  }
  /// Offset `addr` in this CTA's window, as a shared::cta pointer (this
  /// CTA's shared::cluster addresses are its shared::cta ones).
  Value sharedHere(Value addr) {
    Value cluster =
        LLVM::PtrToIntOp::create(b, i32(), sharedIn(addr, ctaRank()));
    return LLVM::IntToPtrOp::create(b, ptr(3), cluster);
  }
  /// The cluster rank of member `c` (0 or 1) of this CTA's pair: the two
  /// CTAs whose ranks differ only in bit 0.
  Value pairRank(Value c) { return add(andi(ctaRank(), c32(~1)), c); }
  /// The linear CTA id of member `c` of the pair. Ranks run along x first,
  /// so with an even cluster x extent (checked) the pair's CTAs are
  /// x-neighbours, the first with ctaid.x even.
  Value pairCta(Value c) {
    Value nx = NVVM::ClusterDimBlocksXOp::create(b, i32());
    fail(ne(remu(nx, c32(2)), c32(0)),
         "cta_group::2 in a cluster %u CTAs wide (the emulation takes pairs "
         "of x-neighbours: an even width)",
         {nx});
    Value x = NVVM::BlockIdXOp::create(b, i32());
    return add(sub(linearCta(), andi(x, c32(1))), c);
  }
  /// Whether this CTA has a slice of the arrays (the kernel-entry and exit
  /// bookkeeping runs only then; every tcgen05 op needs one).
  Value hasSlice() { return ult(linearCta(), c32(maxCtas)); }
  Value scratchRow(Value row) {
    Value cta = ext64(linearCta());
    Value index =
        mul(add(mul(cta, c64(kMaxN)), ext64(row)), c64(kScratchRowWords));
    return gep(global(kScratch), i32(), index);
  }
  /// Record `i` of this CTA's queue of issued, uncommitted ops.
  Value queueRecord(Value i) {
    Value cta = ext64(linearCta());
    Value index =
        mul(add(mul(cta, c64(kQueueCapacity)), ext64(i)), c64(kRecordWords));
    return gep(global(kQueue), i32(), index);
  }
  /// Traps if this CTA has issued tcgen05 ops no commit has covered.
  void checkNothingInFlight(StringRef when) {
    Value inFlight = load(i32(), stateWord(kInFlight));
    fail(ne(inFlight, c32(0)),
         (when + " with %u tcgen05 ops issued and never committed").str(),
         {inFlight});
  }

  /// Traps unless columns [column, column + count) of this CTA's tensor
  /// memory are allocated and lane is in range.
  void checkAllocated(Value lane, Value column, Value count, StringRef what) {
    checkAllocatedOf(linearCta(), lane, column, count, what);
  }
  void checkAllocatedOf(Value cta, Value lane, Value column, Value count,
                        StringRef what) {
    Value end = add(column, count);
    fail(ori(ugt(end, c32(kColumns)), ugt(lane, c32(kLanes - 1))),
         (what + ": lane %u column %u + %u outside tensor memory").str(),
         {lane, column, count});
    Value first = divu(column, c32(32));
    Value last = divu(sub(end, c32(1)), c32(32));
    Value span = add(sub(last, first), c32(1));
    Value bits = shl(sub(shl(c32(1), span), c32(1)), first);
    Value mask = load(i32(), stateWordOf(cta, kAllocMask));
    fail(ne(andi(mask, bits), bits),
         (what + ": columns %u..%u of CTA %u are not allocated (allocated "
                 "mask 0x%x)")
             .str(),
         {column, sub(end, c32(1)), cta, mask});
  }

  int64_t maxCtas;
  /// The module's tcgen05 ops are cta_group::2 (the ISA has every tcgen05
  /// op of a kernel use the same group).
  bool pair;
};

//===----------------------------------------------------------------------===//
// The shared-memory matrix descriptor
//===----------------------------------------------------------------------===//

/// A decoded tcgen05 shared-memory descriptor (PTX ISA "Shared memory
/// descriptor"): byte start, LBO and SBO, and the swizzle width T in bytes
/// (0: no swizzle).
struct SmemDesc {
  Value start, lbo, sbo, swizzleBytes;
};

/// Decodes and validates a descriptor: version bits 46-48 = 0b001, base
/// offset 0 and relative LBO mode (the emulation does not model the others:
/// it traps), reserved bits clear, a defined swizzle code.
SmemDesc decodeDesc(Emitter &e, Value desc, StringRef what) {
  SmemDesc d;
  d.start = e.shl(e.field(desc, 0, 14), e.c32(4));
  d.lbo = e.shl(e.field(desc, 16, 14), e.c32(4));
  d.sbo = e.shl(e.field(desc, 32, 14), e.c32(4));
  Value version = e.field(desc, 46, 3);
  Value baseOffset = e.field(desc, 49, 3);
  Value lboMode = e.field(desc, 52, 1);
  Value swizzle = e.field(desc, 61, 3);
  Value descHi = e.trunc32(e.shr(desc, e.c64(32)));
  Value descLo = e.trunc32(desc);
  e.fail(e.ne(version, e.c32(1)),
         (what + " descriptor 0x%08x%08x: version bits 46-48 are %u, the ISA "
                 "fixes them to 0b001")
             .str(),
         {descHi, descLo, version});
  e.fail(e.ne(baseOffset, e.c32(0)),
         (what + " descriptor 0x%08x%08x: base offset %u (not emulated)").str(),
         {descHi, descLo, baseOffset});
  e.fail(
      e.ne(lboMode, e.c32(0)),
      (what + " descriptor 0x%08x%08x: absolute LBO mode (not emulated)").str(),
      {descHi, descLo});
  Value reserved = e.ori(e.ori(e.ne(e.field(desc, 14, 2), e.c32(0)),
                               e.ne(e.field(desc, 30, 2), e.c32(0))),
                         e.ne(e.field(desc, 53, 8), e.c32(0)));
  e.fail(reserved, (what + " descriptor 0x%08x%08x: reserved bits set").str(),
         {descHi, descLo});
  // Swizzle codes: 0 none, 2 128B, 4 64B, 6 32B; 1 (128B with 32B atoms) is
  // not emulated; 3, 5, 7 are undefined.
  Value odd = e.eq(e.andi(swizzle, e.c32(1)), e.c32(1));
  e.fail(odd,
         (what + " descriptor 0x%08x%08x: swizzle mode %u is not emulated or "
                 "undefined")
             .str(),
         {descHi, descLo, swizzle});
  d.swizzleBytes = e.select(
      e.eq(swizzle, e.c32(2)), e.c32(128),
      e.select(e.eq(swizzle, e.c32(4)), e.c32(64),
               e.select(e.eq(swizzle, e.c32(6)), e.c32(32), e.c32(0))));
  return d;
}

/// The shared-memory address of byte `kb` (a multiple of 16) of row `r` of a
/// K-major matrix in the canonical layout its descriptor names: 8-row core
/// matrices SBO apart; without swizzle, rows of 16 bytes and 16-byte K
/// columns LBO apart; with a T-byte swizzle, rows of T bytes, and the
/// 16-byte chunk index (address bits 4..) XORed with address bits 7.. as
/// the ISA's swizzle patterns do on the absolute address.
Value smemAddress(Emitter &e, const SmemDesc &d, Value r, Value kb) {
  Value group = e.mul(e.divu(r, e.c32(8)), d.sbo);
  Value rowInGroup = e.remu(r, e.c32(8));
  Value noSwizzle = e.add(
      e.add(d.start, group),
      e.add(e.mul(rowInGroup, e.c32(16)),
            e.add(e.mul(e.divu(kb, e.c32(16)), d.lbo), e.remu(kb, e.c32(16)))));
  Value t = e.select(e.eq(d.swizzleBytes, e.c32(0)), e.c32(16), d.swizzleBytes);
  Value linear = e.add(e.add(d.start, group), e.add(e.mul(rowInGroup, t), kb));
  // Chunks per row - 1: 1, 3 or 7 for 32B, 64B, 128B.
  Value chunkMask = e.sub(e.divu(t, e.c32(16)), e.c32(1));
  Value xorBits = e.shl(e.andi(e.shr(linear, e.c32(7)), chunkMask), e.c32(4));
  Value swizzled = e.xori(linear, xorBits);
  return e.select(e.eq(d.swizzleBytes, e.c32(0)), noSwizzle, swizzled);
}

/// The 16 bytes at shared-memory offset `addr` (16-byte aligned) as 4
/// words: in this CTA, or with `rank` in that CTA of the cluster
/// (distributed shared memory).
SmallVector<Value> loadShared16(Emitter &e, Value addr, Value rank = {}) {
  Value p = rank ? e.sharedIn(addr, rank) : e.sharedHere(addr);
  auto vecType = VectorType::get({4}, e.i32());
  Value vec = e.load(vecType, p, 16);
  SmallVector<Value> words;
  for (int64_t i = 0; i < 4; ++i)
    words.push_back(LLVM::ExtractElementOp::create(e.b, vec, e.c32(i)));
  return words;
}

//===----------------------------------------------------------------------===//
// The device functions
//===----------------------------------------------------------------------===//

/// The device functions. `cp` / `mma` issue (queue) an op, `execCp` /
/// `execMma` execute one, `commit` executes the queue and arrives.
enum class Fn {
  alloc,
  dealloc,
  relinquish,
  enter,
  exit,
  cp,
  mma,
  execCp,
  execMma,
  commit,
  commitMulticast,
  pairLoadBegin,
  pairLoadEnd
};

StringRef fnName(Fn fn) {
  switch (fn) {
  case Fn::alloc:
    return "__nvfp4_emu_tcgen05_alloc";
  case Fn::dealloc:
    return "__nvfp4_emu_tcgen05_dealloc";
  case Fn::relinquish:
    return "__nvfp4_emu_tcgen05_relinquish";
  case Fn::enter:
    return "__nvfp4_emu_enter";
  case Fn::exit:
    return "__nvfp4_emu_exit";
  case Fn::cp:
    return "__nvfp4_emu_tcgen05_cp";
  case Fn::mma:
    return "__nvfp4_emu_tcgen05_mma_block_scale";
  case Fn::execCp:
    return "__nvfp4_emu_exec_cp";
  case Fn::execMma:
    return "__nvfp4_emu_exec_mma_block_scale";
  case Fn::commit:
    return "__nvfp4_emu_tcgen05_commit";
  case Fn::commitMulticast:
    return "__nvfp4_emu_tcgen05_commit_multicast";
  case Fn::pairLoadBegin:
    return "__nvfp4_emu_pair_load_begin";
  case Fn::pairLoadEnd:
    return "__nvfp4_emu_pair_load_end";
  }
  llvm_unreachable("function");
}

/// tcgen05.alloc [slot], nCols: executed by a whole warp; lane 0 takes the
/// first free, nCols-aligned run of columns and writes its address to the
/// shared-memory slot; then the warp fills the run with kTmemPoison (the
/// ISA leaves its contents undefined).
void buildAlloc(Emitter &e, ValueRange args) {
  Value slot = args[0], nCols = args[1];
  Value mask = e.activeMask();
  e.fail(e.ne(mask, e.c32(-1)),
         "tcgen05.alloc executed by lanes 0x%x, not a whole warp", {mask});
  e.ifThen(e.eq(e.laneId(), e.c32(0)), [&] {
    Value pow2 = e.eq(e.andi(nCols, e.sub(nCols, e.c32(1))), e.c32(0));
    Value bad =
        e.ori(e.ori(e.ult(nCols, e.c32(32)), e.ugt(nCols, e.c32(kColumns))),
              e.notb(pow2));
    e.fail(bad, "tcgen05.alloc of %u columns (a power of two in [32, 512])",
           {nCols});
    Value relinquished = e.load(e.i32(), e.stateWord(kRelinquished));
    e.fail(e.ne(relinquished, e.c32(0)),
           "tcgen05.alloc after tcgen05.relinquish_alloc_permit");
    Value granules = e.divu(nCols, e.c32(32));
    Value bits = e.sub(e.shl(e.c32(1), granules), e.c32(1));
    Value maskPtr = e.stateWord(kAllocMask);
    // First fit: each aligned position in turn, claimed with a
    // compare-and-swap that is retried while the position stays free (a
    // swap lost to a change of other columns does not skip it).
    auto forOp = scf::ForOp::create(e.b, e.c32(0), e.c32(kColumns / 32),
                                    granules, ValueRange{e.c32(-1)});
    {
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(forOp.getBody());
      Value g = forOp.getInductionVar();
      Value found = forOp.getRegionIterArgs()[0];
      Value want = e.shl(bits, g);
      // while (!claimed && found == -1 && (current & want) == 0)
      //   (current, claimed) = cmpxchg(mask, current, current | want)
      auto whileOp = scf::WhileOp::create(
          e.b, TypeRange{e.i32(), e.i1()},
          ValueRange{e.load(e.i32(), maskPtr), e.cbool(false)});
      {
        OpBuilder::InsertionGuard inner(e.b);
        Block *before =
            e.b.createBlock(&whileOp.getBefore(), {}, {e.i32(), e.i1()},
                            {e.b.getLoc(), e.b.getLoc()});
        Value current = before->getArgument(0),
              claimed = before->getArgument(1);
        Value go = e.andi(e.andi(e.notb(claimed), e.eq(found, e.c32(-1))),
                          e.eq(e.andi(current, want), e.c32(0)));
        scf::ConditionOp::create(e.b, go, before->getArguments());
        Block *after =
            e.b.createBlock(&whileOp.getAfter(), {}, {e.i32(), e.i1()},
                            {e.b.getLoc(), e.b.getLoc()});
        Value expected = after->getArgument(0);
        Value pair = LLVM::AtomicCmpXchgOp::create(
            e.b, maskPtr, expected, e.ori(expected, want),
            LLVM::AtomicOrdering::acq_rel, LLVM::AtomicOrdering::monotonic);
        scf::YieldOp::create(
            e.b, ValueRange{LLVM::ExtractValueOp::create(e.b, pair, 0),
                            LLVM::ExtractValueOp::create(e.b, pair, 1)});
      }
      scf::YieldOp::create(
          e.b, ValueRange{e.select(whileOp.getResult(1), g, found)});
    }
    Value found = forOp.getResult(0);
    e.fail(e.eq(found, e.c32(-1)),
           "tcgen05.alloc of %u columns: no free run (allocated mask 0x%x; "
           "the hardware would block)",
           {nCols, e.load(e.i32(), maskPtr)});
    // Address: lane 0, column 32 * granule.
    e.store(e.mul(found, e.c32(32)), slot);
  });
  NVVM::SyncWarpOp::create(e.b, e.c32(-1));
  // Lane l poisons tensor-memory lanes l, l + 32, l + 64, l + 96 of the run,
  // 4 columns a store.
  Value base = e.load(e.i32(), slot);
  auto vec4 = VectorType::get({4}, e.i32());
  Value poison = arith::ConstantOp::create(
      e.b, DenseElementsAttr::get(vec4, APInt(32, kTmemPoison)));
  e.loop(e.laneId(), e.c32(kLanes), 32, [&](Value lane) {
    e.loop(e.c32(0), nCols, 4, [&](Value column) {
      e.store(poison, e.tmemCell(lane, e.add(base, column)), 16);
    });
  });
  NVVM::SyncWarpOp::create(e.b, e.c32(-1));
  if (!e.pair)
    return;
  // cta_group::2: a warp of each CTA of the pair allocates collectively.
  // Each allocates (and poisons) in its own tensor memory, which gives both
  // the same columns (every allocation of the kernel is collective, in the
  // same order); neither returns before the other has, so that the MMAs
  // the pair's issuing thread writes into both find the columns allocated
  // and poisoned already.
  NVVM::MembarOp::create(e.b, NVVM::MemScopeKind::GPU);
  e.ifThen(e.eq(e.laneId(), e.c32(0)), [&] {
    Value mine = e.add(LLVM::AtomicRMWOp::create(e.b, LLVM::AtomicBinOp::add,
                                                 e.stateWord(kAllocs), e.c32(1),
                                                 LLVM::AtomicOrdering::acq_rel),
                       e.c32(1));
    Value other = e.pairCta(e.xori(e.andi(e.ctaRank(), e.c32(1)), e.c32(1)));
    Value otherCount = e.stateWordOf(other, kAllocs);
    auto wait = scf::WhileOp::create(e.b, TypeRange{}, ValueRange{});
    {
      OpBuilder::InsertionGuard guard(e.b);
      e.b.createBlock(&wait.getBefore());
      Value seen =
          LLVM::AtomicRMWOp::create(e.b, LLVM::AtomicBinOp::add, otherCount,
                                    e.c32(0), LLVM::AtomicOrdering::acquire);
      scf::ConditionOp::create(e.b, e.ult(seen, mine), ValueRange{});
      e.b.createBlock(&wait.getAfter());
      scf::YieldOp::create(e.b, ValueRange{});
    }
  });
  NVVM::SyncWarpOp::create(e.b, e.c32(-1));
}

/// tcgen05.dealloc taddr, nCols: a whole warp; frees an allocated run of
/// nCols columns aligned as tcgen05.alloc aligns one.
void buildDealloc(Emitter &e, ValueRange args) {
  Value taddr = args[0], nCols = args[1];
  Value mask = e.activeMask();
  e.fail(e.ne(mask, e.c32(-1)),
         "tcgen05.dealloc executed by lanes 0x%x, not a whole warp", {mask});
  e.ifThen(e.eq(e.laneId(), e.c32(0)), [&] {
    Value lane = e.shr(taddr, e.c32(16));
    Value column = e.andi(taddr, e.c32(0xFFFF));
    Value pow2 = e.eq(e.andi(nCols, e.sub(nCols, e.c32(1))), e.c32(0));
    Value validCount = e.andi(
        e.andi(e.ugt(nCols, e.c32(31)), e.ult(nCols, e.c32(kColumns + 1))),
        pow2);
    // An allocation of nCols columns starts on a multiple of nCols.
    Value aligned =
        e.eq(e.remu(column, e.select(validCount, nCols, e.c32(32))), e.c32(0));
    Value bad =
        e.ori(e.ori(e.notb(validCount), e.ne(lane, e.c32(0))), e.notb(aligned));
    e.fail(bad, "tcgen05.dealloc of address 0x%x, %u columns", {taddr, nCols});
    e.checkAllocated(lane, column, nCols, "tcgen05.dealloc");
    Value bits =
        e.shl(e.sub(e.shl(e.c32(1), e.divu(nCols, e.c32(32))), e.c32(1)),
              e.divu(column, e.c32(32)));
    LLVM::AtomicRMWOp::create(e.b, LLVM::AtomicBinOp::_and,
                              e.stateWord(kAllocMask), e.xori(bits, e.c32(-1)),
                              LLVM::AtomicOrdering::acq_rel);
  });
  NVVM::SyncWarpOp::create(e.b, e.c32(-1));
}

void buildRelinquish(Emitter &e, ValueRange) {
  e.store(e.c32(1), e.stateWord(kRelinquished));
}

/// Before each return of a kernel: the CTA's last thread out checks that
/// every allocation was freed and every issued op committed, and resets the
/// state for the next launch.
void buildExit(Emitter &e, ValueRange) {
  NVVM::MembarOp::create(e.b, NVVM::MemScopeKind::GPU);
  e.ifThen(e.hasSlice(), [&] {
    Value before = LLVM::AtomicRMWOp::create(e.b, LLVM::AtomicBinOp::add,
                                             e.stateWord(kExited), e.c32(1),
                                             LLVM::AtomicOrdering::acq_rel);
    e.ifThen(e.eq(before, e.sub(e.threadsPerCta(), e.c32(1))), [&] {
      Value mask = e.load(e.i32(), e.stateWord(kAllocMask));
      e.fail(e.ne(mask, e.c32(0)),
             "the kernel exits with tensor memory allocated (mask 0x%x): "
             "every tcgen05.alloc needs a tcgen05.dealloc",
             {mask});
      e.checkNothingInFlight("the kernel exits");
      e.store(e.c32(0), e.stateWord(kRelinquished));
      e.store(e.c32(0), e.stateWord(kEntered));
      e.store(e.c32(0), e.stateWord(kExited));
      e.store(e.c32(0), e.stateWord(kAllocs));
    });
  });
}

/// At the start of each kernel: every thread counts itself in. A count past
/// the CTA's size means the same CTA of another launch of this kernel is
/// still running: the launches would share its tensor memory and queue (the
/// emulation's arrays are per kernel, not per launch), so it traps.
void buildEnter(Emitter &e, ValueRange) {
  e.ifThen(e.hasSlice(), [&] {
    Value before = LLVM::AtomicRMWOp::create(e.b, LLVM::AtomicBinOp::add,
                                             e.stateWord(kEntered), e.c32(1),
                                             LLVM::AtomicOrdering::acq_rel);
    e.fail(e.ugt(e.add(before, e.c32(1)), e.threadsPerCta()),
           "CTA %u started while the same CTA of another launch of this "
           "kernel runs: overlapping launches of an emulated kernel share its "
           "tensor memory (launch it once at a time)",
           {e.linearCta()});
  });
}

/// Issuing tcgen05.cp or tcgen05.mma: the op is asynchronous, so it is
/// recorded, operands as they are now, in this CTA's queue and executed by
/// the tcgen05.commit that covers it (the latest completion the ISA
/// allows). A commit covers the ops of the thread that executes it: the
/// queue has one issuing thread at a time, and an op from another thread
/// while it holds uncommitted ones traps.
void buildIssue(Emitter &e, ValueRange args, int64_t kind) {
  Value self = e.add(e.linearThread(), e.c32(1));
  Value pair = LLVM::AtomicCmpXchgOp::create(
      e.b, e.stateWord(kIssuer), e.c32(0), self, LLVM::AtomicOrdering::acq_rel,
      LLVM::AtomicOrdering::monotonic);
  Value issuer = LLVM::ExtractValueOp::create(e.b, pair, 0);
  e.fail(e.andi(e.ne(issuer, e.c32(0)), e.ne(issuer, self)),
         "a tcgen05 op issued by thread %u while thread %u of its CTA has "
         "ops in flight (one issuing thread per CTA is emulated)",
         {e.sub(self, e.c32(1)), e.sub(issuer, e.c32(1))});
  Value countPtr = e.stateWord(kInFlight);
  Value count = e.load(e.i32(), countPtr);
  e.fail(e.eq(count, e.c32(kQueueCapacity)),
         "more than " + std::to_string(kQueueCapacity) +
             " tcgen05 ops issued without a tcgen05.commit");
  e.store(e.add(count, e.c32(1)), countPtr);
  Value record = e.queueRecord(count);
  e.store(e.c32(kind), record);
  int64_t word = 1;
  for (Value arg : args) {
    SmallVector<Value, 2> words;
    if (arg.getType() == e.i64())
      words = {e.trunc32(arg), e.trunc32(e.shr(arg, e.c64(32)))};
    else if (arg.getType() == e.i1())
      words = {arith::ExtUIOp::create(e.b, e.i32(), arg)};
    else
      words = {arg};
    for (Value w : words)
      e.store(w, e.gep(record, e.i32(), e.c64(word++)));
  }
  assert(word <= kRecordWords && "record too small for the op's operands");
}

/// The operands `types` of an executing function, read back from a record
/// that buildIssue wrote.
SmallVector<Value> readRecord(Emitter &e, Value record, TypeRange types) {
  SmallVector<Value> args;
  int64_t word = 1;
  auto next = [&] {
    return e.load(e.i32(), e.gep(record, e.i32(), e.c64(word++)));
  };
  for (Type type : types) {
    if (type == e.i64()) {
      Value lo = e.ext64(next());
      args.push_back(e.ori(lo, e.shl(e.ext64(next()), e.c64(32))));
    } else if (type == e.i1()) {
      args.push_back(e.ne(next(), e.c32(0)));
    } else {
      args.push_back(next());
    }
  }
  return args;
}

/// tcgen05.cp [taddr], sdesc with shape (rows x 16*units bytes) and
/// multicast: row r of the source (read through the descriptor) goes to
/// lane taddr.lane + r (no multicast) or to the lanes the multicast names,
/// columns taddr.column + 4u .. + 3 for its 16-byte unit u. With
/// cta_group::2 each CTA of the pair copies from its own shared memory, at
/// the descriptor's address, into its own tensor memory.
void buildCp(Emitter &e, ValueRange args) {
  Value taddr = args[0], desc = args[1], rows = args[2], units = args[3],
        multicast = args[4];
  Value lane0 = e.shr(taddr, e.c32(16));
  Value column = e.andi(taddr, e.c32(0xFFFF));
  SmemDesc d = decodeDesc(e, desc, "tcgen05.cp source");
  // Multicast: 0 none, 1 warpx2::02_13, 2 warpx2::01_23, 3 warpx4.
  e.fail(e.andi(e.ne(multicast, e.c32(0)), e.ne(lane0, e.c32(0))),
         "tcgen05.cp with multicast to lane %u (lane 0 expected)", {lane0});
  Value copies =
      e.select(e.eq(multicast, e.c32(0)), e.c32(1),
               e.select(e.eq(multicast, e.c32(3)), e.c32(4), e.c32(2)));
  auto copyInto = [&](Value cta, Value rank) {
    e.checkAllocatedOf(cta, lane0, column, e.mul(units, e.c32(4)),
                       "tcgen05.cp");
    e.loop(e.c32(0), rows, 1, [&](Value r) {
      e.loop(e.c32(0), units, 1, [&](Value u) {
        SmallVector<Value> words =
            loadShared16(e, smemAddress(e, d, r, e.mul(u, e.c32(16))), rank);
        e.loop(e.c32(0), copies, 1, [&](Value c) {
          // warpx4: quarter c; warpx2::02_13: rows 0-31 to quarters 0 and
          // 2, rows 32-63 to 1 and 3; warpx2::01_23: rows 0-31 to 0 and 1,
          // rows 32-63 to 2 and 3.
          Value half = e.divu(r, e.c32(32));
          Value q0213 = e.add(half, e.mul(c, e.c32(2)));
          Value q0123 = e.add(e.mul(half, e.c32(2)), c);
          Value quarter =
              e.select(e.eq(multicast, e.c32(3)), c,
                       e.select(e.eq(multicast, e.c32(1)), q0213, q0123));
          // No multicast: row r to lane r, but 4x256b's 4 rows to lanes 0,
          // 32, 64, 96 (one per lane partition).
          Value plain = e.add(
              lane0, e.select(e.eq(rows, e.c32(4)), e.mul(r, e.c32(32)), r));
          Value lane =
              e.select(e.eq(multicast, e.c32(0)), plain,
                       e.add(e.mul(quarter, e.c32(32)), e.remu(r, e.c32(32))));
          e.fail(e.ugt(lane, e.c32(kLanes - 1)),
                 "tcgen05.cp row %u lands on lane %u", {r, lane});
          for (int64_t w = 0; w < 4; ++w)
            e.store(words[w],
                    e.tmemCellOf(
                        cta, lane,
                        e.add(column, e.add(e.mul(u, e.c32(4)), e.c32(w)))));
        });
      });
    });
  };
  if (!e.pair)
    return copyInto(e.linearCta(), Value());
  for (int64_t c = 0; c < 2; ++c)
    copyInto(e.pairCta(e.c32(c)), e.pairRank(e.c32(c)));
}

/// Doubled E2M1 magnitudes by code (0, 0.5, 1, 1.5, 2, 3, 4, 6 times 2),
/// one nibble each: exact small integers, so a block's dot product is an
/// exact integer sum (dp4a).
constexpr int64_t kDoubledE2M1 = 0xC8643210;

/// 8 packed E2M1 codes (element 2p in the low nibble of byte p) -> 2 words
/// of 4 signed bytes (2x the values), element order kept.
std::pair<Value, Value> doubledBytes(Emitter &e, Value packed) {
  Value out[2];
  for (int64_t half = 0; half < 2; ++half) {
    Value word = e.c32(0);
    for (int64_t i = 0; i < 4; ++i) {
      Value code = e.field(packed, 4 * (4 * half + i), 4);
      Value mag = e.andi(
          e.shr(e.c32(kDoubledE2M1), e.mul(e.andi(code, e.c32(7)), e.c32(4))),
          e.c32(0xF));
      Value neg = e.ne(e.andi(code, e.c32(8)), e.c32(0));
      Value v = e.andi(e.select(neg, e.sub(e.c32(0), mag), mag), e.c32(0xFF));
      word = e.ori(word, e.shl(v, e.c32(8 * i)));
    }
    out[half] = word;
  }
  return {out[0], out[1]};
}

/// Row `r` of a K = 64 E2M1 operand (32 bytes through its descriptor) as 16
/// words of doubled values.
SmallVector<Value> loadOperandRow(Emitter &e, const SmemDesc &d, Value r,
                                  Value rank = {}) {
  SmallVector<Value> out;
  for (int64_t chunk = 0; chunk < 2; ++chunk) {
    SmallVector<Value> words =
        loadShared16(e, smemAddress(e, d, r, e.c32(16 * chunk)), rank);
    for (Value w : words) {
      auto [lo, hi] = doubledBytes(e, w);
      out.push_back(lo);
      out.push_back(hi);
    }
  }
  return out;
}

/// The scale factor of row `row` of an operand for K-block `block` (0..3
/// for block16, 0..1 for block32), read from tensor memory at `sfAddr`: the
/// 32-bit cell at lane row % 32, column sfAddr.column + row / 32, byte
/// sfId + block (sfId is a half-word offset for block32 and 0 for block16).
/// The ISA requires block-scale factors duplicated to all four 32-lane
/// partitions: the four copies must agree, or the emulation traps.
Value scaleFactor(Emitter &e, Value cta, Value sfAddr, Value row, int64_t block,
                  Value sfId, Value ue8m0, StringRef what) {
  Value column = e.add(e.andi(sfAddr, e.c32(0xFFFF)), e.divu(row, e.c32(32)));
  Value lane = e.remu(row, e.c32(32));
  Value cell = e.load(e.i32(), e.tmemCellOf(cta, lane, column));
  for (int64_t q = 1; q < 4; ++q) {
    Value copy =
        e.load(e.i32(), e.tmemCellOf(cta, e.add(lane, e.c32(32 * q)), column));
    e.fail(e.ne(copy, cell),
           (what + ": row %u's scale factors (column %u) differ between lane "
                   "%u (0x%08x) and lane %u (0x%08x): they must be duplicated "
                   "to all four lane partitions")
               .str(),
           {row, column, lane, cell, e.add(lane, e.c32(32 * q)), copy});
  }
  Value byteIndex = e.add(sfId, e.c32(block));
  Value byte = e.andi(e.shr(cell, e.mul(byteIndex, e.c32(8))), e.c32(0xFF));
  nvfp4::NumericsBuilder nb(e.b, e.b.getLoc(), e.f32());
  // UE4M3 is unsigned: bit 7 is not part of the value.
  Value ue4m3 = nb.e4m3Decode(e.andi(byte, e.c32(0x7F)));
  return e.select(ue8m0, nb.e8m0Decode(byte), ue4m3);
}

/// tcgen05.mma.cta_group::1.kind::{mxf4nvf4,mxf4}.block_scale
/// [d], adesc, bdesc, idesc, [sfa], [sfb], enable_input_d.
void buildMma(Emitter &e, ValueRange args, bool block16) {
  Value dAddr = args[0], adesc = args[1], bdesc = args[2], idesc = args[3],
        enableD = args[4], sfa = args[5], sfb = args[6], kindNvf4 = args[7];
  // Instruction descriptor (PTX ISA, the .kind::mxf4 / mxf4nvf4 table).
  Value sparse = e.field(idesc, 0, 3);
  Value reserved = e.ori(e.ori(e.ne(e.field(idesc, 3, 1), e.c32(0)),
                               e.ne(e.field(idesc, 6, 1), e.c32(0))),
                         e.ori(e.ne(e.field(idesc, 12, 1), e.c32(0)),
                               e.ne(e.field(idesc, 24, 3), e.c32(0))));
  Value sfbId = e.field(idesc, 4, 2);
  Value aType = e.field(idesc, 7, 3);
  Value bType = e.field(idesc, 10, 2);
  Value negate = e.xori(e.field(idesc, 13, 1), e.field(idesc, 14, 1));
  Value transpose = e.field(idesc, 15, 2);
  Value n = e.shl(e.field(idesc, 17, 6), e.c32(3));
  Value ue8m0 = e.ne(e.field(idesc, 23, 1), e.c32(0));
  Value m = e.shl(e.field(idesc, 27, 2), e.c32(7));
  Value sfaId = e.field(idesc, 29, 2);
  Value k96 = e.field(idesc, 31, 1);
  e.fail(e.ne(sparse, e.c32(0)),
         "tcgen05.mma idesc 0x%08x: sparsity (not emulated)", {idesc});
  e.fail(reserved, "tcgen05.mma idesc 0x%08x: reserved bits set", {idesc});
  e.fail(e.ori(e.ne(aType, e.c32(1)), e.ne(bType, e.c32(1))),
         "tcgen05.mma idesc 0x%08x: A type %u, B type %u (E2M1 is 1)",
         {idesc, aType, bType});
  e.fail(e.ne(transpose, e.c32(0)),
         "tcgen05.mma idesc 0x%08x: transpose bits set (FP4 is K-major only)",
         {idesc});
  if (e.pair)
    e.fail(e.ne(m, e.c32(256)),
           "tcgen05.mma idesc 0x%08x: M = %u (cta_group::2: M = 256, 128 rows "
           "in each CTA of the pair, is what is emulated)",
           {idesc, m});
  else
    e.fail(e.ne(m, e.c32(128)),
           "tcgen05.mma idesc 0x%08x: M = %u (cta_group::1 block-scaled MMAs "
           "have M = 128)",
           {idesc, m});
  e.fail(e.ne(k96, e.c32(0)),
         "tcgen05.mma idesc 0x%08x: K = 96 (bit 31) is not emulated (sm_100a's "
         "cta_group::1 block-scaled MMAs have K = 64)",
         {idesc});
  e.fail(e.ori(e.ori(e.ult(n, e.c32(8)), e.ugt(n, e.c32(kMaxN))),
               e.ne(e.remu(n, e.c32(8)), e.c32(0))),
         "tcgen05.mma idesc 0x%08x: N = %u (8..256 in steps of 8)", {idesc, n});
  if (block16) {
    // scale_vec::4X: both ids 0; UE4M3 or UE8M0 with mxf4nvf4 only.
    e.fail(e.ori(e.ne(sfaId, e.c32(0)), e.ne(sfbId, e.c32(0))),
           "tcgen05.mma idesc 0x%08x: scale-factor ids A %u B %u (block16 "
           "needs 0)",
           {idesc, sfaId, sfbId});
    e.fail(e.eq(kindNvf4, e.c32(0)), "tcgen05.mma: kind::mxf4 has no block16");
  } else {
    // scale_vec::2X: ids 0 or 2, UE8M0 only.
    Value badId = e.ori(e.ne(e.andi(sfaId, e.c32(1)), e.c32(0)),
                        e.ne(e.andi(sfbId, e.c32(1)), e.c32(0)));
    e.fail(badId,
           "tcgen05.mma idesc 0x%08x: scale-factor ids A %u B %u (block32 "
           "takes 0 or 2)",
           {idesc, sfaId, sfbId});
    e.fail(e.notb(ue8m0),
           "tcgen05.mma idesc 0x%08x: block32 needs UE8M0 scales", {idesc});
  }
  Value dLane = e.shr(dAddr, e.c32(16));
  Value dColumn = e.andi(dAddr, e.c32(0xFFFF));
  e.fail(e.ne(dLane, e.c32(0)),
         "tcgen05.mma: D at lane %u (M = 128 starts at lane 0)", {dLane});
  int64_t blocks = block16 ? 4 : 2;
  int64_t wordsPerBlock = 16 / blocks;
  // A scale-factor address is a column (lane 0: the factors are read from
  // every lane partition). NVIDIA's CuTe DSL and CUTLASS also put the
  // factor's byte offset, the descriptor's SF ID, in bits 30-31 (lane bits
  // the 128 lanes do not use): taken when it equals the ID, any other lane
  // bit traps.
  auto sfColumn = [&](Value addr, Value id, StringRef which) {
    Value lane = e.shr(addr, e.c32(16));
    Value idBits = e.shr(addr, e.c32(30));
    Value otherLane = e.andi(lane, e.c32(0x3FFF));
    e.fail(e.ori(e.ne(otherLane, e.c32(0)),
                 e.andi(e.ne(idBits, e.c32(0)), e.ne(idBits, id))),
           ("tcgen05.mma: scale factors " + which +
            " at 0x%x: a lane field other than the SF ID (%u) in bits 30-31 "
            "(not emulated)")
               .str(),
           {addr, id});
    return e.andi(addr, e.c32(0xFFFF));
  };
  sfa = sfColumn(sfa, sfaId, "A");
  sfb = sfColumn(sfb, sfbId, "B");
  SmemDesc a = decodeDesc(e, adesc, "tcgen05.mma A");
  SmemDesc bd = decodeDesc(e, bdesc, "tcgen05.mma B");

  // The CTAs the MMA computes in: this one (cta_group::1), or both of the
  // pair (cta_group::2), each its 128 rows of A (from its own shared
  // memory) and of D (in its own tensor memory) with its own scale factors,
  // against all N rows of B: the first N/2 from the pair's first CTA's
  // shared memory, the rest from the second's.
  int64_t ctas = e.pair ? 2 : 1;
  Value half = e.divu(n, e.c32(2));
  for (int64_t c = 0; c < ctas; ++c) {
    Value cta = e.pair ? e.pairCta(e.c32(c)) : e.linearCta();
    Value rank = e.pair ? e.pairRank(e.c32(c)) : Value();
    e.checkAllocatedOf(cta, dLane, dColumn, n, "tcgen05.mma D");
    e.checkAllocatedOf(cta, e.c32(0), sfa, e.c32(4),
                       "tcgen05.mma scale factors A");
    e.checkAllocatedOf(cta, e.c32(0), sfb,
                       e.add(e.divu(e.sub(n, e.c32(1)), e.c32(32)), e.c32(1)),
                       "tcgen05.mma scale factors B");
    // B's rows once per CTA: doubled values and this CTA's scale factors
    // into the issuing CTA's scratch.
    e.loop(e.c32(0), n, 1, [&](Value row) {
      Value dst = e.scratchRow(row);
      SmallVector<Value> words;
      if (e.pair) {
        Value second = e.notb(e.ult(row, half));
        Value local = e.select(second, e.sub(row, half), row);
        words = loadOperandRow(
            e, bd, local, e.pairRank(e.select(second, e.c32(1), e.c32(0))));
      } else {
        words = loadOperandRow(e, bd, row);
      }
      for (auto [i, w] : llvm::enumerate(words))
        e.store(w, e.gep(dst, e.i32(), e.c64(i)));
      for (int64_t blk = 0; blk < blocks; ++blk) {
        Value s =
            scaleFactor(e, cta, sfb, row, blk, sfbId, ue8m0, "tcgen05.mma B");
        e.store(s, e.gep(dst, e.i32(), e.c64(16 + blk)));
      }
    });
    // Each row of A against every row of B: per K block an exact integer
    // dot product (4x the product of values), scaled by fl(sa * sb) / 4,
    // the blocks summed in K order in fp32, then added to D unless
    // enable-input-d is false.
    e.loop(e.c32(0), e.c32(128), 1, [&](Value row) {
      SmallVector<Value> aWords = loadOperandRow(e, a, row, rank);
      SmallVector<Value> sa;
      for (int64_t blk = 0; blk < blocks; ++blk)
        sa.push_back(e.extf(
            scaleFactor(e, cta, sfa, row, blk, sfaId, ue8m0, "tcgen05.mma A")));
      e.loop(e.c32(0), n, 1, [&](Value col) {
        Value src = e.scratchRow(col);
        auto vec4 = VectorType::get({4}, e.i8());
        Value sum = e.cf(0.0);
        for (int64_t blk = 0; blk < blocks; ++blk) {
          Value dot = e.c32(0);
          for (int64_t w = 0; w < wordsPerBlock; ++w) {
            int64_t word = blk * wordsPerBlock + w;
            Value bw = e.load(e.i32(), e.gep(src, e.i32(), e.c64(word)));
            dot = NVVM::DotAccumulate4WayOp::create(
                e.b, e.i32(), LLVM::BitcastOp::create(e.b, vec4, aWords[word]),
                NVVM::DotAccumulateType::SIGNED,
                LLVM::BitcastOp::create(e.b, vec4, bw),
                NVVM::DotAccumulateType::SIGNED, dot);
          }
          // In f64 the block's product is exact (a 12-bit integer times two
          // 4-bit-mantissa factors in [2^-127, 2^127]): one rounding to
          // f32, and no inf or NaN from the scales alone (UE8M0 factors
          // whose product leaves f32's range).
          Value sb = e.load(e.f32(), e.gep(src, e.i32(), e.c64(16 + blk)));
          Value exact = arith::MulFOp::create(
              e.b,
              arith::MulFOp::create(
                  e.b, arith::SIToFPOp::create(e.b, e.f64(), dot),
                  arith::MulFOp::create(e.b, sa[blk], e.extf(sb))),
              e.cf64(0.25));
          sum = arith::AddFOp::create(
              e.b, sum, arith::TruncFOp::create(e.b, e.f32(), exact));
        }
        sum = e.select(e.ne(negate, e.c32(0)), arith::NegFOp::create(e.b, sum),
                       sum);
        Value cell = e.tmemCellOf(cta, row, e.add(dColumn, col));
        Value old = e.load(e.f32(), cell);
        Value acc = arith::AddFOp::create(e.b, old, sum);
        e.store(e.select(enableD, acc, sum), cell);
      });
    });
  }
}

//===----------------------------------------------------------------------===//
// cta_group::2 TMA loads
//===----------------------------------------------------------------------===//

/// The bytes a tiled TMA load through tensor map `map` (a generic pointer)
/// moves: its box, read from the map's words (TensorMapWords.h). Traps on
/// what it does not take: an element code it does not know or a 4-bit type
/// (Hopper's TMA has none), an element stride other than 1.
Value mapBytes(Emitter &e, Value map) {
  namespace tm = nvfp4::tensormap;
  auto word = [&](int64_t i) {
    return e.load(e.i64(), e.gep(map, e.i64(), e.c64(i)), 8);
  };
  Value w1 = word(1), strides = word(tm::kElementStrideWord),
        boxes = word(tm::kBoxWord);
  Value box0 = word(tm::kBox0Word);
  Value rank = e.add(e.field(w1, tm::kRankShift, tm::kRankBits), e.c32(1));
  Value code = e.field(w1, tm::kCodeShift, tm::kCodeBits);
  Value bits = e.c32(0);
  for (const tm::ElementCode &c : tm::kElementCodes)
    if (c.bits >= 8)
      bits = e.select(e.eq(code, e.c32(c.code)), e.c32(c.bits), bits);
  e.fail(e.eq(bits, e.c32(0)),
         "a cta_group::2 TMA load's tensor map has element code %u (word 1), "
         "no type Hopper's TMA moves",
         {code});
  Value bytes = e.divu(bits, e.c32(8));
  for (int64_t i = 0; i < 5; ++i) {
    Value box = i == 0 ? e.field(box0, tm::kBox0Shift, tm::kBoxBits)
                       : e.field(boxes, tm::kBoxBits * (i - 1), tm::kBoxBits);
    Value stride =
        e.field(strides, tm::kElementStrideShift + tm::kElementStrideBits * i,
                tm::kElementStrideBits);
    Value inRank = e.ult(e.c32(i), rank);
    e.fail(e.andi(inRank, e.ne(stride, e.c32(0))),
           "a cta_group::2 TMA load's tensor map has element stride %u in "
           "dimension %u (1 is emulated)",
           {e.add(stride, e.c32(1)), e.c32(i)});
    bytes = e.select(inRank, e.mul(bytes, e.add(box, e.c32(1))), bytes);
  }
  return bytes;
}

/// Before a forwarded cta_group::2 load (see rewritePairLoad): checks that
/// this CTA receives the box (the destination, or one of the multicast's),
/// then readies `scratch`, this warp's mbarrier, for the box's bytes.
/// Arguments: scratch, map, dst (i32 shared::cluster address), ctaMask (0:
/// not a multicast).
void buildPairLoadBegin(Emitter &e, ValueRange args) {
  Value scratch = args[0], map = args[1], dst = args[2], mask = args[3];
  Value lanes = LLVM::CtPopOp::create(e.b, e.activeMask());
  e.fail(e.ne(lanes, e.c32(1)),
         "a cta_group::2 TMA load issued by %u lanes of a warp at once (one "
         "at a time is emulated)",
         {lanes});
  Value own = e.ctaRank();
  Value multicast = e.ne(mask, e.c32(0));
  e.fail(e.andi(multicast, e.eq(e.andi(e.shr(mask, own), e.c32(1)), e.c32(0))),
         "a multicast cta_group::2 TMA load (ctaMask 0x%x) from CTA rank %u, "
         "not one of its destinations, is not emulated",
         {mask, own});
  Value dstRank = e.rankOf(dst);
  e.fail(e.andi(e.notb(multicast), e.ne(dstRank, own)),
         "a cta_group::2 TMA load from CTA rank %u into the shared memory of "
         "rank %u, signalling the other CTA of that pair, is not emulated",
         {own, dstRank});
  NVVM::MBarrierInitOp::create(e.b, scratch, e.c32(1), Value());
  NVVM::FenceMbarrierInitOp::create(e.b);
  NVVM::MBarrierArriveExpectTxOp::create(e.b, Type(), scratch, mapBytes(e, map),
                                         NVVM::MemScopeKind::CTA, false,
                                         Value());
}

/// After it: waits for the box in this CTA's shared memory, copies it to
/// the multicast's other destinations (distributed shared memory), then
/// completes each destination's bytes on the mbarrier the ISA names: at
/// mbar's offset in the destination's pair CTA of mbar's parity.
/// Arguments: scratch, map, dst, mbar (i32 shared::cluster addresses),
/// ctaMask (0: not a multicast).
void buildPairLoadEnd(Emitter &e, ValueRange args) {
  Value scratch = args[0], map = args[1], dst = args[2], mbar = args[3],
        mask = args[4];
  NVVM::MBarrierTryWaitParityOp::create(e.b, scratch, e.c32(0), e.c32(0));
  NVVM::MBarrierInvalOp::create(e.b, scratch);
  Value bytes = mapBytes(e, map);
  Value own = e.ctaRank();
  Value destinations =
      e.select(e.eq(mask, e.c32(0)), e.shl(e.c32(1), own), mask);
  Value here = e.sharedHere(dst);
  auto vec4 = VectorType::get({4}, e.i32());
  e.loop(e.c32(0), e.c32(16), 1, [&](Value d) {
    Value other = e.andi(
        e.ne(d, own), e.ne(e.andi(e.shr(destinations, d), e.c32(1)), e.c32(0)));
    e.ifThen(other, [&] {
      Value there = e.sharedIn(dst, d);
      e.loop(e.c32(0), bytes, 16, [&](Value i) {
        Value v = e.load(vec4, e.gep(here, e.i8(), i), 16);
        e.store(v, e.gep(there, e.i8(), i), 16);
      });
    });
  });
  NVVM::MembarOp::create(e.b, NVVM::MemScopeKind::GPU);
  Value parity = e.andi(e.rankOf(mbar), e.c32(1));
  e.loop(e.c32(0), e.c32(16), 1, [&](Value d) {
    e.ifThen(e.ne(e.andi(e.shr(destinations, d), e.c32(1)), e.c32(0)), [&] {
      Value target = e.ori(e.andi(d, e.c32(~1)), parity);
      NVVM::MBarrierCompleteTxOp::create(
          e.b, e.sharedIn(mbar, target), bytes,
          NVVM::MemScopeKindAttr::get(e.b.getContext(),
                                      NVVM::MemScopeKind::CLUSTER));
    });
  });
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct EmulateTcgen05 : nvfp4::impl::NVFP4EmulateTcgen05Base<EmulateTcgen05> {
  using Base::Base;

  void runOnOperation() override {
    // Each CTA's emulated tensor memory is 256 KiB of device memory (plus
    // its scratch and queue): 4096 CTAs take over 1 GiB.
    constexpr int64_t kMaxEmulatedCtas = 4096;
    if (maxCtas < 1 || maxCtas > kMaxEmulatedCtas) {
      getOperation().emitError("nvfp4-emulate-tcgen05: max-ctas must be 1 to ")
          << kMaxEmulatedCtas << ", got " << int64_t(maxCtas);
      return signalPassFailure();
    }
    // The E2M1 conversions anywhere (the portable quantize kernels are
    // still gpu.launch bodies here), then each gpu.module's tcgen05 ops.
    if (failed(emulateConversions(getOperation())))
      return signalPassFailure();
    WalkResult result = getOperation().walk([&](gpu::GPUModuleOp module) {
      if (failed(emulateModule(module)))
        return WalkResult::interrupt();
      return WalkResult::skip();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    Operation *left = nullptr;
    getOperation().walk([&](Operation *op) {
      if (isTcgen05(op))
        left = op;
    });
    if (left) {
      left->emitError("nvfp4-emulate-tcgen05: tcgen05 ops are emulated in "
                      "gpu.module kernels only");
      signalPassFailure();
    }
  }

  LogicalResult emulateConversions(Operation *root) {
    // The E2M1 conversion: the contract's rounding (bit for bit).
    SmallVector<NVVM::ConvertF32x2ToF4x2Op> cvts;
    root->walk([&](NVVM::ConvertF32x2ToF4x2Op op) { cvts.push_back(op); });
    for (NVVM::ConvertF32x2ToF4x2Op op : cvts) {
      if (op.getRelu())
        return op.emitError("nvfp4-emulate-tcgen05: the .relu conversion is "
                            "not emulated");
      ImplicitLocOpBuilder b(op.getLoc(), op);
      nvfp4::NumericsBuilder nb(b, op.getLoc(), b.getF32Type());
      Value hi = nb.e2m1EncodeRNE(op.getA());
      Value lo = nb.e2m1EncodeRNE(op.getB());
      Value byte =
          arith::OrIOp::create(b, arith::ShLIOp::create(b, hi, nb.i32(4)), lo);
      op.replaceAllUsesWith(
          arith::TruncIOp::create(b, b.getI8Type(), byte).getResult());
      op.erase();
    }
    Operation *stochastic = nullptr;
    root->walk([&](NVVM::ConvertF32x4ToF4x4Op op) { stochastic = op; });
    if (stochastic)
      return stochastic->emitError(
          "nvfp4-emulate-tcgen05: cvt.rs (hardware stochastic rounding) is "
          "not emulated: the PTX ISA does not define how it consumes its "
          "random bits");

    return success();
  }

  LogicalResult emulateModule(gpu::GPUModuleOp module) {
    SmallVector<Operation *> ops;
    SmallVector<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp> pairLoads;
    module.walk([&](Operation *op) {
      if (isTcgen05(op))
        ops.push_back(op);
      auto load = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op);
      if (!load || !load.getGroup())
        return;
      // .cta_group::1 is what Hopper's TMA does: the mbarrier in the
      // destination's CTA.
      if (*load.getGroup() == NVVM::CTAGroupKind::CTA_1)
        load.setGroupAttr(nullptr);
      else
        pairLoads.push_back(load);
    });
    issues = Issued();
    pair = false;
    for (Operation *op : ops) {
      std::optional<NVVM::CTAGroupKind> kind =
          TypeSwitch<Operation *, std::optional<NVVM::CTAGroupKind>>(op)
              .Case([](NVVM::Tcgen05AllocOp o) { return o.getGroup(); })
              .Case([](NVVM::Tcgen05DeallocOp o) { return o.getGroup(); })
              .Case([](NVVM::Tcgen05RelinquishAllocPermitOp o) {
                return o.getGroup();
              })
              .Case([](NVVM::Tcgen05MMABlockScaleOp o) {
                return o.getCtaGroup();
              })
              .Case([](NVVM::Tcgen05CpOp o) { return o.getGroup(); })
              .Case([](NVVM::Tcgen05CommitOp o) { return o.getGroup(); })
              .Default([](Operation *) { return std::nullopt; });
      pair |= kind == NVVM::CTAGroupKind::CTA_2;
      issues.cp |= isa<NVVM::Tcgen05CpOp>(op);
      if (auto mma = dyn_cast<NVVM::Tcgen05MMABlockScaleOp>(op))
        (isBlock16(mma) ? issues.mma16 : issues.mma32) = true;
    }
    if (!pairLoads.empty())
      declareLoadBarriers(module);
    for (auto load : pairLoads)
      if (failed(rewritePairLoad(module, load)))
        return failure();
    if (ops.empty())
      return success();
    declareGlobals(module);
    for (Operation *op : ops)
      if (failed(rewrite(module, op)))
        return failure();
    // The entry count at the start of every kernel, the exit check before
    // each of its returns: gpu.func kernels (ours, before the lowering to
    // NVVM) and llvm.func ones (a kernel already in LLVM + NVVM, such as
    // an imported CuTe DSL kernel, docs/design/cutedsl.md).
    auto instrument = [&](Region &body, auto isReturn) {
      ImplicitLocOpBuilder entry(module.getLoc(), module.getContext());
      entry.setInsertionPointToStart(&body.front());
      call(module, entry, Fn::enter, {});
      body.walk([&](Operation *op) {
        if (!isReturn(op))
          return;
        ImplicitLocOpBuilder b(op->getLoc(), op);
        call(module, b, Fn::exit, {});
      });
    };
    module.walk([&](gpu::GPUFuncOp func) {
      if (func.isKernel())
        instrument(func.getBody(),
                   [](Operation *op) { return isa<gpu::ReturnOp>(op); });
    });
    SmallVector<LLVM::LLVMFuncOp> kernels;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (!func.isExternal() &&
          func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        kernels.push_back(func);
    for (LLVM::LLVMFuncOp func : kernels)
      instrument(func.getBody(),
                 [](Operation *op) { return isa<LLVM::ReturnOp>(op); });
    return success();
  }

  void declareGlobals(gpu::GPUModuleOp module) {
    ImplicitLocOpBuilder b(module.getLoc(), module.getContext());
    b.setInsertionPointToStart(module.getBody());
    auto declare = [&](StringRef name, int64_t words) {
      if (SymbolTable::lookupSymbolIn(module, name))
        return;
      auto type = LLVM::LLVMArrayType::get(b.getI32Type(), words);
      auto global = LLVM::GlobalOp::create(
          b, type, /*isConstant=*/false, LLVM::Linkage::Internal, name,
          Attribute(), /*alignment=*/16, /*addrSpace=*/1);
      Block *init = b.createBlock(&global.getInitializerRegion());
      b.setInsertionPointToStart(init);
      LLVM::ReturnOp::create(b, LLVM::ZeroOp::create(b, type).getResult());
      b.setInsertionPointAfter(global);
    };
    declare(kTmem, maxCtas * kLanes * kColumns);
    declare(kScratch, maxCtas * kMaxN * kScratchRowWords);
    declare(kState, maxCtas * kStateWords);
    declare(kQueue, maxCtas * kQueueCapacity * kRecordWords);
  }

  void declareLoadBarriers(gpu::GPUModuleOp module) {
    if (SymbolTable::lookupSymbolIn(module, kLoadBarriers))
      return;
    ImplicitLocOpBuilder b(module.getLoc(), module.getContext());
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(
        b, LLVM::LLVMArrayType::get(b.getI64Type(), kMaxWarps),
        /*isConstant=*/false, LLVM::Linkage::Internal, kLoadBarriers,
        Attribute(), /*alignment=*/8, /*addrSpace=*/3);
  }

  /// cp.async.bulk.tensor with .cta_group::2 (sm_100a): the mbarrier may be
  /// in the destination's CTA or in its pair's other CTA (for a multicast:
  /// each destination's bytes complete on the CTA of its pair with mbar's
  /// rank parity). Hopper's TMA signals only the destination's own CTA. So
  /// at run time: a load whose every destination is signalled in its own
  /// CTA stays one asynchronous Hopper load; any other is forwarded: loaded
  /// into this CTA's shared memory on a scratch mbarrier, waited for, copied
  /// to the multicast's other destinations, and completed on the mbarriers
  /// the ISA names with mbarrier.complete_tx (the same bytes, a valid
  /// completion order of the asynchronous load).
  LogicalResult
  rewritePairLoad(gpu::GPUModuleOp module,
                  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp load) {
    if (load.getPredicate() || load.getMode() != NVVM::TMALoadMode::TILE ||
        !load.getIm2colOffsets().empty())
      return load.emitError("nvfp4-emulate-tcgen05: a cta_group::2 TMA load "
                            "is emulated in tile mode, unpredicated");
    ImplicitLocOpBuilder b(load.getLoc(), load);
    Emitter e(b, maxCtas, pair);
    Value dst = LLVM::PtrToIntOp::create(b, e.i32(), load.getDstMem());
    Value mbar = LLVM::PtrToIntOp::create(b, e.i32(), load.getMbar());
    Value mask =
        load.getMulticastMask()
            ? arith::ExtUIOp::create(b, e.i32(), load.getMulticastMask())
                  .getResult()
            : e.c32(0);
    Value parity = e.andi(e.rankOf(mbar), e.c32(1));
    // Destinations of the other parity (multicast) or a destination whose
    // own parity differs.
    Value forward =
        load.getMulticastMask()
            ? e.ne(e.andi(mask, e.select(e.eq(parity, e.c32(0)), e.c32(0xAAAA),
                                         e.c32(0x5555))),
                   e.c32(0))
            : e.ne(e.andi(e.rankOf(dst), e.c32(1)), parity);
    auto ifOp = scf::IfOp::create(b, forward, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value warp = e.divu(e.linearThread(), e.c32(32));
      Value scratch = e.gep(
          LLVM::AddressOfOp::create(b, e.ptr(3), kLoadBarriers), e.i64(), warp);
      call(module, b, Fn::pairLoadBegin,
           {scratch, load.getTmaDescriptor(), dst, mask});
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, e.sharedIn(dst, e.ctaRank()), load.getTmaDescriptor(),
          load.getCoordinates(), scratch, ValueRange{}, Value(),
          load.getL2CacheHint(), NVVM::TMALoadMode::TILE, false,
          NVVM::CTAGroupKindAttr(), Value());
      call(module, b, Fn::pairLoadEnd,
           {scratch, load.getTmaDescriptor(), dst, mbar, mask});
      b.setInsertionPointToStart(ifOp.elseBlock());
      auto plain = cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
          b.clone(*load.getOperation()));
      plain.setGroupAttr(nullptr);
    }
    load.erase();
    return success();
  }

  /// The device function `fn` of `module` (built on first use).
  LLVM::LLVMFuncOp function(gpu::GPUModuleOp module, Fn fn, bool block16) {
    std::string name = fnName(fn).str();
    if (fn == Fn::mma || fn == Fn::execMma)
      name += block16 ? "_block16" : "_block32";
    if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return existing;
    MLIRContext *ctx = module.getContext();
    Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64),
         i1 = IntegerType::get(ctx, 1);
    Type p3 = LLVM::LLVMPointerType::get(ctx, 3);
    Type p0 = LLVM::LLVMPointerType::get(ctx);
    SmallVector<Type> params;
    switch (fn) {
    case Fn::alloc:
      params = {p3, i32};
      break;
    case Fn::dealloc:
      params = {i32, i32};
      break;
    case Fn::relinquish:
    case Fn::enter:
    case Fn::exit:
      break;
    case Fn::cp:
    case Fn::execCp:
      params = {i32, i64, i32, i32, i32};
      break;
    case Fn::mma:
    case Fn::execMma:
      params = {i32, i64, i64, i32, i1, i32, i32, i32};
      break;
    case Fn::commit:
      params = {p3};
      break;
    case Fn::commitMulticast:
      params = {p3, i32};
      break;
    case Fn::pairLoadBegin:
      params = {p3, p0, i32, i32};
      break;
    case Fn::pairLoadEnd:
      params = {p3, p0, i32, i32, i32};
      break;
    }
    ImplicitLocOpBuilder b(module.getLoc(), ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto func = LLVM::LLVMFuncOp::create(
        b, name,
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params));
    func.setLinkage(LLVM::Linkage::Internal);
    Block *entry = func.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    Emitter e(b, maxCtas, pair);
    ValueRange args = entry->getArguments();
    switch (fn) {
    case Fn::alloc:
      buildAlloc(e, args);
      break;
    case Fn::dealloc:
      buildDealloc(e, args);
      break;
    case Fn::relinquish:
      buildRelinquish(e, args);
      break;
    case Fn::enter:
      buildEnter(e, args);
      break;
    case Fn::exit:
      buildExit(e, args);
      break;
    case Fn::cp:
      buildIssue(e, args, kRecordCp);
      break;
    case Fn::mma:
      buildIssue(e, args, block16 ? kRecordMma16 : kRecordMma32);
      break;
    case Fn::execCp:
      buildCp(e, args);
      break;
    case Fn::execMma:
      buildMma(e, args, block16);
      break;
    case Fn::commit:
      buildCommit(module, e, args[0], Value());
      break;
    case Fn::commitMulticast:
      buildCommit(module, e, args[0], args[1]);
      break;
    case Fn::pairLoadBegin:
      buildPairLoadBegin(e, args);
      break;
    case Fn::pairLoadEnd:
      buildPairLoadEnd(e, args);
      break;
    }
    LLVM::ReturnOp::create(b, ValueRange{});
    return func;
  }

  /// tcgen05.commit [mbar] (, ctaMask): if this thread issued the queued
  /// ops, execute them in issue order; then (every earlier op of the thread
  /// is complete) a memory fence and the arrive: on this CTA's mbarrier
  /// (cta_group::1), on the one the shared::cluster address names, which
  /// may be the pair's other CTA's (cta_group::2), or with a multicast mask
  /// on the mbarrier at the same offset in each CTA of the cluster whose
  /// rank's bit is set. The fence is the GPU's when the ops wrote another
  /// CTA's tensor memory (cta_group::2) or another CTA waits, the CTA's
  /// otherwise.
  void buildCommit(gpu::GPUModuleOp module, Emitter &e, Value mbar,
                   Value mask) {
    Value self = e.add(e.linearThread(), e.c32(1));
    Value issuerPtr = e.stateWord(kIssuer);
    e.ifThen(e.eq(e.load(e.i32(), issuerPtr), self), [&] {
      Value countPtr = e.stateWord(kInFlight);
      e.loop(e.c32(0), e.load(e.i32(), countPtr), 1, [&](Value i) {
        Value record = e.queueRecord(i);
        Value kind = e.load(e.i32(), record);
        auto execute = [&](int64_t code, Fn fn, bool block16) {
          e.ifThen(e.eq(kind, e.c32(code)), [&] {
            LLVM::LLVMFuncOp callee = function(module, fn, block16);
            LLVM::CallOp::create(
                e.b, callee,
                readRecord(e, record, callee.getFunctionType().getParams()));
          });
        };
        if (issues.cp)
          execute(kRecordCp, Fn::execCp, true);
        if (issues.mma16)
          execute(kRecordMma16, Fn::execMma, true);
        if (issues.mma32)
          execute(kRecordMma32, Fn::execMma, false);
      });
      e.store(e.c32(0), countPtr);
      LLVM::AtomicRMWOp::create(e.b, LLVM::AtomicBinOp::xchg, issuerPtr,
                                e.c32(0), LLVM::AtomicOrdering::release);
    });
    NVVM::MembarOp::create(e.b, e.pair || mask ? NVVM::MemScopeKind::GPU
                                               : NVVM::MemScopeKind::CTA);
    if (!e.pair && !mask) {
      NVVM::MBarrierArriveOp::create(e.b, Type(), mbar, Value());
      return;
    }
    // The operand is a shared::cluster address: with cta_group::2 the
    // mbarrier may be the peer CTA's.
    Value address = LLVM::PtrToIntOp::create(e.b, e.i32(), mbar);
    auto arriveIn = [&](Value rank) {
      NVVM::MBarrierArriveOp::create(e.b, Type(), e.sharedIn(address, rank),
                                     Value(), NVVM::MemScopeKind::CLUSTER);
    };
    if (!mask)
      return arriveIn(e.rankOf(address));
    e.loop(e.c32(0), e.c32(16), 1, [&](Value rank) {
      e.ifThen(e.ne(e.andi(e.shr(mask, rank), e.c32(1)), e.c32(0)),
               [&] { arriveIn(rank); });
    });
  }

  /// Which asynchronous ops a module issues (the commit executes these).
  struct Issued {
    bool cp = false, mma16 = false, mma32 = false;
  } issues;
  /// Whether the module's tcgen05 ops are cta_group::2.
  bool pair = false;

  /// block16 (scale_vec::4X) or block32 (2X): kind::mxf4 defaults to 2X;
  /// kind::mxf4nvf4 has no default (the NVVM verifier requires one).
  static bool isBlock16(NVVM::Tcgen05MMABlockScaleOp mma) {
    return mma.getBlockScale() == NVVM::Tcgen05MMABlockScale::BLOCK16;
  }

  void call(gpu::GPUModuleOp module, ImplicitLocOpBuilder &b, Fn fn,
            ValueRange args, bool block16 = true) {
    LLVM::CallOp::create(b, function(module, fn, block16), args);
  }

  /// A TMEM address (!llvm.ptr<6>) as the i32 it is.
  static Value tmemAddress(ImplicitLocOpBuilder &b, Value ptr) {
    if (auto cast = ptr.getDefiningOp<LLVM::IntToPtrOp>())
      if (cast.getArg().getType().isInteger(32))
        return cast.getArg();
    return LLVM::PtrToIntOp::create(b, b.getI32Type(), ptr);
  }

  LogicalResult rewrite(gpu::GPUModuleOp module, Operation *op) {
    ImplicitLocOpBuilder b(op->getLoc(), op);
    Emitter e(b, maxCtas, pair);
    auto group = [&](NVVM::CTAGroupKind kind) -> LogicalResult {
      if ((kind == NVVM::CTAGroupKind::CTA_2) != pair)
        return op->emitError("nvfp4-emulate-tcgen05: the module's tcgen05 "
                             "ops mix cta_group::1 and cta_group::2 (the ISA "
                             "has a kernel's use one)");
      return success();
    };
    LogicalResult done =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](NVVM::Tcgen05AllocOp alloc) -> LogicalResult {
              if (failed(group(alloc.getGroup())))
                return failure();
              if (!isa<LLVM::LLVMPointerType>(alloc.getAddr().getType()) ||
                  cast<LLVM::LLVMPointerType>(alloc.getAddr().getType())
                          .getAddressSpace() != 3)
                return alloc.emitError("nvfp4-emulate-tcgen05: tcgen05.alloc "
                                       "to a generic address is not emulated");
              call(module, b, Fn::alloc, {alloc.getAddr(), alloc.getNCols()});
              return success();
            })
            .Case([&](NVVM::Tcgen05DeallocOp dealloc) -> LogicalResult {
              if (failed(group(dealloc.getGroup())))
                return failure();
              call(module, b, Fn::dealloc,
                   {tmemAddress(b, dealloc.getTaddr()), dealloc.getNCols()});
              return success();
            })
            .Case([&](NVVM::Tcgen05RelinquishAllocPermitOp relinquish)
                      -> LogicalResult {
              if (failed(group(relinquish.getGroup())))
                return failure();
              call(module, b, Fn::relinquish, {});
              return success();
            })
            .Case([&](NVVM::Tcgen05FenceOp) -> LogicalResult {
              // tcgen05.ld / st are ordinary memory operations, complete
              // when issued (cp and mma run in their commit, which fences
              // itself): a CTA fence orders them against the thread
              // synchronization around it.
              NVVM::MembarOp::create(b, NVVM::MemScopeKind::CTA);
              return success();
            })
            .Case(
                [&](NVVM::Tcgen05WaitOp) -> LogicalResult { return success(); })
            .Case([&](NVVM::Tcgen05CommitOp commit) -> LogicalResult {
              if (failed(group(commit.getGroup())))
                return failure();
              if (Value mask = commit.getMulticastMask()) {
                call(module, b, Fn::commitMulticast,
                     {commit.getAddr(),
                      arith::ExtUIOp::create(b, b.getI32Type(), mask)});
                return success();
              }
              call(module, b, Fn::commit, {commit.getAddr()});
              return success();
            })
            .Case([&](NVVM::Tcgen05CpOp cp) -> LogicalResult {
              if (failed(group(cp.getGroup())))
                return failure();
              if (cp.getSrcFormat())
                return cp.emitError("nvfp4-emulate-tcgen05: tcgen05.cp with "
                                    "decompression is not emulated");
              int64_t rows = 0, units = 0;
              switch (cp.getShape()) {
              case NVVM::Tcgen05CpShape::SHAPE_128x256b:
                rows = 128, units = 2;
                break;
              case NVVM::Tcgen05CpShape::SHAPE_4x256b:
                rows = 4, units = 2;
                break;
              case NVVM::Tcgen05CpShape::SHAPE_128x128b:
                rows = 128, units = 1;
                break;
              case NVVM::Tcgen05CpShape::SHAPE_64x128b:
                rows = 64, units = 1;
                break;
              case NVVM::Tcgen05CpShape::SHAPE_32x128b:
                rows = 32, units = 1;
                break;
              }
              int64_t multicast = static_cast<int64_t>(cp.getMulticast());
              call(module, b, Fn::cp,
                   {tmemAddress(b, cp.getTaddr()), cp.getSmemDesc(),
                    e.c32(rows), e.c32(units), e.c32(multicast)});
              return success();
            })
            .Case([&](NVVM::Tcgen05MMABlockScaleOp mma) -> LogicalResult {
              if (failed(group(mma.getCtaGroup())))
                return failure();
              if (!isa<IntegerType>(mma.getMatrixA().getType()))
                return mma.emitError("nvfp4-emulate-tcgen05: A in tensor "
                                     "memory is not emulated");
              if (mma.getCollectorOp() != NVVM::Tcgen05MMACollectorOp::DISCARD)
                return mma.emitError("nvfp4-emulate-tcgen05: collector "
                                     "buffers are not emulated");
              bool nvf4 = mma.getKind() == NVVM::MMABlockScaleKind::MXF4NVF4;
              if (!nvf4 && mma.getKind() != NVVM::MMABlockScaleKind::MXF4)
                return mma.emitError("nvfp4-emulate-tcgen05: only "
                                     "kind::mxf4nvf4 and kind::mxf4 are "
                                     "emulated");
              call(module, b, Fn::mma,
                   {tmemAddress(b, mma.getMatrixD()), mma.getMatrixA(),
                    mma.getMatrixB(), mma.getIdesc(), mma.getEnableInputD(),
                    tmemAddress(b, mma.getScaleA()),
                    tmemAddress(b, mma.getScaleB()), e.c32(nvf4 ? 1 : 0)},
                   isBlock16(mma));
              return success();
            })
            .Case([&](NVVM::Tcgen05LdOp ld) -> LogicalResult {
              if (ld.getShape() != NVVM::Tcgen05LdStShape::SHAPE_32X32B ||
                  ld.getOffset() || ld.getPack())
                return ld.emitError("nvfp4-emulate-tcgen05: only "
                                    "tcgen05.ld.32x32b is emulated");
              Type type = ld.getResult().getType();
              Value cell = ldStCell(e, tmemAddress(b, ld.getTmemAddr()), type,
                                    "tcgen05.ld");
              ld.getResult().replaceAllUsesWith(e.load(type, cell, 4));
              return success();
            })
            .Case([&](NVVM::Tcgen05StOp st) -> LogicalResult {
              if (st.getShape() != NVVM::Tcgen05LdStShape::SHAPE_32X32B ||
                  st.getOffset() || st.getUnpack())
                return st.emitError("nvfp4-emulate-tcgen05: only "
                                    "tcgen05.st.32x32b is emulated");
              Value cell = ldStCell(e, tmemAddress(b, st.getTmemAddr()),
                                    st.getVal().getType(), "tcgen05.st");
              e.store(st.getVal(), cell);
              return success();
            })
            .Default([&](Operation *other) -> LogicalResult {
              return other->emitError("nvfp4-emulate-tcgen05: not emulated");
            });
    if (failed(done))
      return failure();
    op->erase();
    return success();
  }

  /// tcgen05.ld/st .32x32b.xN of `type` (i32 or vector<N x i32>): thread t
  /// of the warp accesses lane taddr.lane + t, which must be in the warp's
  /// quarter (warp w of the CTA reaches lanes 32 (w % 4) .. + 31), and
  /// columns column .. + N - 1: the first of its cells.
  Value ldStCell(Emitter &e, Value taddr, Type type, StringRef what) {
    int64_t num =
        isa<VectorType>(type) ? cast<VectorType>(type).getNumElements() : 1;
    Value lane0 = e.shr(taddr, e.c32(16));
    Value column = e.andi(taddr, e.c32(0xFFFF));
    Value warp = e.divu(e.linearThread(), e.c32(32));
    Value quarter = e.mul(e.remu(warp, e.c32(4)), e.c32(32));
    e.fail(e.ne(lane0, quarter),
           (what + ": warp %u addresses lanes %u.. (its quarter is lanes "
                   "%u..%u)")
               .str(),
           {warp, lane0, quarter, e.add(quarter, e.c32(31))});
    e.checkAllocated(lane0, column, e.c32(num), what);
    return e.tmemCell(e.add(lane0, e.laneId()), column);
  }
};

} // namespace
