// The work units' lowering (nvfp4k.scheduler.units / .unit), executed on the
// CPU: each case prints, for every CTA, its unit count and each unit as
// (tile, k_begin, k_end, position). Expected values by hand from the
// definition (NVFP4KernelTypes.td): data-parallel CTA c takes tiles c,
// c + ctas, ... whole; stream-K cuts the tiles x k_blocks iterations into
// shares of q = ceil(T / ctas), and a unit is the part of a tile inside a
// share, at the position of its first block in the CTA's sequence; a
// cluster split gives cluster c / C tiles c / C, c / C + ctas / C, ... and
// rank c % C of it K blocks [r * k_blocks / C, (r + 1) * k_blocks / C).
// REQUIRES: mlir-runner
// RUN: nvfp4-opt %s --convert-nvfp4k-to-nvvm | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --convert-vector-to-llvm --finalize-memref-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// 3 weight tiles of one 8-token tile: 3 tiles of 5 K blocks each.
!stream = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 5, stream_k = true>
!data = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 5>
!cluster = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 5, cluster = 2>

func.func @print_units(%cta: index, %ctas: index, %n: index, %units: index) {
  %v = vector.from_elements %cta, %ctas, %n, %units : vector<4xindex>
  %w = arith.index_cast %v : vector<4xindex> to vector<4xi64>
  vector.print %w : vector<4xi64>
  return
}

func.func @print_unit(%t: index, %k0: index, %k1: index, %pos: index) {
  %v = vector.from_elements %t, %k0, %k1, %pos : vector<4xindex>
  %w = arith.index_cast %v : vector<4xindex> to vector<4xi64>
  vector.print %w : vector<4xi64>
  return
}

func.func @stream(%ctas: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = nvfp4k.scheduler.create : !stream
  %n = nvfp4k.scheduler.count %s : !stream
  scf.for %cta = %c0 to %ctas step %c1 {
    %units = nvfp4k.scheduler.units %s cta(%cta, %ctas) count(%n) : !stream
    func.call @print_units(%cta, %ctas, %n, %units) : (index, index, index, index) -> ()
    scf.for %u = %c0 to %units step %c1 {
      %t, %k0, %k1, %pos = nvfp4k.scheduler.unit %s[%u] cta(%cta, %ctas) count(%n) : !stream
      func.call @print_unit(%t, %k0, %k1, %pos) : (index, index, index, index) -> ()
    }
  }
  return
}

func.func @data(%ctas: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = nvfp4k.scheduler.create : !data
  %n = nvfp4k.scheduler.count %s : !data
  scf.for %cta = %c0 to %ctas step %c1 {
    %units = nvfp4k.scheduler.units %s cta(%cta, %ctas) count(%n) : !data
    func.call @print_units(%cta, %ctas, %n, %units) : (index, index, index, index) -> ()
    scf.for %u = %c0 to %units step %c1 {
      %t, %k0, %k1, %pos = nvfp4k.scheduler.unit %s[%u] cta(%cta, %ctas) count(%n) : !data
      func.call @print_unit(%t, %k0, %k1, %pos) : (index, index, index, index) -> ()
    }
  }
  return
}

func.func @cluster(%ctas: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = nvfp4k.scheduler.create : !cluster
  %n = nvfp4k.scheduler.count %s : !cluster
  scf.for %cta = %c0 to %ctas step %c1 {
    %units = nvfp4k.scheduler.units %s cta(%cta, %ctas) count(%n) : !cluster
    func.call @print_units(%cta, %ctas, %n, %units) : (index, index, index, index) -> ()
    scf.for %u = %c0 to %units step %c1 {
      %t, %k0, %k1, %pos = nvfp4k.scheduler.unit %s[%u] cta(%cta, %ctas) count(%n) : !cluster
      func.call @print_unit(%t, %k0, %k1, %pos) : (index, index, index, index) -> ()
    }
  }
  return
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c20 = arith.constant 20 : index
  // Stream-K, 4 CTAs: T = 15, q = 4; shares [0,4) [4,8) [8,12) [12,15).
  // CHECK:      ( 0, 4, 3, 1 )
  // CHECK-NEXT: ( 0, 0, 4, 0 )
  // CHECK-NEXT: ( 1, 4, 3, 2 )
  // CHECK-NEXT: ( 0, 4, 5, 0 )
  // CHECK-NEXT: ( 1, 0, 3, 1 )
  // CHECK-NEXT: ( 2, 4, 3, 2 )
  // CHECK-NEXT: ( 1, 3, 5, 0 )
  // CHECK-NEXT: ( 2, 0, 2, 2 )
  // CHECK-NEXT: ( 3, 4, 3, 1 )
  // CHECK-NEXT: ( 2, 2, 5, 0 )
  func.call @stream(%c4) : (index) -> ()
  // Stream-K, 20 CTAs: q = 1, one block each; CTAs 15-19 get nothing.
  // CHECK-NEXT: ( 0, 20, 3, 1 )
  // CHECK-NEXT: ( 0, 0, 1, 0 )
  // CHECK-NEXT: ( 1, 20, 3, 1 )
  // CHECK-NEXT: ( 0, 1, 2, 0 )
  // CHECK:      ( 14, 20, 3, 1 )
  // CHECK-NEXT: ( 2, 4, 5, 0 )
  // CHECK-NEXT: ( 15, 20, 3, 0 )
  // CHECK-NEXT: ( 16, 20, 3, 0 )
  // CHECK-NEXT: ( 17, 20, 3, 0 )
  // CHECK-NEXT: ( 18, 20, 3, 0 )
  // CHECK-NEXT: ( 19, 20, 3, 0 )
  func.call @stream(%c20) : (index) -> ()
  // Data-parallel, 2 CTAs: CTA 0 takes tiles 0 and 2, CTA 1 tile 1, whole.
  // CHECK-NEXT: ( 0, 2, 3, 2 )
  // CHECK-NEXT: ( 0, 0, 5, 0 )
  // CHECK-NEXT: ( 2, 0, 5, 5 )
  // CHECK-NEXT: ( 1, 2, 3, 1 )
  // CHECK-NEXT: ( 1, 0, 5, 0 )
  func.call @data(%c2) : (index) -> ()
  // Data-parallel, 4 CTAs: CTA 3 has no tile.
  // CHECK-NEXT: ( 0, 4, 3, 1 )
  // CHECK-NEXT: ( 0, 0, 5, 0 )
  // CHECK-NEXT: ( 1, 4, 3, 1 )
  // CHECK-NEXT: ( 1, 0, 5, 0 )
  // CHECK-NEXT: ( 2, 4, 3, 1 )
  // CHECK-NEXT: ( 2, 0, 5, 0 )
  // CHECK-NEXT: ( 3, 4, 3, 0 )
  func.call @data(%c4) : (index) -> ()
  // Clusters of 2, 6 CTAs: a tile per cluster, rank 0 K blocks [0, 2),
  // rank 1 [2, 5).
  // CHECK-NEXT: ( 0, 6, 3, 1 )
  // CHECK-NEXT: ( 0, 0, 2, 0 )
  // CHECK-NEXT: ( 1, 6, 3, 1 )
  // CHECK-NEXT: ( 0, 2, 5, 0 )
  // CHECK-NEXT: ( 2, 6, 3, 1 )
  // CHECK-NEXT: ( 1, 0, 2, 0 )
  // CHECK-NEXT: ( 3, 6, 3, 1 )
  // CHECK-NEXT: ( 1, 2, 5, 0 )
  // CHECK-NEXT: ( 4, 6, 3, 1 )
  // CHECK-NEXT: ( 2, 0, 2, 0 )
  // CHECK-NEXT: ( 5, 6, 3, 1 )
  // CHECK-NEXT: ( 2, 2, 5, 0 )
  %c6 = arith.constant 6 : index
  func.call @cluster(%c6) : (index) -> ()
  // Clusters of 2, 4 CTAs: cluster 0 takes tiles 0 and 2 (its ranks' ring
  // positions 0 and 2, 0 and 3), cluster 1 tile 1.
  // CHECK-NEXT: ( 0, 4, 3, 2 )
  // CHECK-NEXT: ( 0, 0, 2, 0 )
  // CHECK-NEXT: ( 2, 0, 2, 2 )
  // CHECK-NEXT: ( 1, 4, 3, 2 )
  // CHECK-NEXT: ( 0, 2, 5, 0 )
  // CHECK-NEXT: ( 2, 2, 5, 3 )
  // CHECK-NEXT: ( 2, 4, 3, 1 )
  // CHECK-NEXT: ( 1, 0, 2, 0 )
  // CHECK-NEXT: ( 3, 4, 3, 1 )
  // CHECK-NEXT: ( 1, 2, 5, 0 )
  func.call @cluster(%c4) : (index) -> ()
  return
}
