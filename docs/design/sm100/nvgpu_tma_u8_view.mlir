// nvgpu TMA path for packed FP4: the only form nvgpu.tma.create.descriptor can
// express correctly in MLIR 22.1.8 is a BYTE view of the packed data
// (memref<rows x K/2 x ui8>, box {128 B, rows}, swizzle_128b).  The lowering
// emits a call to the runtime wrapper
//   mgpuTensorMapEncodeTiledMemref(rank, desc, dataType = 0 (UINT8), interleave 0,
//                                  swizzle 3 (128B), l2promo 0, oob 0, boxDims)
// which computes byte strides from a 13-entry element-size table -- the 4-/6-bit
// types (16U4_ALIGN8B = 13, 16U4_ALIGN16B = 14, 16U6_ALIGN16B = 15) are absent
// from both NVGPUToNVVM.cpp (elementTypeAsLLVMConstant) and CudaRuntimeWrappers.cpp.
// A UINT8 map over packed bytes moves exactly the bytes a 16U4_ALIGN8B map would
// (ALIGN8B has "no gaps between packed values", cuda.h), but its inner
// coordinate is in BYTES (kb*128) rather than FP4 elements (kb*256):
// gen_gemm_kernel.py --tma-elem u8 emits that variant.
//
// Command (lowering only; host code is not a ptxas input):
//   mlir-opt nvgpu_tma_u8_view.mlir --convert-nvgpu-to-nvvm
// Relevant output (nvgpu_tma_u8_view.lowered.txt):
//   llvm.call @mgpuTensorMapEncodeTiledMemref(%rank, %desc, %c0 /*UINT8*/, %c0, %c3 /*SWIZZLE_128B*/, %c0, %c0, %box)
//   nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %mbar, box[%k, %m] : !llvm.ptr<7>, !llvm.ptr
!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x128xui8, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mbar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  func.func @host_make_map(%a: memref<256x4096xui8>) -> !tmA {
    %c128 = arith.constant 128 : index
    %u = memref.cast %a : memref<256x4096xui8> to memref<*xui8>
    %d = nvgpu.tma.create.descriptor %u box[%c128, %c128] : memref<*xui8> -> !tmA
    return %d : !tmA
  }
  gpu.module @dev [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
    gpu.func @load(%d: !tmA, %k: index, %m: index) kernel {
      %bar = nvgpu.mbarrier.create -> !mbar
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      nvgpu.mbarrier.init %bar[%c0], %c1 : !mbar
      %buf = memref.alloca() : memref<128x128xui8, 3>
      %tx = arith.constant 16384 : index
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tx : !mbar
      nvgpu.tma.async.load %d[%k, %m], %bar[%c0] to %buf : !tmA, !mbar -> memref<128x128xui8, 3>
      gpu.return
    }
  }
}
