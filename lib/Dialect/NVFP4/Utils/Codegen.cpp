//===- Codegen.cpp - loop bodies of the nvfp4 ops --------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::nvfp4;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

GroupRowRange mlir::nvfp4::groupRowRange(OpBuilder &b, Location loc,
                                         Grouping grouping, Value g,
                                         int64_t rows,
                                         function_ref<Value(Value)> entry) {
  assert(grouping != Grouping::independent &&
         "independent groups have static rows");
  auto clamp = [&](Value v, Value lo, Value hi) {
    return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, v, lo),
                                  hi)
        .getResult();
  };
  Value zero = indexConst(b, loc, 0), limit = indexConst(b, loc, rows);
  if (grouping == Grouping::masked)
    return {zero, clamp(entry(g), zero, limit)};
  Value begin = clamp(entry(g), zero, limit);
  Value next = arith::AddIOp::create(b, loc, g, indexConst(b, loc, 1));
  return {begin, clamp(entry(next), begin, limit)};
}

MoERouteKey mlir::nvfp4::moeRouteKey(OpBuilder &b, Location loc, Value id,
                                     int64_t numExperts) {
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  // One unsigned compare: a negative index is a large unsigned one.
  Value kept = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id,
                                     i32(numExperts));
  Value expert = arith::SelectOp::create(b, loc, kept, id, i32(numExperts - 1));
  return {expert, kept};
}

MoEDispatchSource mlir::nvfp4::moeDispatchSource(OpBuilder &b, Location loc,
                                                 Value pair, int64_t pairs,
                                                 int64_t topK) {
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, pair,
                                       i32(pairs));
  Value safe = arith::SelectOp::create(b, loc, inside, pair, i32(0));
  Value token = arith::DivUIOp::create(
      b, loc, arith::IndexCastOp::create(b, loc, b.getIndexType(), safe),
      indexConst(b, loc, topK));
  return {inside, token};
}

MoECombinePair mlir::nvfp4::moeCombinePair(OpBuilder &b, Location loc,
                                           Value row, Value weight,
                                           int64_t rows) {
  Value inside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, row,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), rows));
  // `weight != 0` as C has it: true for a NaN weight.
  Value nonzero = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::UNE, weight,
      arith::ConstantFloatOp::create(b, loc, b.getF32Type(), APFloat(0.0f)));
  Value include = arith::AndIOp::create(b, loc, inside, nonzero);
  Value safe = arith::SelectOp::create(
      b, loc, inside, row,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  return {include, arith::IndexCastOp::create(b, loc, b.getIndexType(), safe)};
}

Value mlir::nvfp4::moeCombineStep(NumericsBuilder &nb, Value acc, Value weight,
                                  Value y, Value include, Type productType) {
  OpBuilder &b = nb.builder();
  if (auto vec = dyn_cast<VectorType>(y.getType()))
    weight = vector::BroadcastOp::create(b, nb.getLoc(), vec, weight);
  Value product = nb.mul(weight, y);
  if (productType)
    product = nb.roundTo(product, productType);
  return nb.select(include, nb.add(acc, product), acc);
}

Value mlir::nvfp4::indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

SmallVector<Value> mlir::nvfp4::withBatch(Value batch, ArrayRef<Value> rest) {
  SmallVector<Value> indices;
  if (batch)
    indices.push_back(batch);
  indices.append(rest.begin(), rest.end());
  return indices;
}

SmallVector<Value> mlir::nvfp4::scaleIndices(OpBuilder &b, Location loc,
                                             bool swizzled, Value batch,
                                             Value r, Value c) {
  if (!swizzled)
    return withBatch(batch, {r, c});
  return withBatch(batch, Swizzled128x4Attr::buildIndices(b, loc, r, c));
}

Value mlir::nvfp4::loadScaleByte(OpBuilder &b, Location loc, Value scales,
                                 bool swizzled, Value batch, Value r,
                                 Value c) {
  Value byte = memref::LoadOp::create(
      b, loc, scales, scaleIndices(b, loc, swizzled, batch, r, c));
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), byte);
}

Value mlir::nvfp4::loadCode(OpBuilder &b, Location loc, Value values,
                            Value batch, Value r, Value k) {
  Value one = indexConst(b, loc, 1);
  Value byteIndex = arith::ShRUIOp::create(b, loc, k, one);
  Value byte = arith::ExtUIOp::create(
      b, loc, b.getI32Type(),
      memref::LoadOp::create(b, loc, values,
                             withBatch(batch, {r, byteIndex})));
  // Odd elements live in the high nibble.
  Value odd = arith::IndexCastOp::create(
      b, loc, b.getI32Type(), arith::AndIOp::create(b, loc, k, one));
  Value shift = arith::MulIOp::create(
      b, loc, odd, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 4));
  return arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, byte, shift),
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0xF));
}

//===----------------------------------------------------------------------===//
// QuantizeSpec
//===----------------------------------------------------------------------===//

QuantizeSpec QuantizeSpec::get(QuantizeOp op) {
  auto input = cast<ShapedType>(op.getInput().getType());
  QuantizeSpec spec;
  spec.format = op.getFormat();
  spec.batched = input.getRank() == 3;
  spec.batch = spec.batched ? input.getDimSize(0) : 1;
  spec.rows = input.getDimSize(input.getRank() - 2);
  spec.k = input.getDimSize(input.getRank() - 1);
  SmallVector<int64_t, 2> block = op.getEffectiveBlock();
  spec.tileRows = block[0];
  spec.blockWidth = block[1];
  spec.swizzled = op.hasSwizzledScales();
  spec.hadamard = op.getHadamard();
  spec.stochastic = op.getRounding() == Rounding::stochastic;
  spec.rule = op.getEffectiveScaleRule();
  spec.metric = op.getEffectiveErrorMetric();
  spec.e4m3Max = op.getEffectiveE4M3Max();
  spec.rowScaled = op.isRowScaled();
  if (op.getGivenScale())
    spec.givenScale =
        op.hasGivenEncodeScale() ? GivenScale::encode : GivenScale::decode;
  return spec;
}

//===----------------------------------------------------------------------===//
// QuantizeCodegen
//===----------------------------------------------------------------------===//

QuantizeCodegen::QuantizeCodegen(OpBuilder &b, Location loc,
                                 const QuantizeSpec &spec, Value input,
                                 Value values, Value scales, Value seed)
    : b(b), loc(loc), spec(spec), input(input), values(values),
      scales(scales), seed(seed), nb(b, loc, b.getF32Type()) {}

SmallVector<Value> QuantizeCodegen::loadChunk(Value batch, Value row,
                                              Value k0) {
  Type element = cast<MemRefType>(input.getType()).getElementType();
  // Chunks start at multiples of 16 elements of rows of a multiple of 16
  // elements: at least 16-byte aligned, so GPUs load them 16 bytes at a time.
  Value vec = vector::LoadOp::create(b, loc, VectorType::get({kChunk}, element),
                                     input, withBatch(batch, {row, k0}),
                                     /*nontemporal=*/false, llvm::Align(16));
  if (!element.isF32())
    vec = arith::ExtFOp::create(
        b, loc, VectorType::get({kChunk}, b.getF32Type()), vec);
  SmallVector<Value> x;
  for (int64_t i = 0; i < kChunk; ++i)
    x.push_back(vector::ExtractOp::create(b, loc, vec, i));
  return transformChunk(x, element);
}

SmallVector<Value> QuantizeCodegen::transformChunk(ArrayRef<Value> x,
                                                   Type element) {
  if (!spec.hadamard)
    return SmallVector<Value>(x);
  // x'_j = 4 * sum_i x_i * M[i][j] / 4 in increasing i (spec 2.2).
  // M[i][j] / 4 = +-1/16, so each term is +-fl(x_i / 16): scale once, then
  // add or subtract. Sixteen terms of at most |x| / 16 keep every partial
  // sum of finite inputs finite (a plain sum of +-x_i / 4 overflows on
  // rows near the bf16 maximum); powers of two commute with the rounding,
  // so elsewhere the bits are the plain order's.
  Value oneSixteenth = nb.f32(0.0625), four = nb.f32(4.0);
  SmallVector<Value> sixteenth;
  for (Value v : x)
    sixteenth.push_back(nb.mul(v, oneSixteenth));
  // The result takes the input's element type (spec 2.2): bf16/f16 inputs
  // round the fp32 sums, as TransformerEngine does; f32 keeps them.
  SmallVector<Value> out;
  for (int j = 0; j < kChunk; ++j) {
    Value acc = NumericsBuilder::hadamardEntry(0, j) > 0
                    ? sixteenth[0]
                    : arith::NegFOp::create(b, loc, sixteenth[0]).getResult();
    for (int i = 1; i < kChunk; ++i)
      acc = NumericsBuilder::hadamardEntry(i, j) > 0
                ? nb.add(acc, sixteenth[i])
                : nb.sub(acc, sixteenth[i]);
    out.push_back(nb.roundTo(nb.mul(acc, four), element));
  }
  return out;
}

Value QuantizeCodegen::chunkAbsMax(ArrayRef<Value> chunk, Value acc) {
  for (Value v : chunk)
    acc = nb.maxNum(acc, nb.abs(v));
  return acc;
}

Value QuantizeCodegen::emitRowAmax(Value batch, Value row, Value acc) {
  auto colLoop = scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), indexConst(b, loc, spec.k),
      indexConst(b, loc, kChunk), ValueRange{acc},
      [&](OpBuilder &, Location, Value k0, ValueRange acc) {
        Value next = chunkAbsMax(loadChunk(batch, row, k0), acc[0]);
        scf::YieldOp::create(b, loc, next);
      });
  return colLoop.getResult(0);
}

Value QuantizeCodegen::emitTensorAmax(Value batch) {
  auto rowLoop = scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), indexConst(b, loc, spec.rows),
      indexConst(b, loc, 1), ValueRange{nb.f32(0.0)},
      [&](OpBuilder &, Location, Value row, ValueRange acc) {
        scf::YieldOp::create(b, loc, emitRowAmax(batch, row, acc[0]));
      });
  return rowLoop.getResult(0);
}

TensorScales QuantizeCodegen::tensorScales(Value amax) {
  TensorScales scales;
  scales.amax = amax;
  std::tie(scales.sEnc, scales.sDec) = nb.globalScales(amax, spec.globalMax());
  // four_over_six reports the decode factor of its error domain, amax / C,
  // rounded once and without the S_enc guards (spec 2.5).
  scales.decodeScale = spec.isFourOverSix()
                           ? nb.div(amax, nb.f32(spec.globalMax()))
                           : scales.sDec;
  return scales;
}

TensorScales QuantizeCodegen::givenScales(Value scale) {
  assert(spec.hasGivenScale() && !spec.isFourOverSix() &&
         "a given scale is max6 only (Q15)");
  TensorScales scales;
  std::tie(scales.sEnc, scales.sDec) = spec.givenScale == GivenScale::encode
                                           ? nb.givenEncodeScale(scale)
                                           : nb.givenDecodeScale(scale);
  scales.decodeScale = scales.sDec;
  return scales;
}

SmallVector<Value> QuantizeCodegen::randomBytes(Value batch, Value row,
                                                Value k0) {
  // Chunk index e/16 of the chunk's first element e (row-major, batch
  // included): ((batch * rows + row) * k + k0) / 16.
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  auto asI64 = [&](Value v) {
    return arith::IndexCastUIOp::create(b, loc, i64, v).getResult();
  };
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  Value rowIndex = asI64(row);
  if (batch)
    rowIndex = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, asI64(batch), c64(spec.rows)),
        rowIndex);
  Value chunk = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, rowIndex, c64(spec.k / kChunk)),
      arith::DivUIOp::create(b, loc, asI64(k0), c64(kChunk)));
  auto split = [&](Value v) -> std::pair<Value, Value> {
    Value lo = arith::TruncIOp::create(b, loc, i32, v);
    Value hi = arith::TruncIOp::create(
        b, loc, i32, arith::ShRUIOp::create(b, loc, v, c64(32)));
    return {lo, hi};
  };
  auto [c0, c1] = split(chunk);
  auto [s0, s1] = split(seed);
  std::array<Value, 4> words =
      nb.philox4x32x10({c0, c1, nb.i32(0), nb.i32(0)}, {s0, s1});
  // Byte t of the chunk: byte t%4 (little-endian) of word t/4.
  SmallVector<Value> bytes;
  for (int64_t t = 0; t < kChunk; ++t)
    bytes.push_back(arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, words[t / 4], nb.i32(8 * (t % 4))),
        nb.i32(0xFF)));
  return bytes;
}

SmallVector<Value> QuantizeCodegen::encodeChunk(ArrayRef<Value> chunk,
                                                Value enc,
                                                ArrayRef<Value> random) {
  SmallVector<Value> codes;
  if (spec.hardwareEncoder) {
    SmallVector<Value> scaled;
    for (Value x : chunk)
      scaled.push_back(nb.mul(x, enc));
    return spec.hardwareEncoder(b, loc, scaled, random);
  }
  for (auto [i, x] : llvm::enumerate(chunk)) {
    Value v = nb.mul(x, enc);
    codes.push_back(spec.stochastic ? nb.e2m1EncodeStochastic(v, random[i])
                                    : nb.e2m1EncodeRNE(v));
  }
  return codes;
}

void QuantizeCodegen::storeCodes(Value batch, Value row, Value k0,
                                 ArrayRef<Value> codes) {
  Value packed = nb.packE2M1(codes);
  Value byteIndex =
      arith::DivUIOp::create(b, loc, k0, indexConst(b, loc, 2));
  vector::StoreOp::create(b, loc, packed, values,
                          withBatch(batch, {row, byteIndex}),
                          /*nontemporal=*/false, llvm::Align(8));
}

void QuantizeCodegen::storeScale(Value batch, Value row, Value blockCol,
                                 Value byte) {
  memref::StoreOp::create(
      b, loc, arith::TruncIOp::create(b, loc, b.getI8Type(), byte), scales,
      scaleIndices(b, loc, spec.swizzled, batch, row, blockCol));
}

Value QuantizeCodegen::combineErrors(Value a, Value c) {
  return spec.metric == ErrorMetric::abs_max ? nb.maxNum(a, c) : nb.add(a, c);
}

Value QuantizeCodegen::accumulateError(ArrayRef<Value> chunk,
                                       ArrayRef<Value> codes, Value sfValue,
                                       Value amax, Value acc) {
  // Spec 2.5: xhat = fl(fl(fl(e2m1(q) * sf) * amax) / C), d = fl(xhat - x);
  // mse adds fl(d*d), mae adds |d|, abs_max takes fmaxf of |d|, in
  // increasing element order.
  for (auto [x, code] : llvm::zip(chunk, codes)) {
    Value xhat = nb.fourOverSixValue(code, sfValue, amax, spec.globalMax());
    Value d = nb.sub(xhat, x);
    Value term = spec.metric == ErrorMetric::mse ? nb.mul(d, d) : nb.abs(d);
    acc = combineErrors(acc, term);
  }
  return acc;
}

Value QuantizeCodegen::rowIndex(Value tileRow, int64_t r) {
  Value base = arith::MulIOp::create(b, loc, tileRow,
                                     indexConst(b, loc, spec.tileRows));
  return r == 0 ? base
                : arith::AddIOp::create(b, loc, base, indexConst(b, loc, r))
                      .getResult();
}

void QuantizeCodegen::emitTile(Value batch, Value tileRow, Value blockCol,
                               const TensorScales &ts) {
  int64_t chunks = spec.blockWidth / kChunk;
  Value kBase = arith::MulIOp::create(b, loc, blockCol,
                                      indexConst(b, loc, spec.blockWidth));
  auto chunkK = [&](int64_t c) {
    return c == 0 ? kBase
                  : arith::AddIOp::create(b, loc, kBase,
                                          indexConst(b, loc, c * kChunk))
                        .getResult();
  };
  auto random = [&](Value row, int64_t c) {
    return spec.stochastic ? randomBytes(batch, row, chunkK(c))
                           : SmallVector<Value>();
  };
  // A tile is one row (1x16, 1x32) or up to 16 rows (16x16); rows of a tile
  // are visited once per pass (amax, 4/6 errors, encode) and re-loaded each
  // time rather than kept live.
  Value first = rowIndex(tileRow, 0);
  Value numRows;
  if (spec.tileRows > 1)
    numRows = arith::MinSIOp::create(
        b, loc, indexConst(b, loc, spec.tileRows),
        arith::SubIOp::create(b, loc, indexConst(b, loc, spec.rows), first));
  Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);

  /// Runs `body(row, accs)` over the tile's rows, threading `init`.
  auto overRows = [&](ValueRange init,
                      function_ref<SmallVector<Value>(Value, ValueRange)>
                          body) -> SmallVector<Value> {
    if (spec.tileRows == 1)
      return body(first, init);
    auto loop = scf::ForOp::create(
        b, loc, zero, numRows, one, init,
        [&](OpBuilder &, Location, Value i, ValueRange accs) {
          Value row = arith::AddIOp::create(b, loc, first, i);
          scf::YieldOp::create(b, loc, body(row, accs));
        });
    return SmallVector<Value>(loop.getResults());
  };
  auto loadRow = [&](Value row) {
    SmallVector<SmallVector<Value>> rowChunks;
    for (int64_t c = 0; c < chunks; ++c)
      rowChunks.push_back(loadChunk(batch, row, chunkK(c)));
    return rowChunks;
  };

  // Pass 1: block amax.
  Value amax = overRows(ValueRange{nb.f32(0.0)}, [&](Value row,
                                                     ValueRange acc) {
    Value m = acc[0];
    for (auto &chunk : loadRow(row))
      m = chunkAbsMax(chunk, m);
    return SmallVector<Value>{m};
  })[0];

  // The scale byte and the multiplier applied before encoding; 4/6 sums
  // each candidate's error over the tile's rows.
  Value scaleByte, multiplier;
  std::tie(scaleByte, multiplier) = chooseBlockScale(
      amax, ts, [&](Value enc6, Value enc4, Value sfv6, Value sfv4) {
        // Pass 2: each row's error per candidate, summed from +0 in element
        // order (one thread's loop in TE's kernel).
        auto rowErrors = [&](Value row) {
          Value e6 = nb.f32(0.0), e4 = nb.f32(0.0);
          for (auto [c, chunk] : llvm::enumerate(loadRow(row))) {
            SmallVector<Value> r = random(row, c);
            e6 = accumulateError(chunk, encodeChunk(chunk, enc6, r), sfv6,
                                 ts.amax, e6);
            e4 = accumulateError(chunk, encodeChunk(chunk, enc4, r), sfv4,
                                 ts.amax, e4);
          }
          return std::make_pair(e6, e4);
        };
        if (spec.tileRows == 1)
          return rowErrors(first);
        // A 16x16 tile: keep the 16 row errors of each candidate (rows past
        // the matrix stay +0), then reduce them as TE's __shfl_down tree
        // over offsets 8, 4, 2, 1: a_l = r_l + r_(l+8), b_l = a_l + a_(l+4),
        // ...
        int64_t n = spec.tileRows;
        SmallVector<Value> init(2 * n, nb.f32(0.0));
        SmallVector<Value> rows =
            overRows(init, [&](Value row, ValueRange acc) {
              auto [e6, e4] = rowErrors(row);
              Value local = arith::SubIOp::create(b, loc, row, first);
              SmallVector<Value> next(acc);
              for (int64_t j = 0; j < n; ++j) {
                Value here =
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          local, indexConst(b, loc, j));
                next[j] = nb.select(here, e6, acc[j]);
                next[n + j] = nb.select(here, e4, acc[n + j]);
              }
              return next;
            });
        auto tree = [&](ArrayRef<Value> r) {
          SmallVector<Value> level(r);
          while (level.size() > 1) {
            size_t half = level.size() / 2;
            for (size_t l = 0; l < half; ++l)
              level[l] = combineErrors(level[l], level[l + half]);
            level.resize(half);
          }
          return level.front();
        };
        // In this order (argument evaluation order is unspecified).
        Value err6 = tree(ArrayRef<Value>(rows).take_front(n));
        Value err4 = tree(ArrayRef<Value>(rows).drop_front(n));
        return std::make_pair(err6, err4);
      });

  // Pass 3: encode, store codes and the (repeated) scale.
  overRows(ValueRange{}, [&](Value row, ValueRange) {
    for (auto [c, chunk] : llvm::enumerate(loadRow(row)))
      storeCodes(batch, row, chunkK(c),
                 encodeChunk(chunk, multiplier, random(row, c)));
    storeScale(batch, row, blockCol, scaleByte);
    return SmallVector<Value>{};
  });
}

std::pair<Value, Value> QuantizeCodegen::chooseBlockScale(
    Value amax, const TensorScales &ts,
    function_ref<std::pair<Value, Value>(Value, Value, Value, Value)> errors) {
  if (spec.isNVFP4() && !spec.isFourOverSix())
    return nb.blockScale(amax, ts.sEnc, ts.sDec);
  if (spec.isFourOverSix()) {
    // TransformerEngine's 4over6 (spec 2.5): the map-to-6 scale and the
    // map-to-4 one, 1.5 times its input.
    Value base = nb.fourOverSixBlockScaleInput(amax, ts.sEnc);
    Value sf6 = nb.e4m3EncodeSatFinite(base);
    Value sf4 = nb.e4m3EncodeSatFinite(nb.mul(base, nb.f32(1.5)));
    Value sfv6 = nb.e4m3Decode(sf6), sfv4 = nb.e4m3Decode(sf4);
    Value enc6 = nb.blockEncodeScale(sfv6, ts.sDec);
    Value enc4 = nb.blockEncodeScale(sfv4, ts.sDec);
    auto [err6, err4] = errors(enc6, enc4, sfv6, sfv4);
    // Candidate 4 only when strictly better (ties and NaN keep 6).
    Value pick4 = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                        err4, err6);
    return {nb.select(pick4, sf4, sf6), nb.select(pick4, enc4, enc6)};
  }
  Value code = spec.rule == ScaleRule::floor ? nb.mxScaleCodeFloor(amax)
                                             : nb.mxScaleCodeRceil(amax);
  return {code, nb.e8m0Inverse(code)};
}

std::pair<Value, SmallVector<Value>>
QuantizeCodegen::quantizeBlock(ArrayRef<Value> chunk, const TensorScales &ts,
                               ArrayRef<Value> random) {
  assert(spec.isNVFP4() && spec.blockWidth == kChunk && spec.tileRows == 1 &&
         "one 1x16 NVFP4 block");
  auto [scaleByte, multiplier] = chooseBlockScale(
      chunkAbsMax(chunk, nb.f32(0.0)), ts,
      [&](Value enc6, Value enc4, Value sfv6, Value sfv4) {
        Value e6 = accumulateError(chunk, encodeChunk(chunk, enc6, random),
                                   sfv6, ts.amax, nb.f32(0.0));
        Value e4 = accumulateError(chunk, encodeChunk(chunk, enc4, random),
                                   sfv4, ts.amax, nb.f32(0.0));
        return std::make_pair(e6, e4);
      });
  return {scaleByte, encodeChunk(chunk, multiplier, random)};
}

Value mlir::nvfp4::combineAlpha(OpBuilder &b, Location loc, Value aDecode,
                                Value bDecode, Value alpha) {
  Value result;
  for (Value factor : {aDecode, bDecode, alpha})
    if (factor)
      result = result
                   ? arith::MulFOp::create(b, loc, result, factor).getResult()
                   : factor;
  return result ? result
                : arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f))
                      .getResult();
}

bool mlir::nvfp4::isPerRowDecodeScale(Value memref, bool batched) {
  return cast<ShapedType>(memref.getType()).getRank() == (batched ? 2 : 1);
}

SmallVector<Value> mlir::nvfp4::decodeScaleIndices(Value memref, Value batch,
                                                   Value row) {
  if (isPerRowDecodeScale(memref, static_cast<bool>(batch)))
    return withBatch(batch, {row});
  return withBatch(batch, {});
}

static bool isVector(Value memref) {
  return memref && cast<ShapedType>(memref.getType()).getRank() == 1;
}

bool AlphaOperands::aPerGroup() const { return grouped && isVector(aDecode); }
bool AlphaOperands::bPerGroup() const { return grouped && isVector(bDecode); }
bool AlphaOperands::aPerRow() const { return !grouped && isVector(aDecode); }
bool AlphaOperands::bPerRow() const { return !grouped && isVector(bDecode); }

Value AlphaOperands::load(OpBuilder &b, Location loc, Value group, Value m,
                          Value n) const {
  auto factor = [&](Value memref, Value row) -> Value {
    if (!memref)
      return Value();
    Value index = grouped ? group : row;
    return memref::LoadOp::create(
        b, loc, memref, isVector(memref) ? ValueRange{index} : ValueRange{});
  };
  // In operand order (argument evaluation order is unspecified).
  Value a = factor(aDecode, m);
  Value d = factor(bDecode, n);
  return combineAlpha(b, loc, a, d, factor(alpha, group));
}

void mlir::nvfp4::fillZeros(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  auto vecType = VectorType::get({shape.back()}, type.getElementType());
  Value zeros = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(vecType, b.getZeroAttr(type.getElementType())));
  SmallVector<Value> ivs;
  std::function<void(int64_t)> nest = [&](int64_t dim) {
    if (dim == rank - 1) {
      SmallVector<Value> indices(ivs);
      indices.push_back(indexConst(b, loc, 0));
      vector::StoreOp::create(b, loc, zeros, memref, indices);
      return;
    }
    scf::ForOp::create(b, loc, indexConst(b, loc, 0),
                       indexConst(b, loc, shape[dim]), indexConst(b, loc, 1),
                       ValueRange{},
                       [&](OpBuilder &, Location, Value iv, ValueRange) {
                         ivs.push_back(iv);
                         nest(dim + 1);
                         ivs.pop_back();
                         scf::YieldOp::create(b, loc);
                       });
  };
  nest(0);
}
