//===- NVFP4KernelOps.cpp - nvfp4k op verifiers ---------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// The verifiers hold what the lowering relies on: buffers in shared memory,
// shapes that match the tensor maps and the wgmma fragment layouts.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nvfp4k;

#define GET_OP_CLASSES
/// The type of nvfp4k.store's alpha: printed (`: vector<Pxf32>`) only when
/// it is not the default f32.
static ParseResult parseAlphaType(OpAsmParser &parser, Type &type) {
  type = parser.getBuilder().getF32Type();
  if (succeeded(parser.parseOptionalColon()))
    return parser.parseType(type);
  return success();
}

static void printAlphaType(OpAsmPrinter &printer, Operation *, Type type) {
  if (!type.isF32())
    printer << " : " << type;
}

/// An operand that is a device address (i64, printed bare) or an f32 value
/// (printed ` : f32`).
static ParseResult parseAddressType(OpAsmParser &parser, Type &type) {
  type = parser.getBuilder().getI64Type();
  if (succeeded(parser.parseOptionalColon()))
    return parser.parseType(type);
  return success();
}

static void printAddressType(OpAsmPrinter &printer, Operation *, Type type) {
  if (!type.isInteger(64))
    printer << " : " << type;
}

#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelOps.cpp.inc"

/// Whether `type` lives in the workgroup (shared) address space.
static bool isShared(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

//===----------------------------------------------------------------------===//
// nvfp4k.shared_memory
//===----------------------------------------------------------------------===//

LogicalResult SharedMemoryOp::verify() {
  MemRefType type = getBuffer().getType();
  if (!isShared(type))
    return emitOpError("expected a workgroup-memory buffer, got ") << type;
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return emitOpError("expected a static, identity-layout buffer, got ")
           << type;
  auto kernel = (*this)->getParentOfType<gpu::GPUFuncOp>();
  if (!kernel)
    return emitOpError("expected to be inside a gpu.func");
  WalkResult others = kernel.walk([&](SharedMemoryOp other) {
    return other == *this ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (others.wasInterrupted())
    return emitOpError("expected one nvfp4k.shared_memory per kernel");
  return success();
}

//===----------------------------------------------------------------------===//
// nvfp4k.scheduler.create
//===----------------------------------------------------------------------===//

LogicalResult SchedulerCreateOp::verify() {
  SchedulerType type = getScheduler().getType();
  if (type.hasGroupTable() != static_cast<bool>(getTable()))
    return emitOpError("expected a group table operand ")
           << (type.hasGroupTable() ? "for "
                                    : "only for contiguous and "
                                      "masked groups, not for ")
           << nvfp4::stringifyGrouping(type.getMode()) << " groups";
  return success();
}

LogicalResult SchedulerTileOp::verify() {
  if (!getCursor().empty() && getCursor().size() != 2)
    return emitOpError("expected a cursor of two values (an earlier tile's "
                       "group and group_first), got ")
           << getCursor().size();
  return success();
}

//===----------------------------------------------------------------------===//
// Work units
//===----------------------------------------------------------------------===//

/// Work units need a space that knows its tiles' K blocks.
static LogicalResult verifyWorkUnits(Operation *op, SchedulerType type) {
  if (!type.hasWorkUnits())
    return op->emitOpError("expected a scheduler with k_blocks (the K blocks "
                           "of a tile), got ")
           << type;
  return success();
}

LogicalResult SchedulerUnitsOp::verify() {
  return verifyWorkUnits(*this, getScheduler().getType());
}

LogicalResult SchedulerUnitOp::verify() {
  return verifyWorkUnits(*this, getScheduler().getType());
}

LogicalResult SchedulerClusterSumOp::verify() {
  SchedulerType type = getScheduler().getType();
  int64_t cluster = type.getCluster();
  if (cluster < 2)
    return emitOpError("expected a scheduler whose clusters split K "
                       "(cluster > 1), got cluster = ")
           << cluster;
  int64_t threads = getThreads();
  if (threads % (32 * cluster))
    return emitOpError("expected threads to be a multiple of 32 * cluster (")
           << 32 * cluster << "), got " << threads;
  if (!isShared(getBuffer().getType()))
    return emitOpError("expected a workgroup-memory buffer, got ")
           << getBuffer().getType();
  int64_t n = getAccumulator().getType().getDimSize(0);
  if (n % 4)
    return emitOpError("expected accumulator shares of a multiple of 4 "
                       "elements (stored 16 bytes at a time), got ")
           << n;
  int64_t need = (cluster - 1) * (threads / cluster) * n;
  MemRefType buffer = getBuffer().getType();
  if (!buffer.hasStaticShape() || buffer.getDimSize(0) < need)
    return emitOpError("expected a buffer of at least ")
           << need << " f32 ((cluster - 1) * threads / cluster * " << n
           << "), got " << buffer;
  if (getResult().getType() != getAccumulator().getType())
    return emitOpError("expected the result to have the accumulator's type");
  return success();
}

LogicalResult SchedulerFixupOp::verify() {
  SchedulerType type = getScheduler().getType();
  if (failed(verifyWorkUnits(*this, type)))
    return failure();
  if (!type.getStreamK())
    return emitOpError("expected a stream_k scheduler: data-parallel units "
                       "cover whole tiles and need no fixup");
  if (!isShared(getFlag().getType()))
    return emitOpError("expected a workgroup-memory flag word, got ")
           << getFlag().getType();
  if (getResult().getType() != getAccumulator().getType())
    return emitOpError("expected the result to have the accumulator's type");
  return success();
}

//===----------------------------------------------------------------------===//
// Loads
//===----------------------------------------------------------------------===//

LogicalResult TmaLoadOp::verify() {
  MemRefType dst = getDestination().getType();
  MemRefType box = getMap().getType().getTensor();
  if (!isShared(dst))
    return emitOpError("expected a workgroup-memory destination, got ") << dst;
  if (dst.getShape() != box.getShape() ||
      dst.getElementType() != box.getElementType())
    return emitOpError("expected the destination to have the tensor map's "
                       "box type ")
           << box << ", got " << dst;
  if (static_cast<int64_t>(getCoordinates().size()) != box.getRank())
    return emitOpError("expected ")
           << box.getRank() << " coordinates (the map's rank), got "
           << getCoordinates().size();
  return success();
}

LogicalResult BulkLoadOp::verify() {
  MemRefType dst = getDestination().getType();
  if (!isShared(dst))
    return emitOpError("expected a workgroup-memory destination, got ") << dst;
  APInt bytes;
  if (matchPattern(getBytes(), m_ConstantInt(&bytes))) {
    int64_t n = bytes.getSExtValue();
    if (n <= 0 || n % 16)
      return emitOpError("expected a positive multiple of 16 bytes, got ") << n;
    if (dst.hasStaticShape() && n > dst.getNumElements())
      return emitOpError("expected at most ")
             << dst.getNumElements() << " bytes (the destination), got " << n;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// sm_90a MMA step
//===----------------------------------------------------------------------===//

LogicalResult mlir::nvfp4k::verifyHandlesDefinedHere(Operation *op) {
  for (Value v : op->getOperands()) {
    bool ring = isa<RingType>(v.getType());
    if (!ring && !isa<SchedulerType>(v.getType()))
      continue;
    Operation *def = v.getDefiningOp();
    if (ring ? isa_and_nonnull<RingCreateOp>(def)
             : isa_and_nonnull<SchedulerCreateOp>(def))
      continue;
    return op->emitOpError("expected its ")
           << (ring ? "ring" : "scheduler") << " operand to come from "
           << (ring ? "nvfp4k.ring.create" : "nvfp4k.scheduler.create")
           << " (a handle cannot be passed in), got "
           << (def ? ("a result of " + def->getName().getStringRef().str())
                   : std::string("a block argument"));
  }
  return success();
}

void FragmentALoadOp::build(OpBuilder &b, OperationState &state, Value codes,
                            Value scales, Value warpgroup, Value thread,
                            Value rows, Value tail, int64_t tailChunks,
                            bool mxfp4) {
  auto i32 = b.getI32Type();
  build(b, state, VectorType::get({2, 4}, i32), i32, codes, scales, warpgroup,
        thread, rows, tail,
        tail ? b.getI64IntegerAttr(tailChunks) : IntegerAttr(),
        mxfp4 ? b.getUnitAttr() : UnitAttr());
}

LogicalResult FragmentALoadOp::verify() {
  VectorType rowCodes = getRowCodes().getType();
  if (rowCodes.getDimSize(0) != 2 || rowCodes.getDimSize(1) != 4)
    return emitOpError("expected 2x4 code words (two rows of 16 bytes), got ")
           << rowCodes;
  auto words = [](Value memref) {
    return cast<MemRefType>(memref.getType()).getDimSize(0);
  };
  // 128 rows x 64 bytes; the stage's scale units (NVFP4: 2, MXFP4: 1).
  if (!ShapedType::isDynamic(words(getCodes())) && words(getCodes()) < 2048)
    return emitOpError("expected a code tile of at least 2048 words (128 "
                       "rows x 64 bytes), got ")
           << words(getCodes());
  int64_t unitWords = getMxfp4() ? 128 : 256;
  if (!ShapedType::isDynamic(words(getScales())) &&
      words(getScales()) < unitWords)
    return emitOpError("expected at least ")
           << unitWords << " scale words (" << (getMxfp4() ? 1 : 2)
           << " swizzled units), got " << words(getScales());
  if (static_cast<bool>(getTail()) != getTailChunks().has_value())
    return emitOpError("`tail` and `tail_chunks` go together");
  return success();
}

LogicalResult DequantFragmentAOp::verify() {
  VectorType codes = getCodes().getType();
  VectorType frags = getFragments().getType();
  if (codes.getDimSize(0) != 2)
    return emitOpError("expected the codes of 2 fragment rows, got ")
           << codes.getDimSize(0);
  int64_t words = codes.getDimSize(1);
  if (frags.getDimSize(0) != 2 * words || frags.getDimSize(1) != 8)
    return emitOpError("expected ")
           << 2 * words << "x8 f16 or bf16 fragments for " << words
           << " code words per row, got " << frags;
  if (isa<Float8E8M0FNUType>(getScales().getType().getElementType()) &&
      !frags.getElementType().isBF16())
    return emitOpError("E8M0 scales need bf16 fragments (2^(e - 127) "
                       "exceeds f16's range), got ")
           << frags;
  return success();
}

LogicalResult WgmmaRSOp::verify() {
  ArrayRef<int64_t> widths = getN();
  if (widths.empty())
    return emitOpError("expected at least one width");
  int64_t widest = 0;
  for (int64_t n : widths) {
    if (n < 8 || n > 256 || n % 8)
      return emitOpError("expected wgmma widths in 8..256, multiples of 8, "
                         "got ")
             << n;
    widest = std::max(widest, n);
  }
  if ((widths.size() > 1) != static_cast<bool>(getWidth()))
    return emitOpError("expected a width operand exactly when several widths "
                       "are listed");
  VectorType acc = getAccumulator().getType();
  if (getResult().getType() != acc)
    return emitOpError("expected the result to have the accumulator's type");
  if (2 * acc.getDimSize(0) < widest)
    return emitOpError("expected at least ")
           << widest / 2 << " accumulator registers for width " << widest
           << ", got " << acc.getDimSize(0);
  VectorType a = getA().getType();
  if (a.getDimSize(1) != 8)
    return emitOpError("expected 8 values per k16 step's A fragment, got ")
           << a.getDimSize(1);
  MemRefType tile = getDescriptor().getType().getTensor();
  if (tile.getRank() != 2 || tile.getElementType() != a.getElementType())
    return emitOpError("expected a 2-D B tile of the A fragments' element "
                       "type (")
           << a.getElementType() << "), got " << tile;
  if (tile.getDimSize(1) % kWgmmaAtomK)
    return emitOpError("expected the B tile's K to be whole 128-byte atoms "
                       "(multiples of ")
           << kWgmmaAtomK << "), got " << tile.getDimSize(1);
  if (tile.getDimSize(0) < widest)
    return emitOpError("expected the B tile to hold ")
           << widest << " rows for width " << widest << ", got "
           << tile.getDimSize(0);
  int64_t k0 = getKOffset();
  if (k0 < 0 || k0 % 16 || k0 + 16 * a.getDimSize(0) > tile.getDimSize(1))
    return emitOpError("expected k_offset (")
           << k0 << ") to be a multiple of 16 with its " << a.getDimSize(0)
           << " k16 steps inside the B tile's K (" << tile.getDimSize(1) << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// sm_100a MMA step
//===----------------------------------------------------------------------===//

LogicalResult Tcgen05ScaledMmaOp::verify() {
  auto isTile = [](MemRefType t, int64_t rows) {
    return t.getRank() == 2 && t.getDimSize(0) == rows &&
           t.getDimSize(1) == 128 && t.getElementType().isInteger(8) &&
           isShared(t);
  };
  int64_t n = getN();
  if (n != 64 && n != 128 && n != 256)
    return emitOpError("expected N of 64, 128 or 256, got ") << n;
  if (!isTile(getA().getType(), 128))
    return emitOpError("expected A as 128 rows of 128 bytes in shared "
                       "memory, got ")
           << getA().getType();
  if (!isTile(getB().getType(), n))
    return emitOpError("expected B as ")
           << n << " rows of 128 bytes in shared memory, got "
           << getB().getType();
  int64_t units = getMxfp4() ? 2 : 4;
  if (static_cast<int64_t>(getUnits()) != units)
    return emitOpError("expected ")
           << units << " scale units per 256 of K, got " << getUnits();
  if (getSteps() < 1 || getSteps() > 4)
    return emitOpError("expected 1 to 4 K steps of 64, got ") << getSteps();
  int64_t blocks = n > 128 ? 2 : 1;
  if (static_cast<int64_t>(getBScaleBlocks()) != blocks)
    return emitOpError("expected ")
           << blocks << " 128-row scale blocks for N = " << n << ", got "
           << getBScaleBlocks();
  MemRefType sa = getAScales().getType(), sb = getBScales().getType();
  if (!isShared(sa) || !isShared(sb) || sa.getNumElements() < units * 512 ||
      sb.getNumElements() < units * blocks * 512)
    return emitOpError("expected shared scale buffers of at least ")
           << units * 512 << " and " << units * blocks * 512 << " bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// Epilogue
//===----------------------------------------------------------------------===//

LogicalResult StoreTokensOp::verify() {
  MemRefType tile = getTile().getType();
  if (!isShared(tile))
    return emitOpError("expected a workgroup-memory tile, got ") << tile;
  if (!tile.hasStaticShape() || !tile.getLayout().isIdentity() ||
      tile.getDimSize(1) != 128 || tile.getDimSize(0) % 8)
    return emitOpError("expected a static [rows, 128] tile with rows a "
                       "multiple of 8 (whole 128-byte swizzle atoms), got ")
           << tile;
  return success();
}

LogicalResult AlphaOp::verify() {
  if (getADecode() && getADecode().getType().isF32() &&
      (getADecodePerGroup() || getADecodePerRow()))
    return emitOpError("expected an a_decode address to index per group or "
                       "per row, got an f32 value");
  auto check = [&](StringRef name, Value decode, bool perGroup, bool perRow,
                   Value index, StringRef indexName) -> LogicalResult {
    if (perGroup && perRow)
      return emitOpError("expected ")
             << name << " per group or per row, not both";
    if ((perGroup || perRow) && !decode)
      return emitOpError("expected an ") << name << " operand to index";
    if (perRow != static_cast<bool>(index))
      return emitOpError("expected a ")
             << indexName << " operand exactly when " << name
             << " is per row";
    return success();
  };
  return failure(failed(check("a_decode", getADecode(), getADecodePerGroup(),
                               getADecodePerRow(), getRow(), "row")) ||
                 failed(check("b_decode", getBDecode(), getBDecodePerGroup(),
                               getBDecodePerRow(), getColumn(), "column")));
}

/// What nvfp4k.store and nvfp4k.epilogue share: the epilogue's operands.
template <typename EpilogueLike>
static LogicalResult verifyEpilogue(EpilogueLike op) {
  if (auto alpha = dyn_cast<VectorType>(op.getAlpha().getType());
      alpha && alpha != op.getValues().getType())
    return op.emitOpError("expected alpha of type f32 or ")
           << op.getValues().getType() << ", got " << alpha;
  Type element = op.getElement();
  if (!element.isBF16() && !element.isF16() && !element.isF32())
    return op.emitOpError("expected a bf16, f16 or f32 output, got ")
           << element;
  if (op.getRowStride() < 1)
    return op.emitOpError("expected a positive row stride, got ")
           << op.getRowStride();
  if (!op.getAcc() && op.getBeta().convertToFloat() != 1.0f)
    return op.emitOpError("expected beta only with an accumulator");
  if (static_cast<bool>(op.getBias()) != static_cast<bool>(op.getBiasElement()))
    return op.emitOpError("expected bias_element exactly with a bias");
  if (std::optional<Type> bias = op.getBiasElement();
      bias && !bias->isBF16() && !bias->isF16() && !bias->isF32())
    return op.emitOpError("expected a bf16, f16 or f32 bias, got ") << *bias;
  if (SwigluAttr swiglu = op.getSwigluAttr()) {
    if (op.getValues().getType().getDimSize(0) % 2)
      return op.emitOpError("expected gate/up pairs (an even number of values) "
                            "with swiglu");
    Type intermediate = swiglu.getIntermediate();
    if (!intermediate.isBF16() && !intermediate.isF16() &&
        !intermediate.isF32())
      return op.emitOpError("expected a bf16, f16 or f32 swiglu intermediate, "
                            "got ")
             << intermediate;
    if (op.getRowStride() % 2)
      return op.emitOpError("expected an even row stride with swiglu, got ")
             << op.getRowStride();
    auto f32 = [](FloatAttr attr) {
      return attr && attr.getType().isF32() &&
             std::isfinite(attr.getValueAsDouble());
    };
    if (!f32(swiglu.getSigmoidScale()) || !f32(swiglu.getUpOffset()) ||
        (swiglu.getLimit() && (!f32(swiglu.getLimit()) ||
                               swiglu.getLimit().getValueAsDouble() <= 0)))
      return op.emitOpError("expected finite f32 swiglu parameters and a "
                            "positive limit");
  }
  return success();
}

LogicalResult StoreOp::verify() { return verifyEpilogue(*this); }

LogicalResult EpilogueOp::verify() {
  if (failed(verifyEpilogue(*this)))
    return failure();
  int64_t p = getValues().getType().getDimSize(0);
  if (getResult().getType().getDimSize(0) != (getSwiglu() ? p / 2 : p))
    return emitOpError("expected ")
           << (getSwiglu() ? p / 2 : p) << " results, one per output";
  return success();
}

LogicalResult StoreFp4Op::verify() {
  int64_t p = getValues().getType().getDimSize(0);
  if (p % 2)
    return emitOpError("expected an even number of values (whole bytes), "
                       "got ")
           << p;
  if (getColumns() < 2 || getColumns() % 2)
    return emitOpError("expected a positive even number of columns (whole "
                       "bytes), got ")
           << getColumns();
  return success();
}

LogicalResult StoreScaleOp::verify() {
  if (getBlocks() < 1)
    return emitOpError("expected a positive number of blocks, got ")
           << getBlocks();
  return success();
}
