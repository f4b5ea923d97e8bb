// Canary: nvgpu.tma.create.descriptor cannot express an FP4 tensor map.
// Its data-type table (NVGPUToNVVM's elementTypeAsLLVMConstant) and the
// runtime's element sizes stop at TFLOAT32_FTZ (12); 16U4_ALIGN8B (13) is
// missing. An f4E2M1FN memref still verifies, and the lowering falls
// through llvm_unreachable in a release build and passes data type 9
// (BFLOAT16): a silent miscompile. The sm_100a GEMM therefore uses byte
// views (memref<rows x K/2 x ui8>, UINT8 = 0), which move the same packed
// bytes (docs/design/sm100-gemm.md).
//
// When this test fails, upstream handles FP4 maps (a real data type, or a
// diagnostic): update this test; the UINT8 view stays valid.
//
// RUN: nvfp4-opt %s --convert-nvgpu-to-nvvm | FileCheck %s
// CHECK: %[[DT:.*]] = llvm.mlir.constant(9 : i32) : i64
// CHECK: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %[[DT]],

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x256xf4E2M1FN, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @host_make_map(%a: memref<256x8192xf4E2M1FN>) -> !tmA {
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %u = memref.cast %a : memref<256x8192xf4E2M1FN> to memref<*xf4E2M1FN>
  %d = nvgpu.tma.create.descriptor %u box[%c128, %c256] : memref<*xf4E2M1FN> -> !tmA
  return %d : !tmA
}
