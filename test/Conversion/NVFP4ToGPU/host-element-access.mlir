// On GPU targets the entry's arguments and intermediate buffers are device
// memory: a host-side element access (tensor.extract / tensor.insert on
// them) would fault at run time, so every GPU pipeline rejects it with a
// message; the CPU pipeline runs it.
// RUN: not nvfp4-opt %s --nvfp4-lower-to-gpu 2>&1 | FileCheck %s
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm90 2>&1 | FileCheck %s
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm100 2>&1 | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-lower-to-cpu | FileCheck %s --check-prefix=CPU

// CHECK: error: element-wise access to a device buffer in host code
// CHECK-NEXT: %x = tensor.extract
// CPU: llvm.func @main
func.func @main(%a: tensor<256x64xf4E2M1FN>, %sa: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %b: tensor<2x128x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %off: tensor<3xi32>, %bias: tensor<3xi32>) -> tensor<256x128xbf16> {
  %c0 = arith.constant 0 : index
  %x = tensor.extract %off[%c0] : tensor<3xi32>
  %y = tensor.extract %bias[%c0] : tensor<3xi32>
  %z = arith.addi %x, %y : i32
  %o = tensor.insert %z into %off[%c0] : tensor<3xi32>
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<256x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x128x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%o : tensor<3xi32>) -> tensor<256x128xbf16>
  return %c : tensor<256x128xbf16>
}
