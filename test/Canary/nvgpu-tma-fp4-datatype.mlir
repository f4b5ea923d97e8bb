// Canary: nvgpu.tma.create.descriptor cannot express an FP4 tensor map.
// Its data-type table (NVGPUToNVVM's elementTypeAsLLVMConstant) and the
// runtime's element sizes stop at TFLOAT32_FTZ (12); 16U4_ALIGN8B (13) is
// missing. An f4E2M1FN memref still verifies, and the lowering falls
// through llvm_unreachable in a release build and passes data type 9
// (BFLOAT16): a silent miscompile. The sm_100a GEMM therefore uses byte
// views (memref<rows x K/2 x ui8>, UINT8 = 0), which move the same packed
// bytes (docs/design/sm100-gemm.md). Signless i8 is not in the table
// either and falls through the same way (BFLOAT16): the views must be ui8.
// Until 2026-11-24 the sm_100a maps were signless i8 views and so encoded
// BFLOAT16; the kernel-layer rebuild found it.
//
// When this test fails, upstream handles FP4 maps (a real data type, or a
// diagnostic): update this test; the UINT8 view stays valid.
//
// RUN: nvfp4-opt %s --convert-nvgpu-to-nvvm | FileCheck %s
// CHECK-LABEL: func @host_make_map
// CHECK: %[[DT:.*]] = llvm.mlir.constant(9 : i32) : i64
// CHECK: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %[[DT]],
// CHECK-LABEL: func @signless_bytes
// CHECK: %[[DT:.*]] = llvm.mlir.constant(9 : i32) : i64
// CHECK: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %[[DT]],
// CHECK-LABEL: func @unsigned_bytes
// CHECK: %[[DT:.*]] = llvm.mlir.constant(0 : i32) : i64
// CHECK: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %[[DT]],

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x256xf4E2M1FN, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @host_make_map(%a: memref<256x8192xf4E2M1FN>) -> !tmA {
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %u = memref.cast %a : memref<256x8192xf4E2M1FN> to memref<*xf4E2M1FN>
  %d = nvgpu.tma.create.descriptor %u box[%c128, %c256] : memref<*xf4E2M1FN> -> !tmA
  return %d : !tmA
}

!tmI8 = !nvgpu.tensormap.descriptor<tensor = memref<128x128xi8, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @signless_bytes(%a: memref<256x4096xi8>) -> !tmI8 {
  %c128 = arith.constant 128 : index
  %u = memref.cast %a : memref<256x4096xi8> to memref<*xi8>
  %d = nvgpu.tma.create.descriptor %u box[%c128, %c128] : memref<*xi8> -> !tmI8
  return %d : !tmI8
}

!tmU8 = !nvgpu.tensormap.descriptor<tensor = memref<128x128xui8, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @unsigned_bytes(%a: memref<256x4096xui8>) -> !tmU8 {
  %c128 = arith.constant 128 : index
  %u = memref.cast %a : memref<256x4096xui8> to memref<*xui8>
  %d = nvgpu.tma.create.descriptor %u box[%c128, %c128] : memref<*xui8> -> !tmU8
  return %d : !tmU8
}
