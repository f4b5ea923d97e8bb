// What nvfp4-emulate-tcgen05 does not emulate is a diagnostic, never a
// silently different kernel.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-emulate-tcgen05 --verify-diagnostics
// Its tensor memory is device memory, max-ctas slices of 256 KiB: bounded.
// RUN: not nvfp4-opt %s --nvfp4-emulate-tcgen05="max-ctas=4294967297" 2>&1 | FileCheck %s --check-prefix=MAXCTAS
// RUN: not nvfp4-opt %s --nvfp4-emulate-tcgen05="max-ctas=0" 2>&1 | FileCheck %s --check-prefix=MAXCTAS
// MAXCTAS: error: nvfp4-emulate-tcgen05: max-ctas must be 1 to 4096, got {{4294967297|0}}

gpu.module @pair {
  gpu.func @k(%slot: !llvm.ptr<3>) kernel {
    %c64 = arith.constant 64 : i32
    // expected-error @below {{nvfp4-emulate-tcgen05: cta_group::2 is not emulated}}
    nvvm.tcgen05.alloc %slot, %c64 {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
    gpu.return
  }
}

// -----

gpu.module @ld_shape {
  gpu.func @k(%t: !llvm.ptr<6>) kernel {
    // expected-error @below {{nvfp4-emulate-tcgen05: only tcgen05.ld.32x32b is emulated}}
    %v = nvvm.tcgen05.ld %t {shape = #nvvm.tcgen05_ldst_shape<shape_16x64b>} : vector<2xi32>
    gpu.return
  }
}

// -----

gpu.module @fp8_kind {
  gpu.func @k(%d: !llvm.ptr<6>, %a: i64, %b: i64, %i: i32, %en: i1) kernel {
    // expected-error @below {{nvfp4-emulate-tcgen05: only kind::mxf4nvf4 and kind::mxf4 are emulated}}
    nvvm.tcgen05.mma.block_scale %d, %a, %b, %i, %en, %d, %d {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf8f6f4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    gpu.return
  }
}

// -----

gpu.module @multicast_commit {
  gpu.func @k(%bar: !llvm.ptr<3>, %mask: i16) kernel {
    // expected-error @below {{nvfp4-emulate-tcgen05: multicast commit is not emulated}}
    nvvm.tcgen05.commit %bar, multicast_mask = %mask : !llvm.ptr<3>, i16
    gpu.return
  }
}

// -----

// Hardware stochastic rounding: the ISA does not say how cvt.rs uses its
// random bits, so there is nothing to emulate bit for bit.
func.func @stochastic(%v: vector<4xf32>, %r: i32) -> i16 {
  // expected-error @below {{cvt.rs (hardware stochastic rounding) is not emulated}}
  %p = nvvm.convert.f32x4.to.f4x4 %v, %r : vector<4xf32> -> i16 (f4E2M1FN)
  return %p : i16
}
