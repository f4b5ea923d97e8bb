// inline_ptx_escape_hatch.mlir -- compile-only sm_100a prototype (MLIR/LLVM 22.1.8, ptxas 13.0).
// Generated/verified by docs/design/sm100/build.sh.
//
// Command:
//   mlir-opt inline_ptx_escape_hatch.mlir --convert-nvvm-to-llvm --gpu-module-to-binary=format=isa -o inline_ptx_escape_hatch.isa.mlir
//   python3 extract_ptx.py inline_ptx_escape_hatch.isa.mlir inline_ptx_escape_hatch.ptx
//   ptxas -arch=sm_100a -v inline_ptx_escape_hatch.ptx -o inline_ptx_escape_hatch.cubin
// ptxas said:
//   ptxas info    : 0 bytes gmem
//   ptxas info    : Compiling entry function 'escape_hatch' for 'sm_100a'
//   ptxas info    : Function properties for escape_hatch
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 8 registers, used 0 barriers
// ---- end of generated header ----
// Escape hatches for PTX that NVVM does not model, MLIR 22.1.8:
//   nvvm.inline_ptx "<ptx with $0..$n>" ro(%a, ... : types) rw(...) [, predicate = %p] -> results
//     lowered by --convert-nvvm-to-llvm to llvm.inline_asm has_side_effects with
//     constraints derived from the operand types (i32 -> "r", i64 -> "l", i1 -> "b").
//   llvm.inline_asm has_side_effects asm_dialect = att "<ptx>", "<constraints>" %args
// Example: the PTX ISA 8.7 spelling .scale_vec::4X of the NVFP4 MMA (NVVM's
// blockScale attribute only emits the 8.8 aliases .block16/.block32), and a
// single non-looping mbarrier.try_wait.parity returning a predicate.
// Not needed by the GEMM kernels: every instruction they use has an NVVM op.
module attributes {gpu.container_module} {
gpu.module @escape [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.func @escape_hatch(%d: i32, %a: i64, %b: i64, %sfa: i32, %sfb: i32, %mbar: i32, %ph: i32, %out: !llvm.ptr<1>)
      attributes {nvvm.kernel} {
    %idesc = llvm.mlir.constant(0x08400480 : i32) : i32
    %en = llvm.mlir.constant(1 : i32) : i32
    nvvm.inline_ptx "{ .reg .pred p; setp.ne.b32 p, $4, 0; tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [$0], $1, $2, $3, [$5], [$6], p; }" ro(%d, %a, %b, %idesc, %en, %sfa, %sfb : i32, i64, i64, i32, i32, i32, i32)
    %done = llvm.inline_asm has_side_effects asm_dialect = att
      "{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [$1], $2; selp.u32 $0, 1, 0, q; }", "=r,r,r" %mbar, %ph : (i32, i32) -> i32
    llvm.store %done, %out : i32, !llvm.ptr<1>
    llvm.return
  }
}
}
