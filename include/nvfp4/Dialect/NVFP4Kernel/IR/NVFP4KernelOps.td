//===- NVFP4KernelOps.td - nvfp4k operations ---------------*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Each op says what it computes and which PTX it becomes; the lowering of
// every op is one pattern in lib/Conversion/NVFP4KernelToNVVM.
//
// Memory effects: the ops that only read memory (the scheduler's walks of
// the group table, alpha's decode scales) say so, the stores say what
// they read and write, and the pure ones are Pure or NoMemoryEffect. The
// ops that synchronize or run asynchronously (ring waits, arrivals and
// releases, TMA and bulk loads, which complete on a ring barrier,
// wgmma.rs / wgmma.wait, the tcgen05 MMA and commit, scheduler.fixup)
// keep MLIR's default of unknown effects: nothing moves across them and
// nothing removes them.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELOPS_TD
#define NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELOPS_TD

include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelTypes.td"
include "mlir/Dialect/NVGPU/IR/NVGPUTypes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelAttrs.td"

def NVFP4K_Ring : Type<CPred<"::llvm::isa<::mlir::nvfp4k::RingType>($_self)">,
                       "nvfp4k ring", "::mlir::nvfp4k::RingType">;
def NVFP4K_Scheduler
    : Type<CPred<"::llvm::isa<::mlir::nvfp4k::SchedulerType>($_self)">,
           "nvfp4k scheduler", "::mlir::nvfp4k::SchedulerType">;
def NVFP4K_SharedBytes : MemRefRankOf<[I8], [1]>;

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def NVFP4K_SharedMemoryOp : NVFP4K_KernelOp<"shared_memory", [Pure]> {
  let summary = "the kernel's dynamic shared memory, 1024-byte aligned";
  let description = [{
    The kernel's dynamic shared memory as a byte buffer whose first byte is
    1024-byte aligned (128-byte-swizzled TMA destinations and wgmma/tcgen05
    operand atoms need it). The launch must give the kernel
    `sharedMemoryLaunchBytes(size)` bytes: the size plus 1 KiB of slack for
    the run-time alignment (nothing shows the driver aligns the window).

    Lowered to an extern `.shared .align 1024` array declared in the
    enclosing `gpu.module` (`gpu.dynamic_shared_memory` becomes a static
    1-byte variable after NVPTX demotion; test/Canary pins that) and a view
    of it from the first aligned byte. One per kernel.

    Example:

    ```mlir
    %smem = nvfp4k.shared_memory : memref<209920xi8, #gpu.address_space<workgroup>>
    ```
  }];
  let results = (outs NVFP4K_SharedBytes:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The stage ring
//===----------------------------------------------------------------------===//

def NVFP4K_RingCreateOp : NVFP4K_KernelOp<"ring.create"> {
  let summary = "allocate and initialise a ring's mbarriers";
  let description = [{
    Creates the `2 * stages` mbarriers of a ring in shared memory (one
    `nvgpu.mbarrier.create` group: full barriers first, then empty ones).
    Thread 0 initialises each full barrier with an arrival count of 1 and
    each empty barrier with `consumers`, then fences the initialisation for
    the asynchronous proxy (TMA transactions and `tcgen05.commit` arrive on
    these barriers). Other threads may use the ring after a CTA barrier.

    Example:

    ```mlir
    %ring = nvfp4k.ring.create : !nvfp4k.ring<5, consumers = 8>
    ```
  }];
  let results = (outs NVFP4K_Ring:$ring);
  let assemblyFormat = "attr-dict `:` type($ring)";
}

def NVFP4K_RingStageOp : NVFP4K_KernelOp<"ring.stage", [Pure]> {
  let summary = "the stage of a ring position";
  let description = [{
    `position mod stages`: which stage buffer position `position` uses.

    Example:

    ```mlir
    %s = nvfp4k.ring.stage %ring[%i] : !nvfp4k.ring<5, consumers = 8>
    ```
  }];
  let arguments = (ins NVFP4K_Ring:$ring, Index:$position);
  let results = (outs Index:$stage);
  let assemblyFormat = "$ring `[` $position `]` attr-dict `:` type($ring)";
}

class NVFP4K_RingPositionOp<string mnemonic, string summaryText,
                            string descriptionText>
    : NVFP4K_KernelOp<mnemonic> {
  let summary = summaryText;
  let description = descriptionText;
  let arguments = (ins NVFP4K_Ring:$ring, Index:$position);
  let assemblyFormat = "$ring `[` $position `]` attr-dict `:` type($ring)";
}

def NVFP4K_RingWaitFullOp : NVFP4K_RingPositionOp<"ring.wait_full",
    "wait until a position's stage is full", [{
    Blocks until the full barrier of `position`'s stage has completed the
    phase of `position`'s round: the producer arrived and every transaction
    byte it announced landed. `mbarrier.try_wait.parity` in a loop.

    Example:

    ```mlir
    nvfp4k.ring.wait_full %ring[%i] : !nvfp4k.ring<5, consumers = 8>
    ```
  }]>;

def NVFP4K_RingWaitEmptyOp : NVFP4K_RingPositionOp<"ring.wait_empty",
    "wait until a position's stage may be refilled", [{
    Blocks until the consumers have released `position`'s stage in the
    previous round (at once in the first round: a fresh ring is empty).
    `mbarrier.try_wait.parity` on the empty barrier with the parity of the
    round before.

    Example:

    ```mlir
    nvfp4k.ring.wait_empty %ring[%i] : !nvfp4k.ring<5, consumers = 8>
    ```
  }]>;

def NVFP4K_RingReleaseOp : NVFP4K_RingPositionOp<"ring.release",
    "one consumer arrival on a position's empty barrier", [{
    One arrival (`mbarrier.arrive`) on the empty barrier of `position`'s
    stage; `consumers` arrivals release the stage. The caller decides which
    threads arrive (e.g. one lane per consumer warp).

    Example:

    ```mlir
    nvfp4k.ring.release %ring[%i] : !nvfp4k.ring<5, consumers = 8>
    ```
  }]>;

def NVFP4K_RingArriveOp : NVFP4K_RingPositionOp<"ring.arrive",
    "one producer arrival on a position's full barrier", [{
    One arrival (`mbarrier.arrive`) on the full barrier of `position`'s
    stage, announcing no transaction bytes: for producers that write the
    stage with ordinary stores (a ring of `producers` > 1 takes one arrival
    from each). A thread whose stores the tensor cores read next issues
    `fence.proxy.async.shared::cta` before arriving.

    Example:

    ```mlir
    nvfp4k.ring.arrive %ring[%i] : !nvfp4k.ring<5, consumers = 8, producers = 96>
    ```
  }]>;

def NVFP4K_RingExpectTxOp : NVFP4K_KernelOp<"ring.expect_tx"> {
  let summary = "the producer's arrival, announcing the stage's bytes";
  let description = [{
    The producer's arrival on the full barrier of `position`'s stage,
    raising its transaction count by `bytes`
    (`mbarrier.arrive.expect_tx`): the stage becomes full once the
    asynchronous copies issued for it (`nvfp4k.tma.load`,
    `nvfp4k.bulk.load`) delivered that many bytes.

    Example:

    ```mlir
    nvfp4k.ring.expect_tx %ring[%i], %bytes : !nvfp4k.ring<5, consumers = 8>
    ```
  }];
  let arguments = (ins NVFP4K_Ring:$ring, Index:$position, Index:$bytes);
  let assemblyFormat =
      "$ring `[` $position `]` `,` $bytes attr-dict `:` type($ring)";
}

//===----------------------------------------------------------------------===//
// The tile scheduler
//===----------------------------------------------------------------------===//

def NVFP4K_SchedulerCreateOp : NVFP4K_Op<"scheduler.create", [Pure]> {
  let summary = "a tile scheduler over a grouped matmul";
  let description = [{
    Binds the static tile space of the result type to the run-time group
    table: the i64 device address of `group_offsets` (contiguous, G + 1 i32)
    or `masked_m` (masked, G i32); independent groups take none. Run-time
    entries are clamped to the token matrix, so a table outside its contract
    cannot send a tile outside the operands.

    Example:

    ```mlir
    %sched = nvfp4k.scheduler.create %offsets : !nvfp4k.scheduler<mode = contiguous, groups = 8, rows = 1184, weight_tiles = 32, weight_rows = 128, token_tile = 128, granule = 32>
    ```
  }];
  let arguments = (ins Optional<I64>:$table);
  let results = (outs NVFP4K_Scheduler:$scheduler);
  let assemblyFormat = "($table^)? attr-dict `:` type($scheduler)";
  let hasVerifier = 1;
}

def NVFP4K_SchedulerCountOp
    : NVFP4K_Op<"scheduler.count", [MemoryEffects<[MemRead]>]> {
  let summary = "the number of tiles";
  let description = [{
    Tiles of all groups: `sum_g ceil(rows_g / token_tile) * weight_tiles`.
    Reads the group table.

    Example:

    ```mlir
    %n = nvfp4k.scheduler.count %sched : !nvfp4k.scheduler<...>
    ```
  }];
  let arguments = (ins NVFP4K_Scheduler:$scheduler);
  let results = (outs Index:$count);
  let assemblyFormat = "$scheduler attr-dict `:` type($scheduler)";
}

def NVFP4K_SchedulerTileOp
    : NVFP4K_Op<"scheduler.tile", [MemoryEffects<[MemRead]>]> {
  let summary = "decode tile number `t`";
  let description = [{
    Tile `t` (0 <= t < count) of the tile space: its `group`, its
    `weight_tile` (weight rows `[weight_tile * weight_rows, ...)` of the
    group's N), and its token rows `[row_start, tile_end)` of the token
    matrix. `group_start` and `group_end` bound the group's rows
    (`tile_end <= group_end`); `group_first` is the number of the group's
    first tile.

    Finding the group walks the groups' tile counts. Without a cursor the
    walk starts at group 0; with `from(%group, %group_first)`, the `group`
    and `group_first` of an earlier tile `s <= t`, it starts there, so a
    loop over increasing tiles that carries them (every role of a
    persistent kernel walks its units in increasing tile order) reads each
    group's table entries about once per CTA instead of once per tile: the
    walk of a 128-expert decode call was half of the kernel's instructions.
    A cursor past `t` (`group_first > t`) is ignored (the walk starts at
    group 0), so the cursor of any earlier decode, of a smaller tile or a
    larger one, gives the right tile.

    Example:

    ```mlir
    %g, %wt, %start, %end, %gstart, %gend, %first = nvfp4k.scheduler.tile %sched[%t] from(%g0, %first0) : !nvfp4k.scheduler<...>
    ```
  }];
  let arguments = (ins NVFP4K_Scheduler:$scheduler, Index:$tile,
                       Variadic<Index>:$cursor);
  let results = (outs Index:$group, Index:$weight_tile, Index:$row_start,
                      Index:$tile_end, Index:$group_start, Index:$group_end,
                      Index:$group_first);
  let assemblyFormat = [{
    $scheduler `[` $tile `]` (`from` `(` $cursor^ `)`)? attr-dict `:`
    type($scheduler)
  }];
  let hasVerifier = 1;
}

def NVFP4K_SchedulerBlocksBeforeOp
    : NVFP4K_Op<"scheduler.blocks_before", [MemoryEffects<[MemRead]>]> {
  let summary = "row blocks of the groups before a group";
  let description = [{
    `sum_{h < group} ceil(rows_h / block)`: where group `group` starts in a
    buffer that gives every group whole blocks of `block` rows (the
    per-group repacking of contiguous token scales that `tcgen05.cp` reads
    in 128-row units).

    Example:

    ```mlir
    %b = nvfp4k.scheduler.blocks_before %sched[%g] {block = 128 : i64} : !nvfp4k.scheduler<...>
    ```
  }];
  let arguments = (ins NVFP4K_Scheduler:$scheduler, Index:$group,
                       ConfinedAttr<I64Attr, [IntPositive]>:$block);
  let results = (outs Index:$blocks);
  let assemblyFormat =
      "$scheduler `[` $group `]` attr-dict `:` type($scheduler)";
}

def NVFP4K_SchedulerGroupOfOp
    : NVFP4K_Op<"scheduler.group_of", [MemoryEffects<[MemRead]>]> {
  let summary = "the group a token-matrix row belongs to";
  let description = [{
    The group whose rows hold token-matrix row `row`, and that group's first
    row; `groups` and 0 when no group holds it (past the groups' rows, or
    between a contiguous table's clamped entries). Empty groups hold no
    row.

    Example:

    ```mlir
    %g, %start = nvfp4k.scheduler.group_of %sched[%row] : !nvfp4k.scheduler<...>
    ```
  }];
  let arguments = (ins NVFP4K_Scheduler:$scheduler, Index:$row);
  let results = (outs Index:$group, Index:$group_start);
  let assemblyFormat =
      "$scheduler `[` $row `]` attr-dict `:` type($scheduler)";
}

def NVFP4K_SchedulerUnitsOp : NVFP4K_Op<"scheduler.units", [NoMemoryEffect]> {
  let summary = "the number of work units of a CTA";
  let description = [{
    How many work units (a tile and a range of its K blocks) CTA `cta` of
    `ctas` takes, given the space's `count` tiles (the result of
    `nvfp4k.scheduler.count`). The space must have `k_blocks`.

    Data-parallel: `ceil((count - cta) / ctas)` tiles (none past `count`).
    `stream_k`: the CTA's share of the `count * k_blocks` iterations is
    `[begin, end)` with `q = ceil(count * k_blocks / ctas)`,
    `begin = min(cta * q, T)`, `end = min(begin + q, T)`; its units are the
    tiles that share touches.

    Example:

    ```mlir
    %units = nvfp4k.scheduler.units %sched cta(%bid, %grid) count(%n) : !nvfp4k.scheduler<...>
    ```
  }];
  let arguments = (ins NVFP4K_Scheduler:$scheduler, Index:$cta, Index:$ctas,
                       Index:$count);
  let results = (outs Index:$units);
  let assemblyFormat = [{
    $scheduler `cta` `(` $cta `,` $ctas `)` `count` `(` $count `)` attr-dict
    `:` type($scheduler)
  }];
  let hasVerifier = 1;
}

def NVFP4K_SchedulerUnitOp : NVFP4K_Op<"scheduler.unit", [Pure]> {
  let summary = "work unit `u` of a CTA";
  let description = [{
    Work unit `unit` (0 <= unit < the CTA's `nvfp4k.scheduler.units`): the
    tile it works on (decode it with `nvfp4k.scheduler.tile`), the K blocks
    `[k_begin, k_end)` it sums, and `position`, the number of K blocks the
    CTA's earlier units took: the ring position of the unit's first block
    for every role that walks the CTA's units in order.

    Data-parallel: tile `cta + unit * ctas`, all `k_blocks`, position
    `unit * k_blocks`. `stream_k` (see `nvfp4k.scheduler.units`): tile
    `begin / k_blocks + unit`, the blocks of the share inside it, position
    `tile * k_blocks + k_begin - begin`.

    Example:

    ```mlir
    %t, %k0, %k1, %pos = nvfp4k.scheduler.unit %sched[%u] cta(%bid, %grid) count(%n) : !nvfp4k.scheduler<...>
    ```
  }];
  let arguments = (ins NVFP4K_Scheduler:$scheduler, Index:$unit, Index:$cta,
                       Index:$ctas, Index:$count);
  let results = (outs Index:$tile, Index:$k_begin, Index:$k_end,
                      Index:$position);
  let assemblyFormat = [{
    $scheduler `[` $unit `]` `cta` `(` $cta `,` $ctas `)` `count` `(` $count
    `)` attr-dict `:` type($scheduler)
  }];
  let hasVerifier = 1;
}

def NVFP4K_SchedulerFixupOp : NVFP4K_KernelOp<"scheduler.fixup",
    [AllTypesMatch<["accumulator", "result"]>]> {
  let summary = "sum a stream-K tile's partial accumulators in K order";
  let description = [{
    Completes the accumulator of a work unit (`tile`, K blocks
    `[k_begin, k_end)` of CTA `cta`, as `nvfp4k.scheduler.unit` gave it),
    called by the `threads` threads that hold the tile's accumulator,
    `thread` being the caller's index among them; `accumulator` is its
    share (any register layout: every CTA uses the same one).

    * A unit that covers all `k_blocks` of its tile returns `accumulator`
      and `true`.
    * Otherwise the tile's blocks fall to CTAs `c_first .. c_last` (the
      shares holding its first and last block). Each stores its partial in
      `workspace` (the i64 address of `2 * ctas * threads * N` f32: slot
      `2 c + w`, where `w` is 0 for the tile the CTA's share starts in and
      1 for the tile it ends in; element `e` of thread `x` at
      `e * threads + x`), makes it visible at GPU scope, and counts itself
      on the tile's flag, `flags[c_first]` (the i64 address of `ctas` i32,
      zero before the launch). The CTA that arrives last sets the flag back
      to 0 and returns the sum of the partials of `c_first, ..., c_last` in
      that order (each an fp32 add, its own partial from registers) and
      `true`; the others return `accumulator` and `false`. Summing in the
      order of K, whichever CTA comes last, makes the result the same on
      every run. No CTA waits for another, so the grid need not be
      co-resident.

    `flag` is one shared i32 word for the broadcast; `barrier` the named
    barrier (1..15) the `threads` threads synchronise on. Must be called
    uniformly by all of them.

    Example:

    ```mlir
    %sum, %owner = nvfp4k.scheduler.fixup %sched[%t] cta(%bid, %grid) count(%n) k(%k0, %k1) %acc workspace(%ws) flags(%flags) flag(%word) thread(%x) {barrier = 1 : i64, threads = 256 : i64} : !nvfp4k.scheduler<...>, vector<8xf32>, memref<1xi32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins NVFP4K_Scheduler:$scheduler, Index:$tile, Index:$cta,
                       Index:$ctas, Index:$count, Index:$k_begin,
                       Index:$k_end, VectorOfRankAndType<[1], [F32]>:$accumulator,
                       I64:$workspace, I64:$flags,
                       MemRefRankOf<[I32], [1]>:$flag, Index:$thread,
                       ConfinedAttr<I64Attr, [IntPositive]>:$threads,
                       ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<15>]>:$barrier);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result, I1:$owner);
  let assemblyFormat = [{
    $scheduler `[` $tile `]` `cta` `(` $cta `,` $ctas `)` `count` `(` $count
    `)` `k` `(` $k_begin `,` $k_end `)` $accumulator `workspace` `(`
    $workspace `)` `flags` `(` $flags `)` `flag` `(` $flag `)` `thread` `(`
    $thread `)` attr-dict `:` type($scheduler) `,` type($accumulator) `,`
    type($flag)
  }];
  let hasVerifier = 1;
}

def NVFP4K_SchedulerClusterSumOp
    : NVFP4K_KernelOp<
          "scheduler.cluster_sum", [AllTypesMatch<["accumulator", "result"]>]> {
  let summary = "sum a cluster's partial accumulators of a tile in rank order";
  let description = [{
    Completes the accumulator of a tile whose K blocks the `cluster` CTAs of
    a thread-block cluster split (a scheduler with `cluster` = C > 1, see
    `nvfp4k.scheduler`), called by the `threads` threads of each CTA that
    hold the tile's accumulator, `thread` being the caller's index among
    them and `accumulator` its share (the same register layout in every
    CTA). The threads are cut into C slices of `threads / C`; the CTA of
    rank `o` owns slice `o`. A thread of a slice another CTA owns stores its
    share into that CTA's `buffer` (distributed shared memory; `buffer`
    holds `(C - 1) * (threads / C) * N` f32: the slice's shares from the
    C - 1 other ranks, in rank order, element `e` of slice thread `x` at
    `(e / 4) * 4 * (threads / C) + 4 * x + e % 4` of its slot); then the
    cluster synchronises (`barrier.cluster`: release, acquire), and a
    thread of the CTA's own slice returns the sum of the C shares of its
    position in rank order (rank 0's plus rank 1's, ...: each an fp32 add,
    its own from registers) and `true`; the others return `accumulator`
    and `false`.

    The op uses two phases of the cluster barrier: before its stores it
    waits for the first, at which every thread of the cluster arrived
    (`nvvm.cluster.arrive.relaxed`) when its kernel started, so that every
    CTA of the cluster runs; then the second. Every thread of the cluster
    that does not call the op must take both phases in its place (wait,
    then `nvvm.cluster.arrive`) or have exited, and each CTA calls the op
    at most once: no CTA reads `buffer` or is written to after the second
    phase, so each may exit after it. `threads` must be a multiple of
    32 * C (slices of whole warps).

    Example:

    ```mlir
    %sum, %owner = nvfp4k.scheduler.cluster_sum %sched %acc buffer(%buf) thread(%x) {threads = 256 : i64} : !nvfp4k.scheduler<...>, vector<8xf32>, memref<1536xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins NVFP4K_Scheduler:$scheduler,
      VectorOfRankAndType<[1], [F32]>:$accumulator,
      MemRefRankOf<[F32], [1]>:$buffer, Index:$thread,
      ConfinedAttr<I64Attr, [IntPositive]>:$threads);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result, I1:$owner);
  let assemblyFormat = [{
    $scheduler $accumulator `buffer` `(` $buffer `)` `thread` `(` $thread `)`
    attr-dict `:` type($scheduler) `,` type($accumulator) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Operand loads
//===----------------------------------------------------------------------===//

def NVFP4K_TmaLoadOp : NVFP4K_KernelOp<"tma.load"> {
  let summary = "a TMA tile load completing on a ring stage";
  let description = [{
    Copies the box of `map` at `coordinates` (innermost first, in elements
    of the map's element type) into the shared-memory `destination`
    (`cp.async.bulk.tensor`), completing its bytes on the full barrier of
    `position`'s stage. Elements outside the tensor are zero. The producer
    announces the box's bytes with `nvfp4k.ring.expect_tx` first.

    Example:

    ```mlir
    nvfp4k.tma.load %map[%k, %row], %dst, %ring[%i] : !nvgpu.tensormap.descriptor<...>, memref<128x64xf16, #gpu.address_space<workgroup>>, !nvfp4k.ring<5, consumers = 8>
    ```
  }];
  let arguments = (ins NVGPU_TensorMapDescriptor:$map,
                       Variadic<Index>:$coordinates,
                       AnyMemRef:$destination, NVFP4K_Ring:$ring,
                       Index:$position);
  let assemblyFormat = [{
    $map `[` $coordinates `]` `,` $destination `,` $ring `[` $position `]`
    attr-dict `:` type($map) `,` type($destination) `,` type($ring)
  }];
  let hasVerifier = 1;
}

def NVFP4K_BulkLoadOp : NVFP4K_KernelOp<"bulk.load"> {
  let summary = "a 1-D bulk copy completing on a ring stage";
  let description = [{
    Copies `bytes` contiguous bytes from the global address `source` (i64)
    to the start of the shared-memory `destination`
    (`cp.async.bulk.shared::cluster.global`), completing on the full barrier
    of `position`'s stage. `bytes` is a multiple of 16 and at most the
    destination's size; both addresses are 16-byte aligned.

    Example:

    ```mlir
    nvfp4k.bulk.load %src, %dst, %bytes, %ring[%i] : memref<1024xi8, #gpu.address_space<workgroup>>, !nvfp4k.ring<5, consumers = 8>
    ```
  }];
  let arguments = (ins I64:$source, NVFP4K_SharedBytes:$destination,
                       Index:$bytes, NVFP4K_Ring:$ring, Index:$position);
  let assemblyFormat = [{
    $source `,` $destination `,` $bytes `,` $ring `[` $position `]`
    attr-dict `:` type($destination) `,` type($ring)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// sm_90a: register-A wgmma on exactly dequantized fragments
//===----------------------------------------------------------------------===//

def NVFP4K_FragmentALoadOp
    : NVFP4K_KernelOp<"fragment_a.load", [MemoryEffects<[MemRead]>,
                                          AttrSizedOperandSegments]> {
  let summary = "a sm_90a consumer thread's weight codes and scale bytes from a stage";
  let description = [{
    The share of a 128-row x 128-K weight stage that one consumer thread
    turns into wgmma register-A fragments (`nvfp4k.dequant.fragment_a`):
    thread `thread` (0..127) of warpgroup `warpgroup` (0, 1) holds rows
    `rho = 64 warpgroup + 8 (thread / 32) + (thread % 32) / 4` and
    `rho + 32` of the tile, and of each the 16 code bytes `16 c .. 16 c + 15`
    of the row's 64 (`c = thread % 4`: 16-element chunks `2c`, `2c + 1`).
    `codes` is the stage's code tile (128 rows of 64 bytes, as i32 words);
    `scales` its block scales in the 128x4-swizzled layout (NVFP4: two
    512-byte units, chunks 0-3 and 4-7; MXFP4: one unit, one E8M0 byte per
    32 elements).

    Results: `row_codes[r]` the 4 code words of row `rho + 32 r`;
    `scale_bytes` the four scale bytes in the order `dequant.fragment_a`
    takes them, low half first: (rho, chunk 2c), (rho + 32, 2c), then
    (rho, 2c + 1), (rho + 32, 2c + 1) (MXFP4: the row's one byte for both).
    Scale bytes of rows at or past `rows` (when given: the tile's rows that
    exist) and, where `tail` is true, of chunks at or past `tail_chunks`
    (the chunks of the operand's last, partial stage) are 0, which makes
    their codes contribute 0 (the codes there are the TMA box's zeros).

    Example:

    ```mlir
    %codes, %bytes = nvfp4k.fragment_a.load %words, %scales[%warpgroup, %thread] rows(%n) tail(%last) {tail_chunks = 2 : i64} : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    ```
  }];
  let arguments = (ins MemRefRankOf<[I32], [1]>:$codes,
                       MemRefRankOf<[I32], [1]>:$scales, Index:$warpgroup,
                       Index:$thread, Optional<Index>:$rows,
                       Optional<I1>:$tail,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<7>]>>:$tail_chunks,
                       UnitAttr:$mxfp4);
  let results = (outs VectorOfRankAndType<[2], [I32]>:$row_codes,
                      I32:$scale_bytes);
  let assemblyFormat = [{
    $codes `,` $scales `[` $warpgroup `,` $thread `]`
    (`rows` `(` $rows^ `)`)? (`tail` `(` $tail^ `)`)? attr-dict `:`
    type($codes) `,` type($scales) `->` type($row_codes)
  }];
  let builders = [
    OpBuilder<(ins "Value":$codes, "Value":$scales, "Value":$warpgroup,
                   "Value":$thread, "Value":$rows, "Value":$tail,
                   "int64_t":$tailChunks, "bool":$mxfp4)>
  ];
  let hasVerifier = 1;
}

def NVFP4K_DequantFragmentAOp : NVFP4K_KernelOp<"dequant.fragment_a", [Pure]> {
  let summary = "exact f16 or bf16 wgmma A fragments from packed E2M1 codes";
  let description = [{
    Dequantizes the register-A fragments of `2 * W` consecutive k16 steps of
    `wgmma.m64nNk16.f16` for one thread. `codes[r][w]` (r = 0, 1: the
    thread's fragment rows `g` and `g + 8`) holds 8 E2M1 codes, the code of
    value j in bits `4j .. 4j+3`; `scales[r]` is row r's E4M3 block scale.
    Result row `s = 2w + p` is step s's fragment `a0 .. a7`, where slot
    `t` (0..3) of row r is value `2t + p` of `codes[r][w]`:

    ```
    a0, a1 = (r0, t0), (r0, t1)   a2, a3 = (r1, t0), (r1, t1)
    a4, a5 = (r0, t2), (r0, t3)   a6, a7 = (r1, t2), (r1, t3)
    ```

    each `e2m1 * scale`, exact in f16 and in bf16 (at most 6 significant
    bits, in [2^-10, 2688]). The token operand must hold the same K
    permutation. f16 fragments are lowered to bit operations that place
    each code in an E4M3 bit pattern (`e2m1 * 2^-6`),
    `cvt.rn.f16x2.e4m3x2`, and `mul.f16x2` by `scale * 2^6` (exact); bf16
    ones (the A operand of a bf16 wgmma: weight-only matmuls on bf16
    activations) place each code in a bf16 bit pattern (`e2m1 * 2^-126`,
    subnormal for codes below 1), then `mul.bf16x2` by `2^126` and by the
    scale (both exact; the scale widened once per block through f16 and
    f32). E8M0 scales (MXFP4 weights: 2^(e - 127), a range only bf16
    holds) take bf16 fragments only: the scale is the bf16 pattern `e << 7`
    (`0x0040`, the subnormal 2^-127, for e = 0; NaN for e = 255), and the
    products are exact down to the smallest, 2^-128 (a bf16 subnormal), and
    overflow to infinity where fp32's would (at 2^128).

    Example:

    ```mlir
    %a = nvfp4k.dequant.fragment_a %codes, %scales : vector<2x2xi32>, vector<2xf8E4M3FN> -> vector<4x8xf16>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[2], [I32]>:$codes,
                       VectorOfLengthAndType<[2], [F8E4M3FN, F8E8M0FNU]>:$scales);
  let results = (outs VectorOfRankAndType<[2], [F16, BF16]>:$fragments);
  let assemblyFormat = [{
    $codes `,` $scales attr-dict `:` type($codes) `,` type($scales) `->`
    type($fragments)
  }];
  let hasVerifier = 1;
}

def NVFP4K_DequantCodesOp : NVFP4K_Op<"dequant.codes", [Pure]> {
  let summary = "eight E2M1 codes times an E4M3 scale, exactly in f16";
  let description = [{
    Value j of the result is `e2m1(code j) * scale`, where code j is bits
    `4j .. 4j+3` of `codes` (the packing of section 1 of docs/spec.md: a
    little-endian word of packed FP4 bytes). Every such product is exact in
    f16 (at most 6 significant bits, in [2^-10, 2688]). Lowered as
    `nvfp4k.dequant.fragment_a` is: each code placed in an E4M3 bit pattern
    (`e2m1 * 2^-6`), `cvt.rn.f16x2.e4m3x2`, `mul.f16x2` by `scale * 2^6`.

    Example:

    ```mlir
    %v = nvfp4k.dequant.codes %word, %scale : i32, f8E4M3FN -> vector<8xf16>
    ```
  }];
  let arguments = (ins I32:$codes, F8E4M3FN:$scale);
  let results = (outs VectorOfLengthAndType<[8], [F16]>:$values);
  let assemblyFormat = [{
    $codes `,` $scale attr-dict `:` type($codes) `,` type($scale) `->`
    type($values)
  }];
}

def NVFP4K_StoreTokensOp
    : NVFP4K_KernelOp<"store_tokens", [MemoryEffects<[MemWrite]>]> {
  let summary = "16 token values into the sm_90a MMA's B tile";
  let description = [{
    Stores the 16 values of chunk `chunk` (0..7: K values
    `16 chunk .. 16 chunk + 15` of a 128-wide K block) of token row `row`
    into `tile`, the stage's B operand of `nvfp4k.wgmma.rs`: `[rows, 128]`
    f16 held as two `[rows, 64]` atoms with the 128-byte swizzle (the bytes
    two TMA boxes of 64 columns write), K permuted inside the block as
    `nvfp4k.dequant.fragment_a` orders the A fragments
    (`nvfp4k::wgmmaFragmentK`). Value pairs `(j, j + 2)` are adjacent there:
    eight 32-bit shared stores. For kernels that produce the token operand
    themselves (converted from FP4, or quantized): the writing threads
    fence for the asynchronous proxy before the wgmmas read it.

    Example:

    ```mlir
    nvfp4k.store_tokens %v, %tile[%row, %chunk] : vector<16xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[16], [F16]>:$values,
                       MemRefRankOf<[F16], [2]>:$tile, Index:$row,
                       Index:$chunk);
  let assemblyFormat = [{
    $values `,` $tile `[` $row `,` $chunk `]` attr-dict `:` type($values) `,`
    type($tile)
  }];
  let hasVerifier = 1;
}

def NVFP4K_WgmmaRSOp : NVFP4K_KernelOp<"wgmma.rs", [AttrSizedOperandSegments]> {
  let summary = "one MMA step of register-A wgmma over k16 steps";
  let description = [{
    The MMA step of the sm_90a kernel: `wgmma.fence`, then for each k16
    step s (rows of `a`) one
    `wgmma.mma_async.sync.aligned.m64n<N>k16.f32.f16.f16` (`.bf16.bf16`
    for bf16 fragments and tile) with the A fragment `a[s]` from registers and B from shared memory through
    `descriptor`, then `wgmma.commit_group`. The B tile is K-major with a
    128-byte swizzle, stored as consecutive `[rows, 64]` atoms along K (the
    layout TMA boxes of 64 f16 columns give): step s reads columns
    `k_offset + 16 s` of it. The accumulator is `accumulator`'s first N/2
    elements (the m64nNk16 D fragment of this thread); the rest pass
    through, so that tiles of several widths share one register array.

    `n` lists the widths the step can run; with more than one, `width`
    (0-based) picks one at run time (a uniform branch). Without `scale_d`
    every step accumulates; with it, the first step computes `A*B + D` when
    `scale_d` is true and `A*B` when false. The wgmmas run asynchronously:
    read the result only after a covering `wgmma.wait_group`, and keep `a`
    unmodified until then.

    Upstream gap: MLIR 22's wgmma ops take A only from shared memory, so the
    lowering is `llvm.inline_asm` with the accumulators tied (the constraint
    shape of upstream's SS lowering); the step's descriptor offset is added
    inside the asm (added in LLVM IR, the sums became 64-bit loop
    invariants that ptxas moved to uniform registers before every wgmma).

    Example:

    ```mlir
    %d = nvfp4k.wgmma.rs %acc, %a, %desc width(%w) scale_d(%first) {k_offset = 64 : i64, n = array<i64: 32, 64, 96, 128>} : vector<64xf32>, vector<4x8xf16>, !nvgpu.warpgroup.descriptor<tensor = memref<128x128xf16, #gpu.address_space<workgroup>>> -> vector<64xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$accumulator,
                       VectorOfRankAndType<[2], [F16, BF16]>:$a,
                       NVGPU_WarpgroupMatrixDescriptor:$descriptor,
                       Optional<Index>:$width, Optional<I1>:$scale_d,
                       DenseI64ArrayAttr:$n, I64Attr:$k_offset);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $accumulator `,` $a `,` $descriptor (`width` `(` $width^ `)`)?
    (`scale_d` `(` $scale_d^ `)`)? attr-dict `:` type($accumulator) `,`
    type($a) `,` type($descriptor) `->` type($result)
  }];
  let hasVerifier = 1;
}

def NVFP4K_WgmmaWaitOp : NVFP4K_KernelOp<"wgmma.wait",
    [AllTypesMatch<["values", "results"]>]> {
  let summary = "wait for wgmma groups, ordering register values after it";
  let description = [{
    `wgmma.wait_group.sync.aligned pending`: blocks until at most `pending`
    committed wgmma groups of the warpgroup are still running. Each of
    `values` (32-bit scalars or vectors of them) comes out unchanged, but
    as a result of the wait: what is computed from a result cannot be
    scheduled before it.

    That is how the register operands of an asynchronous wgmma are kept
    safe. Accumulators are defined by the wgmmas in flight and may be read
    only after a covering wait: pass them through it. A register-A
    fragment must not be rewritten while a wgmma still reads it: pass the
    inputs of the next fragment through the wait that covers the wgmma
    reading the previous one (in PTX, a loop rewrites the same registers
    every iteration). NVVM's wait op has no operands, so LLVM could move
    either across it.

    Example:

    ```mlir
    %acc2 = nvfp4k.wgmma.wait %acc {pending = 0 : i64} : vector<64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[I32, F32, VectorOfAnyRankOf<[I32, F32]>]>>:$values,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let results = (outs Variadic<AnyTypeOf<[I32, F32, VectorOfAnyRankOf<[I32, F32]>]>>:$results);
  let assemblyFormat = [{
    ($values^)? attr-dict (`:` type($values)^)?
  }];
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$values, "int64_t":$pending), [{
      build($_builder, $_state, values.getTypes(), values,
            $_builder.getI64IntegerAttr(pending));
    }]>
  ];
}

//===----------------------------------------------------------------------===//
// sm_100a: tcgen05 block-scaled MMA
//===----------------------------------------------------------------------===//

def NVFP4K_Tcgen05ScaledMmaOp : NVFP4K_KernelOp<"tcgen05.scaled_mma"> {
  let summary = "one K stage of block-scaled tcgen05 MMAs, with its scale copy";
  let description = [{
    The MMA step of the sm_100a kernel, for the ring stage whose operands
    sit in shared memory: `a` (128 weight rows) and `b` (`n` tokens), each
    row one 128-byte swizzle atom of K = 256 FP4 values (TMA's 128B swizzle,
    K-major), and their scale units `a_scales` and `b_scales` (512-byte
    units of the 128x4 swizzled layout: `units` per 128 rows, `b` with
    `b_scale_blocks` 128-row blocks, block-major).

    1. `tcgen05.cp.cta_group::1.32x128b.warpx4` copies each unit (A's, then
       B's) to 4 columns of tensor memory from `scale_columns` on (one
       unit per 32 rows x 16 bytes, replicated to the 4 lane quarters);
    2. for each K step j < `steps` of 64 values:
       `tcgen05.mma.cta_group::1.block_scale` (`block16` for
       NVFP4, `kind::mxf4nvf4`; `block32` for MXFP4, `kind::mxf4`, with
       `mxfp4`), M = 128, N = `n`,
       A and B through shared-memory descriptors (K-major, 128B swizzle,
       SBO 1024 B, +32 B per step), scales from A's and B's unit of the
       step (plus `b_scale_offset` columns: where a 64-token tile starts
       inside its 128-row block), accumulating into tensor memory at
       `accumulator` except in the first step of the whole K
       (`first_step` = 0).

    The stage is number `k_stage` along K: its steps are
    `k_stage * steps + j`, its units `k_stage * units + u`. Steps at or past
    `total_steps` and units at or past `total_units` (the last stage of a K
    that is not a multiple of 256) are skipped. The
    instruction descriptor (E2M1 operands, UE4M3 or UE8M0 scales, M, N, the
    scale-factor ids) is built here and nowhere else.

    Example:

    ```mlir
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %ks, %shift {b_scale_blocks = 1 : i64, n = 128 : i64, steps = 4 : i64, total_steps = 112 : i64, total_units = 112 : i64, units = 4 : i64} : memref<128x128xi8, #gpu.address_space<workgroup>>, memref<128x128xi8, #gpu.address_space<workgroup>>, memref<2048xi8, #gpu.address_space<workgroup>>, memref<2048xi8, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins I32:$accumulator, AnyMemRef:$a, AnyMemRef:$b,
                       NVFP4K_SharedBytes:$a_scales,
                       NVFP4K_SharedBytes:$b_scales, I32:$scale_columns,
                       Index:$k_stage, I32:$b_scale_offset,
                       UnitAttr:$mxfp4, I64Attr:$n,
                       I64Attr:$steps, I64Attr:$total_steps,
                       I64Attr:$units, I64Attr:$total_units,
                       I64Attr:$b_scale_blocks);
  let assemblyFormat = [{
    $accumulator `,` $a `,` $b `,` $a_scales `,` $b_scales `,`
    $scale_columns `,` $k_stage `,` $b_scale_offset attr-dict `:`
    type($a) `,` type($b) `,` type($a_scales) `,` type($b_scales)
  }];
  let hasVerifier = 1;
}

def NVFP4K_Tcgen05CommitOp : NVFP4K_KernelOp<"tcgen05.commit"> {
  let summary = "arrive on a ring barrier once earlier tcgen05 ops complete";
  let description = [{
    `tcgen05.commit.cta_group::1.mbarrier::arrive::one` on the full or the
    empty barrier of `position`'s stage: one arrival once every tcgen05
    operation this thread issued before has completed (the MMAs that read
    a stage release it; the last MMAs of a tile fill an accumulator ring).

    Example:

    ```mlir
    nvfp4k.tcgen05.commit %ring[%i], <empty> : !nvfp4k.ring<6, consumers = 1>
    ```
  }];
  let arguments = (ins NVFP4K_Ring:$ring, Index:$position,
                       NVFP4K_RingBarrierAttr:$barrier);
  let assemblyFormat = [{
    $ring `[` $position `]` `,` $barrier attr-dict `:` type($ring)
  }];
}

//===----------------------------------------------------------------------===//
// Epilogue
//===----------------------------------------------------------------------===//

def NVFP4K_AlphaOp : NVFP4K_Op<"alpha", [AttrSizedOperandSegments,
                                         MemoryEffects<[MemRead]>]> {
  let summary = "the fp32 alpha of a group";
  let description = [{
    `fl(fl(a_decode * b_decode) * alpha)` of group `group` (docs/spec.md
    2.7), each missing factor 1. The factors are i64 device addresses of f32
    arrays (`a_decode` may also be the f32 value itself, computed in the
    kernel): `a_decode` indexed by the group when `a_decode_per_group` is
    set, by the output row `row` when `a_decode_per_row` is (row-scaled A),
    element 0 otherwise; `b_decode` likewise with `b_decode_per_group`, or
    `b_decode_per_row` and the output column `column` (row-scaled B);
    `alpha` always by the group. The caller keeps `row` and `column` inside
    the arrays.

    Example:

    ```mlir
    %alpha = nvfp4k.alpha %g b_decode(%db) {b_decode_per_group} : f32
    %fused = nvfp4k.alpha %g a_decode(%sdec : f32) b_decode(%db) : f32
    %e = nvfp4k.alpha %g a_decode(%da) b_decode(%db) row(%m) column(%n)
        {a_decode_per_row, b_decode_per_row} : f32
    ```
  }];
  let arguments = (ins Index:$group, Optional<AnyTypeOf<[I64, F32]>>:$a_decode,
                       Optional<I64>:$b_decode, Optional<I64>:$alpha,
                       Optional<Index>:$row, Optional<Index>:$column,
                       UnitAttr:$a_decode_per_group,
                       UnitAttr:$b_decode_per_group,
                       UnitAttr:$a_decode_per_row,
                       UnitAttr:$b_decode_per_row);
  let results = (outs F32:$result);
  let builders = [
    OpBuilder<(ins "::mlir::Value":$group, "::mlir::Value":$aDecode,
                   "::mlir::Value":$bDecode, "::mlir::Value":$alpha,
                   "bool":$aDecodePerGroup, "bool":$bDecodePerGroup), [{
      build($_builder, $_state, $_builder.getF32Type(), group, aDecode,
            bDecode, alpha, ::mlir::Value(), ::mlir::Value(), aDecodePerGroup,
            bDecodePerGroup, false, false);
    }]>
  ];
  let assemblyFormat = [{
    $group (`a_decode` `(` $a_decode^ `` custom<AddressType>(type($a_decode))
    `)`)? (`b_decode` `(` $b_decode^ `)`)?
    (`alpha` `(` $alpha^ `)`)? (`row` `(` $row^ `)`)?
    (`column` `(` $column^ `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def NVFP4K_StoreOp : NVFP4K_Op<"store", [AttrSizedOperandSegments,
                                         MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the epilogue of a few outputs of one row";
  let description = [{
    For j < P (the length of `values`), when `row < rows` and
    `column < columns`:

    ```
    out[row, column + j] = round_out(fl(fl(alpha[j] * values[j])
                                        + bias[column + j])
                                     + fl(beta * acc[row, column + j]))
    ```

    (docs/spec.md 2.7; the `bias` term only with `bias`, the i64 address
    of an array of `bias_element`, the `beta` term only with `acc`), with
    `out` and
    `acc` the i64 device addresses of row-major arrays of `element`
    (bf16, f16 or f32) with `row_stride` elements per row, and `round_out`
    the round-to-nearest-even cast; `alpha` is one f32 for all P outputs or
    a vector of P (`alpha(%a : vector<2xf32>)`: the outer product of
    row-scaled operands' decode scales). The caller keeps
    `column + P <= columns` whenever `column < columns`. One vector store of
    P elements.

    With `swiglu` (an `nvfp4.swiglu` fused into the epilogue; P even,
    `column` even) the P values are P/2 gate/up pairs: each
    `y[c] = round_out(fl(alpha[c] * values[c]) + fl(beta * acc[row, column + c]))`
    is rounded to the attribute's `intermediate` type (the unfused matmul's
    output) and back, and

    ```
    out[row, column/2 + j] = round_out(swiglu(y[2j], y[2j + 1]))
    ```

    for j < P/2 (docs/spec.md 2.10), with `row_stride` (and `acc`, an
    array of the `intermediate` type) that of the intermediate
    `[rows, columns]` and `out` holding `columns/2` elements per row.

    Example:

    ```mlir
    nvfp4k.store %v, %out[%row, %col] bounds(%rows, %cols) alpha(%alpha) {element = bf16, row_stride = 4096 : i64} : vector<2xf32>
    nvfp4k.store %v, %h[%row, %col] bounds(%rows, %cols) alpha(%alpha) {element = bf16, row_stride = 4096 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$values, I64:$out,
      Index:$row, Index:$column, Index:$rows, Index:$columns,
      AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>:$alpha,
      Optional<I64>:$bias, Optional<I64>:$acc, TypeAttr:$element,
      I64Attr:$row_stride, DefaultValuedAttr<F32Attr, "1.0">:$beta,
      OptionalAttr<NVFP4K_SwigluAttr>:$swiglu,
      OptionalAttr<TypeAttr>:$bias_element);
  let assemblyFormat = [{
    $values `,` $out `[` $row `,` $column `]` `bounds` `(` $rows `,`
    $columns `)` `alpha` `(` $alpha `` custom<AlphaType>(type($alpha)) `)`
    (`bias` `(` $bias^ `)`)? (`acc` `(` $acc^ `)`)? attr-dict `:`
    type($values)
  }];
  let hasVerifier = 1;
}

def NVFP4K_EpilogueOp : NVFP4K_Op<"epilogue", [AttrSizedOperandSegments,
                                               MemoryEffects<[MemRead]>]> {
  let summary = "the epilogue's values of a few outputs of one row, kept";
  let description = [{
    The values `nvfp4k.store` with the same operands and attributes would
    store (P of them, or P/2 with `swiglu`), rounded to `element` and
    widened back to f32, as a vector instead of a store: what a kernel
    quantizes further (`nvfp4k.store_fp4`). Where `row >= rows` or
    `column >= columns` the result is 0 and nothing is read. `row_stride`
    is that of `acc`.

    Example:

    ```mlir
    %y = nvfp4k.epilogue %v[%row, %col] bounds(%rows, %cols) alpha(%alpha) {element = bf16, row_stride = 4096 : i64} : vector<2xf32> -> vector<2xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$values,
      Index:$row, Index:$column, Index:$rows, Index:$columns,
      AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>:$alpha,
      Optional<I64>:$bias, Optional<I64>:$acc, TypeAttr:$element,
      I64Attr:$row_stride, DefaultValuedAttr<F32Attr, "1.0">:$beta,
      OptionalAttr<NVFP4K_SwigluAttr>:$swiglu,
      OptionalAttr<TypeAttr>:$bias_element);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $values `[` $row `,` $column `]` `bounds` `(` $rows `,` $columns `)`
    `alpha` `(` $alpha `` custom<AlphaType>(type($alpha)) `)`
    (`bias` `(` $bias^ `)`)? (`acc` `(` $acc^ `)`)? attr-dict `:`
    type($values) `->` type($result)
  }];
  let hasVerifier = 1;
}

def NVFP4K_StoreFp4Op : NVFP4K_Op<"store_fp4",
                                  [MemoryEffects<[MemWrite]>]> {
  let summary = "E2M1 codes of a few outputs of one row";
  let description = [{
    The codes of the NVFP4 quantize (docs/spec.md 2.2, step 5) of P values
    `x[j]` at `[row, column + j]` of a `[rows, columns]` matrix, given
    their block's `enc_b` (`encode`, NumericsBuilder::blockScale's): when
    `row < rows` and `column < columns`,

    ```
    codes[row, (column + j) / 2] nibble (column + j) % 2 = e2m1(fl(x[j] * enc))
    ```

    one store of P/2 bytes (P even, `column` even); `codes` is an i64
    device address.

    Example:

    ```mlir
    nvfp4k.store_fp4 %x, %codes[%row, %col] bounds(%rows, 4096) encode(%enc) : vector<2xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$values, I64:$codes,
      Index:$row, Index:$column, Index:$rows, I64Attr:$columns, F32:$encode);
  let assemblyFormat = [{
    $values `,` $codes `[` $row `,` $column `]` `bounds` `(` $rows `,`
    $columns `)` `encode` `(` $encode `)` attr-dict `:` type($values)
  }];
  let hasVerifier = 1;
}

def NVFP4K_StoreScaleOp : NVFP4K_Op<"store_scale",
                                    [MemoryEffects<[MemWrite]>]> {
  let summary = "one NVFP4 block scale, and the padding it owns";
  let description = [{
    When `row < rows` and `block < blocks`, stores the E4M3 byte `scale`
    (the low 8 bits of the i32) at `[row, block]` of the block scales of a
    `[total_rows, 16 * blocks]` matrix: row-major `[total_rows, blocks]`,
    or with `swizzled` the 128x4 layout (docs/spec.md section 1), at the
    i64 device address `scales`. A swizzled scale of the last block column
    also zeroes its row's padding columns, and one of the last row the
    padding rows of its column (and their padding columns): with one op
    per scale, every padding byte is written once, zero.

    Example:

    ```mlir
    nvfp4k.store_scale %sf, %scales[%row, %block] bounds(%rows, 256) total_rows(%m) {swizzled} : i32
    ```
  }];
  let arguments = (ins I32:$scale, I64:$scales, Index:$row, Index:$block,
      Index:$rows, I64Attr:$blocks, Index:$total_rows, UnitAttr:$swizzled);
  let assemblyFormat = [{
    $scale `,` $scales `[` $row `,` $block `]` `bounds` `(` $rows `,` $blocks
    `)` `total_rows` `(` $total_rows `)` attr-dict `:` type($scale)
  }];
  let hasVerifier = 1;
}

#endif // NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELOPS_TD
