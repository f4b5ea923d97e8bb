// Each GPU pipeline resolves its chip and PTX version in one place
// (lib/Pipelines/GPUTarget.cpp): the PTX version follows the chip, and a chip
// the pipeline cannot compile for is rejected with a message. Before, the
// NVPTX backend aborted on these ("PTX version 8.0 does not support target",
// "Cannot select: intrinsic llvm.nvvm.ff.to.e2m1x2.rn.satfinite").
// format=isa stops at PTX: no ptxas needed (test/Integration/GPUCompile
// assembles the same chips).

// The portable pipeline compiles for every chip, at the chip's PTX version
// (at least 8.0).
// RUN: nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_100a format=isa" | FileCheck %s --check-prefix=GPU-SM100A
// RUN: nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_100 format=isa" | FileCheck %s --check-prefix=GPU-SM100
// RUN: nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_101a format=isa" | FileCheck %s --check-prefix=GPU-SM101A
// RUN: nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_103a format=isa" | FileCheck %s --check-prefix=GPU-SM103A
// RUN: nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_120a format=isa" | FileCheck %s --check-prefix=GPU-SM120A
// RUN: nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_110f format=isa" | FileCheck %s --check-prefix=GPU-SM110F
// RUN: nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_80 format=isa" | FileCheck %s --check-prefix=GPU-SM80
// RUN: nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_100a features=+ptx88 format=isa" | FileCheck %s --check-prefix=GPU-PTX88
// GPU-SM100A: #nvvm.target<O = 3, chip = "sm_100a", features = "+ptx86">{{.*}}.version 8.6\0A.target sm_100a\0A
// GPU-SM100: #nvvm.target<O = 3, chip = "sm_100", features = "+ptx86">{{.*}}.version 8.6\0A.target sm_100\0A
// GPU-SM101A: #nvvm.target<O = 3, chip = "sm_101a", features = "+ptx86">{{.*}}.version 8.6\0A.target sm_101a\0A
// GPU-SM103A: #nvvm.target<O = 3, chip = "sm_103a", features = "+ptx88">{{.*}}.version 8.8\0A.target sm_103a\0A
// GPU-SM120A: #nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">{{.*}}.version 8.7\0A.target sm_120a\0A
// GPU-SM110F: #nvvm.target<O = 3, chip = "sm_110f", features = "+ptx90">{{.*}}.version 9.0\0A.target sm_110f\0A
// GPU-SM80: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">{{.*}}.version 8.0\0A.target sm_80\0A
// GPU-PTX88: #nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">{{.*}}.version 8.8\0A.target sm_100a\0A

// An explicit PTX version below the chip's, an unknown one, an unknown chip.
// RUN: not nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_100a features=+ptx80" 2>&1 | FileCheck %s --check-prefix=GPU-LOW
// RUN: not nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_120a features=+ptx86" 2>&1 | FileCheck %s --check-prefix=GPU-LOW120
// RUN: not nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_90a features=+ptx99" 2>&1 | FileCheck %s --check-prefix=GPU-BADPTX
// RUN: not nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_90a features=+ptx86,+foo" 2>&1 | FileCheck %s --check-prefix=GPU-BADFEATURE
// RUN: not nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_30" 2>&1 | FileCheck %s --check-prefix=GPU-UNKNOWN
// RUN: not nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_90x" 2>&1 | FileCheck %s --check-prefix=GPU-UNKNOWN
// GPU-LOW: error: nvfp4-lower-to-gpu: features '+ptx80' select PTX ISA 8.0, but sm_100a needs 8.6 or later
// GPU-LOW120: error: nvfp4-lower-to-gpu: features '+ptx86' select PTX ISA 8.6, but sm_120a needs 8.7 or later
// GPU-BADPTX: error: nvfp4-lower-to-gpu: features: '+ptx99' is not a PTX ISA version this compiler knows (+ptx32 to +ptx90)
// GPU-BADFEATURE: error: nvfp4-lower-to-gpu: features: '+foo' is not a feature this compiler knows (features= takes a PTX ISA version, +ptxNN; the chip is chip=)
// GPU-UNKNOWN: error: nvfp4-lower-to-gpu: unknown chip '{{sm_30|sm_90x}}'; expected one of sm_50, {{.*}}, sm_90a, sm_100, sm_100a, {{.*}}, sm_121f

// nvfp4-lower-to-sm90 needs wgmma: sm_90a only.
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm90="chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=SM90 -DCHIP=sm_100a
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm90="chip=sm_100" 2>&1 | FileCheck %s --check-prefix=SM90 -DCHIP=sm_100
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm90="chip=sm_101a" 2>&1 | FileCheck %s --check-prefix=SM90 -DCHIP=sm_101a
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm90="chip=sm_103a" 2>&1 | FileCheck %s --check-prefix=SM90 -DCHIP=sm_103a
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm90="chip=sm_120a" 2>&1 | FileCheck %s --check-prefix=SM90 -DCHIP=sm_120a
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm90="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=SM90 -DCHIP=sm_90
// RUN: not nvfp4-opt %s --pass-pipeline="builtin.module(nvfp4-lower-to-sm90{chip=sm_80})" 2>&1 | FileCheck %s --check-prefix=SM90 -DCHIP=sm_80
// RUN: nvfp4-opt %s --nvfp4-lower-to-sm90="format=isa" | FileCheck %s --check-prefix=SM90-OK
// SM90: error: nvfp4-lower-to-sm90: [[CHIP]] has no wgmma.mma_async (this compiler emits it for sm_90a); nvfp4-lower-to-gpu compiles the portable kernels for any chip
// SM90-OK: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">{{.*}}.version 8.0\0A.target sm_90a\0A

// nvfp4-lower-to-sm100 needs tcgen05 (sm_100a in MLIR 22's NVVM dialect),
// the E2M1 conversions its options ask for, and PTX 8.8.
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm100="chip=sm_100" 2>&1 | FileCheck %s --check-prefix=SM100-E2M1 -DCHIP=sm_100
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm100="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=SM100-E2M1 -DCHIP=sm_90a
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm100="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=SM100-E2M1 -DCHIP=sm_80
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm100="chip=sm_100 hardware-e2m1=false" 2>&1 | FileCheck %s --check-prefix=SM100 -DCHIP=sm_100
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm100="chip=sm_103a" 2>&1 | FileCheck %s --check-prefix=SM100 -DCHIP=sm_103a
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm100="chip=sm_120a" 2>&1 | FileCheck %s --check-prefix=SM100 -DCHIP=sm_120a
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm100="chip=sm_101a" 2>&1 | FileCheck %s --check-prefix=SM100 -DCHIP=sm_101a
// RUN: not nvfp4-opt %s --nvfp4-lower-to-sm100="features=+ptx86" 2>&1 | FileCheck %s --check-prefix=SM100-LOW
// RUN: nvfp4-opt %s --nvfp4-lower-to-sm100="format=isa" | FileCheck %s --check-prefix=SM100-OK
// RUN: nvfp4-opt %s --nvfp4-lower-to-sm100="features=+ptx90 format=isa" | FileCheck %s --check-prefix=SM100-PTX90
// SM100-E2M1: error: nvfp4-lower-to-sm100: [[CHIP]] has no tcgen05 block-scaled MMA (this compiler emits it for sm_100a) and no cvt.rn.satfinite.e2m1x2.f32 (this compiler emits it for sm_100a, {{.*}}, sm_120a, {{.*}}); nvfp4-lower-to-gpu compiles the portable kernels for any chip
// SM100: error: nvfp4-lower-to-sm100: [[CHIP]] has no tcgen05 block-scaled MMA (this compiler emits it for sm_100a); nvfp4-lower-to-gpu compiles the portable kernels for any chip
// SM100-LOW: error: nvfp4-lower-to-sm100: features '+ptx86' select PTX ISA 8.6, but the pipeline needs 8.8 or later (tcgen05.mma .block16/.block32)
// SM100-OK: #nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">{{.*}}.version 8.8\0A.target sm_100a\0A
// SM100-PTX90: #nvvm.target<O = 3, chip = "sm_100a", features = "+ptx90">{{.*}}.version 9.0\0A.target sm_100a\0A

// Hardware stochastic rounding exists on sm_100a (and sm_103a).
// RUN: nvfp4-opt %s --nvfp4-lower-to-sm100="hardware-stochastic=true format=isa" | FileCheck %s --check-prefix=SM100-OK

func.func @quantize(%x: tensor<128x64xbf16>) -> (tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<128x64xbf16> -> tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  return %q, %s, %d : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
}
