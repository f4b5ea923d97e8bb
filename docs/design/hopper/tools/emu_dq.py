#!/usr/bin/env python3
"""Bit-level emulation of the three dequant variants in dq_funcs (same constants, same
op sequence).  Floating multiplies are checked to be exact (the exact product must be
representable in the destination format as a NORMAL number, except where noted) and
compared with e2m1(code) * e4m3(scale).  Exhaustive over all 16 codes in each of the 8
nibble positions and all 127 non-negative finite e4m3 scale bytes for both rows."""
from fractions import Fraction as F
M32 = 0xFFFFFFFF
E2M1 = [0, .5, 1, 1.5, 2, 3, 4, 6]
def e2m1(c): v = F(E2M1[c & 7]).limit_denominator(); return -v if c & 8 else v
def e4m3(b):
    s = -1 if b & 0x80 else 1; e = (b >> 3) & 15; m = b & 7
    assert not (e == 15 and m == 7)
    return s * (F(m, 8) * F(1, 2**6) if e == 0 else (1 + F(m, 8)) * F(2)**(e - 7))
def dec(bits, ebits, mbits):   # generic IEEE-like decode (bf16: 8,7  f16: 5,10)
    s = -1 if bits >> (ebits + mbits) & 1 else 1
    e = (bits >> mbits) & ((1 << ebits) - 1); m = bits & ((1 << mbits) - 1); bias = (1 << (ebits - 1)) - 1
    assert e != (1 << ebits) - 1, 'inf/nan'
    if e == 0: return s * F(m, 1 << mbits) * F(2)**(1 - bias), False
    return s * (1 + F(m, 1 << mbits)) * F(2)**(e - bias), True
def enc_exact(v, ebits, mbits, need_normal=True):
    """encode exactly, assert representable (normal unless need_normal=False)"""
    if v == 0: return 0
    s = 0x8000 if v < 0 else 0; a = abs(v); bias = (1 << (ebits - 1)) - 1
    e = 0
    while a >= 2 * F(2)**e: e += 1
    while a < F(2)**e: e -= 1
    if e < 1 - bias:
        assert not need_normal, f'subnormal product {v}'
        m = a / F(2)**(1 - bias) * (1 << mbits); assert m.denominator == 1; return s | int(m)
    m = (a / F(2)**e - 1) * (1 << mbits); assert m.denominator == 1, f'inexact {v}'
    assert e + bias < (1 << ebits) - 1, f'overflow {v}'
    return s | ((e + bias) << mbits) | int(m)
def h2(w): return (w & 0xFFFF, w >> 16)
def prmt(a, b, c):
    src = (b << 32) | a; out = 0
    for k in range(4):
        sel = (c >> (4 * k)) & 15; byte = (src >> (8 * (sel & 7))) & 0xFF
        if sel & 8: byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * k)
    return out
def cvt_e4m3x2_f16x2(h16):     # exact by definition (every e4m3 value is an f16 normal or 0)
    lo, hi = h16 & 0xFF, h16 >> 8
    return enc_exact(e4m3(lo), 5, 10) | (enc_exact(e4m3(hi), 5, 10) << 16)
def mul2(a, b, ebits, mbits, sub_in_ok):
    out = 0
    for k in range(2):
        (x, xn), (y, yn) = dec((a >> 16 * k) & 0xFFFF, ebits, mbits), dec((b >> 16 * k) & 0xFFFF, ebits, mbits)
        if not sub_in_ok: assert (xn or x == 0) and (yn or y == 0), 'subnormal input'
        out |= enc_exact(x * y, ebits, mbits) << (16 * k)
    return out
def splat(w, k): h = (w >> 16 * k) & 0xFFFF; return h | (h << 16)

def dq_f16(q, sw):
    fE = ((q << 2) & M32 & 0x1C1C1C1C) | ((q << 4) & M32 & 0x80808080)
    fO = ((q >> 2) & 0x1C1C1C1C) | (q & 0x80808080)
    x = [cvt_e4m3x2_f16x2(fE & 0xFFFF), cvt_e4m3x2_f16x2(fE >> 16), cvt_e4m3x2_f16x2(fO & 0xFFFF), cvt_e4m3x2_f16x2(fO >> 16)]
    sv = cvt_e4m3x2_f16x2(sw & 0xFFFF); c64 = 0x54005400
    sv64 = mul2(sv, c64, 5, 10, False); S0, S1 = splat(sv64, 0), splat(sv64, 1)
    return [mul2(x[0], S0, 5, 10, False), mul2(x[1], S1, 5, 10, False), mul2(x[2], S0, 5, 10, False), mul2(x[3], S1, 5, 10, False)]
def unpack_f16(q):   # byte b = (a_b, a_{b+4})
    return [(q >> 8 * (i % 4) + 4 * (i // 4)) & 15 for i in range(8)]

def dq_bf16s(q, sw):
    M1, M2 = 0x01C001C0, 0x80008000
    w = [(((q << 6) & M1) | ((q << 12) & M2)) & M32, (((q << 2) & M1) | ((q << 8) & M2)) & M32,
         (((q >> 2) & M1) | ((q << 4) & M2)) & M32, (((q >> 6) & M1) | (q & M2)) & M32]
    sbits = ((sw & 0x7F) << 4) | ((sw & 0x7F00) << 12)
    p127, p112 = enc_exact(F(2)**127, 8, 7) * 0x10001, enc_exact(F(2)**112, 8, 7) * 0x10001
    sv = mul2(mul2(sbits, p127, 8, 7, True), p112, 8, 7, True); S0, S1 = splat(sv, 0), splat(sv, 1)
    return [mul2(w[0], S0, 8, 7, True), mul2(w[1], S1, 8, 7, True), mul2(w[2], S0, 8, 7, True), mul2(w[3], S1, 8, 7, True)]
def unpack_bf16s(q):  # register j = (nibble j, nibble j+4): a_{2j} = nibble j, a_{2j+1} = nibble j+4
    return [(q >> 4 * ((i // 2) + 4 * (i % 2))) & 15 for i in range(8)]

def dq_bf16lut(q, sw):
    qm = q & 0x77777777; qmh = qm >> 16
    LTa, LTb, HTa, HTb = 0xC0800000, 0xC0804000, 0x3F3F3F00, 0x40404040
    L0, H0, L1, H1 = prmt(LTa, LTb, qm), prmt(HTa, HTb, qm), prmt(LTa, LTb, qmh), prmt(HTa, HTb, qmh)
    m = [prmt(L0, H0, 0x5140), prmt(L0, H0, 0x7362), prmt(L1, H1, 0x5140), prmt(L1, H1, 0x7362)]
    q4 = (q << 4) & M32
    g = [prmt(q4, q, s) & 0x80008000 for s in (0xC080, 0xD090, 0xE0A0, 0xF0B0)]
    w = [m[j] | g[j] for j in range(4)]
    sh = cvt_e4m3x2_f16x2(sw & 0xFFFF)
    sbf = enc_exact(dec(sh & 0xFFFF, 5, 10)[0], 8, 7) | (enc_exact(dec(sh >> 16, 5, 10)[0], 8, 7) << 16)
    S0, S1 = splat(sbf, 0), splat(sbf, 1)
    return [mul2(w[0], S0, 8, 7, False), mul2(w[1], S1, 8, 7, False), mul2(w[2], S0, 8, 7, False), mul2(w[3], S1, 8, 7, False)]
def unpack_nat(q): return [(q >> 4 * i) & 15 for i in range(8)]

def check(fn, unpack, ebits, mbits, factor):
    n = 0
    for pos in range(8):
        for code in range(16):
            for other in (0, 0x9, 0xF):
                q = 0
                for p in range(8): q |= (code if p == pos else (other + p) & 15) << (4 * p)
                for s0 in range(0x7F):
                    for s1 in (s0, 0x7E - s0):
                        out = fn(q, s0 | (s1 << 8)); a = unpack(q)
                        for i in range(8):
                            reg, half = i // 2, i % 2
                            got = dec((out[reg] >> 16 * half) & 0xFFFF, ebits, mbits)[0]
                            row = (i // 2) % 2   # a0,a1,a4,a5 -> row r0 ; a2,a3,a6,a7 -> row r0+8
                            want = e2m1(a[i]) * e4m3(s0 if row == 0 else s1) * factor
                            assert got == want, (fn.__name__, hex(q), s0, s1, i, got, want)
                            n += 1
    print(f'{fn.__name__}: {n} element checks OK')
if __name__ == '__main__':
    check(dq_f16, unpack_f16, 5, 10, 1)
    check(dq_bf16s, unpack_bf16s, 8, 7, F(1, 2**7))
    check(dq_bf16lut, unpack_nat, 8, 7, 1)
