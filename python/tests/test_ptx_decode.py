"""Tests for nvfp4_testing.ptx_decode: an independent decoder of tcgen05 operands.

Expected values are written out from the PTX ISA tables (9.7.16.4.1 shared
memory descriptor, 9.7.16.4.2 instruction descriptor, 9.7.16.1.1 TMEM
addressing) and from worked instruction-descriptor values (the WORKED table
below: each value written out with the M, N, kind and scale type it encodes
under those tables, the same values CUTLASS's mma_sm100_desc.hpp produces),
never from an encoder in this repository.
"""

import os

import pytest

from nvfp4_testing.ptx_decode import (
    KnownBits,
    check_kernel,
    decode_idesc,
    decode_smem_desc,
    decode_tmem_addr,
    extract_tcgen05,
    validate_alloc_ncols,
    validate_idesc,
    validate_smem_desc,
    validate_tmem_addr,
)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")


def enc(x):
    """PTX ISA matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4."""
    return (x & 0x3FFFF) >> 4


# --------------------------------------------------------------------------
# instruction descriptor: worked values (PTX ISA 9.7.16.4.2 bit layout)
# --------------------------------------------------------------------------

WORKED = [
    # value, kind, cta_group, M, N, scale type
    (0x08400480, "mxf4nvf4", 1, 128, 256, "UE4M3"),   # NVFP4 M128 N256
    (0x08200480, "mxf4nvf4", 1, 128, 128, "UE4M3"),   # NVFP4 M128 N128
    (0x08100480, "mxf4nvf4", 1, 128, 64, "UE4M3"),    # NVFP4 M128 N64
    (0x10400480, "mxf4nvf4", 2, 256, 256, "UE4M3"),   # NVFP4 M256 N256 cta_group::2
    (0x08C00480, "mxf4", 1, 128, 256, "UE8M0"),       # MXFP4 M128 N256
]


@pytest.mark.parametrize("value,kind,cta,m,n,scale", WORKED)
def test_worked_block_scaled_idesc(value, kind, cta, m, n, scale):
    d = decode_idesc(value, kind)
    assert d["raw"] == value
    assert (d["m"], d["n"]) == (m, n)
    assert d["a_type"] == d["b_type"] == "E2M1"
    assert d["atype_code"] == 1 and d["btype_code"] == 1
    assert d["scale_type"] == scale
    assert d["sfa_id"] == 0 and d["sfb_id"] == 0
    assert d["sparse"] == 0 and d["k_dim"] == 0 and d["k_per_instr"] == 64
    assert d["negate_a"] == d["negate_b"] == 0
    assert d["transpose_a"] == d["transpose_b"] == 0
    assert d["dtype"] == "F32"
    assert d["reserved_bits_set"] == 0
    assert d["unknown_fields"] == []
    block = "block16" if kind == "mxf4nvf4" else "block32"
    assert validate_idesc(value, kind, cta_group=cta, block=block) == []


def test_worked_bf16_f16_kind():
    d = decode_idesc(0x08400490, "f16")
    assert d["dtype"] == "F32"
    assert d["a_type"] == d["b_type"] == "BF16"
    assert (d["m"], d["n"]) == (128, 256)
    assert d["k_per_instr"] == 16
    assert validate_idesc(0x08400490, "f16") == []


def test_same_bits_other_kind():
    # 0x08400490 differs from the NVFP4 value only in bit 4: read as
    # kind::mxf4nvf4 that bit is SFB ID = 1, which the table forbids (0 or 2).
    d = decode_idesc(0x08400490, "mxf4nvf4")
    assert d["sfb_id"] == 1
    v = validate_idesc(0x08400490, "mxf4nvf4", block="block16")
    assert any("sfb_id=1" in x for x in v)
    # and the NVFP4 value read as kind::f16 is an F16 x F16 -> F16 ... with
    # atype/btype F16? no: atype code 1 = BF16, dtype code 0 = F16 (legal bits)
    d16 = decode_idesc(0x08400480, "f16")
    assert d16["dtype"] == "F16" and d16["a_type"] == "BF16"


def test_formula_matches_table():
    # (1<<7)|(1<<10)|((N>>3)<<17)|((M>>7)<<27), decoded field by field
    for n in range(8, 257, 8):
        v = (1 << 7) | (1 << 10) | ((n >> 3) << 17) | (1 << 27)
        d = decode_idesc(v, "mxf4nvf4")
        assert d["n"] == n and d["m"] == 128
        assert validate_idesc(v, "mxf4nvf4", cta_group=1, block="block16") == []


def test_mxf8f6f4_table43():
    # E4M3 x E4M3, UE8M0, N=128, M=128, SFA id 3, SFB id 1
    v = (1 << 4) | (0 << 7) | (0 << 10) | (16 << 17) | (1 << 23) | (1 << 27) | (3 << 29)
    d = decode_idesc(v, "mxf8f6f4")
    assert d["a_type"] == "E4M3" and d["sfa_id"] == 3 and d["sfb_id"] == 1
    assert d["k_per_instr"] == 32
    assert validate_idesc(v, "mxf8f6f4", block="block32") == []


# ---- negative cases ----

def test_reserved_bit_set():
    for bit in (0, 1, 3, 6, 12, 24, 25, 26):
        v = 0x08400480 | (1 << bit)
        d = decode_idesc(v, "mxf4nvf4")
        assert d["reserved_bits_set"] == 1 << bit
        assert any("reserved" in x for x in validate_idesc(v, "mxf4nvf4", block="block16")), bit


def test_bad_m():
    no_m = 0x08400480 & ~(3 << 27)                      # M field 0
    assert decode_idesc(no_m, "mxf4nvf4")["m"] == 0
    assert any("M=0" in x for x in validate_idesc(no_m, "mxf4nvf4"))
    m384 = no_m | (3 << 27)
    assert any("M=384" in x for x in validate_idesc(m384, "mxf4nvf4", cta_group=2))
    # M=256 needs cta_group::2
    assert any("M=256" in x for x in validate_idesc(0x10400480, "mxf4nvf4", cta_group=1))
    # M=64 is illegal for every block-scaled kind, legal for kind::f16 cta_group::1
    f16_m64 = (1 << 4) | (1 << 7) | (1 << 10) | (32 << 17) | (4 << 24)
    assert decode_idesc(f16_m64, "f16")["m"] == 64
    assert validate_idesc(f16_m64, "f16", cta_group=1) == []
    assert any("M=64" in x for x in validate_idesc(f16_m64, "f16", cta_group=2))


def test_bad_n():
    base = 0x08400480 & ~(0x3F << 17)
    assert any("N=0" in x for x in validate_idesc(base, "mxf4nvf4"))
    n264 = base | (33 << 17)
    assert decode_idesc(n264, "mxf4nvf4")["n"] == 264
    assert any("N=264" in x for x in validate_idesc(n264, "mxf4nvf4"))
    n8 = base | (1 << 17)
    assert validate_idesc(n8, "mxf4nvf4", cta_group=1, block="block16") == []
    n8_m256 = (n8 & ~(3 << 27)) | (2 << 27)
    assert any("N=8" in x for x in validate_idesc(n8_m256, "mxf4nvf4", cta_group=2))


def test_transpose_forbidden_for_fp4():
    for bit in (15, 16):
        v = 0x08400480 | (1 << bit)
        assert any("transpose" in x for x in validate_idesc(v, "mxf4nvf4", block="block16"))
        # but legal for kind::f16
        assert validate_idesc(0x08400490 | (1 << bit), "f16") == []


def test_block16_sf_ids_must_be_zero():
    v = 0x08400480 | (2 << 29) | (2 << 4)
    d = decode_idesc(v, "mxf4nvf4")
    assert d["sfa_id"] == 2 and d["sfb_id"] == 2
    errs = validate_idesc(v, "mxf4nvf4", block="block16")
    assert any("sfa_id=2" in x for x in errs) and any("sfb_id=2" in x for x in errs)
    # block32 (scale_vec::2X) selects the half word: ids 0/2 legal
    mx = 0x08C00480 | (2 << 29) | (2 << 4)
    assert validate_idesc(mx, "mxf4", block="block32") == []
    assert any("0 or 2" in x for x in validate_idesc(0x08C00480 | (1 << 29), "mxf4", block="block32"))


def test_scale_type_rules():
    # kind::mxf4 needs UE8M0
    assert any("UE8M0" in x for x in validate_idesc(0x08400480, "mxf4", block="block32"))
    # kind::mxf4nvf4 with UE4M3 scales needs block16
    assert any("block16" in x for x in validate_idesc(0x08400480, "mxf4nvf4", block="block32"))
    assert validate_idesc(0x08C00480, "mxf4nvf4", block="block32") == []
    # block16 only with mxf4nvf4
    assert any("block16" in x for x in validate_idesc(0x08C00480, "mxf4", block="block16"))


def test_k96_bit():
    v = 0x10400480 | (1 << 31)
    d = decode_idesc(v, "mxf4nvf4")
    assert d["k_per_instr"] == 96
    assert validate_idesc(v, "mxf4nvf4", cta_group=2, block="block16") == []
    assert any("K=96" in x for x in validate_idesc(0x08400480 | (1 << 31), "mxf4nvf4", cta_group=1))
    # bit 31 is reserved for mxf8f6f4
    assert any("reserved" in x for x in validate_idesc(0x08C00480 | (1 << 31), "mxf8f6f4"))


def test_partially_known_idesc():
    kb = KnownBits(32, 0xFFFF0000, 0x08400000)        # high half known only
    d = decode_idesc(kb, "mxf4nvf4")
    assert d["m"] == 128 and d["n"] == 256
    assert d["a_type"] is None and "atype_code" in d["unknown_fields"]
    assert validate_idesc(kb, "mxf4nvf4") == []          # only known fields checked
    assert any("not fully known" in x for x in validate_idesc(kb, "mxf4nvf4", strict=True))


# --------------------------------------------------------------------------
# shared-memory descriptor
# --------------------------------------------------------------------------

def gn_desc(addr):
    """[GN]'s 128B-swizzle K-major descriptor: enc(addr)|enc(1024)<<32|1<<46|2<<61."""
    return enc(addr) | enc(1024) << 32 | 1 << 46 | 2 << 61


def test_gn_descriptor():
    d = decode_smem_desc(gn_desc(0x2400))
    assert d["start_addr"] == 0x2400
    assert d["lbo"] == 0 and d["sbo"] == 1024
    assert d["version"] == 0b001
    assert d["base_offset"] == 0 and d["lbo_mode"] == 0 and d["lbo_mode_name"] == "relative"
    assert d["swizzle"] == 2 and d["swizzle_name"] == "128B"
    assert d["fixed_53_60"] == 0 and d["unknown_fields"] == []
    assert validate_smem_desc(gn_desc(0x2400), major="K", expect_swizzle="128B") == []


def test_cutlass_style_lbo1_and_k_steps():
    base = 0x8000
    for k in range(4):                                  # K=64 FP4 = 32 B per MMA
        v = enc(base + 32 * k) | 1 << 16 | enc(1024) << 32 | 1 << 46 | 2 << 61
        d = decode_smem_desc(v)
        assert d["start_addr"] == base + 32 * k and d["lbo"] == 16
        assert validate_smem_desc(v, major="K") == []


def test_mlir_mma_smem_desc_constant():
    # what nvvm.tcgen05.mma_smem_desc(0, 1, 64, 0, false, 2) produced in the
    # building-block PTX (mov.b64 %rd9, 4611756662049538048): fields are taken
    # unshifted, so 1 -> LBO 16 B and 64 -> SBO 1024 B
    d = decode_smem_desc(4611756662049538048)
    assert d["raw"] == 0x4000404000010000
    assert (d["start_addr"], d["lbo"], d["sbo"], d["version"], d["swizzle_name"]) == \
        (0, 16, 1024, 1, "128B")
    # the scale-factor copy source: no swizzle, SBO = 128 B, start 0xC000
    s = decode_smem_desc(70403103919104)
    assert (s["start_addr"], s["lbo"], s["sbo"], s["version"], s["swizzle_name"]) == \
        (0xC000, 0, 128, 1, "none")
    assert validate_smem_desc(70403103919104, major=None) == []


def test_smem_desc_negative():
    good = gn_desc(0x4000)
    hopper = good & ~(7 << 46)                           # wgmma-style: no version bits
    assert any("0b001" in x for x in validate_smem_desc(hopper))
    assert any("invalid" in x for x in validate_smem_desc((good & ~(7 << 61)) | (3 << 61)))
    assert any("fixed_53_60" in x for x in validate_smem_desc(good | (1 << 55)))
    assert any("reserved_14_15" in x for x in validate_smem_desc(good | (1 << 14)))
    wrong_sbo = (good & ~(0x3FFF << 32)) | (enc(512) << 32)
    assert any("SBO" in x for x in validate_smem_desc(wrong_sbo, major="K"))
    # start 128 B into the atom (second swizzle row) with base_offset 0
    assert any("swizzle pattern" in x for x in validate_smem_desc(gn_desc(0x4080)))
    # 64B swizzle: 512-B pattern, 64-B rows
    v64 = enc(0x4000 + 512 + 64) | enc(512) << 32 | 1 << 46 | 4 << 61
    assert decode_smem_desc(v64)["swizzle_name"] == "64B"
    assert any("swizzle pattern" in x for x in validate_smem_desc(v64))
    assert validate_smem_desc(enc(0x4000 + 512) | enc(512) << 32 | 1 << 46 | 4 << 61) == []


def test_partially_known_smem_desc():
    # unknown start address whose low 6 encoded bits (10 byte bits) are zero,
    # everything else constant -- what the kernel's runtime-aligned base gives
    const = enc(1024) << 32 | 1 << 16 | 1 << 46 | 2 << 61
    unknown_start = ((1 << 14) - 1) & ~0x3F
    kb = KnownBits(64, ((1 << 64) - 1) & ~unknown_start, const)
    d = decode_smem_desc(kb)
    assert d["start_addr"] is None and "start_field" in d["unknown_fields"]
    assert d["start_addr_mod"] == (0, 1024)
    assert (d["lbo"], d["sbo"], d["version"], d["swizzle_name"]) == (16, 1024, 1, "128B")
    assert validate_smem_desc(kb) == []
    # +32 B K step keeps a provable position inside the first swizzle row
    kb2 = KnownBits(64, kb.mask, const | 2)
    assert decode_smem_desc(kb2)["start_addr_mod"] == (32, 1024)
    assert validate_smem_desc(kb2) == []
    # only 16-B alignment known: alignment to the 1024-B pattern not provable
    kb3 = KnownBits(64, ((1 << 64) - 1) & ~((1 << 14) - 1), const)
    assert validate_smem_desc(kb3) == []
    assert any("cannot prove" in x for x in validate_smem_desc(kb3, strict=True))
    assert any("not known" in x for x in validate_smem_desc(KnownBits.unknown(64), strict=True))


# --------------------------------------------------------------------------
# tensor memory addresses
# --------------------------------------------------------------------------

def test_tmem_addr():
    assert decode_tmem_addr((64 << 16) | 300) == (64, 300)
    assert decode_tmem_addr(0) == (0, 0)
    assert validate_tmem_addr((64 << 16) | 32, role="ld", warp_quarter=2, span_cols=32) == []
    assert any("warp quarter 1" in x for x in
               validate_tmem_addr((64 << 16), role="ld", warp_quarter=1))
    assert any("quarter base" in x for x in validate_tmem_addr((16 << 16), role="ld"))
    assert any("exceed" in x for x in validate_tmem_addr(500, span_cols=32))
    assert any("exceed" in x for x in validate_tmem_addr(512))
    assert any("lane 128" in x for x in validate_tmem_addr(128 << 16))
    assert any("lane 32 != 0" in x for x in validate_tmem_addr((32 << 16) | 256, role="mma_d"))
    assert validate_tmem_addr(256, role="scale") == []
    assert any("outside allocation" in x for x in
               validate_tmem_addr(300, alloc_base=0, alloc_cols=256))


def test_alloc_ncols():
    for n in (32, 64, 128, 256, 512):
        assert validate_alloc_ncols(n) == []
    for n in (0, 16, 48, 96, 1024):
        assert validate_alloc_ncols(n), n


# --------------------------------------------------------------------------
# PTX scanner
# --------------------------------------------------------------------------

PTX = r"""
//
// hand-written fixture: constants in registers, folded via or/shl, a
// loop-carried register, [reg+imm] TMEM addresses, an inline-asm block.
//
.version 8.8
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 smem[];

.visible .entry fixture(
	.param .u64 fixture_param_0
)
.reqntid 128, 1, 1
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<40>;
	.reg .b64 	%rd<20>;

	mov.b64 	%rd1, smem;
	cvt.u32.u64 	%r1, %rd1;
	add.s32 	%r2, %r1, 0x4000;          // B stage: smem + 16 KiB
	mov.b32 	%r3, 256;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 	[%rd1+49152], %r3;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	ld.shared.b32 	%r4, [%rd1+49152];
	// idesc built with shl/or from immediates (NVFP4 M128 N128)
	mov.b32 	%r5, 1;
	shl.b32 	%r6, %r5, 27;
	or.b32 	%r7, %r6, 0x200480;
	// descriptor: enc(addr) | constant high part
	shr.u32 	%r8, %r1, 4;
	and.b32 	%r9, %r8, 16383;
	cvt.u64.u32 	%rd2, %r9;
	or.b64 	%rd3, %rd2, 4611756662049538048;
	shr.u32 	%r10, %r2, 4;
	and.b32 	%r11, %r10, 16383;
	cvt.u64.u32 	%rd4, %r11;
	or.b64 	%rd5, %rd4, 0x4000404000010000;
	add.s64 	%rd6, %rd3, 2;              // K step: +32 B
	add.s64 	%rd7, %rd5, 2;
	// scale-factor copy source: no swizzle, SBO 128
	add.s32 	%r12, %r1, 0xC000;
	shr.u32 	%r13, %r12, 4;
	and.b32 	%r14, %r13, 16383;
	cvt.u64.u32 	%rd8, %r14;
	or.b64 	%rd9, %rd8, 70403103916032;
	tcgen05.cp.cta_group::1.32x128b.warpx4 	[%r4+128], %rd9;
	setp.ne.b32 	%p1, %r3, 0;
	tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r4], %rd3, %rd5, %r7, [%r4+128], [%r4+132], %p1;
	tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r4], %rd6, %rd7, %r7, [%r4+128], [%r4+132], 1;
	// a loop-carried register: 0, then +1 -> only the bits all definitions agree on
	mov.b32 	%r20, 0;
$L__loop:
	add.s32 	%r20, %r20, 1;
	mov.b32 	%r21, 010;                 // octal 8
	setp.lt.u32 	%p2, %r20, %r21;
	@%p2 bra 	$L__loop;
	{
	.reg .pred 	P1;
	LAB_WAIT:
	mbarrier.try_wait.parity.shared.b64 P1, [%r1], %r20, 0;
	@P1 bra.uni 	DONE;
	bra.uni 	LAB_WAIT;
	DONE:
	}
	tcgen05.fence::after_thread_sync;
	mov.u32 	%r22, %tid.x;
	shl.b32 	%r23, %r22, 16;
	and.b32 	%r24, %r23, 6291456;        // (warp % 4) * 32 << 16
	add.s32 	%r25, %r4, %r24;
	tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r26, %r27}, [%r25+8];
	tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r28, %r29, %r30}, [%r25];
	tcgen05.wait::ld.sync.aligned;
	// a transposed FP4 descriptor: must be flagged
	mov.b32 	%r31, 0x08418480;
	tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r4], %rd3, %rd5, %r31, [%r4+128], [%r4+132], 1;
	tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 	[%rd1+49160];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 	%r4, %r3;
	ret;
}
"""


def _by_op(recs, op):
    return [r for r in recs if r["op"] == op]


def test_scanner_fixture():
    recs = extract_tcgen05(PTX)
    assert {r["kernel"] for r in recs} == {"fixture"}
    ops = [r["op"] for r in recs]
    assert ops.count("mma") == 3 and "cp" in ops and "alloc" in ops and "dealloc" in ops
    assert ops.count("ld") == 2 and "commit" in ops and "wait" in ops and "fence" in ops

    alloc = _by_op(recs, "alloc")[0]
    assert alloc["ncols"]["ncols"] == 256 and alloc["ncols"]["violations"] == []
    assert _by_op(recs, "dealloc")[0]["ncols"]["ncols"] == 256

    m0, m1, mbad = _by_op(recs, "mma")
    assert m0["kind"] == "mxf4nvf4" and m0["block"] == "block16" and m0["cta_group"] == 1
    assert m0["idesc"]["value"].const_value() == 0x08200480
    assert m0["idesc"]["decoded"]["n"] == 128 and m0["idesc"]["violations"] == []
    a = m0["a_desc"]["decoded"]
    assert a["start_addr"] is None and a["start_addr_mod"] == (0, 1024)   # smem .align 1024
    assert (a["lbo"], a["sbo"], a["version"], a["swizzle_name"]) == (16, 1024, 1, "128B")
    b = m0["b_desc"]["decoded"]
    assert b["start_addr_mod"] == (0x4000 % 1024, 1024)
    assert m0["a_desc"]["violations"] == [] and m0["b_desc"]["violations"] == []
    # K step through add of 2 on a partially known value
    assert m1["a_desc"]["decoded"]["start_addr_mod"] == (32, 1024)
    assert m1["enable_input_d"] == "1"
    # TMEM operands: base register from the alloc slot + folded immediates
    assert m0["d_tmem"]["base"] == "%r4" and m0["d_tmem"].get("base_is_alloc_result")
    assert (m0["scale_a_tmem"]["offset"], m0["scale_b_tmem"]["offset"]) == (128, 132)
    # the transposed descriptor is caught
    assert any("transpose" in x for x in mbad["idesc"]["violations"])

    cp = _by_op(recs, "cp")[0]
    assert cp["shape"] == "32x128b" and cp["multicast"] == "warpx4"
    s = cp["s_desc"]["decoded"]
    assert (s["sbo"], s["lbo"], s["swizzle_name"], s["version"]) == (128, 0, "none", 1)
    assert s["start_addr_mod"] == (0xC000 % 1024, 1024)

    ld_ok, ld_bad = _by_op(recs, "ld")
    assert ld_ok["shape"] == "32x32b" and ld_ok["num"] == "x2" and ld_ok["violations"] == []
    assert ld_ok["taddr"]["offset"] == 8
    assert ld_bad["violations"] and "expected 4" in ld_bad["violations"][0]

    problems = check_kernel(recs)
    assert any("transpose" in p for p in problems)
    assert any("expected 4" in p for p in problems)
    assert len(problems) == 2


def test_scanner_loop_carried_register_is_not_constant():
    text = PTX.replace("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r26, %r27}, [%r25+8];",
                       "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r26, %r27}, [%r20];")
    ld = _by_op(extract_tcgen05(text), "ld")[0]
    v = ld["taddr"]["value"]
    assert not v.is_const()           # 0 and 1, 2, ... disagree in bit 0


def test_scanner_mixed_cta_group_and_missing_dealloc():
    text = """
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	mov.b64 %rd1, 64;
	mov.b32 %r1, 48;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], %r1;
	tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%rd1];
	ret;
}
"""
    recs = extract_tcgen05(text)
    assert _by_op(recs, "alloc")[0]["ncols"]["violations"]       # 48 is not a power of 2
    problems = check_kernel(recs)
    assert any("mixed cta_group" in p for p in problems)
    assert any("without tcgen05.dealloc" in p for p in problems)


def test_knownbits_ops():
    a = KnownBits.aligned(32, 10)
    assert a.trailing_known_zeros() == 10
    c = KnownBits.const(5, 32)
    assert c.meet(KnownBits.const(4, 32)).mask == 0xFFFFFFFE
    assert KnownBits.const(0xFFFF, 16).resize(32, signed=True).const_value() == 0xFFFFFFFF
    assert KnownBits.const(0xFFFF, 16).resize(32).const_value() == 0xFFFF


# --------------------------------------------------------------------------
# PTX of the removed sm_100a building-block prototype (docs/design/findings.md):
# every descriptor is a constant, so every field is checked. The compiler's
# own GEMM kernels are decoded by test/Integration/GPUCompile/lower-to-sm100.mlir.
# --------------------------------------------------------------------------

def _data_ptx(name):
    with open(os.path.join(DATA, name)) as f:
        return f.read()


def test_building_blocks_ptx():
    recs = extract_tcgen05(_data_ptx("tcgen05_building_blocks.ptx"))
    m_nv, m_mx = _by_op(recs, "mma")
    assert m_nv["kind"] == "mxf4nvf4" and m_nv["block"] == "block16"
    assert m_nv["idesc"]["value"].const_value() == 0x08400480
    assert m_nv["a_desc"]["value"].const_value() == 0x4000404000010000
    assert m_nv["b_desc"]["decoded"]["start_addr"] == 0x4000
    assert m_mx["kind"] == "mxf4" and m_mx["block"] == "block32"
    assert m_mx["idesc"]["decoded"]["sfa_id"] == 2 and m_mx["idesc"]["decoded"]["scale_type"] == "UE8M0"
    assert m_mx["a_desc"]["decoded"]["start_addr"] == 0x20
    assert [c["s_desc"]["decoded"]["start_addr"] for c in _by_op(recs, "cp")] == [0xC000, 0xC200, 0xC400]
    assert check_kernel(recs) == []
