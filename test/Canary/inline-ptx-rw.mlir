// Canary: nvvm.inline_ptx with rw(...) operands miscompiles in MLIR 22.
// The PTX placeholders number the rw operands first ($0 here is %acc), and
// so does the constraint string ("=f" for $0 and a "0"-tied input for it),
// but the operand list passes the rw values after the read-only ones: %acc
// lands in the "f" slot of $1 and %a is tied to $0, so the add reads the
// operands swapped. The op also has no result for the updated rw value.
// Found with RS wgmma, where it bound the A fragment to the accumulator
// zeros. The compiler therefore uses llvm.inline_asm with tied operands
// (GroupedGemmKernel.cpp) and never nvvm.inline_ptx with rw.
//
// When this test fails, upstream changed the rw lowering (PR #154358
// reworked it after 22): check that the operands now match the
// constraints and that the rw results are reachable before using it.
//
// RUN: nvfp4-opt %s --convert-nvvm-to-llvm | FileCheck %s
// CHECK-LABEL: llvm.func @rw(
// CHECK-SAME: %[[A:.*]]: f32, %[[ACC:.*]]: f32)
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "add.f32 $0, $0, $1;", "=f,f,0" %[[ACC]], %[[A]] : (f32, f32) -> f32

llvm.func @rw(%a: f32, %acc: f32) {
  nvvm.inline_ptx "add.f32 $0, $0, $1;" ro(%a : f32) rw(%acc : f32)
  llvm.return
}
