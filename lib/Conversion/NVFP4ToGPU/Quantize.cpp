//===- Quantize.cpp - nvfp4 quantize, dequantize, swizzles on the GPU -----===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// One thread per tile (quantize), per 16 values (dequantize) or per scale
// (swizzles), running the same bodies as the CPU lowering (Codegen.h), so
// that GPU quantization is bit-exact with the CPU.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nvfp4/Conversion/BufferizedOpPattern.h"
#include "nvfp4/Conversion/GPUCommon/GPUCodegen.h"
#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"
#include "nvfp4/Dialect/NVFP4/Utils/Storage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

//===----------------------------------------------------------------------===//
// sm_100a E2M1 conversions (QuantizeSpec::hardwareEncoder)
//===----------------------------------------------------------------------===//

/// cvt.rn.satfinite.e2m1x2.f32: the codes of the fp32 emulation
/// (docs/spec.md 2.1), NaN -> +6 included. `cvt d, a, b` puts a in the high
/// nibble of d: pass (x[2p+1], x[2p]) so that x[2p] lands in the low nibble,
/// as the packed layout wants.
SmallVector<Value> encodeE2M1Nearest(OpBuilder &b, Location loc,
                                     ArrayRef<Value> scaled, ArrayRef<Value>) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  SmallVector<Value> codes;
  for (size_t p = 0; p + 1 < scaled.size(); p += 2) {
    Value byte = NVVM::ConvertF32x2ToF4x2Op::create(
        b, loc, b.getI8Type(), scaled[p + 1], scaled[p], /*relu=*/false,
        b.getType<Float4E2M1FNType>());
    Value word = arith::ExtUIOp::create(b, loc, i32, byte);
    codes.push_back(arith::AndIOp::create(b, loc, word, c(0xF)));
    codes.push_back(arith::ShRUIOp::create(b, loc, word, c(4)));
  }
  return codes;
}

/// cvt.rs.satfinite.e2m1x4.f32 with the reference's random bytes as rbits:
/// hardware-defined rounding, not bit-exact. `cvt d, {a, b, e, f}, rbits`
/// packs a into the most significant nibble of d: pass the four values last
/// first so that element 4g lands in the low nibble; rbits is the word whose
/// bytes the emulation gives these elements.
SmallVector<Value> encodeE2M1Stochastic(OpBuilder &b, Location loc,
                                        ArrayRef<Value> scaled,
                                        ArrayRef<Value> random) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  SmallVector<Value> codes;
  for (size_t g = 0; g + 3 < scaled.size(); g += 4) {
    SmallVector<Value> src(llvm::reverse(scaled.slice(g, 4)));
    Value vec = vector::FromElementsOp::create(
        b, loc, VectorType::get({4}, b.getF32Type()), src);
    Value rbits = random[g];
    for (int j = 1; j < 4; ++j)
      rbits = arith::OrIOp::create(
          b, loc, rbits,
          arith::ShLIOp::create(b, loc, random[g + j], c(8 * j)));
    Value packed = NVVM::ConvertF32x4ToF4x4Op::create(
        b, loc, b.getI16Type(), vec, rbits, /*relu=*/false,
        b.getType<Float4E2M1FNType>());
    Value word = arith::ExtUIOp::create(b, loc, i32, packed);
    for (int j = 0; j < 4; ++j)
      codes.push_back(arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, word, c(4 * j)), c(0xF)));
  }
  return codes;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// The one-kernel quantize of small batch entries
/// (GPUKernelOptions::fusedQuantizeMaxElements): blocks of this many
/// threads (4/6's candidates take up to 128 registers each), one tile per
/// thread, and each block reduces its entry's whole amax itself: it reads
/// the entry (from L2 after the first block) rather than waiting for
/// another kernel. One launch instead of two matters most for
/// small (decode-time) activations, whose calls the host bounds; past the
/// bound the blocks' repeated reads would cost more than the launches.
constexpr int64_t kFusedQuantizeThreads = kBlockAmaxThreads;
/// Chunks each thread loads at once in that amax reduction.
constexpr int64_t kFusedAmaxLoads = 4;

/// The 16 input values of chunk `chunk` (row-major over the entry's rows,
/// chunksPerRow to a row) of batch entry `batch`, as the amax passes read
/// them.
static SmallVector<Value> loadChunkAt(KernelArith &ix, QuantizeCodegen &cg,
                                      Value batch, Value chunk,
                                      int64_t chunksPerRow) {
  Value row = ix.divu(chunk, ix.c(chunksPerRow));
  Value k0 = ix.mul(ix.remu(chunk, ix.c(chunksPerRow)), ix.c(kChunk));
  return cg.loadChunk(batch, row, k0);
}

} // namespace

Value mlir::nvfp4::emitBlockAmax(OpBuilder &builder, Location loc,
                                 gpu::LaunchOp launch, const QuantizeSpec &spec,
                                 Value input, Value seed, Value batch) {
  ImplicitLocOpBuilder b(loc, builder);
  KernelArith ix(b);
  NumericsBuilder nb(b, loc, b.getF32Type());
  QuantizeCodegen cg(b, loc, spec, input, Value(), Value(), seed);
  int64_t threadCount = kFusedQuantizeThreads;
  int64_t warps = threadCount / 32;
  int64_t chunksPerRow = spec.k / kChunk;
  auto partialsType = MemRefType::get(
      {warps}, b.getI32Type(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup));
  Value partials = launch.addWorkgroupAttribution(partialsType, loc);
  Value tid = launch.getThreadIds().x;
  // kFusedAmaxLoads chunks per thread and step, their loads in flight
  // together; past the end a thread re-reads the last chunk (max is
  // idempotent), so no load is guarded.
  int64_t chunks = spec.rows * chunksPerRow;
  auto loop = scf::ForOp::create(
      b, loc, tid, ix.c(chunks), ix.c(threadCount * kFusedAmaxLoads),
      ValueRange{nb.f32(0.0)},
      [&](OpBuilder &, Location, Value first, ValueRange acc) {
        SmallVector<SmallVector<Value>> loaded;
        for (int64_t u = 0; u < kFusedAmaxLoads; ++u)
          loaded.push_back(loadChunkAt(
              ix, cg, batch,
              ix.minsi(ix.add(first, ix.c(u * threadCount)), ix.c(chunks - 1)),
              chunksPerRow));
        Value next = acc[0];
        for (const SmallVector<Value> &chunk : loaded)
          next = cg.chunkAbsMax(chunk, next);
        scf::YieldOp::create(b, loc, next);
      });
  Value warpMax = warpReduce(b, loc, loop.getResult(0),
                             [&](Value x, Value y) { return nb.maxNum(x, y); });
  scf::IfOp::create(b, loc, ix.eq(ix.remu(tid, ix.c(32)), ix.c(0)),
                    [&](OpBuilder &, Location) {
                      memref::StoreOp::create(b, loc, nb.bitsOf(warpMax),
                                              partials, ix.divu(tid, ix.c(32)));
                      scf::YieldOp::create(b, loc);
                    });
  gpu::BarrierOp::create(b, loc);
  Value bits = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  for (int64_t w = 0; w < warps; ++w)
    bits = arith::MaxUIOp::create(
        b, loc, bits, memref::LoadOp::create(b, loc, partials, ix.c(w)));
  return nb.floatOf(bits);
}

TensorAmax mlir::nvfp4::emitTensorAmax(OpBuilder &builder, Location loc,
                                       const QuantizeSpec &spec, Value input) {
  ImplicitLocOpBuilder b(loc, builder);
  KernelArith ix(b);
  int64_t chunksPerRow = spec.k / kChunk;
  int64_t chunks = spec.rows * chunksPerRow;
  int64_t blocks =
      std::min<int64_t>(ceilDiv(chunks, kThreadsPerBlock), kGridStrideBlocks);
  auto alloc = [&](int64_t words) {
    return allocDevice(b, loc, MemRefType::get({words}, b.getI32Type()));
  };
  TensorAmax result;
  result.bits = alloc(spec.batch);
  // Per batch entry: the running max at b; the blocks done at
  // counters + b, a 128-byte line away (the counters' atomics do not queue
  // behind the maxima's in one L2 sector).
  int64_t counters = llvm::alignTo(spec.batch, 32);
  result.scratch = alloc(counters + spec.batch);
  emitKeptZero(b, loc, result.scratch);
  Value bits = result.bits, scratch = result.scratch;
  launchGrid(
      b, loc, {blocks, spec.batch, 1}, {kThreadsPerBlock, 1, 1},
      [&](gpu::LaunchOp launch) {
        int64_t warps = kThreadsPerBlock / 32;
        Value partials = launch.addWorkgroupAttribution(
            MemRefType::get({warps}, b.getI32Type(),
                            MemRefLayoutAttrInterface(),
                            gpu::AddressSpaceAttr::get(
                                b.getContext(), gpu::AddressSpace::Workgroup)),
            loc);
        NumericsBuilder nb(b, loc, b.getF32Type());
        QuantizeCodegen cg(b, loc, spec, input, Value(), Value(), Value());
        Value batch = launch.getBlockIds().y;
        Value thread = launch.getThreadIds().x;
        Value first = ix.add(
            ix.mul(launch.getBlockIds().x, ix.c(kThreadsPerBlock)), thread);
        Value stride = ix.mul(launch.getGridSize().x, ix.c(kThreadsPerBlock));
        auto loop = scf::ForOp::create(
            b, loc, first, ix.c(chunks), stride, ValueRange{nb.f32(0.0)},
            [&](OpBuilder &, Location, Value chunk, ValueRange acc) {
              Value next = cg.chunkAbsMax(
                  loadChunkAt(ix, cg, spec.batched ? batch : Value(), chunk,
                              chunksPerRow),
                  acc[0]);
              scf::YieldOp::create(b, loc, next);
            });
        Value amax =
            warpReduce(b, loc, loop.getResult(0),
                       [&](Value x, Value y) { return nb.maxNum(x, y); });
        // The warps' maxima through workgroup memory; thread 0 adds the
        // block's to the entry's running max (one atomic per block), fences
        // it and counts the block; the entry's last block reads the max,
        // publishes it and sets both words back to 0.
        Value lane = ix.remu(thread, ix.c(32));
        ix.ifThen(ix.eq(lane, ix.c(0)), [&] {
          memref::StoreOp::create(b, loc, nb.bitsOf(amax), partials,
                                  ix.divu(thread, ix.c(32)));
        });
        gpu::BarrierOp::create(b, loc);
        ix.ifThen(ix.eq(thread, ix.c(0)), [&] {
          Value blockMax = nb.i32(0);
          for (int64_t w = 0; w < warps; ++w)
            blockMax = arith::MaxUIOp::create(
                b, loc, blockMax,
                memref::LoadOp::create(b, loc, partials, ix.c(w)));
          memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxu,
                                      blockMax, scratch, ValueRange{batch});
          Value counter = ix.add(batch, ix.c(counters));
          NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
          Value done = memref::AtomicRMWOp::create(
              b, loc, arith::AtomicRMWKind::addi, nb.i32(1), scratch,
              ValueRange{counter});
          ix.ifThen(
              ix.eq(ix.toIndex(done), ix.sub(launch.getGridSize().x, ix.c(1))),
              [&] {
                NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
                Value max = memref::AtomicRMWOp::create(
                    b, loc, arith::AtomicRMWKind::ori, nb.i32(0), scratch,
                    ValueRange{batch});
                memref::StoreOp::create(b, loc, max, bits, ValueRange{batch});
                memref::StoreOp::create(b, loc, nb.i32(0), scratch,
                                        ValueRange{batch});
                memref::StoreOp::create(b, loc, nb.i32(0), scratch,
                                        ValueRange{counter});
              });
        });
      });
  return result;
}

namespace {

struct QuantizeToGPU : BufferizedOpPattern<QuantizeOp> {
  QuantizeToGPU(const TypeConverter &converter, MLIRContext *ctx,
                GPUKernelOptions options)
      : BufferizedOpPattern(converter, ctx), options(options) {}
  GPUKernelOptions options;
  LogicalResult lower(QuantizeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    QuantizeSpec spec = QuantizeSpec::get(op);
    if (options.hardwareE2M1 && !spec.stochastic)
      spec.hardwareEncoder = encodeE2M1Nearest;
    if (options.hardwareStochastic && spec.stochastic)
      spec.hardwareEncoder = encodeE2M1Stochastic;
    ValueRange outs = adaptor.getOuts();
    ImplicitLocOpBuilder b(loc, rewriter);
    KernelArith ix(b);

    // One thread per tile of the (padded) scale grid: tiles past the
    // matrix only write the swizzled layout's zero padding.
    int64_t rowsPadded =
        spec.swizzled ? ceilDiv(spec.rows, Swizzled128x4Attr::kTileRows) *
                            Swizzled128x4Attr::kTileRows
                      : spec.rows;
    int64_t colsPadded = spec.swizzled
                             ? Swizzled128x4Attr::colTiles(spec.scaleCols()) *
                                   Swizzled128x4Attr::kTileCols
                             : spec.scaleCols();
    int64_t tileRowsPadded = ceilDiv(rowsPadded, spec.tileRows);
    int64_t tilesPerEntry = tileRowsPadded * colsPadded;
    int64_t tiles = spec.batch * tilesPerEntry;

    // Tile (tileRow, blockCol) of batch entry `batch` (null when unbatched):
    // its codes and block scale, or the swizzled layout's zero padding.
    auto emitTile = [&](QuantizeCodegen &cg, Value batch, Value tileRow,
                        Value blockCol, const TensorScales &scales) {
      Value firstRow = ix.mul(tileRow, ix.c(spec.tileRows));
      Value tileEnd = ix.add(firstRow, ix.c(spec.tileRows));
      Value real =
          arith::AndIOp::create(b, loc, ix.lt(firstRow, ix.c(spec.rows)),
                                ix.lt(blockCol, ix.c(spec.scaleCols())));
      Value zeroByte = arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0);
      auto zeroRows = [&](Value from, Value to) {
        ix.forLoop(from, to, [&](Value r) {
          memref::StoreOp::create(
              b, loc, zeroByte, outs[1],
              scaleIndices(b, loc, spec.swizzled, batch, r, blockCol));
        });
      };
      scf::IfOp::create(
          b, loc, real,
          [&](OpBuilder &, Location) {
            cg.emitTile(batch, tileRow, blockCol, scales);
            // A 16-row tile crossing the last row: its padded rows.
            if (spec.swizzled && spec.tileRows > 1)
              zeroRows(ix.maxsi(firstRow, ix.c(spec.rows)), tileEnd);
            scf::YieldOp::create(b, loc);
          },
          [&](OpBuilder &, Location) {
            if (spec.swizzled)
              zeroRows(firstRow, tileEnd);
            scf::YieldOp::create(b, loc);
          });
    };

    // Row-scaled NVFP4: one kernel, a warp per row.
    if (spec.rowScaled) {
      emitRowScaledKernel(b, loc, spec, adaptor.getInput(), adaptor.getAmax(),
                          adaptor.getSeed(), outs, rowsPadded, colsPadded,
                          emitTile);
      return success();
    }

    // NVFP4 without a caller amax or a given scale on a small input: one
    // kernel whose blocks each reduce their entry's amax and quantize a
    // share of its tiles (one launch instead of two).
    int64_t entryElements = spec.rows * spec.k;
    Value givenScale = adaptor.getEncodeScale() ? adaptor.getEncodeScale()
                                                : adaptor.getDecodeScale();
    bool needsAmax = spec.isNVFP4() && !adaptor.getAmax() && !givenScale;
    if (needsAmax && spec.batch * entryElements > 0 &&
        entryElements <= options.fusedQuantizeMaxElements) {
      emitFusedQuantizeKernel(b, loc, spec, adaptor.getInput(),
                              adaptor.getSeed(), outs, tileRowsPadded,
                              colsPadded, emitTile);
      return success();
    }

    // NVFP4 without a caller amax or a given scale: a reduction kernel
    // first (emitTensorAmax), amax kept as fp32 bits (|x| >= 0 orders like
    // its bits, so integer atomic max works). Without data (a dimension of
    // 0) the amax is 0 and there is nothing to reduce. A given scale needs no
    // amax: the quantize is the one kernel below.
    TensorAmax tensorAmax;
    if (needsAmax && spec.batch * entryElements > 0)
      tensorAmax = emitTensorAmax(b, loc, spec, adaptor.getInput());
    Value amaxBits = tensorAmax.bits;

    SmallVector<int64_t> space = {spec.batch, tileRowsPadded, colsPadded};
    // S_enc and S_dec of batch entry `batch` (null when unbatched), in a
    // kernel.
    auto globalScales = [&](QuantizeCodegen &cg, NumericsBuilder &nb,
                            Value batch) {
      if (givenScale)
        return cg.givenScales(
            memref::LoadOp::create(b, loc, givenScale, withBatch(batch, {})));
      Value amax;
      if (adaptor.getAmax())
        amax = memref::LoadOp::create(b, loc, adaptor.getAmax(),
                                      withBatch(batch, {}));
      else if (amaxBits)
        amax = nb.floatOf(
            memref::LoadOp::create(b, loc, amaxBits, batch ? batch : ix.c(0)));
      else
        amax = nb.f32(0.0);
      return cg.tensorScales(amax);
    };
    launchLinear(
        b, loc, tiles, [&](Value linear) {
          // After the amax pass, L2 still holds the end of the input (the
          // last chunks its grid-stride loop read): walk the tiles from the
          // end, so that the first reads of this pass hit L2 instead of HBM.
          if (amaxBits)
            linear = arith::SubIOp::create(b, loc, ix.c(tiles - 1), linear);
          SmallVector<Value> id = ix.delinearize(linear, space);
          Value batch = spec.batched ? id[0] : Value();
          Value tileRow = id[1], blockCol = id[2];
          QuantizeCodegen cg(b, loc, spec, adaptor.getInput(), outs[0], outs[1],
                             adaptor.getSeed());
          NumericsBuilder nb(b, loc, b.getF32Type());
          TensorScales scales;
          if (spec.isNVFP4()) {
            SmallVector<Value> bIdx = withBatch(batch, {});
            scales = globalScales(cg, nb, batch);
            Value first = arith::AndIOp::create(b, loc, ix.eq(tileRow, ix.c(0)),
                                                ix.eq(blockCol, ix.c(0)));
            scf::IfOp::create(b, loc, first, [&](OpBuilder &, Location) {
              memref::StoreOp::create(b, loc, scales.decodeScale, outs[2],
                                      bIdx);
              scf::YieldOp::create(b, loc);
            });
          }
          emitTile(cg, batch, tileRow, blockCol, scales);
        });
    // R or K is 0: there is no tile to write the decode scales, yet every
    // batch entry has one (that of amax 0, of the caller's amax, or of the
    // given scale).
    if (spec.isNVFP4() && tiles == 0)
      launchLinear(b, loc, spec.batch, [&](Value linear) {
        Value batch = spec.batched ? linear : Value();
        QuantizeCodegen cg(b, loc, spec, adaptor.getInput(), outs[0], outs[1],
                           adaptor.getSeed());
        NumericsBuilder nb(b, loc, b.getF32Type());
        Value sDec = globalScales(cg, nb, batch).decodeScale;
        memref::StoreOp::create(b, loc, sDec, outs[2], withBatch(batch, {}));
      });
    tensorAmax.release(b, loc);
    return success();
  }

  /// Small inputs in one kernel: blocks of kFusedQuantizeThreads threads,
  /// one tile each, grid (tile blocks, batch). Every block reduces its
  /// entry's amax itself (emitBlockAmax); the first stores S_dec; each
  /// quantizes its tiles (`emitTile`).
  static void
  emitFusedQuantizeKernel(ImplicitLocOpBuilder &b, Location loc,
                          const QuantizeSpec &spec, Value input, Value seed,
                          ValueRange outs, int64_t tileRowsPadded,
                          int64_t colsPadded,
                          function_ref<void(QuantizeCodegen &, Value, Value,
                                            Value, const TensorScales &)>
                              emitTile) {
    KernelArith ix(b);
    int64_t threadCount = kFusedQuantizeThreads;
    int64_t tilesPerEntry = tileRowsPadded * colsPadded;
    launchGrid(
        b, loc, {ceilDiv(tilesPerEntry, threadCount), spec.batch, 1},
        {threadCount, 1, 1}, [&](gpu::LaunchOp launch) {
          QuantizeCodegen cg(b, loc, spec, input, outs[0], outs[1], seed);
          Value batch = spec.batched ? launch.getBlockIds().y : Value();
          Value block = launch.getBlockIds().x;
          Value tid = launch.getThreadIds().x;
          Value amax = emitBlockAmax(b, loc, launch, spec, input, seed, batch);
          TensorScales scales = cg.tensorScales(amax);
          Value first = arith::AndIOp::create(b, loc, ix.eq(block, ix.c(0)),
                                              ix.eq(tid, ix.c(0)));
          scf::IfOp::create(b, loc, first, [&](OpBuilder &, Location) {
            memref::StoreOp::create(b, loc, scales.decodeScale, outs[2],
                                    withBatch(batch, {}));
            scf::YieldOp::create(b, loc);
          });
          Value tile = ix.add(ix.mul(block, ix.c(threadCount)), tid);
          scf::IfOp::create(
              b, loc, ix.lt(tile, ix.c(tilesPerEntry)),
              [&](OpBuilder &, Location) {
                SmallVector<Value> id =
                    ix.delinearize(tile, {tileRowsPadded, colsPadded});
                emitTile(cg, batch, id[0], id[1], scales);
                scf::YieldOp::create(b, loc);
              });
        });
  }

  /// Row-scaled NVFP4 (spec 2.2): warp w of a block owns one row of the
  /// (padded) scale grid. Its lanes reduce the row's amax over the row's
  /// chunks (maxNum per lane, then across the warp: order-free, so the
  /// value is the reference's), or read the caller's; lane 0 stores the
  /// row's decode scale; each lane quantizes the blocks lane, lane + 32, ...
  /// of the row. Padding rows of the swizzled layout only write zeros.
  static void
  emitRowScaledKernel(ImplicitLocOpBuilder &b, Location loc,
                      const QuantizeSpec &spec, Value input, Value amax,
                      Value seed, ValueRange outs, int64_t rowsPadded,
                      int64_t colsPadded,
                      function_ref<void(QuantizeCodegen &, Value, Value, Value,
                                        const TensorScales &)>
                          emitTile) {
    if (spec.rows == 0)
      return;
    KernelArith ix(b);
    constexpr int64_t warpsPerBlock = 4;
    launchGrid(
        b, loc, {ceilDiv(rowsPadded, warpsPerBlock), spec.batch, 1},
        {32 * warpsPerBlock, 1, 1}, [&](gpu::LaunchOp launch) {
          NumericsBuilder nb(b, loc, b.getF32Type());
          QuantizeCodegen cg(b, loc, spec, input, outs[0], outs[1], seed);
          Value batch = spec.batched ? launch.getBlockIds().y : Value();
          Value tid = launch.getThreadIds().x;
          Value lane = ix.remu(tid, ix.c(32));
          Value row =
              ix.add(ix.mul(launch.getBlockIds().x, ix.c(warpsPerBlock)),
                     ix.divu(tid, ix.c(32)));
          // A padding row reads the last row (the warp stays converged for
          // its shuffles); its tiles write only zeros.
          Value readRow = ix.minsi(row, ix.c(spec.rows - 1));
          Value rowAmax;
          if (amax) {
            rowAmax = memref::LoadOp::create(b, loc, amax,
                                             withBatch(batch, {readRow}));
          } else {
            auto loop = scf::ForOp::create(
                b, loc, ix.mul(lane, ix.c(kChunk)), ix.c(spec.k),
                ix.c(32 * kChunk), ValueRange{nb.f32(0.0)},
                [&](OpBuilder &, Location, Value k0, ValueRange acc) {
                  Value next =
                      cg.chunkAbsMax(cg.loadChunk(batch, readRow, k0), acc[0]);
                  scf::YieldOp::create(b, loc, next);
                });
            rowAmax = warpReduce(
                b, loc, loop.getResult(0),
                [&](Value x, Value y) { return nb.maxNum(x, y); });
          }
          TensorScales scales = cg.tensorScales(rowAmax);
          Value storesDecode = arith::AndIOp::create(
              b, loc, ix.eq(lane, ix.c(0)), ix.lt(row, ix.c(spec.rows)));
          scf::IfOp::create(b, loc, storesDecode, [&](OpBuilder &, Location) {
            memref::StoreOp::create(b, loc, scales.decodeScale, outs[2],
                                    withBatch(batch, {row}));
            scf::YieldOp::create(b, loc);
          });
          scf::ForOp::create(
              b, loc, lane, ix.c(colsPadded), ix.c(32), ValueRange{},
              [&](OpBuilder &, Location, Value blockCol, ValueRange) {
                emitTile(cg, batch, row, blockCol, scales);
                scf::YieldOp::create(b, loc);
              });
        });
  }

  /// amaxBits[b] = bits of the tensor amax of batch entry b: a grid-stride
  /// loop over 16-element chunks, a warp reduction, one atomic per warp.
};

struct DequantizeToGPU : BufferizedOpPattern<DequantizeOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(DequantizeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    KernelArith ix(b);
    auto type = cast<ShapedType>(op.getValues().getType());
    bool batched = type.getRank() == 3;
    int64_t batchSize = batched ? type.getDimSize(0) : 1;
    int64_t rows = type.getDimSize(type.getRank() - 2);
    int64_t k = type.getShape().back();
    auto scaleType = cast<ShapedType>(op.getScales().getType());
    bool swizzled = isSwizzledScales(scaleType, batched ? 1 : 0);
    bool nvfp4 = isa<Float8E4M3FNType>(scaleType.getElementType());
    int64_t bs = getBlockWidth(scaleType.getElementType());
    Type outElement = cast<ShapedType>(op.getOut().getType()).getElementType();
    // One thread per 16 values: 8 packed bytes in, 16 values out.
    SmallVector<int64_t> space = {batchSize, rows, k / kChunk};
    launchLinear(b, loc, batchSize * rows * (k / kChunk), [&](Value linear) {
      NumericsBuilder nb(b, loc, b.getF32Type());
      SmallVector<Value> id = ix.delinearize(linear, space);
      Value batch = batched ? id[0] : Value();
      Value r = id[1], k0 = ix.mul(id[2], ix.c(kChunk));
      Value packed = vector::LoadOp::create(
          b, loc, VectorType::get({kChunk / 2}, b.getI8Type()),
          adaptor.getValues(), withBatch(batch, {r, ix.divu(k0, ix.c(2))}),
          false, llvm::Align(8));
      Value byte = loadScaleByte(b, loc, adaptor.getScales(), swizzled, batch,
                                 r, ix.divu(k0, ix.c(bs)));
      Value scale = nvfp4 ? nb.e4m3Decode(byte) : nb.e8m0Decode(byte);
      Value sDec;
      if (Value decode = adaptor.getDecodeScale())
        sDec = memref::LoadOp::create(b, loc, decode,
                                      decodeScaleIndices(decode, batch, r));
      SmallVector<Value> outValues;
      for (int64_t i = 0; i < kChunk; ++i) {
        Value pair = arith::ExtUIOp::create(
            b, loc, b.getI32Type(),
            vector::ExtractOp::create(b, loc, packed, i / 2));
        Value code = arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, pair, nb.i32(4 * (i % 2))),
            nb.i32(0xF));
        Value v = nb.mul(nb.e2m1Decode(code), scale);
        if (sDec)
          v = nb.mul(v, sDec);
        if (!outElement.isF32())
          v = arith::TruncFOp::create(b, loc, outElement, v);
        outValues.push_back(v);
      }
      Value vec = vector::FromElementsOp::create(
          b, loc, VectorType::get({kChunk}, outElement), outValues);
      vector::StoreOp::create(b, loc, vec, adaptor.getOut(),
                              withBatch(batch, {r, k0}), false,
                              llvm::Align(16));
    });
    return success();
  }
};

struct SwigluToGPU : BufferizedOpPattern<SwigluOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(SwigluOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    KernelArith ix(b);
    auto outType = cast<MemRefType>(op.getOut().getType());
    ArrayRef<int64_t> shape = outType.getShape();
    SwigluParams params = op.getParams();
    // One thread per output: the gate and up values are adjacent, one
    // vector load of two.
    auto pair = VectorType::get(
        {2}, cast<ShapedType>(op.getInput().getType()).getElementType());
    launchLinear(b, loc, outType.getNumElements(), [&](Value linear) {
      SmallVector<Value> at = ix.delinearize(linear, shape);
      SmallVector<Value> in(at);
      in.back() = ix.mul(at.back(), ix.c(2));
      Value both = vector::LoadOp::create(b, loc, pair, adaptor.getInput(), in);
      NumericsBuilder nb(b, loc, b.getF32Type());
      auto f32At = [&](int64_t i) -> Value {
        Value v = vector::ExtractOp::create(b, loc, both, i);
        return v.getType().isF32()
                   ? v
                   : arith::ExtFOp::create(b, loc, b.getF32Type(), v);
      };
      Value v = nb.swiglu(f32At(0), f32At(1), params);
      if (!outType.getElementType().isF32())
        v = arith::TruncFOp::create(b, loc, outType.getElementType(), v);
      memref::StoreOp::create(b, loc, v, adaptor.getOut(), at);
    });
    return success();
  }
};

struct SwizzleToGPU : BufferizedOpPattern<SwizzleScalesOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(SwizzleScalesOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    KernelArith ix(b);
    auto type = cast<ShapedType>(op.getInput().getType());
    bool batched = type.getRank() == 3;
    int64_t batchSize = batched ? type.getDimSize(0) : 1;
    int64_t rows = type.getDimSize(type.getRank() - 2);
    int64_t cols = type.getShape().back();
    int64_t rowsPadded = ceilDiv(rows, Swizzled128x4Attr::kTileRows) *
                         Swizzled128x4Attr::kTileRows;
    int64_t colsPadded =
        Swizzled128x4Attr::colTiles(cols) * Swizzled128x4Attr::kTileCols;
    // One thread per element of the padded matrix: padding gets zero.
    SmallVector<int64_t> space = {batchSize, rowsPadded, colsPadded};
    launchLinear(
        b, loc, batchSize * rowsPadded * colsPadded, [&](Value linear) {
          SmallVector<Value> id = ix.delinearize(linear, space);
          Value batch = batched ? id[0] : Value();
          Value r = id[1], c = id[2];
          Value inside = arith::AndIOp::create(b, loc, ix.lt(r, ix.c(rows)),
                                               ix.lt(c, ix.c(cols)));
          SmallVector<Value> dst =
              scaleIndices(b, loc, /*swizzled=*/true, batch, r, c);
          scf::IfOp::create(
              b, loc, inside,
              [&](OpBuilder &, Location) {
                Value v = memref::LoadOp::create(b, loc, adaptor.getInput(),
                                                 withBatch(batch, {r, c}));
                memref::StoreOp::create(b, loc, v, adaptor.getOut(), dst);
                scf::YieldOp::create(b, loc);
              },
              [&](OpBuilder &, Location) {
                memref::StoreOp::create(
                    b, loc,
                    arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0),
                    adaptor.getOut(), dst);
                scf::YieldOp::create(b, loc);
              });
        });
    return success();
  }
};

struct UnswizzleToGPU : BufferizedOpPattern<UnswizzleScalesOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(UnswizzleScalesOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    KernelArith ix(b);
    auto type = cast<ShapedType>(op.getOut().getType());
    bool batched = type.getRank() == 3;
    int64_t batchSize = batched ? type.getDimSize(0) : 1;
    int64_t rows = type.getDimSize(type.getRank() - 2);
    int64_t cols = type.getShape().back();
    SmallVector<int64_t> space = {batchSize, rows, cols};
    launchLinear(b, loc, batchSize * rows * cols, [&](Value linear) {
      SmallVector<Value> id = ix.delinearize(linear, space);
      Value batch = batched ? id[0] : Value();
      Value v = memref::LoadOp::create(
          b, loc, adaptor.getInput(),
          scaleIndices(b, loc, /*swizzled=*/true, batch, id[1], id[2]));
      memref::StoreOp::create(b, loc, v, adaptor.getOut(),
                              withBatch(batch, {id[1], id[2]}));
    });
    return success();
  }
};

} // namespace

void mlir::nvfp4::populateQuantizeToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const GPUKernelOptions &options) {
  patterns.add<QuantizeToGPU>(converter, patterns.getContext(), options);
  patterns.add<DequantizeToGPU, SwigluToGPU, SwizzleToGPU, UnswizzleToGPU>(
      converter, patterns.getContext());
}
