// Canary: MLIR 22 has no register-A ("RS") wgmma. nvvm.wgmma.mma_async
// takes A only as a 64-bit shared-memory descriptor (and
// nvgpu.warpgroup.mma only as a !nvgpu.warpgroup.descriptor), so the sm_90a
// GEMM, whose A operand is dequantized in registers, emits the RS form as
// llvm.inline_asm (GroupedGemmKernel.cpp, issueWgmmas).
//
// When this test fails, upstream accepts A in registers: consider replacing
// the inline asm with the op (the tied-accumulator constraints, the scale-d
// predicate and the descriptor arithmetic inside the asm must carry over;
// see wgmma-scale-d-attribute.mlir), then update this test.
//
// RUN: not nvfp4-opt %s 2>&1 | FileCheck %s
// CHECK: error: use of value '%a' expects different type than prior uses: 'i64' vs '!llvm.struct<(i32, i32, i32, i32)>'

llvm.func @rs(%a: !llvm.struct<(i32, i32, i32, i32)>, %b: i64,
              %acc: !llvm.struct<(f32, f32, f32, f32)>) -> !llvm.struct<(f32, f32, f32, f32)> {
  %r = nvvm.wgmma.mma_async %a, %b, %acc, <m = 64, n = 8, k = 16>, D [<f32>, <one>], A [<f16>, <one>, <row>], B [<f16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return %r : !llvm.struct<(f32, f32, f32, f32)>
}
