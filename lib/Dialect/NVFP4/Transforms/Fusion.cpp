//===- Fusion.cpp - matmuls with their quantize and epilogue: nvfp4.fused -===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Producer-consumer fusions on the bufferized form, in the way upstream's
// elementwise fusions are built: a control function says whether a
// producer fuses into its consumer (getFusibleConsumer: an activation
// quantize into the matmul; getFusibleProducer: a matmul into the swiglu
// reading its output), one rewrite does the fusion (fuseQuantizeMatmul,
// fuseMatmulEpilogue), and a pass applies each. The fused op keeps the ops
// as they are: how they run together is the lowering's choice
// (nvfp4.fused, docs/spec.md F1-F5).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4FUSEQUANTIZEMATMUL
#define GEN_PASS_DEF_NVFP4FUSEMATMULEPILOGUE
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

bool isAllocation(Operation *op) {
  return op && op->getNumRegions() == 0 && op->getNumResults() == 1 &&
         hasSingleEffect<MemoryEffects::Allocate>(op);
}

bool isDeallocation(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumResults() == 0 &&
         hasSingleEffect<MemoryEffects::Free>(op);
}

/// The consumer's A operand: (values, scales, decode scale); null values
/// for what is not a fusible consumer (a weight-only matmul quantizes no
/// activations).
std::tuple<Value, Value, Value> consumedA(Operation *op) {
  if (auto dense = dyn_cast<MatmulOp>(op))
    if (dense.hasBufferSemantics() && !dense.isWeightOnly())
      return {dense.getA(), dense.getAScales(), dense.getADecodeScale()};
  if (auto grouped = dyn_cast<GroupedMatmulOp>(op))
    if (grouped.hasBufferSemantics() && !grouped.isWeightOnly() &&
        grouped.getGrouping() != Grouping::independent)
      return {grouped.getA().front(), grouped.getAScales().front(),
              grouped.getADecodeScale()};
  return {};
}

/// Whether `op` may write memory that `reader` reads: any write effect not
/// on a buffer the function allocated (distinct from every other buffer)
/// other than those `reader` reads (`reader`'s operands, and those of the
/// ops inside it), or effects that are not known.
bool mayWriteWhatItReads(Operation *op, Operation *reader) {
  SmallVector<Value> read;
  reader->walk([&](Operation *inner) {
    llvm::append_range(read, inner->getOperands());
  });
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return op->getNumRegions() != 0 || !isMemoryEffectFree(op);
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (const MemoryEffects::EffectInstance &effect : list) {
    if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
      continue;
    Value target = effect.getValue();
    if (!target || !isAllocation(target.getDefiningOp()))
      return true;
    if (llvm::is_contained(read, target))
      return true;
  }
  return false;
}

} // namespace

Operation *mlir::nvfp4::getFusibleConsumer(QuantizeOp quantize) {
  // What the fused kernels implement (F4): NVFP4, 1x16 blocks, one decode
  // scale per tensor or batch entry.
  if (!quantize.hasBufferSemantics() || quantize.getFormat() != Format::nvfp4 ||
      quantize.getEffectiveBlock()[0] != 1 || quantize.isRowScaled())
    return nullptr;
  Value values = quantize.getValuesTarget(),
        scales = quantize.getScalesTarget(),
        decode = quantize.getDecodeScaleTarget();
  Block *block = quantize->getBlock();
  // The one op besides deallocations that reads the codes.
  Operation *consumer = nullptr;
  for (Operation *user : values.getUsers()) {
    if (user == quantize.getOperation() || isDeallocation(user))
      continue;
    if (consumer && consumer != user)
      return nullptr;
    consumer = user;
  }
  if (!consumer)
    return nullptr;
  // A matmul already grouped with its epilogue takes the quantize into
  // the same op.
  Operation *unit = consumer;
  if (auto fused = dyn_cast<FusedOp>(consumer->getParentOp())) {
    if (fused.getQuantize())
      return nullptr;
    unit = fused;
  }
  if (unit->getBlock() != block || !quantize->isBeforeInBlock(unit))
    return nullptr;
  auto [a, aScales, aDecode] = consumedA(consumer);
  if (a != values || aScales != scales || aDecode != decode)
    return nullptr;
  // F3: the intermediates are the function's own buffers, in this block,
  // read by the consumer alone.
  for (Value buffer : {values, scales, decode}) {
    Operation *def = buffer.getDefiningOp();
    if (!isAllocation(def) || def->getBlock() != block)
      return nullptr;
    for (Operation *user : buffer.getUsers())
      if (user != quantize.getOperation() && user != consumer &&
          !(isDeallocation(user) && user->getBlock() == block &&
            unit->isBeforeInBlock(user)))
        return nullptr;
  }
  // The quantize moves down to the consumer: nothing in between may write
  // what it reads.
  for (Operation *op = quantize->getNextNode(); op != unit;
       op = op->getNextNode())
    if (mayWriteWhatItReads(op, quantize))
      return nullptr;
  return consumer;
}

FailureOr<FusedOp> mlir::nvfp4::fuseQuantizeMatmul(RewriterBase &rewriter,
                                                   QuantizeOp quantize) {
  Operation *consumer = getFusibleConsumer(quantize);
  if (!consumer)
    return failure();
  SmallVector<Operation *> allocations, deallocations;
  for (Value buffer : quantize.getTargets()) {
    allocations.push_back(buffer.getDefiningOp());
    for (Operation *user : buffer.getUsers())
      if (isDeallocation(user))
        deallocations.push_back(user);
  }
  OpBuilder::InsertionGuard guard(rewriter);
  auto fused = dyn_cast<FusedOp>(consumer->getParentOp());
  Block *body;
  if (fused) {
    // Joins the group: the quantize and its buffers' allocations first.
    body = &fused.getBody().front();
    Operation *first = &body->front();
    for (Operation *op : allocations)
      rewriter.moveOpBefore(op, first);
    rewriter.moveOpBefore(quantize, consumer);
  } else {
    rewriter.setInsertionPoint(consumer);
    fused = FusedOp::create(rewriter, quantize.getLoc());
    body = rewriter.createBlock(&fused.getBody());
    for (Operation *op : allocations)
      rewriter.moveOpBefore(op, body, body->end());
    rewriter.moveOpBefore(quantize, body, body->end());
    rewriter.moveOpBefore(consumer, body, body->end());
  }
  for (Operation *op : deallocations)
    rewriter.moveOpBefore(op, body, body->end());
  return fused;
}

/// Whether `op` frees a buffer that `unit` (or an op inside it) reads.
static bool isDeallocationOfOperand(Operation *op, Operation *unit) {
  if (!isDeallocation(op) || op->getNumOperands() != 1)
    return false;
  bool read = false;
  unit->walk([&](Operation *inner) {
    read |= llvm::is_contained(inner->getOperands(), op->getOperand(0));
  });
  return read;
}

/// The one buffer a bufferized matmul writes (null for independent groups,
/// which write one per group, and for tensors).
static Value matmulOutput(Operation *op) {
  if (auto dense = dyn_cast<MatmulOp>(op))
    return dense.hasBufferSemantics() ? dense.getOut() : Value();
  if (auto grouped = dyn_cast<GroupedMatmulOp>(op))
    if (grouped.hasBufferSemantics() &&
        grouped.getGrouping() != Grouping::independent)
      return grouped.getOuts().front();
  return Value();
}

/// The matmul, or the nvfp4.fused holding it, whose last result is all of
/// `input`, a buffer this block allocates that nothing but it, `consumer`
/// and deallocations after `consumer` use; `stage` the op that writes it
/// (the matmul, or a grouped swiglu). Null if none.
static Operation *producerUnit(Value input, Operation *consumer,
                               Operation *&stage) {
  Operation *alloc = input.getDefiningOp();
  Block *block = consumer->getBlock();
  if (!isAllocation(alloc) || alloc->getBlock() != block)
    return nullptr;
  stage = nullptr;
  for (Operation *user : input.getUsers()) {
    if (user == consumer)
      continue;
    if (isDeallocation(user)) {
      if (user->getBlock() != block || !consumer->isBeforeInBlock(user))
        return nullptr;
      continue;
    }
    if (stage && stage != user)
      return nullptr;
    stage = user;
  }
  if (!stage || llvm::count(stage->getOperands(), input) != 1)
    return nullptr;
  Operation *unit = stage;
  if (auto fused = dyn_cast<FusedOp>(stage->getParentOp())) {
    // The group's last stage, which nothing follows yet.
    if (fused.getOutputQuantize() ||
        stage != (fused.getEpilogue() ? fused.getEpilogue().getOperation()
                                      : fused.getMatmul()))
      return nullptr;
    unit = fused;
  }
  if (unit->getBlock() != block || !unit->isBeforeInBlock(consumer))
    return nullptr;
  // The unit moves down to the consumer: nothing in between may write what
  // it reads, but for deallocations of its operands (which move after it).
  for (Operation *op = unit->getNextNode(); op != consumer;
       op = op->getNextNode())
    if (!isDeallocationOfOperand(op, unit) && mayWriteWhatItReads(op, unit))
      return nullptr;
  return unit;
}

Operation *mlir::nvfp4::getFusibleProducer(SwigluOp swiglu) {
  if (!swiglu.hasBufferSemantics())
    return nullptr;
  // F3, F5: all of one matmul's one output, an intermediate, which the
  // matmul does not also read.
  Operation *stage;
  Operation *unit = producerUnit(swiglu.getInput(), swiglu, stage);
  if (!unit || !isa<MatmulOp, GroupedMatmulOp>(stage) ||
      matmulOutput(stage) != swiglu.getInput())
    return nullptr;
  return unit;
}

Operation *mlir::nvfp4::getFusibleProducer(QuantizeOp quantize) {
  if (!quantize.hasBufferSemantics() || !FusedOp::isOutputQuantize(quantize))
    return nullptr;
  // F3, F6: all of a dense or contiguous matmul's output, or of the swiglu
  // grouped with one.
  Operation *stage;
  Operation *unit = producerUnit(quantize.getInput(), quantize, stage);
  if (!unit)
    return nullptr;
  Operation *matmul = stage;
  if (auto swiglu = dyn_cast<SwigluOp>(stage)) {
    auto fused = dyn_cast<FusedOp>(unit);
    if (!fused || swiglu.getOut() != quantize.getInput())
      return nullptr;
    matmul = fused.getMatmul();
  } else if (matmulOutput(stage) != quantize.getInput()) {
    return nullptr;
  }
  if (auto grouped = dyn_cast<GroupedMatmulOp>(matmul);
      grouped && grouped.getGrouping() != Grouping::contiguous)
    return nullptr;
  return unit;
}

/// Moves `unit` (a matmul, or an nvfp4.fused holding one) down to
/// `consumer`, which reads its last result `input`, and groups them: into
/// a new nvfp4.fused, or at the end of `unit`'s.
static FusedOp fuseIntoEpilogue(RewriterBase &rewriter, Operation *unit,
                                Operation *consumer, Value input) {
  Operation *allocation = input.getDefiningOp();
  SmallVector<Operation *> deallocations;
  for (Operation *user : input.getUsers())
    if (isDeallocation(user))
      deallocations.push_back(user);
  // Deallocations of the unit's operands between the two go after it.
  SmallVector<Operation *> later;
  for (Operation *op = unit->getNextNode(); op != consumer;
       op = op->getNextNode())
    if (isDeallocationOfOperand(op, unit))
      later.push_back(op);
  for (Operation *op : llvm::reverse(later))
    rewriter.moveOpAfter(op, consumer);
  OpBuilder::InsertionGuard guard(rewriter);
  auto fused = dyn_cast<FusedOp>(unit);
  Block *body;
  if (fused) {
    Operation *last = fused.getEpilogue() ? fused.getEpilogue().getOperation()
                                          : fused.getMatmul();
    rewriter.moveOpBefore(fused, consumer);
    body = &fused.getBody().front();
    rewriter.moveOpBefore(allocation, body, body->begin());
    rewriter.moveOpAfter(consumer, last);
  } else {
    rewriter.setInsertionPoint(consumer);
    fused = FusedOp::create(rewriter, consumer->getLoc());
    body = rewriter.createBlock(&fused.getBody());
    rewriter.moveOpBefore(allocation, body, body->end());
    rewriter.moveOpBefore(unit, body, body->end());
    rewriter.moveOpBefore(consumer, body, body->end());
  }
  for (Operation *op : deallocations)
    rewriter.moveOpBefore(op, body, body->end());
  return fused;
}

FailureOr<FusedOp> mlir::nvfp4::fuseMatmulEpilogue(RewriterBase &rewriter,
                                                   SwigluOp swiglu) {
  Operation *unit = getFusibleProducer(swiglu);
  if (!unit)
    return failure();
  return fuseIntoEpilogue(rewriter, unit, swiglu, swiglu.getInput());
}

FailureOr<FusedOp> mlir::nvfp4::fuseMatmulOutputQuantize(RewriterBase &rewriter,
                                                         QuantizeOp quantize) {
  Operation *unit = getFusibleProducer(quantize);
  if (!unit)
    return failure();
  return fuseIntoEpilogue(rewriter, unit, quantize, quantize.getInput());
}

namespace {

struct NVFP4FuseMatmulEpiloguePass
    : public nvfp4::impl::NVFP4FuseMatmulEpilogueBase<
          NVFP4FuseMatmulEpiloguePass> {
  void runOnOperation() override {
    // The activations first, then the quantize of a matmul's (or its
    // activation's) result.
    SmallVector<SwigluOp> consumers;
    getOperation()->walk([&](SwigluOp op) {
      if (!op->getParentOfType<FusedOp>())
        consumers.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (SwigluOp swiglu : consumers)
      (void)fuseMatmulEpilogue(rewriter, swiglu);
    SmallVector<QuantizeOp> quantizes;
    getOperation()->walk([&](QuantizeOp op) {
      if (!op->getParentOfType<FusedOp>())
        quantizes.push_back(op);
    });
    for (QuantizeOp quantize : quantizes)
      (void)fuseMatmulOutputQuantize(rewriter, quantize);
  }
};

struct NVFP4FuseQuantizeMatmulPass
    : public nvfp4::impl::NVFP4FuseQuantizeMatmulBase<
          NVFP4FuseQuantizeMatmulPass> {
  void runOnOperation() override {
    SmallVector<QuantizeOp> producers;
    getOperation()->walk([&](QuantizeOp op) {
      if (!op->getParentOfType<FusedOp>())
        producers.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (QuantizeOp quantize : producers)
      (void)fuseQuantizeMatmul(rewriter, quantize);
  }
};

} // namespace
