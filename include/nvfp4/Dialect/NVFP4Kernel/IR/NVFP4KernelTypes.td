//===- NVFP4KernelTypes.td - nvfp4k types ------------------*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELTYPES_TD
#define NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELTYPES_TD

include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelDialect.td"
include "nvfp4/Dialect/NVFP4/IR/NVFP4Attrs.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// !nvfp4k.ring
//===----------------------------------------------------------------------===//

def NVFP4K_RingType : NVFP4K_Type<"Ring", "ring"> {
  let summary = "a ring of pipeline stages guarded by mbarriers";
  let description = [{
    `stages` pairs of mbarriers in shared memory: stage s is *full* once its
    `producers` (default 1) have arrived (`nvfp4k.ring.expect_tx`, whose
    announced bytes must also have landed, or `nvfp4k.ring.arrive`; or a
    `tcgen05.commit`), and *empty* once `consumers` arrivals
    (`nvfp4k.ring.release`, or one `nvfp4k.tcgen05.commit`) released it.

    Every op on a ring takes a position `i`: the number of stages the calling
    role has gone through so far (each role counts the same sequence). The
    ring owns the arithmetic: position i is stage `i mod stages`, in round
    `i / stages`; a full barrier is waited with the parity of that round, an
    empty one with the parity of the round before (a fresh ring is empty).
    The ring holds no data: its stages' buffers are ordinary shared memory
    that the kernel addresses with `nvfp4k.ring.stage`.

    Example:

    ```mlir
    // 5 stages, each released by the 8 consumer warps.
    !nvfp4k.ring<5, consumers = 8>
    // Filled by 96 threads that each arrive once (in-kernel conversions).
    !nvfp4k.ring<5, consumers = 8, producers = 96>
    ```
  }];
  let parameters = (ins "int64_t":$stages, "int64_t":$consumers,
                        DefaultValuedParameter<"int64_t", "1">:$producers);
  let assemblyFormat = [{
    `<` $stages `,` `consumers` `=` $consumers
    (`,` `producers` `=` $producers^)? `>`
  }];
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// !nvfp4k.scheduler
//===----------------------------------------------------------------------===//

// `[r0, r1, ...]`: a bracketed list, so that it can sit among the comma
// separated parameters of `struct(params)`.
def NVFP4K_IntList : OptionalArrayRefParameter<"int64_t"> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
      ::llvm::SmallVector<int64_t> values;
      if ($_parser.parseCommaSeparatedList(
              ::mlir::AsmParser::Delimiter::Square, [&]() {
                int64_t v;
                if ($_parser.parseInteger(v))
                  return ::mlir::failure();
                values.push_back(v);
                return ::mlir::success();
              }))
        return ::mlir::failure();
      return values;
    }()
  }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}

def NVFP4K_SchedulerType : NVFP4K_Type<"Scheduler", "scheduler"> {
  let summary = "the persistent tile space of a (grouped) matmul";
  let description = [{
    The output of a grouped matmul cut into tiles of (group, weight tile of
    `weight_rows` rows of N, token tile of up to `token_tile` rows of the
    group). Tiles are numbered group by group, weight tile by weight tile,
    token tiles fastest, so that the CTAs of a persistent grid that run at
    the same time share a weight tile in L2.

    Token rows live in one *token matrix*: the groups' rows one after
    another. `independent` groups have static row counts (`group_rows`, in
    operand order); `contiguous` groups are bounded by the run-time
    `group_offsets` (G + 1 entries, clamped to `rows`, the token matrix's
    rows); `masked` groups are G slots of `rows` rows with `masked_m[g]`
    (clamped to `rows`) valid rows each.

    With `granule` = 0 every token tile but a group's last has `token_tile`
    rows. With a granule (a divisor of `token_tile`), a group of R rows is
    cut into `ceil(R / token_tile)` balanced tiles of `ceil(R / tiles)` rows
    rounded up to the granule, so that a kernel that sizes its MMA to the
    tile wastes little.

    With `k_blocks` (the K blocks of a tile: the ring stages its K loop
    takes), the tiles are also handed to the CTAs of a grid as *work units*
    (`nvfp4k.scheduler.units`, `nvfp4k.scheduler.unit`): a unit is a tile
    and a range of its K blocks. Without `stream_k`, CTA c takes whole tiles
    c, c + ctas, ... (data-parallel). With `stream_k`, the iterations
    (tile, K block), numbered tile by tile, are cut into `ctas` consecutive
    shares of `ceil(tiles * k_blocks / ctas)`: every CTA streams the same
    amount of K whatever the tile count, and a tile whose K blocks fall to
    several CTAs is summed by `nvfp4k.scheduler.fixup` in a fixed order
    (the order of K), so that results do not depend on timing.

    With `cluster` = C > 1 (data-parallel only), the grid's CTAs form
    thread-block clusters of C consecutive CTAs that split every tile's K
    blocks: cluster `cta / C` takes tiles `cta / C`, `cta / C + ctas / C`,
    ... (`ctas` a multiple of C), and its CTA of rank `r = cta % C` sums K
    blocks `[r * k_blocks / C, (r + 1) * k_blocks / C)` of each;
    `nvfp4k.scheduler.cluster_sum` adds the C partials through distributed
    shared memory, in rank order.

    Example:

    ```mlir
    !nvfp4k.scheduler<mode = contiguous, groups = 8, rows = 1184,
                      weight_tiles = 32, weight_rows = 128, token_tile = 128,
                      granule = 32>
    !nvfp4k.scheduler<mode = independent, groups = 2, rows = 512,
                      weight_tiles = 32, weight_rows = 128, token_tile = 128,
                      granule = 0, group_rows = [128, 384]>
    !nvfp4k.scheduler<mode = independent, groups = 1, rows = 16,
                      weight_tiles = 32, weight_rows = 128, token_tile = 16,
                      granule = 8, group_rows = [16], k_blocks = 32,
                      stream_k = true>
    !nvfp4k.scheduler<mode = independent, groups = 1, rows = 16,
                      weight_tiles = 32, weight_rows = 128, token_tile = 16,
                      granule = 8, group_rows = [16], k_blocks = 32,
                      cluster = 4>
    ```
  }];
  let parameters = (ins EnumParameter<NVFP4_GroupingAttr>:$mode,
      "int64_t":$groups, "int64_t":$rows, "int64_t":$weight_tiles,
      "int64_t":$weight_rows, "int64_t":$token_tile, "int64_t":$granule,
      NVFP4K_IntList:$group_rows,
      DefaultValuedParameter<"int64_t", "0">:$k_blocks,
      DefaultValuedParameter<"bool", "false">:$stream_k,
      DefaultValuedParameter<"int64_t", "1">:$cluster);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the scheduler reads a group table (group_offsets or masked_m).
    bool hasGroupTable() const {
      return getMode() != ::mlir::nvfp4::Grouping::independent;
    }
    /// Whether the space hands out work units (k_blocks is set).
    bool hasWorkUnits() const { return getKBlocks() > 0; }
  }];
}

#endif // NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELTYPES_TD
