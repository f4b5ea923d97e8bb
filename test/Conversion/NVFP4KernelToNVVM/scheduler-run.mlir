// The tile scheduler's lowering, executed on the CPU: convert-nvfp4k-to-nvvm
// turns the scheduler ops into scf/arith and raw loads of the group table,
// which run anywhere. Each case prints the tile count and every tile as
// (group, weight tile, row start, tile end, group start, group end); the
// expected values were derived by hand from the tile space's definition
// (NVFP4KernelTypes.td): tiles group by group, weight tile by weight tile,
// token tiles fastest; balanced token tiles of ceil(R / tiles) rows rounded
// up to the granule; run-time tables clamped to the token matrix.
// REQUIRES: mlir-runner
// RUN: nvfp4-opt %s --convert-nvfp4k-to-nvvm | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --convert-vector-to-llvm --finalize-memref-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

!contiguous = !nvfp4k.scheduler<mode = contiguous, groups = 4, rows = 300, weight_tiles = 2, weight_rows = 128, token_tile = 128, granule = 32>
!bad = !nvfp4k.scheduler<mode = contiguous, groups = 3, rows = 100, weight_tiles = 1, weight_rows = 128, token_tile = 64, granule = 0>
!masked = !nvfp4k.scheduler<mode = masked, groups = 3, rows = 100, weight_tiles = 1, weight_rows = 128, token_tile = 64, granule = 32>
!independent = !nvfp4k.scheduler<mode = independent, groups = 3, rows = 300, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 32, group_rows = [0, 200, 100]>

memref.global "private" constant @offsets : memref<5xi32> = dense<[0, 75, 75, 240, 300]>
memref.global "private" constant @bad_offsets : memref<4xi32> = dense<[-5, 80, 40, 999]>
memref.global "private" constant @masked_m : memref<3xi32> = dense<[100, 0, 70]>

func.func private @address(%m: memref<?xi32>) -> i64 {
  %p = memref.extract_aligned_pointer_as_index %m : memref<?xi32> -> index
  %a = arith.index_cast %p : index to i64
  return %a : i64
}

func.func @print_tile(%g: index, %wt: index, %start: index, %end: index,
                      %gs: index, %ge: index) {
  %v = vector.from_elements %g, %wt, %start, %end, %gs, %ge : vector<6xindex>
  %w = arith.index_cast %v : vector<6xindex> to vector<6xi64>
  vector.print %w : vector<6xi64>
  return
}

func.func @print_tile7(%g: index, %wt: index, %start: index, %end: index,
                       %gs: index, %ge: index, %first: index) {
  %v = vector.from_elements %g, %wt, %start, %end, %gs, %ge, %first : vector<7xindex>
  %w = arith.index_cast %v : vector<7xindex> to vector<7xi64>
  vector.print %w : vector<7xi64>
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index

  // Contiguous groups of 75, 0, 165 and 60 rows, 2 weight tiles, balanced
  // 128-token tiles with granule 32: the 165-row group is two tiles of 96
  // (ceil(165 / 2) = 83 -> 96); the empty group has no tile.
  // CHECK:      8
  // CHECK-NEXT: ( 0, 0, 0, 75, 0, 75 )
  // CHECK-NEXT: ( 0, 1, 0, 75, 0, 75 )
  // CHECK-NEXT: ( 2, 0, 75, 171, 75, 240 )
  // CHECK-NEXT: ( 2, 0, 171, 240, 75, 240 )
  // CHECK-NEXT: ( 2, 1, 75, 171, 75, 240 )
  // CHECK-NEXT: ( 2, 1, 171, 240, 75, 240 )
  // CHECK-NEXT: ( 3, 0, 240, 300, 240, 300 )
  // CHECK-NEXT: ( 3, 1, 240, 300, 240, 300 )
  %t0 = memref.get_global @offsets : memref<5xi32>
  %d0 = memref.cast %t0 : memref<5xi32> to memref<?xi32>
  %a0 = func.call @address(%d0) : (memref<?xi32>) -> i64
  %s0 = nvfp4k.scheduler.create %a0 : !contiguous
  %n0 = nvfp4k.scheduler.count %s0 : !contiguous
  vector.print %n0 : index
  scf.for %t = %c0 to %n0 step %c1 {
    %g, %wt, %start, %end, %gs, %ge, %f = nvfp4k.scheduler.tile %s0[%t] : !contiguous
    func.call @print_tile(%g, %wt, %start, %end, %gs, %ge) : (index, index, index, index, index, index) -> ()
  }
  // The same tiles decoded with a cursor: the group and first tile of the
  // previous decode, carried by a loop over increasing tiles (group_first is
  // the 7th value: tiles 0, 0, 2, 2, 2, 2, 6, 6), as every role of the
  // kernels walks its units; once more striding by 3 (a CTA of a grid of
  // 3); then with a cursor past the tile (group 3, first tile 6, for tiles
  // 1 and 5), which must be ignored.
  // CHECK-NEXT: ( 0, 0, 0, 75, 0, 75, 0 )
  // CHECK-NEXT: ( 0, 1, 0, 75, 0, 75, 0 )
  // CHECK-NEXT: ( 2, 0, 75, 171, 75, 240, 2 )
  // CHECK-NEXT: ( 2, 0, 171, 240, 75, 240, 2 )
  // CHECK-NEXT: ( 2, 1, 75, 171, 75, 240, 2 )
  // CHECK-NEXT: ( 2, 1, 171, 240, 75, 240, 2 )
  // CHECK-NEXT: ( 3, 0, 240, 300, 240, 300, 6 )
  // CHECK-NEXT: ( 3, 1, 240, 300, 240, 300, 6 )
  // CHECK-NEXT: ( 0, 1, 0, 75, 0, 75, 0 )
  // CHECK-NEXT: ( 2, 1, 75, 171, 75, 240, 2 )
  // CHECK-NEXT: ( 3, 1, 240, 300, 240, 300, 6 )
  // CHECK-NEXT: ( 0, 1, 0, 75, 0, 75, 0 )
  // CHECK-NEXT: ( 2, 1, 171, 240, 75, 240, 2 )
  %cur:2 = scf.for %t = %c0 to %n0 step %c1 iter_args(%g0 = %c0, %f0 = %c0) -> (index, index) {
    %g, %wt, %start, %end, %gs, %ge, %f = nvfp4k.scheduler.tile %s0[%t] from(%g0, %f0) : !contiguous
    func.call @print_tile7(%g, %wt, %start, %end, %gs, %ge, %f) : (index, index, index, index, index, index, index) -> ()
    scf.yield %g, %f : index, index
  }
  %c3s = arith.constant 3 : index
  %cur3:2 = scf.for %t = %c1 to %n0 step %c3s iter_args(%g0 = %c0, %f0 = %c0) -> (index, index) {
    %g, %wt, %start, %end, %gs, %ge, %f = nvfp4k.scheduler.tile %s0[%t] from(%g0, %f0) : !contiguous
    func.call @print_tile7(%g, %wt, %start, %end, %gs, %ge, %f) : (index, index, index, index, index, index, index) -> ()
    scf.yield %g, %f : index, index
  }
  %c5s = arith.constant 5 : index
  %stale = arith.constant 3 : index
  %stale_first = arith.constant 6 : index
  %p:7 = nvfp4k.scheduler.tile %s0[%c1] from(%stale, %stale_first) : !contiguous
  func.call @print_tile7(%p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6) : (index, index, index, index, index, index, index) -> ()
  %q:7 = nvfp4k.scheduler.tile %s0[%c5s] from(%stale, %stale_first) : !contiguous
  func.call @print_tile7(%q#0, %q#1, %q#2, %q#3, %q#4, %q#5, %q#6) : (index, index, index, index, index, index, index) -> ()

  // Where each group starts in a buffer of whole 128-row blocks per group
  // (groups 0..4: 0, 1, 1, 3, 4 blocks before them), and which group holds
  // rows 74, 75, 299 and 300 (none: 4 and start 0).
  // CHECK-NEXT: ( 0, 1, 1, 3, 4 )
  // CHECK-NEXT: ( 0, 0 )
  // CHECK-NEXT: ( 2, 75 )
  // CHECK-NEXT: ( 3, 240 )
  // CHECK-NEXT: ( 4, 0 )
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %b0 = nvfp4k.scheduler.blocks_before %s0[%c0] {block = 128 : i64} : !contiguous
  %b1 = nvfp4k.scheduler.blocks_before %s0[%c1] {block = 128 : i64} : !contiguous
  %b2 = nvfp4k.scheduler.blocks_before %s0[%c2] {block = 128 : i64} : !contiguous
  %b3 = nvfp4k.scheduler.blocks_before %s0[%c3] {block = 128 : i64} : !contiguous
  %b4 = nvfp4k.scheduler.blocks_before %s0[%c4] {block = 128 : i64} : !contiguous
  %bv = vector.from_elements %b0, %b1, %b2, %b3, %b4 : vector<5xindex>
  %bw = arith.index_cast %bv : vector<5xindex> to vector<5xi64>
  vector.print %bw : vector<5xi64>
  %rows = arith.constant dense<[74, 75, 299, 300]> : vector<4xindex>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = vector.extract %rows[%i] : index from vector<4xindex>
    %g, %gs = nvfp4k.scheduler.group_of %s0[%r] : !contiguous
    %gv = vector.from_elements %g, %gs : vector<2xindex>
    %gw = arith.index_cast %gv : vector<2xindex> to vector<2xi64>
    vector.print %gw : vector<2xi64>
  }

  // A table outside its contract ([-5, 80, 40, 999] for 100 rows): every
  // entry is clamped into the token matrix, so no tile leaves it (the
  // groups may overlap; the runner rejects such tables before a launch).
  // CHECK-NEXT: 3
  // CHECK-NEXT: ( 0, 0, 0, 64, 0, 80 )
  // CHECK-NEXT: ( 0, 0, 64, 80, 0, 80 )
  // CHECK-NEXT: ( 2, 0, 40, 100, 40, 100 )
  %t1 = memref.get_global @bad_offsets : memref<4xi32>
  %d1 = memref.cast %t1 : memref<4xi32> to memref<?xi32>
  %a1 = func.call @address(%d1) : (memref<?xi32>) -> i64
  %s1 = nvfp4k.scheduler.create %a1 : !bad
  %n1 = nvfp4k.scheduler.count %s1 : !bad
  vector.print %n1 : index
  scf.for %t = %c0 to %n1 step %c1 {
    %g, %wt, %start, %end, %gs, %ge, %f = nvfp4k.scheduler.tile %s1[%t] : !bad
    func.call @print_tile(%g, %wt, %start, %end, %gs, %ge) : (index, index, index, index, index, index) -> ()
  }

  // Masked slots of 100 rows with 100, 0 and 70 valid: the second slot has
  // no tile, the third starts at row 200.
  // CHECK-NEXT: 4
  // CHECK-NEXT: ( 0, 0, 0, 64, 0, 100 )
  // CHECK-NEXT: ( 0, 0, 64, 100, 0, 100 )
  // CHECK-NEXT: ( 2, 0, 200, 264, 200, 270 )
  // CHECK-NEXT: ( 2, 0, 264, 270, 200, 270 )
  %t2 = memref.get_global @masked_m : memref<3xi32>
  %d2 = memref.cast %t2 : memref<3xi32> to memref<?xi32>
  %a2 = func.call @address(%d2) : (memref<?xi32>) -> i64
  %s2 = nvfp4k.scheduler.create %a2 : !masked
  %n2 = nvfp4k.scheduler.count %s2 : !masked
  vector.print %n2 : index
  scf.for %t = %c0 to %n2 step %c1 {
    %g, %wt, %start, %end, %gs, %ge, %f = nvfp4k.scheduler.tile %s2[%t] : !masked
    func.call @print_tile(%g, %wt, %start, %end, %gs, %ge) : (index, index, index, index, index, index) -> ()
  }

  // Independent groups of 0, 200 and 100 rows (static): no table.
  // CHECK-NEXT: 3
  // CHECK-NEXT: ( 1, 0, 0, 128, 0, 200 )
  // CHECK-NEXT: ( 1, 0, 128, 200, 0, 200 )
  // CHECK-NEXT: ( 2, 0, 200, 300, 200, 300 )
  %s3 = nvfp4k.scheduler.create : !independent
  %n3 = nvfp4k.scheduler.count %s3 : !independent
  vector.print %n3 : index
  scf.for %t = %c0 to %n3 step %c1 {
    %g, %wt, %start, %end, %gs, %ge, %f = nvfp4k.scheduler.tile %s3[%t] : !independent
    func.call @print_tile(%g, %wt, %start, %end, %gs, %ge) : (index, index, index, index, index, index) -> ()
  }
  return
}
