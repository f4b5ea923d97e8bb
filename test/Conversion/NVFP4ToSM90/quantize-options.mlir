// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90 --canonicalize | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="fused-quantize-max-elements=65536" --canonicalize | FileCheck %s --check-prefix=ONE
// RUN: nvfp4-opt %s --nvfp4-lower-to-sm90="fused-quantize-max-elements=65536 format=isa" | FileCheck %s --check-prefix=PIPE
// RUN: nvfp4-opt %s --nvfp4-lower-to-sm90="format=isa" | FileCheck %s --check-prefix=PIPEDEF

// The activations' own quantize is the portable kernels' (convert-nvfp4-to-gpu's
// patterns under this pass), and the pass passes its
// fused-quantize-max-elements on to them: a 16 x 4096 decode activation
// (64K elements) is the amax kernel and the quantize under the default
// bound (32K), one kernel under a bound of 64K, also through the
// pipeline's option of the same name. Neither has a memset.
// CHECK-LABEL: func @decode_activation
// CHECK-NOT: gpu.memset
// CHECK: call @nvfp4KeptZero
// CHECK-NOT: gpu.memset
// CHECK-COUNT-2: gpu.launch blocks
// ONE-LABEL: func @decode_activation
// ONE-NOT: gpu.memset
// ONE: gpu.launch blocks
// ONE-NOT: gpu.launch blocks
// ONE: return
// Lowered, the amax scratch's promise is a call of the runtime's
// nvfp4KeptZero (lib/Runner), not a memset.
// PIPEDEF: llvm.func @nvfp4KeptZero(i64, i64)
// PIPEDEF-LABEL: llvm.func @decode_activation
// PIPEDEF-NOT: mgpuMemset
// PIPEDEF: llvm.call @nvfp4KeptZero(%{{.*}}, %{{.*}}) : (i64, i64) -> ()
// PIPEDEF-NOT: mgpuMemset
// PIPEDEF: return
// PIPE-LABEL: llvm.func @decode_activation
// PIPE-NOT: mgpuMemset
// PIPE: gpu.launch_func
// PIPE-NOT: gpu.launch_func
// PIPE: return
func.func @decode_activation(%x: memref<16x4096xbf16>, %q: memref<16x4096xf4E2M1FN>, %s: memref<16x256xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x4096xf4E2M1FN>, memref<16x256xf8E4M3FN>, memref<f32>) : memref<16x4096xbf16>
  return
}
