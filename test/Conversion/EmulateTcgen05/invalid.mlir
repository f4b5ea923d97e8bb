// What nvfp4-emulate-tcgen05 does not emulate is a diagnostic, never a
// silently different kernel.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-emulate-tcgen05 --verify-diagnostics
// Its tensor memory is device memory, max-ctas slices of 256 KiB: bounded.
// RUN: not nvfp4-opt %s --nvfp4-emulate-tcgen05="max-ctas=4294967297" 2>&1 | FileCheck %s --check-prefix=MAXCTAS
// RUN: not nvfp4-opt %s --nvfp4-emulate-tcgen05="max-ctas=0" 2>&1 | FileCheck %s --check-prefix=MAXCTAS
// MAXCTAS: error: nvfp4-emulate-tcgen05: max-ctas must be 1 to 4096, got {{4294967297|0}}

gpu.module @mixed_groups {
  gpu.func @k(%slot: !llvm.ptr<3>, %bar: !llvm.ptr<3>) kernel {
    %c64 = arith.constant 64 : i32
    nvvm.tcgen05.alloc %slot, %c64 {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
    // expected-error @below {{nvfp4-emulate-tcgen05: the module's tcgen05 ops mix cta_group::1 and cta_group::2 (the ISA has a kernel's use one)}}
    nvvm.tcgen05.commit %bar : !llvm.ptr<3>
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

// A forwarded cta_group::2 load counts its bytes from the map's box: the
// im2col modes (and predicated loads) are not forwarded.
gpu.module @pair_load_im2col {
  llvm.func @k(%dst: !llvm.ptr<7>, %map: !llvm.ptr, %bar: !llvm.ptr<3>, %x: i32, %o: i16) attributes {nvvm.kernel} {
    // expected-error @below {{nvfp4-emulate-tcgen05: a cta_group::2 TMA load is emulated in tile mode, unpredicated}}
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x, %x, %x] im2col[%o] {group = #nvvm.cta_group<cta_2>, mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
    llvm.return
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
