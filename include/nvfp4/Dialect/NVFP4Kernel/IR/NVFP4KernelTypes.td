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
    producer has arrived with `nvfp4k.ring.expect_tx` and every byte it
    announced has landed (or once a `tcgen05.commit` arrived), and *empty*
    once `consumers` arrivals (`nvfp4k.ring.release`, or one
    `nvfp4k.tcgen05.commit`) released it.

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
    ```
  }];
  let parameters = (ins "int64_t":$stages, "int64_t":$consumers);
  let assemblyFormat = "`<` $stages `,` `consumers` `=` $consumers `>`";
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

    Example:

    ```mlir
    !nvfp4k.scheduler<mode = contiguous, groups = 8, rows = 1184,
                      weight_tiles = 32, weight_rows = 128, token_tile = 128,
                      granule = 32>
    !nvfp4k.scheduler<mode = independent, groups = 2, rows = 512,
                      weight_tiles = 32, weight_rows = 128, token_tile = 128,
                      granule = 0, group_rows = [128, 384]>
    ```
  }];
  let parameters = (ins
    EnumParameter<NVFP4_GroupingAttr>:$mode,
    "int64_t":$groups,
    "int64_t":$rows,
    "int64_t":$weight_tiles,
    "int64_t":$weight_rows,
    "int64_t":$token_tile,
    "int64_t":$granule,
    NVFP4K_IntList:$group_rows);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the scheduler reads a group table (group_offsets or masked_m).
    bool hasGroupTable() const {
      return getMode() != ::mlir::nvfp4::Grouping::independent;
    }
  }];
}

#endif // NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELTYPES_TD
