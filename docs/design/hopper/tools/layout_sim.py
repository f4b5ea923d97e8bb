#!/usr/bin/env python3
"""Host-side simulation of the layout contract of gen_nvfp4_sm90.py (no GPU):
offline packer -> blob bytes -> the kernel's per-thread LDS offsets -> emulated dequant
(emu_dq.py, bit-exact) -> wgmma A/D fragment layouts (PTX ISA m64nNk16) -> swap-AB
epilogue with the shfl.bfly-4 exchange and masking -> C.  Compared with a direct reference.
Checks the index math only; hardware behaviour (fragment layouts, swizzle) is the PTX ISA's."""
import numpy as np, struct, sys
from fractions import Fraction as F
import os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import emu_dq as E

E2M1 = np.array([0, .5, 1, 1.5, 2, 3, 4, 6, -0., -.5, -1, -1.5, -2, -3, -4, -6])
def e4m3f(b): return float(E.e4m3(int(b)))

def frag_codes(W, r0, kk, cq):
    """a0..a7 of thread (r0 = 16*warp + lane/4, cq = lane%4) for the k16 step at kk"""
    return [W[r0, kk + 2*cq], W[r0, kk + 2*cq + 1], W[r0 + 8, kk + 2*cq], W[r0 + 8, kk + 2*cq + 1],
            W[r0, kk + 2*cq + 8], W[r0, kk + 2*cq + 9], W[r0 + 8, kk + 2*cq + 8], W[r0 + 8, kk + 2*cq + 9]]
def pack_f16(a):   # byte b = (a_b low nibble, a_{b+4} high nibble)
    return sum(((int(a[b]) | (int(a[b + 4]) << 4)) << (8 * b)) for b in range(4))
def pack_bf16s(a): # nibble j = a_{2j}, nibble j+4 = a_{2j+1}
    return sum((int(a[2*j]) << (4*j)) | (int(a[2*j+1]) << (4*(j+4))) for j in range(4))

def pack(W, SW, dt):
    G, N, K = W.shape; nk = K // 64
    out = np.zeros(G * (N // 64) * nk * 2304, np.uint8)
    pk = pack_f16 if dt == 'f16' else pack_bf16s
    for g in range(G):
        for rb in range(N // 64):
            for kb in range(nk):
                base = ((g * (N // 64) + rb) * nk + kb) * 2304
                Wb = W[g, rb*64:(rb+1)*64]; Sb = SW[g, rb*64:(rb+1)*64]
                for t in range(128):
                    w, l = t // 32, t % 32; gq, cq = l // 4, l % 4; r0 = 16*w + gq
                    for s in range(4):
                        u = pk(frag_codes(Wb, r0, kb*64 + 16*s, cq))
                        out[base + t*16 + 4*s: base + t*16 + 4*s + 4] = np.frombuffer(struct.pack('<I', u), np.uint8)
                    for s in range(4):
                        out[base + 2048 + (w*8 + gq)*8 + 2*s] = Sb[r0, kb*4 + s]
                        out[base + 2048 + (w*8 + gq)*8 + 2*s + 1] = Sb[r0 + 8, kb*4 + s]
    return out

def dec16(h, dt):
    return float(E.dec(h, 5, 10)[0]) if dt == 'f16' else float(E.dec(h, 8, 7)[0])

def bf16_round(x):
    b = struct.unpack('<I', struct.pack('<f', x))[0]
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return struct.unpack('<f', struct.pack('<I', b))[0]

def run(G, N, K, Ms, NT, WG, dt, seed=0):
    rng = np.random.default_rng(seed)
    W = rng.integers(0, 16, (G, N, K)); SW = rng.integers(0, 0x7F, (G, N, K // 16))
    SW[0, 3, 1] = 0; SW[-1, 5, 0] = 1            # a zero and a subnormal scale
    moff = np.concatenate([[0], np.cumsum(Ms)]); Mt = moff[-1]
    X = rng.choice(E2M1, (Mt, K)) * rng.choice([2.0**e for e in range(-6, 5)], (Mt, K))
    alpha = rng.uniform(0.5, 2, G)
    blob = pack(W, SW, dt); words = blob.view('<u4')
    dq = E.dq_f16 if dt == 'f16' else E.dq_bf16s
    fold = 1.0 if dt == 'f16' else 128.0
    C = np.full((Mt, N), np.nan); written = np.zeros((Mt, N), int)
    nk = K // 64
    for g in range(G):
        for by in range((max(Ms) + NT - 1) // NT):
            mst = moff[g] + by * NT
            if mst >= moff[g + 1]: continue
            for bx in range(N // (64 * WG)):
                for wgi in range(WG):
                    rb = bx * WG + wgi
                    D = np.zeros((64, NT))
                    for kb in range(nk):
                        blw = ((g * (N // 64) + rb) * nk + kb) * 576        # words
                        for s in range(4):
                            A = np.zeros((64, 16))
                            for t in range(128):
                                w, l = t // 32, t % 32; gq, cq = l // 4, l % 4; r0 = 16*w + gq
                                q = int(words[blw + t*4 + s])                    # vector.load [t*4 + s]
                                sw = int(words[blw + 512 + (w*8 + gq)*2 + s // 2]) >> (16 * (s % 2))
                                regs = dq(q, sw)
                                vals = [dec16((regs[i // 2] >> (16 * (i % 2))) & 0xFFFF, dt) for i in range(8)]
                                for i, (rr, cc) in enumerate([(r0, 2*cq), (r0, 2*cq+1), (r0+8, 2*cq), (r0+8, 2*cq+1),
                                                              (r0, 2*cq+8), (r0, 2*cq+9), (r0+8, 2*cq+8), (r0+8, 2*cq+9)]):
                                    A[rr, cc] = vals[i]
                            kk = kb * 64 + 16 * s
                            Bt = np.zeros((NT, 16))
                            rows = np.arange(mst, mst + NT); ok = rows < Mt
                            Bt[ok] = X[rows[ok], kk:kk + 16]
                            D += A @ Bt.T
                    # epilogue, per thread with the lane^4 exchange
                    al = alpha[g] * fold
                    for t in range(128):
                        w, l = t // 32, t % 32; gq, cq = l // 4, l % 4; odd = gq & 1
                        lp = l ^ 4; gqp = lp // 4
                        for j in range(NT // 8):
                            for h in range(2):
                                r = 16*w + gq + 8*h; rp = 16*w + gqp + 8*h; c = 8*j + 2*cq
                                x0, x1 = D[r, c] * al, D[r, c + 1] * al
                                px0, px1 = D[rp, c] * al, D[rp, c + 1] * al
                                y = px0 if (gqp & 1) else px1
                                lo = y if odd else x0; hi = x1 if odd else y
                                m = mst + 2*cq + odd + 8*j
                                n = bx * 64 * WG + 64 * wgi + 16*w + gq - odd + 8*h
                                if m < moff[g + 1] and n + 1 < N:
                                    C[m, n] = bf16_round(lo); C[m, n + 1] = bf16_round(hi)
                                    written[m, n] += 1; written[m, n + 1] += 1
    # reference
    deq = E2M1[W] * np.vectorize(e4m3f)(SW).repeat(16, axis=2)
    ref = np.zeros((Mt, N))
    for g in range(G):
        ref[moff[g]:moff[g+1]] = alpha[g] * X[moff[g]:moff[g+1]] @ deq[g].T
    assert (written == 1).all(), f'coverage: {np.unique(written, return_counts=True)}'
    err = np.abs(C - ref) / (1e-3 + np.abs(ref))
    assert err.max() < 2**-7, err.max()
    print(f'layout_sim {dt} G={G} N={N} K={K} M={list(Ms)} NT={NT} WG={WG}: all {Mt*N} outputs written once, '
          f'max rel err {err.max():.2e} (bf16 output rounding)')

if __name__ == '__main__':
    run(2, 128, 128, [40, 20], 16, 2, 'f16')
    run(2, 128, 128, [24, 9], 16, 1, 'bf16')
    run(1, 64, 256, [8], 8, 1, 'f16')
