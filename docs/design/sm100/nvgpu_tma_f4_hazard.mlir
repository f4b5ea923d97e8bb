// HAZARD in MLIR 22.1.8 (Debian build): nvgpu.tma.create.descriptor on an
// f4E2M1FN memref VERIFIES (the verifier knows 256 x 4 bit = 128 B for the
// swizzle check) but NVGPUToNVVM's elementTypeAsLLVMConstant has no case for
// it and ends in llvm_unreachable("Not supported data type").  In this release
// build that is undefined behaviour and the lowering silently passes data type
// 9 (= CU_TENSOR_MAP_DATA_TYPE_BFLOAT16) to mgpuTensorMapEncodeTiledMemref,
// which would then compute strides with 2-byte elements.  Do not use nvgpu for
// FP4 tensor maps; encode them on the host with cuTensorMapEncodeTiled and
// CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B (see tma_fp4_and_scales.mlir / README).
//
// Command (lowering only):
//   mlir-opt nvgpu_tma_f4_hazard.mlir --convert-nvgpu-to-nvvm
// Observed (nvgpu_tma_f4_hazard.lowered.txt):
//   %3 = llvm.mlir.constant(9 : i32) : i64            <- data type BFLOAT16 (!)
//   llvm.call @mgpuTensorMapEncodeTiledMemref(%4, %5, %3, %12, %13, %14, %15, %7)
!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x256xf4E2M1FN, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mbar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  func.func @host_make_map(%a: memref<256x8192xf4E2M1FN>) -> !tmA {
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %u = memref.cast %a : memref<256x8192xf4E2M1FN> to memref<*xf4E2M1FN>
    %d = nvgpu.tma.create.descriptor %u box[%c128, %c256] : memref<*xf4E2M1FN> -> !tmA
    return %d : !tmA
  }
  gpu.module @dev [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
    gpu.func @load(%d: !tmA, %k: index, %m: index) kernel {
      %bar = nvgpu.mbarrier.create -> !mbar
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      nvgpu.mbarrier.init %bar[%c0], %c1 : !mbar
      %buf = memref.alloca() : memref<128x256xf4E2M1FN, 3>
      %tx = arith.constant 16384 : index
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tx : !mbar
      nvgpu.tma.async.load %d[%k, %m], %bar[%c0] to %buf : !tmA, !mbar -> memref<128x256xf4E2M1FN, 3>
      gpu.return
    }
  }
}
