// Canary: nvvm.wgmma.mma_async's scale-d (D = A*B + D, or D = A*B) is a
// compile-time attribute (<one> / <zero>), not a run-time i1 predicate as
// in PTX. The sm_90a GEMM restarts the tensor-core sum every
// `promote-every` K blocks (docs/design/sm90-gemm.md, "fp32 promotion")
// with a run-time predicate, which only its inline asm can express
// (otherwise every wgmma site would be duplicated under an scf.if).
//
// When this test fails, upstream accepts a run-time scale-d: together with
// wgmma-register-a.mlir, the inline asm could become the op.
//
// RUN: not nvfp4-opt %s 2>&1 | FileCheck %s
// CHECK: error: expected '<'

llvm.func @scale_d(%a: i64, %b: i64, %p: i1,
                   %acc: !llvm.struct<(f32, f32, f32, f32)>) -> !llvm.struct<(f32, f32, f32, f32)> {
  %r = nvvm.wgmma.mma_async %a, %b, %acc, <m = 64, n = 8, k = 16>, D [<f32>, %p], A [<f16>, <one>, <row>], B [<f16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return %r : !llvm.struct<(f32, f32, f32, f32)>
}
