#!/usr/bin/env python3
"""Generate the compile-only sm_100a warp-specialised block-scaled GEMM
prototype (one 128 x BN output tile per CTA, loop over K) as MLIR 22 text.

    python3 gen_gemm_kernel.py --bn 256 --stages 4 --fmt nvfp4 -o nvfp4_gemm_128x256.mlir

The output is NVVM + LLVM dialect with arith/scf control flow, lowered by

    mlir-opt X.mlir --convert-scf-to-cf --convert-arith-to-llvm \
        --convert-cf-to-llvm --convert-nvvm-to-llvm --reconcile-unrealized-casts \
        --gpu-module-to-binary="format=isa"

(see README.md).  It is a design prototype: nothing here has run on a GPU.

Roles (192 threads = 6 warps):
  warp 0      TMA producer (one elected lane): wait empty[s], arrive.expect_tx
              full[s], 2 tensor TMAs (A, B; 128B swizzle) + 1-D bulk copies of
              the 512-B scale units (SFA, SFB).
  warp 1      TMEM allocator (whole warp) and MMA issuer (one elected lane):
              wait full[s], tcgen05.cp scales smem->TMEM, 4 x tcgen05.mma
              block_scale (K=64 each), tcgen05.commit -> empty[s]; after the
              K loop tcgen05.commit -> accfull.
  warps 2..5  epilogue: wait accfull, tcgen05.ld 32x32b.x32, alpha * acc,
              cvt to bf16, st.global (lane quarter = warp % 4).

Shared memory (offsets from a 1024-aligned base, per stage s):
  A[s]    128 rows x 128 B   (256 FP4 per row = one SW128 atom column)
  B[s]    BN  rows x 128 B
  SFA[s]  512-B units: 4 (nvfp4, block16) or 2 (mxfp4, block32)
  SFB[s]  the same per 128 rows of B (ceil(BN/128) row blocks)
  then full[S], empty[S], accfull (8 B each), tmem slot (4 B).
"""
import argparse
import sys


def idesc_value(fmt, m, n, sfa_id=0, sfb_id=0):
    """Instruction descriptor (PTX ISA 9.7.16.4.2, Table 44 .kind::mxf4/mxf4nvf4).

    Written here from the table; python/nvfp4/ptx_decode.py decodes it
    independently (that module never encodes)."""
    v = 0
    v |= (sfb_id & 3) << 4          # bits 4-5  SFB ID
    v |= 1 << 7                     # bits 7-9  atype E2M1 = 1
    v |= 1 << 10                    # bits 10-11 btype E2M1 = 1
    v |= (n >> 3) << 17             # bits 17-22 N >> 3
    if fmt == "mxfp4":
        v |= 1 << 23                # bit 23 scale type UE8M0 = 1 (UE4M3 = 0)
    v |= (m >> 7) << 27             # bits 27-28 M >> 7
    v |= (sfa_id & 3) << 29         # bits 29-30 SFA ID
    return v


class Gen:
    def __init__(self):
        self.lines = []
        self.n = 0
        self.ind = 2

    def fresh(self, hint="v"):
        self.n += 1
        return f"%{hint}{self.n}"

    def emit(self, s):
        self.lines.append("  " * self.ind + s)

    def op(self, rhs, hint="v"):
        r = self.fresh(hint)
        self.emit(f"{r} = {rhs}")
        return r

    def ci(self, v, ty="i32"):
        return self.op(f"arith.constant {v} : {ty}", "c")


def build(bn, stages, fmt, ticks, tma_elem="u4"):
    assert bn in (64, 128, 256)
    assert fmt in ("nvfp4", "mxfp4")
    S = stages
    nrb = max(1, bn // 128)                  # 128-row scale blocks of B
    units = 4 if fmt == "nvfp4" else 2        # 512-B scale units per K=256 stage
    kind = "mxf4nvf4" if fmt == "nvfp4" else "mxf4"
    bscale = "block16" if fmt == "nvfp4" else "block32"
    A_BYTES = 128 * 128
    B_BYTES = bn * 128
    SFA_BYTES = units * 512
    SFB_BYTES = units * 512 * nrb
    OFF_A = 0
    OFF_B = OFF_A + S * A_BYTES
    OFF_SFA = OFF_B + S * B_BYTES
    OFF_SFB = OFF_SFA + S * SFA_BYTES
    OFF_BAR = OFF_SFB + S * SFB_BYTES
    OFF_FULL = OFF_BAR
    OFF_EMPTY = OFF_BAR + 8 * S
    OFF_ACC = OFF_BAR + 16 * S
    OFF_SLOT = OFF_ACC + 8
    SMEM_USED = OFF_SLOT + 16
    DYN_SMEM = SMEM_USED + 1024               # slack for the 1024-B round-up
    TX = A_BYTES + B_BYTES + SFA_BYTES + SFB_BYTES
    # TMEM columns: accumulator [0, bn), then per stage SFA (4*units cols) and
    # SFB (4*units*nrb cols); one region per stage so a tcgen05.cp never
    # overwrites scales an earlier MMA may still read.
    SFA_COLS = 4 * units
    SFB_COLS = 4 * units * nrb
    STAGE_COLS = SFA_COLS + SFB_COLS
    used_cols = bn + S * STAGE_COLS
    ncols = 32
    while ncols < used_cols:
        ncols *= 2
    assert ncols <= 512, (used_cols, ncols)

    g = Gen()
    name = f"{fmt}_gemm_128x{bn}_s{S}"
    tm_attr = "{llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}"
    hdr = []
    hdr.append("module attributes {gpu.container_module} {")
    hdr.append('gpu.module @sm100_gemm [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {')
    hdr.append("  llvm.mlir.global external @smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>")
    hdr.append(f"  llvm.func @{name}(%tmA: !llvm.ptr {tm_attr}, %tmB: !llvm.ptr {tm_attr},")
    hdr.append("      %sfa: !llvm.ptr<1>, %sfb: !llvm.ptr<1>, %out: !llvm.ptr<1>,")
    hdr.append("      %M: i32, %N: i32, %K: i32, %alpha: f32)")
    hdr.append("      attributes {nvvm.kernel, nvvm.reqntid = array<i32: 192, 1, 1>} {")

    c0 = g.ci(0); c1 = g.ci(1); c2 = g.ci(2); c4 = g.ci(4); c32 = g.ci(32)
    cS = g.ci(S); c128 = g.ci(128); c256 = g.ci(256); cbn = g.ci(bn)
    cticks = g.ci(ticks)
    ctrue = g.op("arith.constant true", "c")
    tid = g.op("nvvm.read.ptx.sreg.tid.x : i32", "tid")
    warp = g.op(f"arith.divui {tid}, {c32} : i32", "warp")
    lane = g.op(f"arith.remui {tid}, {c32} : i32", "lane")
    bx = g.op("nvvm.read.ptx.sreg.ctaid.x : i32", "bx")
    by = g.op("nvvm.read.ptx.sreg.ctaid.y : i32", "by")
    m0 = g.op(f"arith.muli {bx}, {c128} : i32", "m0")
    n0 = g.op(f"arith.muli {by}, {cbn} : i32", "n0")
    gsym = g.op("llvm.mlir.addressof @smem : !llvm.ptr<3>", "g")
    graw = g.op(f"llvm.ptrtoint {gsym} : !llvm.ptr<3> to i32", "graw")
    c1023 = g.ci(1023); cm1024 = g.ci(-1024)
    t = g.op(f"arith.addi {graw}, {c1023} : i32")
    base = g.op(f"arith.andi {t}, {cm1024} : i32", "base")

    def addr(off_const=0, dyn=None):
        """i32 shared address base + off_const (+ dyn)."""
        a = g.op(f"arith.addi {base}, {g.ci(off_const)} : i32") if off_const else base
        if dyn is not None:
            a = g.op(f"arith.addi {a}, {dyn} : i32")
        return a

    def sptr(a):
        return g.op(f"llvm.inttoptr {a} : i32 to !llvm.ptr<3>", "p")

    def tptr(a):
        return g.op(f"llvm.inttoptr {a} : i32 to !llvm.ptr<6>", "t")

    def smem_desc(a, lbo, sbo, swz):
        """tcgen05 smem descriptor via nvvm.tcgen05.mma_smem_desc.  The op masks
        each field to 14 bits but does NOT shift: pass byte values >> 4."""
        a4 = g.op(f"arith.shrui {a}, {c4} : i32")
        l = g.ci(lbo >> 4); s_ = g.ci(sbo >> 4)
        b0 = g.ci(0, "i8"); mode = g.op("arith.constant false", "c"); sw = g.ci(swz, "i8")
        return g.op(f"nvvm.tcgen05.mma_smem_desc ({a4}, {l}, {s_}, {b0}, {mode}, {sw}) : "
                    f"(i32, i32, i32, i8, i1, i8) -> i64", "desc")

    slot_p = sptr(addr(OFF_SLOT))
    accfull_p = sptr(addr(OFF_ACC))
    cncols = g.ci(ncols)

    # ---- init: mbarriers (thread 0), TMEM allocation (warp 1) ----
    is_t0 = g.op(f"arith.cmpi eq, {tid}, {c0} : i32")
    g.emit(f"scf.if {is_t0} {{"); g.ind += 1
    for s in range(S):
        g.emit(f"nvvm.mbarrier.init {sptr(addr(OFF_FULL + 8 * s))}, {c1} : !llvm.ptr<3>, i32")
        g.emit(f"nvvm.mbarrier.init {sptr(addr(OFF_EMPTY + 8 * s))}, {c1} : !llvm.ptr<3>, i32")
    g.emit(f"nvvm.mbarrier.init {accfull_p}, {c1} : !llvm.ptr<3>, i32")
    g.emit("nvvm.fence.mbarrier.init")
    g.emit("nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}")
    g.ind -= 1; g.emit("}")
    is_w1 = g.op(f"arith.cmpi eq, {warp}, {c1} : i32", "isw1")
    g.emit(f"scf.if {is_w1} {{"); g.ind += 1
    g.emit(f"nvvm.tcgen05.alloc {slot_p}, {cncols} : !llvm.ptr<3>, i32")
    g.emit("nvvm.tcgen05.relinquish_alloc_permit")
    g.ind -= 1; g.emit("}")
    g.emit("nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>")
    g.emit("nvvm.barrier0")
    g.emit("nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>")
    tmem = g.op(f"llvm.load {slot_p} : !llvm.ptr<3> -> i32", "tmem")
    nk = g.op(f"arith.divui %K, {c256} : i32", "nk")

    def stage_of(kb):
        s = g.op(f"arith.remui {kb}, {cS} : i32", "s")
        q = g.op(f"arith.divui {kb}, {cS} : i32")
        ph = g.op(f"arith.andi {q}, {c1} : i32", "ph")
        return s, ph

    # ---- warp 0: TMA producer ----
    is_w0 = g.op(f"arith.cmpi eq, {warp}, {c0} : i32", "isw0")
    g.emit(f"scf.if {is_w0} {{"); g.ind += 1
    el = g.op("nvvm.elect.sync -> i1", "elect")
    g.emit(f"scf.if {el} {{"); g.ind += 1
    ctx = g.ci(TX)
    # scale-unit row pitch: K/64 (nvfp4: 4 scale columns of 16) or K/128 (mxfp4)
    upr = g.op(f"arith.divui %K, {g.ci(64 if fmt == 'nvfp4' else 128)} : i32", "upr")
    rbA = g.op(f"arith.divui {m0}, {c128} : i32")
    rbB = g.op(f"arith.divui {n0}, {c128} : i32")
    g.emit(f"scf.for %kb = {c0} to {nk} step {c1} : i32 {{"); g.ind += 1
    s, ph = stage_of("%kb")
    wph = g.op(f"arith.xori {ph}, {c1} : i32", "wph")
    s8 = g.op(f"arith.muli {s}, {g.ci(8)} : i32")
    full_p = sptr(addr(OFF_FULL, s8))
    empty_p = sptr(addr(OFF_EMPTY, s8))
    g.emit(f"nvvm.mbarrier.try_wait.parity {empty_p}, {wph}, {cticks} : !llvm.ptr<3>, i32, i32")
    g.emit(f"nvvm.mbarrier.arrive.expect_tx {full_p}, {ctx} : !llvm.ptr<3>, i32")
    # inner TMA coordinate: FP4 elements for a CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B
    # map, bytes for a UINT8 map over the same packed bytes
    kx = g.op(f"arith.muli %kb, {c256 if tma_elem == 'u4' else c128} : i32", "kx")
    dA = sptr(addr(OFF_A, g.op(f"arith.muli {s}, {g.ci(A_BYTES)} : i32")))
    g.emit(f"nvvm.cp.async.bulk.tensor.shared.cluster.global {dA}, %tmA, {full_p}, box[{kx}, {m0}] "
           "{isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr")
    dB = sptr(addr(OFF_B, g.op(f"arith.muli {s}, {g.ci(B_BYTES)} : i32")))
    g.emit(f"nvvm.cp.async.bulk.tensor.shared.cluster.global {dB}, %tmB, {full_p}, box[{kx}, {n0}] "
           "{isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr")
    kunits = g.op(f"arith.muli %kb, {g.ci(units)} : i32")
    # SFA: `units` contiguous 512-B units starting at unit rbA*upr + kb*units
    ua = g.op(f"arith.addi {g.op(f'arith.muli {rbA}, {upr} : i32')}, {kunits} : i32")
    ua64 = g.op(f"arith.extui {ua} : i32 to i64")
    offa = g.op(f"arith.muli {ua64}, {g.ci(512, 'i64')} : i64")
    srcA = g.op(f"llvm.getelementptr %sfa[{offa}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8", "src")
    dSA = sptr(addr(OFF_SFA, g.op(f"arith.muli {s}, {g.ci(SFA_BYTES)} : i32")))
    g.emit(f"nvvm.cp.async.bulk.shared.cluster.global {dSA}, {srcA}, {full_p}, {g.ci(SFA_BYTES)} : "
           "!llvm.ptr<3>, !llvm.ptr<1>")
    dSBs = g.op(f"arith.muli {s}, {g.ci(SFB_BYTES)} : i32")
    for rb in range(nrb):
        rbb = g.op(f"arith.addi {rbB}, {g.ci(rb)} : i32") if rb else rbB
        ub = g.op(f"arith.addi {g.op(f'arith.muli {rbb}, {upr} : i32')}, {kunits} : i32")
        ub64 = g.op(f"arith.extui {ub} : i32 to i64")
        offb = g.op(f"arith.muli {ub64}, {g.ci(512, 'i64')} : i64")
        srcB = g.op(f"llvm.getelementptr %sfb[{offb}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8", "src")
        dSB = sptr(addr(OFF_SFB + rb * units * 512, dSBs))
        g.emit(f"nvvm.cp.async.bulk.shared.cluster.global {dSB}, {srcB}, {full_p}, {g.ci(units * 512)} : "
               "!llvm.ptr<3>, !llvm.ptr<1>")
    g.ind -= 1; g.emit("}")
    g.ind -= 1; g.emit("}")
    g.ind -= 1; g.emit("}")

    # ---- warp 1: MMA issuer ----
    g.emit(f"scf.if {is_w1} {{"); g.ind += 1
    el = g.op("nvvm.elect.sync -> i1", "elect")
    g.emit(f"scf.if {el} {{"); g.ind += 1
    tacc = tptr(tmem)
    # BN = 64 reads rows (n0 % 128) .. +63 of a 128-row scale unit: columns +0/+2
    if bn == 64:
        nsub = g.op(f"arith.divui {g.op(f'arith.remui {n0}, {c128} : i32')}, {c32} : i32", "nsub")
    g.emit(f"scf.for %kb = {c0} to {nk} step {c1} : i32 {{"); g.ind += 1
    s, ph = stage_of("%kb")
    s8 = g.op(f"arith.muli {s}, {g.ci(8)} : i32")
    full_p = sptr(addr(OFF_FULL, s8))
    empty_p = sptr(addr(OFF_EMPTY, s8))
    g.emit(f"nvvm.mbarrier.try_wait.parity {full_p}, {ph}, {cticks} : !llvm.ptr<3>, i32, i32")
    g.emit("nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>")
    aaddr = addr(OFF_A, g.op(f"arith.muli {s}, {g.ci(A_BYTES)} : i32"))
    baddr = addr(OFF_B, g.op(f"arith.muli {s}, {g.ci(B_BYTES)} : i32"))
    # K-major, 128B swizzle (code 2), SBO = 1024 B (8 rows x 128 B), LBO = 16 B ("assumed 1")
    adesc = smem_desc(aaddr, 16, 1024, 2)
    bdesc = smem_desc(baddr, 16, 1024, 2)
    sfa_s = addr(OFF_SFA, g.op(f"arith.muli {s}, {g.ci(SFA_BYTES)} : i32"))
    sfb_s = addr(OFF_SFB, g.op(f"arith.muli {s}, {g.ci(SFB_BYTES)} : i32"))
    scol = g.op(f"arith.addi {g.op(f'arith.muli {s}, {g.ci(STAGE_COLS)} : i32')}, {g.ci(bn)} : i32", "scol")
    sfa_col = g.op(f"arith.addi {tmem}, {scol} : i32")
    sfb_col = g.op(f"arith.addi {sfa_col}, {g.ci(SFA_COLS)} : i32")
    cp_attr = ("{shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, "
               "multicast = #nvvm.tcgen05_cp_multicast<warpx4>}")
    # scales: one 512-B unit (128 rows x 4 B) -> 4 TMEM columns, replicated to
    # the 4 lane quarters (32x128b.warpx4); source: no swizzle, SBO = 128 B
    for u in range(units):
        d = smem_desc(g.op(f"arith.addi {sfa_s}, {g.ci(u * 512)} : i32") if u else sfa_s, 0, 128, 0)
        tcol = g.op(f"arith.addi {sfa_col}, {g.ci(4 * u)} : i32") if u else sfa_col
        g.emit(f"nvvm.tcgen05.cp {tptr(tcol)}, {d} {cp_attr}")
        for rb in range(nrb):
            boff = rb * units * 512 + u * 512
            d = smem_desc(g.op(f"arith.addi {sfb_s}, {g.ci(boff)} : i32") if boff else sfb_s, 0, 128, 0)
            coff = 4 * (u * nrb + rb)
            tcol = g.op(f"arith.addi {sfb_col}, {g.ci(coff)} : i32") if coff else sfb_col
            g.emit(f"nvvm.tcgen05.cp {tptr(tcol)}, {d} {cp_attr}")
    first = g.op(f"arith.cmpi ne, %kb, {c0} : i32", "acc")
    for j in range(4):
        if fmt == "nvfp4":
            u, sid = j, 0                 # block16: one unit per K=64, SF ID must be 0
        else:
            u, sid = j // 2, 2 * (j % 2)  # block32: a unit covers K=128; ID 0/2 = half word
        idesc = g.ci(idesc_value(fmt, 128, bn, sfa_id=sid, sfb_id=sid), "i32")
        if j:
            inc = g.ci(2 * j, "i64")      # +32 B along K inside the 128-B atom = +2 encoded
            ad = g.op(f"arith.addi {adesc}, {inc} : i64", "ad")
            bd = g.op(f"arith.addi {bdesc}, {inc} : i64", "bd")
            en = ctrue
        else:
            ad, bd, en = adesc, bdesc, first
        ta = g.op(f"arith.addi {sfa_col}, {g.ci(4 * u)} : i32") if u else sfa_col
        tb = g.op(f"arith.addi {sfb_col}, {g.ci(4 * u * nrb)} : i32") if u else sfb_col
        if bn == 64:
            tb = g.op(f"arith.addi {tb}, {nsub} : i32")
        g.emit(f"nvvm.tcgen05.mma.block_scale {tacc}, {ad}, {bd}, {idesc}, {en}, {tptr(ta)}, {tptr(tb)} "
               f"{{kind = #nvvm.block_scale_kind<{kind}>, ctaGroup = #nvvm.cta_group<cta_1>, "
               f"blockScale = #nvvm.tcgen05_mma_block_scale<{bscale}>}} : "
               "(!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)")
    g.emit(f"nvvm.tcgen05.commit {empty_p} : !llvm.ptr<3>")
    g.ind -= 1; g.emit("}")
    g.emit(f"nvvm.tcgen05.commit {accfull_p} : !llvm.ptr<3>")
    g.ind -= 1; g.emit("}")
    g.ind -= 1; g.emit("}")

    # ---- warps 2..5: epilogue ----
    is_epi = g.op(f"arith.cmpi uge, {warp}, {c2} : i32", "isepi")
    g.emit(f"scf.if {is_epi} {{"); g.ind += 1
    qd = g.op(f"arith.remui {warp}, {c4} : i32", "quarter")
    lane0 = g.op(f"arith.muli {qd}, {c32} : i32", "lane0")
    row = g.op(f"arith.addi {lane0}, {lane} : i32", "row")
    grow = g.op(f"arith.addi {m0}, {row} : i32", "grow")
    g.emit(f"nvvm.mbarrier.try_wait.parity {accfull_p}, {c0}, {cticks} : !llvm.ptr<3>, i32, i32")
    g.emit("nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>")
    lanebits = g.op(f"arith.shli {lane0}, {g.ci(16)} : i32", "lanebits")
    tq = g.op(f"arith.addi {tmem}, {lanebits} : i32", "tq")
    und = g.op("llvm.mlir.undef : vector<32xf32>")
    a0 = g.op(f"llvm.insertelement %alpha, {und}[{c0} : i32] : vector<32xf32>")
    splat = g.op(f"llvm.shufflevector {a0}, {und} [{', '.join(['0'] * 32)}] : vector<32xf32> ", "alphav")
    inb = g.op(f"arith.cmpi ult, {grow}, %M : i32", "inb")
    grow64 = g.op(f"arith.extui {grow} : i32 to i64")
    n64 = g.op("arith.extui %N : i32 to i64")
    n064 = g.op(f"arith.extui {n0} : i32 to i64")
    rowoff = g.op(f"arith.addi {g.op(f'arith.muli {grow64}, {n64} : i64')}, {n064} : i64", "rowoff")
    for c in range(bn // 32):
        ta = g.op(f"arith.addi {tq}, {g.ci(32 * c)} : i32") if c else tq
        v = g.op(f"nvvm.tcgen05.ld {tptr(ta)} {{shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>}} : vector<32xi32>", "acc")
        g.emit("nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>")
        f = g.op(f"llvm.bitcast {v} : vector<32xi32> to vector<32xf32>", "f")
        sc = g.op(f"llvm.fmul {f}, {splat} : vector<32xf32>", "f")
        h = g.op(f"llvm.fptrunc {sc} : vector<32xf32> to vector<32xbf16>", "h")
        hi = g.op(f"llvm.bitcast {h} : vector<32xbf16> to vector<16xi32>", "h")
        g.emit(f"scf.if {inb} {{"); g.ind += 1
        eo = g.op(f"arith.addi {rowoff}, {g.ci(32 * c, 'i64')} : i64")
        bo = g.op(f"arith.muli {eo}, {g.ci(2, 'i64')} : i64")
        for p in range(4):
            idx = ", ".join(str(4 * p + i) for i in range(4))
            ch = g.op(f"llvm.shufflevector {hi}, {hi} [{idx}] : vector<16xi32> ", "ch")
            bop = g.op(f"arith.addi {bo}, {g.ci(16 * p, 'i64')} : i64") if p else bo
            ptr = g.op(f"llvm.getelementptr %out[{bop}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8", "o")
            g.emit(f"llvm.store {ch}, {ptr} {{alignment = 16 : i64}} : vector<4xi32>, !llvm.ptr<1>")
        g.ind -= 1; g.emit("}")
    g.emit("nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>")
    g.ind -= 1; g.emit("}")

    # ---- teardown: everyone meets, warp 1 frees TMEM ----
    g.emit("nvvm.barrier0")
    g.emit(f"scf.if {is_w1} {{"); g.ind += 1
    g.emit("nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>")
    g.emit(f"nvvm.tcgen05.dealloc {tptr(tmem)}, {cncols} : !llvm.ptr<6>, i32")
    g.ind -= 1; g.emit("}")
    g.emit("llvm.return")
    tail = ["  }", "}", "}"]
    info = dict(name=name, bn=bn, stages=S, fmt=fmt, tma_elem=tma_elem, kind=kind, block=bscale, tx=TX,
                dyn_smem=DYN_SMEM, smem_used=SMEM_USED, tmem_cols=ncols, tmem_used=used_cols,
                idesc=[hex(idesc_value(fmt, 128, bn, *( (0, 0) if fmt == 'nvfp4' else (2 * (j % 2), 2 * (j % 2)))))
                       for j in range(4)],
                offsets=dict(A=OFF_A, B=OFF_B, SFA=OFF_SFA, SFB=OFF_SFB, full=OFF_FULL,
                             empty=OFF_EMPTY, accfull=OFF_ACC, slot=OFF_SLOT))
    return "\n".join(hdr + g.lines + tail) + "\n", info


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bn", type=int, default=256, choices=(64, 128, 256))
    ap.add_argument("--stages", type=int, default=4)
    ap.add_argument("--fmt", default="nvfp4", choices=("nvfp4", "mxfp4"))
    ap.add_argument("--ticks", type=int, default=0x989680,
                    help="mbarrier.try_wait suspend-time hint (ns)")
    ap.add_argument("--tma-elem", default="u4", choices=("u4", "u8"),
                    help="host tensor map element: u4 = 16U4_ALIGN8B (coords in FP4 "
                         "elements), u8 = UINT8 over packed bytes (coords in bytes)")
    ap.add_argument("--header", default="", help="file with a comment header to prepend")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args(argv)
    text, info = build(a.bn, a.stages, a.fmt, a.ticks, a.tma_elem)
    head = open(a.header).read() if a.header else ""
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    out.write(head + text)
    print(info, file=sys.stderr)


if __name__ == "__main__":
    main()
