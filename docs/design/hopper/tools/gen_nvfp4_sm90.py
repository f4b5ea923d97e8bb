#!/usr/bin/env python3
"""Emit MLIR 22 prototypes for the sm_90a NVFP4 x NVFP4 grouped GEMM (swap-AB, RS wgmma).

Usage:
  gen_nvfp4_sm90.py kernel  --nt 128 --wg 2 --stages 4 --dtype f16   > k.mlir   (block 5: full kernel + host)
  gen_nvfp4_sm90.py wgmma   --nt 128 --dtype bf16 [--no-pipeline]     > w.mlir   (block 2: RS wgmma only)

Everything a C++ lowering has to emit is spelled out here as text; the numbers in
comments (byte offsets, descriptor bits) are the contract between the offline
weight packer, the TMA descriptors and the kernel.  See README.md next to this file.
"""
import argparse, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def dq_source():
    p = os.path.join(HERE, 'dq_core.mlir.in')
    return open(p).read()


class E:
    """Tiny SSA text emitter."""
    def __init__(self):
        self.lines, self.n, self.ind = [], 0, 2

    def fresh(self, p='v'):
        self.n += 1
        return f'%{p}_{self.n}'

    def __call__(self, s):
        self.lines.append('  ' * self.ind + s)

    def op(self, rhs, p='v'):
        v = self.fresh(p)
        self(f'{v} = {rhs}')
        return v

    def c(self, val, ty='index'):
        return self.op(f'arith.constant {val} : {ty}', 'c')


def acc_alias(nt):
    """type alias for the N/2-f32 accumulator struct (keeps the text small)"""
    return f'!acc{nt} = !llvm.struct<(' + ', '.join(['f32'] * (nt // 2)) + ')>'


def wgmma_asm(e, nt, dt, acc, a, desc, acc_ty):
    """RS wgmma m64{nt}k16, f32 += dt*dt, A = 4 x b32 registers, B = smem descriptor (K-major)."""
    n = nt // 2
    outs = ', '.join(f'${i}' for i in range(n))
    ptx = (f'wgmma.mma_async.sync.aligned.m64n{nt}k16.f32.{dt}.{dt} '
           f'{{{outs}}}, {{${n}, ${n+1}, ${n+2}, ${n+3}}}, ${n+4}, 1, 1, 1, 0;')
    cons = ','.join(['=f'] * n + ['r'] * 4 + ['l'] + [str(i) for i in range(n)])
    fields = [e.op(f'llvm.extractvalue {acc}[{i}] : {acc_ty}', 'd') for i in range(n)]
    args = ', '.join(a + [desc] + fields)
    tys = ', '.join(['i32'] * 4 + ['i64'] + ['f32'] * n)
    return e.op(f'llvm.inline_asm has_side_effects asm_dialect = att "{ptx}", "{cons}" '
                f'{args} : ({tys}) -> {acc_ty}', 'acc')


def dequant_stage(e, dt, smem32, aoff_words, t, warp, gq):
    """LDS the thread's 16 B of packed e2m1 + 8 B of scales, dequantize 4 k16 steps.
    Returns list of 4 lists of 4 i32 A-fragment registers."""
    fn = 'dq_f16' if dt == 'f16' else 'dq_bf16s'
    vt = 'vector<2xf16>' if dt == 'f16' else 'vector<2xbf16>'
    c4 = e.c(4)
    tw = e.op(f'arith.muli {t}, {c4} : index')
    di = e.op(f'arith.addi {aoff_words}, {tw} : index')
    data = e.op(f'vector.load {smem32}[{di}] {{alignment = 16 : i64}} : memref<?xi32, #gpu.address_space<workgroup>>, vector<4xi32>', 'q')
    # scales at byte 2048 + (warp*8 + gq)*8  -> word 512 + (warp*8+gq)*2
    c8 = e.c(8); c2 = e.c(2); c512 = e.c(512)
    wq = e.op(f'arith.muli {warp}, {c8} : index')
    wq = e.op(f'arith.addi {wq}, {gq} : index')
    wq = e.op(f'arith.muli {wq}, {c2} : index')
    wq = e.op(f'arith.addi {wq}, {c512} : index')
    si = e.op(f'arith.addi {aoff_words}, {wq} : index')
    sc = e.op(f'vector.load {smem32}[{si}] {{alignment = 8 : i64}} : memref<?xi32, #gpu.address_space<workgroup>>, vector<2xi32>', 's')
    c16i = e.c(16, 'i32')
    regs = []
    for st in range(4):
        q = e.op(f'vector.extract {data}[{st}] : i32 from vector<4xi32>', 'q')
        sw = e.op(f'vector.extract {sc}[{st // 2}] : i32 from vector<2xi32>', 's')
        if st % 2:
            sw = e.op(f'arith.shrui {sw}, {c16i} : i32', 's')
        r = e.fresh('x')
        e(f'{r}:4 = func.call @{fn}({q}, {sw}) : (i32, i32) -> ({vt}, {vt}, {vt}, {vt})')
        regs.append([e.op(f'llvm.bitcast {r}#{j} : {vt} to i32', 'a') for j in range(4)])
    return regs


def kernel_module(nt, wg, S, dt, name):
    assert nt % 8 == 0 and 8 <= nt <= 256 and 1 <= wg <= 3 and S >= 2
    T = 'f16' if dt == 'f16' else 'bf16'
    n_acc = nt // 2
    acc_ty = f'!acc{nt}'
    b_bytes = nt * 128                      # NT rows x 64 k x 2 B, 128B-swizzled
    a_bytes = 2304                          # per consumer warpgroup: 2048 B e2m1 + 256 B e4m3
    stage_b = b_bytes + wg * a_bytes
    a_base = S * b_bytes                    # A blobs after all B tiles (B tiles 1024-aligned)
    smem = S * stage_b + 1024               # + slack for rounding the base up to 1024
    assert smem <= 232448, f'smem {smem} > 227 KB'
    nthreads = 128 * (wg + 1)
    regs_c = min(256, ((65536 - 128 * 40) // (128 * wg)) // 8 * 8)
    cnt_empty = 128 * wg
    desc_hi = (1 << 16) | (64 << 32) | (1 << 62)   # LBO=16B(ignored), SBO=1024B, SWIZZLE_128B

    e = E()
    e.ind = 2
    e(f'gpu.func @{name}(%pA: !llvm.ptr, %pB: !llvm.ptr, %Cp: i64, %moffp: i64, %alphap: i64, '
      f'%N: index, %K: index) kernel attributes {{nvvm.maxntid = array<i32: {nthreads}, 1, 1>, nvvm.minctasm = 1 : i32}} {{')
    e.ind = 3
    e('%dA = builtin.unrealized_conversion_cast %pA : !llvm.ptr to !descA')
    e('%dB = builtin.unrealized_conversion_cast %pB : !llvm.ptr to !descB')
    e('%tid = gpu.thread_id x')
    e('%bx = gpu.block_id x')
    e('%by = gpu.block_id y')
    e('%bz = gpu.block_id z')
    e('%c0 = arith.constant 0 : index')
    e('%c1 = arith.constant 1 : index')
    # group bounds
    e('%moff = llvm.inttoptr %moffp : i64 to !llvm.ptr<1>')
    e('%gi = arith.index_cast %bz : index to i64')
    e('%pm0 = llvm.getelementptr %moff[%gi] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32')
    e('%pm1 = llvm.getelementptr %pm0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32')
    e('%m0i = llvm.load %pm0 : !llvm.ptr<1> -> i32')
    e('%m1i = llvm.load %pm1 : !llvm.ptr<1> -> i32')
    e('%mlo = arith.index_cast %m0i : i32 to index')
    e('%mhi = arith.index_cast %m1i : i32 to index')
    e(f'%cNT = arith.constant {nt} : index')
    e('%myo = arith.muli %by, %cNT : index')
    e('%mst = arith.addi %mlo, %myo : index')
    e('%active = arith.cmpi slt, %mst, %mhi : index')
    e('scf.if %active {')
    e.ind += 1
    e(f'%bars = nvgpu.mbarrier.create -> !bars')
    e('%c128 = arith.constant 128 : index')
    e('%wgi = arith.divui %tid, %c128 : index')
    e('%t = arith.remui %tid, %c128 : index')
    e('%is0 = arith.cmpi eq, %tid, %c0 : index')
    e(f'%cempty = arith.constant {cnt_empty} : index')
    for s in range(S):
        e(f'%bi{s} = arith.constant {s} : index')
        e(f'%be{s} = arith.constant {S + s} : index')
        e(f'nvgpu.mbarrier.init %bars[%bi{s}], %c1, predicate = %is0 : !bars')
        e(f'nvgpu.mbarrier.init %bars[%be{s}], %cempty, predicate = %is0 : !bars')
    e('gpu.barrier')
    # dynamic smem, base rounded up to 1024 B
    e('%g0 = memref.get_global @dyn_smem : memref<0xi8, #gpu.address_space<workgroup>>')
    e('%gaddr = memref.extract_aligned_pointer_as_index %g0 : memref<0xi8, #gpu.address_space<workgroup>> -> index')
    e('%c1023 = arith.constant 1023 : index')
    e('%cm1024 = arith.constant -1024 : index')
    e('%ga1 = arith.addi %gaddr, %c1023 : index')
    e('%sbase = arith.andi %ga1, %cm1024 : index')
    e('%pad = arith.subi %sbase, %gaddr : index')
    e(f'%smemall = memref.reinterpret_cast %g0 to offset: [0], sizes: [{smem}], strides: [1] : '
      f'memref<0xi8, #gpu.address_space<workgroup>> to memref<{smem}xi8, #gpu.address_space<workgroup>>')
    e(f'%c64 = arith.constant 64 : index')
    # k-blocks of 64, rounded up to an even count (the consumer loop is unrolled x2):
    # the packer pads every weight row-block to nk blobs (zero codes, zero scales) and
    # TMA zero-fills the activation columns >= K.
    e(f'%c127 = arith.constant 127 : index')
    e(f'%c128k = arith.constant 128 : index')
    e('%k127 = arith.addi %K, %c127 : index')
    e('%nkh = arith.divui %k127, %c128k : index')
    e('%c2k = arith.constant 2 : index')
    e('%nk = arith.muli %nkh, %c2k : index')
    e(f'%cS = arith.constant {S} : index')
    e(f'%cWG = arith.constant {wg} : index')
    e('%isprod = arith.cmpi eq, %wgi, %cWG : index')
    e('scf.if %isprod {')
    # ------------------------------------------------------------ producer
    e.ind += 1
    e('nvvm.setmaxregister decrease 40')
    e('%c32 = arith.constant 32 : index')
    e('%pw = arith.divui %t, %c32 : index')
    e('%pw0 = arith.cmpi eq, %pw, %c0 : index')
    e('scf.if %pw0 {')
    e.ind += 1
    e('%el = nvvm.elect.sync -> i1')
    e('scf.if %el {')
    e.ind += 1
    e('nvgpu.tma.prefetch.descriptor %dA : !descA')
    e('nvgpu.tma.prefetch.descriptor %dB : !descB')
    e('%ticks = arith.constant 10000000 : index')
    e(f'%txb = arith.constant {stage_b} : index')
    e('%n64 = arith.divui %N, %c64 : index')
    e(f'%rb0 = arith.muli %bx, %cWG : index')
    e('%gn = arith.muli %bz, %n64 : index')
    e('%grb = arith.addi %gn, %rb0 : index')
    e('scf.for %kb = %c0 to %nk step %c1 {')
    e.ind += 1
    e('%s = arith.remui %kb, %cS : index')
    e('%rnd = arith.divui %kb, %cS : index')
    e('%c2p = arith.constant 2 : index')
    e('%ph = arith.remui %rnd, %c2p : index')
    e('%phe = arith.cmpi eq, %ph, %c0 : index')   # producer waits parity (ph ^ 1)
    e('%se = arith.addi %s, %cS : index')
    e('nvgpu.mbarrier.try_wait.parity %bars[%se], %phe, %ticks : !bars')
    e('nvgpu.mbarrier.arrive.expect_tx %bars[%s], %txb : !bars')
    e(f'%cbb = arith.constant {b_bytes} : index')
    e('%bo0 = arith.muli %s, %cbb : index')
    e('%bo = arith.addi %bo0, %pad : index')
    e(f'%bv = memref.view %smemall[%bo][] : memref<{smem}xi8, #gpu.address_space<workgroup>> to memref<{nt}x64x{T}, #gpu.address_space<workgroup>>')
    e('%k0 = arith.muli %kb, %c64 : index')
    e(f'nvgpu.tma.async.load %dB[%k0, %mst], %bars[%s] to %bv : !descB, !bars -> memref<{nt}x64x{T}, #gpu.address_space<workgroup>>')
    e(f'%cab = arith.constant {a_base} : index')
    e(f'%csa = arith.constant {wg * a_bytes} : index')
    e('%ao0 = arith.muli %s, %csa : index')
    e('%ao1 = arith.addi %ao0, %cab : index')
    e('%ao = arith.addi %ao1, %pad : index')
    e('%c36 = arith.constant 36 : index')
    for w in range(wg):
        e(f'%aw{w} = arith.constant {w * a_bytes} : index')
        e(f'%aow{w} = arith.addi %ao, %aw{w} : index')
        e(f'%av{w} = memref.view %smemall[%aow{w}][] : memref<{smem}xi8, #gpu.address_space<workgroup>> to memref<36x64xui8, #gpu.address_space<workgroup>>')
        e(f'%w{w} = arith.constant {w} : index')
        e(f'%rbw{w} = arith.addi %grb, %w{w} : index')
        e(f'%bl{w}a = arith.muli %rbw{w}, %nk : index')
        e(f'%bl{w} = arith.addi %bl{w}a, %kb : index')
        e(f'%row{w} = arith.muli %bl{w}, %c36 : index')
        e(f'nvgpu.tma.async.load %dA[%c0, %row{w}], %bars[%s] to %av{w} : !descA, !bars -> memref<36x64xui8, #gpu.address_space<workgroup>>')
    e.ind -= 1
    e('}')
    e.ind -= 1
    e('}')
    e.ind -= 1
    e('}')
    e.ind -= 1
    e('} else {')
    # ------------------------------------------------------------ consumers
    e.ind += 1
    e(f'nvvm.setmaxregister increase {regs_c}')
    e('%ticksc = arith.constant 10000000 : index')
    e('%c32c = arith.constant 32 : index')
    e('%warp = arith.divui %t, %c32c : index')
    e('%lane = arith.remui %t, %c32c : index')
    e('%c4 = arith.constant 4 : index')
    e('%gq = arith.divui %lane, %c4 : index')
    e('%cq = arith.remui %lane, %c4 : index')
    e(f'%smemw = memref.view %smemall[%pad][] : memref<{smem}xi8, #gpu.address_space<workgroup>> to memref<{(smem - 1024) // 4}xi32, #gpu.address_space<workgroup>>')
    e(f'%smem32 = memref.cast %smemw : memref<{(smem - 1024) // 4}xi32, #gpu.address_space<workgroup>> to memref<?xi32, #gpu.address_space<workgroup>>')
    # per-stage word offsets of this warpgroup's A blob
    e(f'%caw = arith.constant {a_base // 4} : index')
    e(f'%csaw = arith.constant {wg * a_bytes // 4} : index')
    e(f'%cwaw = arith.constant {a_bytes // 4} : index')
    e('%wgo = arith.muli %wgi, %cwaw : index')
    e('%aw0 = arith.addi %caw, %wgo : index')
    # B descriptor base (i64)
    e('%sb64 = arith.index_cast %sbase : index to i64')
    e('%c4i = arith.constant 4 : i64')
    e('%c3fff = arith.constant 16383 : i64')
    e(f'%dhi = arith.constant {desc_hi} : i64')
    e(f'%cbbi = arith.constant {b_bytes // 16} : i64')
    e('%sb4 = arith.shrui %sb64, %c4i : i64')
    e('%sbm = arith.andi %sb4, %c3fff : i64')
    e('%desc0 = arith.ori %sbm, %dhi : i64')

    def stage_words(kbv):
        s = e.op(f'arith.remui {kbv}, %cS : index', 's')
        w = e.op(f'arith.muli {s}, %csaw : index', 'aw')
        return s, e.op(f'arith.addi {w}, %aw0 : index', 'aw')

    def wait_full(kbv, s):
        rnd = e.op(f'arith.divui {kbv}, %cS : index', 'r')
        two = e.c(2)
        ph = e.op(f'arith.remui {rnd}, {two} : index', 'ph')
        phb = e.op(f'arith.cmpi ne, {ph}, %c0 : index', 'ph')
        e(f'nvgpu.mbarrier.try_wait.parity %bars[{s}], {phb}, %ticksc : !bars')

    def issue(acc, regs, s):
        si = e.op(f'arith.index_cast {s} : index to i64', 'si')
        so = e.op(f'arith.muli {si}, %cbbi : i64', 'so')
        d = e.op(f'arith.addi %desc0, {so} : i64', 'desc')
        e('nvvm.wgmma.fence.aligned')
        for st in range(4):
            dd = d
            if st:
                cst = e.c(2 * st, 'i64')
                dd = e.op(f'arith.addi {d}, {cst} : i64', 'desc')
            acc = wgmma_asm(e, nt, T, acc, regs[st], dd, acc_ty)
        e('nvvm.wgmma.commit.group.sync.aligned')
        return acc

    def release(s):
        se = e.op(f'arith.addi {s}, %cS : index', 'se')
        e(f'%tok_{e.n} = nvgpu.mbarrier.arrive %bars[{se}] : !bars -> !nvgpu.mbarrier.token')

    # prologue: stage 0
    s0, aw = stage_words('%c0')
    wait_full('%c0', s0)
    regs0 = dequant_stage(e, dt, '%smem32', aw, '%t', '%warp', '%gq')
    flat0 = [r for st in regs0 for r in st]
    e('%acc0 = llvm.mlir.zero : ' + acc_ty)
    e('%c2 = arith.constant 2 : index')
    e('%nk2 = arith.divui %nk, %c2 : index')
    it_names = [f'%A{i}' for i in range(16)]
    iter_args = ', '.join(['%acc = %acc0'] + [f'{n} = {v}' for n, v in zip(it_names, flat0)])
    res = e.fresh('L')
    e(f'{res}:17 = scf.for %i = %c0 to %nk2 step %c1 iter_args({iter_args}) -> ({acc_ty}' + ', i32' * 16 + ') {')
    e.ind += 1
    e('%kb0 = arith.muli %i, %c2 : index')
    e('%kb1 = arith.addi %kb0, %c1 : index')
    e('%kb2 = arith.addi %kb0, %c2 : index')
    sA = e.op('arith.remui %kb0, %cS : index', 's')
    cur = [it_names[4 * st:4 * st + 4] for st in range(4)]
    acc = issue('%acc', cur, sA)
    e('nvvm.wgmma.wait.group.sync.aligned 1')
    # release stage of kb0-1 (if any)
    gt = e.op('arith.cmpi ugt, %kb0, %c0 : index', 'p')
    e(f'scf.if {gt} {{')
    e.ind += 1
    km1 = e.op('arith.subi %kb0, %c1 : index', 'k')
    sm1 = e.op(f'arith.remui {km1}, %cS : index', 's')
    release(sm1)
    e.ind -= 1
    e('}')
    sB, awB = stage_words('%kb1')
    wait_full('%kb1', sB)
    nxt = dequant_stage(e, dt, '%smem32', awB, '%t', '%warp', '%gq')
    acc = issue(acc, nxt, sB)
    e('nvvm.wgmma.wait.group.sync.aligned 1')
    release(sA)
    more = e.op('arith.cmpi ult, %kb2, %nk : index', 'p')
    nres = e.fresh('N')
    e(f'{nres}:16 = scf.if {more} -> (' + ', '.join(['i32'] * 16) + ') {')
    e.ind += 1
    sC, awC = stage_words('%kb2')
    wait_full('%kb2', sC)
    nn = dequant_stage(e, dt, '%smem32', awC, '%t', '%warp', '%gq')
    e('scf.yield ' + ', '.join(r for st in nn for r in st) + ' : ' + ', '.join(['i32'] * 16))
    e.ind -= 1
    e('} else {')
    e.ind += 1
    e('scf.yield ' + ', '.join(it_names) + ' : ' + ', '.join(['i32'] * 16))
    e.ind -= 1
    e('}')
    e(f'scf.yield {acc}, ' + ', '.join(f'{nres}#{i}' for i in range(16)) + f' : {acc_ty}' + ', i32' * 16)
    e.ind -= 1
    e('}')
    e('nvvm.wgmma.wait.group.sync.aligned 0')
    accf = f'{res}#0'
    # ------------------------------------------------------------ epilogue
    epilogue(e, nt, acc_ty, accf, dt)
    e.ind -= 1
    e('}')
    e.ind -= 1
    e('}')
    e('gpu.return')
    e.ind = 2
    e('}')
    info = dict(smem=smem, nthreads=nthreads, regs_c=regs_c, stage_b=stage_b)
    return '\n'.join(e.lines), info


def epilogue(e, nt, acc_ty, acc, dt):
    """alpha (fp32, before rounding) * acc -> bf16, swap-AB transpose through one shfl.bfly 4,
    bf16x2 stores C[m][n..n+1] masked by m < m_hi and n+1 < N."""
    e('// ---- epilogue: D[n_local][m_local] (f32) -> C[m][n] (bf16), alpha applied in fp32')
    e('%alp = llvm.inttoptr %alphap : i64 to !llvm.ptr<1>')
    e('%pal = llvm.getelementptr %alp[%gi] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32')
    e('%alpha0 = llvm.load %pal : !llvm.ptr<1> -> f32')
    if dt == 'bf16':
        e('%c2e7 = arith.constant 128.0 : f32   // undo the 2^-7 folded into the bf16 operands')
        e('%alpha = arith.mulf %alpha0, %c2e7 : f32')
    aname = '%alpha' if dt == 'bf16' else '%alpha0'
    e('%Cb = llvm.inttoptr %Cp : i64 to !llvm.ptr<1>')
    e('%c1i = arith.constant 1 : i32')
    e('%c4i32 = arith.constant 4 : i32')
    e('%c32i = arith.constant 32 : i32')
    e('%gpar = arith.andi %gq, %c1 : index')
    e('%odd = arith.cmpi ne, %gpar, %c0 : index')
    e('%c16 = arith.constant 16 : index')
    e('%c64e = arith.constant 64 : index')
    e('%nrow0 = arith.muli %warp, %c16 : index')
    e('%nrow1 = arith.addi %nrow0, %gq : index')
    e('%nwg = arith.muli %wgi, %c64e : index')
    # n0 of this CTA = bx * 64*WG ; n = n0 + 64*wgi + 16*warp + gq (+8h) (- odd)
    e('%nbase0 = arith.muli %bx, %cWG : index')
    e('%nbase1 = arith.muli %nbase0, %c64e : index')
    e('%nbase2 = arith.addi %nbase1, %nwg : index')
    e('%nrow = arith.addi %nbase2, %nrow1 : index')
    e('%oddi = arith.select %odd, %c1, %c0 : index')
    e('%nev = arith.subi %nrow, %oddi : index')         # even n of the stored pair
    e('%cq2 = arith.muli %cq, %c2 : index')
    e('%mcol = arith.addi %mst, %cq2 : index')
    e('%mcol1 = arith.addi %mcol, %oddi : index')       # m of the stored pair (+8j)
    e('%n1 = arith.addi %nev, %c1 : index')
    e('%nok0 = arith.cmpi ult, %n1, %N : index')
    e('%c8 = arith.constant 8 : index')
    e('%n8 = arith.addi %n1, %c8 : index')
    e('%nok1 = arith.cmpi ult, %n8, %N : index')
    for j in range(nt // 8):
        for h in range(2):
            v0 = e.op(f'llvm.extractvalue {acc}[{4 * j + 2 * h}] : {acc_ty}', 'e')
            v1 = e.op(f'llvm.extractvalue {acc}[{4 * j + 2 * h + 1}] : {acc_ty}', 'e')
            x0 = e.op(f'arith.mulf {v0}, {aname} : f32', 'e')
            x1 = e.op(f'arith.mulf {v1}, {aname} : f32', 'e')
            snd = e.op(f'arith.select %odd, {x0}, {x1} : f32', 'e')
            y = e.fresh('sh')
            e(f'{y}:2 = gpu.shuffle xor {snd}, %c4i32, %c32i : f32')
            lo = e.op(f'arith.select %odd, {y}#0, {x0} : f32', 'e')
            hi = e.op(f'arith.select %odd, {x1}, {y}#0 : f32', 'e')
            l16 = e.op(f'arith.truncf {lo} : f32 to bf16', 'e')
            h16 = e.op(f'arith.truncf {hi} : f32 to bf16', 'e')
            z = e.op('llvm.mlir.poison : vector<2xbf16>', 'e')
            c0i = e.c(0, 'i32'); c1i = e.c(1, 'i32')
            p0 = e.op(f'llvm.insertelement {l16}, {z}[{c0i} : i32] : vector<2xbf16>', 'e')
            p1 = e.op(f'llvm.insertelement {h16}, {p0}[{c1i} : i32] : vector<2xbf16>', 'e')
            mj = e.c(8 * j)
            m = e.op(f'arith.addi %mcol1, {mj} : index', 'm')
            mok = e.op(f'arith.cmpi ult, {m}, %mhi : index', 'm')
            ok = e.op(f'arith.andi {mok}, %nok{h} : i1', 'ok')
            e(f'scf.if {ok} {{')
            e.ind += 1
            nn = '%nev' if h == 0 else e.op('arith.addi %nev, %c8 : index', 'n')
            row = e.op(f'arith.muli {m}, %N : index', 'o')
            off = e.op(f'arith.addi {row}, {nn} : index', 'o')
            offi = e.op(f'arith.index_cast {off} : index to i64', 'o')
            p = e.op(f'llvm.getelementptr %Cb[{offi}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16', 'p')
            e(f'llvm.store {p1}, {p} {{alignment = 4 : i64}} : vector<2xbf16>, !llvm.ptr<1>')
            e.ind -= 1
            e('}')


def host_func(nt, wg, S, dt, name, info):
    T = 'f16' if dt == 'f16' else 'bf16'
    h = []
    h.append(f'  // Host side: descriptors + launch. A = packed weight blobs viewed as [rows, 64] ui8,')
    h.append(f'  // X = activations [M_total, K] {T} (dequantized NVFP4, exact), C = [M_total, N] bf16.')
    h.append(f'  func.func @launch_{name}(%A: memref<?x64xui8>, %X: memref<?x?x{T}>, %Cp: i64, %moffp: i64, %alphap: i64,')
    h.append(f'                         %N: index, %K: index, %G: index, %tilesM: index) {{')
    h.append(f'    %c1 = arith.constant 1 : index')
    h.append(f'    %c36 = arith.constant 36 : index')
    h.append(f'    %c64 = arith.constant 64 : index')
    h.append(f'    %cNT = arith.constant {nt} : index')
    h.append(f'    %cTile = arith.constant {64 * wg} : index')
    h.append(f'    %cThr = arith.constant {info["nthreads"]} : index')
    h.append(f'    %smem = arith.constant {info["smem"]} : i32')
    h.append(f'    %Au = memref.cast %A : memref<?x64xui8> to memref<*xui8>')
    h.append(f'    %Xu = memref.cast %X : memref<?x?x{T}> to memref<*x{T}>')
    h.append(f'    %dA = nvgpu.tma.create.descriptor %Au box[%c36, %c64] : memref<*xui8> -> !descA')
    h.append(f'    %dB = nvgpu.tma.create.descriptor %Xu box[%cNT, %c64] : memref<*x{T}> -> !descB')
    h.append(f'    %pA = builtin.unrealized_conversion_cast %dA : !descA to !llvm.ptr')
    h.append(f'    %pB = builtin.unrealized_conversion_cast %dB : !descB to !llvm.ptr')
    h.append(f'    %gx = arith.divui %N, %cTile : index')
    h.append(f'    gpu.launch_func @kmod::@{name} blocks in (%gx, %tilesM, %G) threads in (%cThr, %c1, %c1)')
    h.append(f'        dynamic_shared_memory_size %smem')
    h.append(f'        args(%pA : !llvm.ptr, %pB : !llvm.ptr, %Cp : i64, %moffp : i64, %alphap : i64, %N : index, %K : index)')
    h.append(f'    return')
    h.append(f'  }}')
    return '\n'.join(h)


def full(nt, wg, S, dt):
    T = 'f16' if dt == 'f16' else 'bf16'
    name = f'nvfp4_gemm_nt{nt}_wg{wg}_s{S}_{dt}'
    body, info = kernel_module(nt, wg, S, dt, name)
    out = []
    out.append(f'!descA = !nvgpu.tensormap.descriptor<tensor = memref<36x64xui8, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>')
    out.append(f'!descB = !nvgpu.tensormap.descriptor<tensor = memref<{nt}x64x{T}, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>')
    out.append(acc_alias(nt))
    out.append(f'!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {2 * S}>')
    out.append('module attributes {gpu.container_module} {')
    out.append(host_func(nt, wg, S, dt, name, info))
    out.append('  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx80", O = 3>] {')
    out.append('    // extern dynamic shared memory (`.extern .shared .align 1024 .b8 dyn_smem[]`)')
    out.append('    memref.global @dyn_smem : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}')
    out.append(dq_source())
    out.append(body)
    out.append('  }')
    out.append('}')
    return '\n'.join(out), info, name


def wgmma_only(nt, dt, pipelined=True):
    """Block 2: RS wgmma loop. B tile [nt x 64] 16-bit in smem (128B swizzle layout assumed),
    A from registers (dequantized from global), accumulators stored raw."""
    T = 'f16' if dt == 'f16' else 'bf16'
    n_acc = nt // 2
    acc_ty = f'!acc{nt}'
    name = f'rs_wgmma_m64n{nt}k16_{dt}'
    e = E(); e.ind = 2
    e(f'gpu.func @{name}(%q: !llvm.ptr<1>, %out: !llvm.ptr<1>, %nk: index) kernel attributes {{nvvm.reqntid = array<i32: 128, 1, 1>}} {{')
    e.ind = 3
    e('%c0 = arith.constant 0 : index')
    e('%c1 = arith.constant 1 : index')
    e('%t = gpu.thread_id x')
    e('%ti = arith.index_cast %t : index to i64')
    e('%g0 = memref.get_global @dyn_smem : memref<0xi8, #gpu.address_space<workgroup>>')
    e('%gaddr = memref.extract_aligned_pointer_as_index %g0 : memref<0xi8, #gpu.address_space<workgroup>> -> index')
    e('%sb64 = arith.index_cast %gaddr : index to i64')
    e('%c4i = arith.constant 4 : i64')
    e('%c3fff = arith.constant 16383 : i64')
    desc_hi = (1 << 16) | (64 << 32) | (1 << 62)
    e(f'%dhi = arith.constant {desc_hi} : i64')
    e('%sb4 = arith.shrui %sb64, %c4i : i64')
    e('%sbm = arith.andi %sb4, %c3fff : i64')
    e('%desc0 = arith.ori %sbm, %dhi : i64')
    e('%acc0 = llvm.mlir.zero : ' + acc_ty)
    fn = 'dq_f16' if dt == 'f16' else 'dq_bf16s'
    vt = f'vector<2x{T}>'

    def load_dq(kbv):
        kbi = e.op(f'arith.index_cast {kbv} : index to i64', 'k')
        c128 = e.c(128, 'i64')
        o = e.op(f'arith.muli {kbi}, {c128} : i64', 'o')
        o = e.op(f'arith.addi {o}, %ti : i64', 'o')
        c4 = e.c(4, 'i64')
        o = e.op(f'arith.muli {o}, {c4} : i64', 'o')
        p = e.op(f'llvm.getelementptr %q[{o}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32', 'p')
        v = e.op(f'llvm.load {p} {{alignment = 16 : i64}} : !llvm.ptr<1> -> vector<4xi32>', 'q')
        regs = []
        for st in range(4):
            qq = e.op(f'vector.extract {v}[{st}] : i32 from vector<4xi32>', 'q')
            r = e.fresh('x')
            e(f'{r}:4 = func.call @{fn}({qq}, {qq}) : (i32, i32) -> ({vt}, {vt}, {vt}, {vt})')
            regs.append([e.op(f'llvm.bitcast {r}#{j} : {vt} to i32', 'a') for j in range(4)])
        return regs

    def issue(acc, regs):
        e('nvvm.wgmma.fence.aligned')
        for st in range(4):
            d = '%desc0'
            if st:
                cst = e.c(2 * st, 'i64')
                d = e.op(f'arith.addi %desc0, {cst} : i64', 'desc')
            acc = wgmma_asm(e, nt, T, acc, regs[st], d, acc_ty)
        e('nvvm.wgmma.commit.group.sync.aligned')
        return acc

    if pipelined:
        regs0 = load_dq('%c0')
        flat0 = [r for st in regs0 for r in st]
        it = [f'%A{i}' for i in range(16)]
        e('%c2 = arith.constant 2 : index')
        e('%nk2 = arith.divui %nk, %c2 : index')
        res = e.fresh('L')
        e(f'{res}:17 = scf.for %i = %c0 to %nk2 step %c1 iter_args(%acc = %acc0, ' +
          ', '.join(f'{n} = {v}' for n, v in zip(it, flat0)) + f') -> ({acc_ty}' + ', i32' * 16 + ') {')
        e.ind += 1
        e('%kb0 = arith.muli %i, %c2 : index')
        e('%kb1 = arith.addi %kb0, %c1 : index')
        e('%kb2 = arith.addi %kb0, %c2 : index')
        acc = issue('%acc', [it[4 * s:4 * s + 4] for s in range(4)])
        e('nvvm.wgmma.wait.group.sync.aligned 1')
        nx = load_dq('%kb1')
        acc = issue(acc, nx)
        e('nvvm.wgmma.wait.group.sync.aligned 1')
        nn = load_dq('%kb2')     # reads one k-block past the end on the last trip: buffer is padded
        e(f'scf.yield {acc}, ' + ', '.join(r for s in nn for r in s) + f' : {acc_ty}' + ', i32' * 16)
        e.ind -= 1
        e('}')
        accf = f'{res}#0'
    else:
        res = e.fresh('L')
        e(f'{res} = scf.for %kb = %c0 to %nk step %c1 iter_args(%acc = %acc0) -> ({acc_ty}) {{')
        e.ind += 1
        regs = load_dq('%kb')
        acc = issue('%acc', regs)
        e('nvvm.wgmma.wait.group.sync.aligned 0')
        e(f'scf.yield {acc} : {acc_ty}')
        e.ind -= 1
        e('}')
        accf = res
    e('nvvm.wgmma.wait.group.sync.aligned 0')
    # raw store of accumulators: out[t*n_acc + i]
    for i in range(n_acc):
        v = e.op(f'llvm.extractvalue {accf}[{i}] : {acc_ty}', 'e')
        ci = e.c(n_acc, 'i64')
        o = e.op(f'arith.muli %ti, {ci} : i64', 'o')
        cii = e.c(i, 'i64')
        o = e.op(f'arith.addi {o}, {cii} : i64', 'o')
        p = e.op(f'llvm.getelementptr %out[{o}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32', 'p')
        e(f'llvm.store {v}, {p} : f32, !llvm.ptr<1>')
    e('gpu.return')
    e.ind = 2
    e('}')
    return '\n'.join(e.lines), name


def epilogue_only(nt, wg, dt):
    """Block 4 standalone: accumulators come from global memory (fragment order, NT/2 f32 per
    thread), the rest is exactly the epilogue of the full kernel."""
    n_acc = nt // 2
    acc_ty = f'!acc{nt}'
    name = f'epilogue_swapab_nt{nt}_wg{wg}'
    e = E(); e.ind = 2
    e(f'gpu.func @{name}(%accp: !llvm.ptr<1>, %Cp: i64, %moffp: i64, %alphap: i64, %N: index) '
      f'kernel attributes {{nvvm.maxntid = array<i32: {128 * wg}, 1, 1>}} {{')
    e.ind = 3
    e('%tid = gpu.thread_id x')
    e('%bx = gpu.block_id x')
    e('%by = gpu.block_id y')
    e('%bz = gpu.block_id z')
    e('%c0 = arith.constant 0 : index')
    e('%c1 = arith.constant 1 : index')
    e('%c2 = arith.constant 2 : index')
    e('%c4 = arith.constant 4 : index')
    e('%c32 = arith.constant 32 : index')
    e('%c128 = arith.constant 128 : index')
    e(f'%cWG = arith.constant {wg} : index')
    e(f'%cNT = arith.constant {nt} : index')
    e('%moff = llvm.inttoptr %moffp : i64 to !llvm.ptr<1>')
    e('%gi = arith.index_cast %bz : index to i64')
    e('%pm0 = llvm.getelementptr %moff[%gi] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32')
    e('%pm1 = llvm.getelementptr %pm0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32')
    e('%m0i = llvm.load %pm0 : !llvm.ptr<1> -> i32')
    e('%m1i = llvm.load %pm1 : !llvm.ptr<1> -> i32')
    e('%mlo = arith.index_cast %m0i : i32 to index')
    e('%mhi = arith.index_cast %m1i : i32 to index')
    e('%myo = arith.muli %by, %cNT : index')
    e('%mst = arith.addi %mlo, %myo : index')
    e('%wgi = arith.divui %tid, %c128 : index')
    e('%t = arith.remui %tid, %c128 : index')
    e('%warp = arith.divui %t, %c32 : index')
    e('%lane = arith.remui %t, %c32 : index')
    e('%gq = arith.divui %lane, %c4 : index')
    e('%cq = arith.remui %lane, %c4 : index')
    e('%ti = arith.index_cast %tid : index to i64')
    e(f'%cna = arith.constant {n_acc} : i64')
    e('%abase = arith.muli %ti, %cna : i64')
    e('%pa = llvm.getelementptr %accp[%abase] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32')
    acc = '%acc_in0'
    e(f'{acc} = llvm.mlir.undef : {acc_ty}')
    for i in range(n_acc):
        p = e.op(f'llvm.getelementptr %pa[{i}] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32', 'p')
        v = e.op(f'llvm.load {p} : !llvm.ptr<1> -> f32', 'v')
        acc = e.op(f'llvm.insertvalue {v}, {acc}[{i}] : {acc_ty}', 'acc')
    epilogue(e, nt, acc_ty, acc, dt)
    e('gpu.return')
    e.ind = 2
    e('}')
    return '\n'.join(e.lines), name


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('what', choices=['kernel', 'wgmma', 'epilogue'])
    ap.add_argument('--nt', type=int, default=128)
    ap.add_argument('--wg', type=int, default=2)
    ap.add_argument('--stages', type=int, default=4)
    ap.add_argument('--dtype', choices=['f16', 'bf16'], default='f16')
    ap.add_argument('--no-pipeline', action='store_true')
    a = ap.parse_args()
    if a.what == 'kernel':
        txt, info, name = full(a.nt, a.wg, a.stages, a.dtype)
        print(f'// {name}: {info}')
        print(txt)
    elif a.what == 'epilogue':
        for nt in ([a.nt] if a.nt else [16, 64, 128, 256]):
            print(acc_alias(nt))
        print('module attributes {gpu.container_module} {')
        print('  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx80", O = 3>] {')
        for nt in ([a.nt] if a.nt else [16, 64, 128, 256]):
            k, name = epilogue_only(nt, a.wg, a.dtype)
            print(k)
        print('  }')
        print('}')
    else:
        ks = []
        for nt in ([a.nt] if a.nt else [8, 16, 48, 64, 128, 192, 256]):
            k, name = wgmma_only(nt, a.dtype, not a.no_pipeline)
            ks.append(k)
            print(acc_alias(nt))
        print('module attributes {gpu.container_module} {')
        print('  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx80", O = 3>] {')
        print('    memref.global @dyn_smem : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}')
        print(dq_source())
        print('\n'.join(ks))
        print('  }')
        print('}')
