//===- NVFP4Attrs.td - nvfp4 attributes and enums ---------*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4ATTRS_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4ATTRS_TD

include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// Format and grouping are printed as bare keywords right after the op name,
// so they are plain (integer-backed) enum attributes.
def NVFP4_FormatAttr : I32EnumAttr<"Format",
    "NVFP4 (E4M3 scale per 16 values + fp32 tensor scale) or MXFP4 (UE8M0 "
    "scale per 32 values)", [
    I32EnumAttrCase<"nvfp4", 0>,
    I32EnumAttrCase<"mxfp4", 1>]> {
  let cppNamespace = "::mlir::nvfp4";
}

def NVFP4_RoundingEnum : I32EnumAttr<"Rounding", "E2M1 rounding mode", [
    I32EnumAttrCase<"nearest_even", 0>,
    I32EnumAttrCase<"stochastic", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nvfp4";
}
def NVFP4_RoundingAttr : EnumAttr<NVFP4_Dialect, NVFP4_RoundingEnum,
                                  "rounding"> {
  let assemblyFormat = "`<` $value `>`";
}

def NVFP4_ScaleRuleEnum : I32EnumAttr<"ScaleRule", "block scale selection", [
    I32EnumAttrCase<"max6", 0>,
    I32EnumAttrCase<"four_over_six", 1>,
    I32EnumAttrCase<"rceil", 2>,
    I32EnumAttrCase<"floor", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nvfp4";
}
def NVFP4_ScaleRuleAttr : EnumAttr<NVFP4_Dialect, NVFP4_ScaleRuleEnum,
                                   "scale_rule"> {
  let assemblyFormat = "`<` $value `>`";
}

def NVFP4_ErrorMetricEnum : I32EnumAttr<"ErrorMetric",
    "error used by four_over_six to pick a block scale", [
    I32EnumAttrCase<"mse", 0>,
    I32EnumAttrCase<"mae", 1>,
    I32EnumAttrCase<"abs_max", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nvfp4";
}
def NVFP4_ErrorMetricAttr : EnumAttr<NVFP4_Dialect, NVFP4_ErrorMetricEnum,
                                     "error_metric"> {
  let assemblyFormat = "`<` $value `>`";
}

def NVFP4_GroupingAttr : I32EnumAttr<"Grouping",
    "how the problems of a grouped matmul are laid out", [
    I32EnumAttrCase<"independent", 0>,
    I32EnumAttrCase<"contiguous", 1>,
    I32EnumAttrCase<"masked", 2>]> {
  let cppNamespace = "::mlir::nvfp4";
}

//===----------------------------------------------------------------------===//
// Scale layout encoding
//===----------------------------------------------------------------------===//

def NVFP4_Swizzled128x4Attr : AttrDef<NVFP4_Dialect, "Swizzled128x4"> {
  let mnemonic = "swizzled_128x4";
  let summary = "tensor encoding: block scales in the 128x4 tiled layout";
  let description = [{
    Marks a scale tensor of shape `[..., RT, CT, 32, 4, 4]` as the 128x4
    tiled ("swizzled") layout of a row-major scale matrix `S[R, C]` with
    `RT = ceil(R/128)` and `CT = ceil(C/4)`. Element `S[r, c]` lives at
    `[r/128, c/4, r%32, (r%128)/32, c%4]`, so the flat row-major offset is

    ```
    ((r/128)*CT + c/4)*512 + (r%32)*16 + ((r%128)/32)*4 + c%4
    ```

    which is the layout cuBLAS and CUTLASS use for block-scaled GEMMs and the
    layout `tcgen05.cp ... 32x128b.warpx4` copies into tensor memory: each
    128-row x 4-column tile is one contiguous 512-byte unit. Elements outside
    `R x C` (padding) are zero.

    Example:

    ```mlir
    // scales of a 200 x 448 NVFP4 matrix (28 scale columns)
    tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
    ```

    The attribute's static methods are the one place that computes this
    layout: the verifier, the folders, every lowering and kernel use them.
  }];
  let extraClassDeclaration = [{
    /// Rows and scale columns of one tile, and its bytes: a tile is one
    /// contiguous 512-byte unit.
    static constexpr int64_t kTileRows = 128;
    static constexpr int64_t kTileCols = 4;
    static constexpr int64_t kUnitBytes = 512;
    /// Tiles along the scale columns of a matrix with `cols` of them.
    static int64_t colTiles(int64_t cols) {
      return (cols + kTileCols - 1) / kTileCols;
    }
    /// Bytes of one row of tiles: 128 rows and every scale column.
    static int64_t rowTileBytes(int64_t cols) {
      return colTiles(cols) * kUnitBytes;
    }
    /// Byte of S[r, c] inside its unit: row r's 4-byte word (rows r,
    /// r + 32, r + 64, r + 96 share a 16-byte line), then c % 4.
    static int64_t offsetInUnit(int64_t r, int64_t c) {
      return (r % 32) * 16 + ((r % kTileRows) / 32) * 4 + c % kTileCols;
    }
    /// Flat byte offset of S[r, c] in a matrix with `cols` scale columns.
    static int64_t offset(int64_t r, int64_t c, int64_t cols) {
      return ((r / kTileRows) * colTiles(cols) + c / kTileCols) * kUnitBytes +
             offsetInUnit(r, c);
    }
    /// The same, as index arithmetic on `r` and `c`.
    static ::mlir::Value buildOffsetInUnit(::mlir::OpBuilder &b,
                                           ::mlir::Location loc,
                                           ::mlir::Value r, ::mlir::Value c);
    static ::mlir::Value buildOffset(::mlir::OpBuilder &b,
                                     ::mlir::Location loc, ::mlir::Value r,
                                     ::mlir::Value c, int64_t cols);
    /// Indices of S[r, c] in the [RT, CT, 32, 4, 4] shape.
    static ::llvm::SmallVector<::mlir::Value>
    buildIndices(::mlir::OpBuilder &b, ::mlir::Location loc, ::mlir::Value r,
                 ::mlir::Value c);
  }];
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4ATTRS_TD
