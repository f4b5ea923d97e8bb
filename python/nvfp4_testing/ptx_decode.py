"""Independent decoder / checker for sm_100a tcgen05 operands in PTX.

Written from the PTX ISA tables (docs.nvidia.com/cuda/parallel-thread-execution,
chapter 9.7.16 "TensorCore 5th Generation Family Instructions"; section numbers
below are those of PTX ISA 8.8/9.0, the anchors are stable across versions).
It deliberately shares no code with any encoder in this repository: a value an
encoder got wrong is decoded here from the ISA bit layout, not from the same
helper that produced it.

Public API
  decode_idesc(u32, kind)             -> dict       (instruction descriptor)
  validate_idesc(u32, kind, ...)      -> [str]      (violations, [] when fine)
  decode_smem_desc(u64)               -> dict       (shared-memory descriptor)
  validate_smem_desc(u64, ...)        -> [str]
  decode_tmem_addr(u32)               -> (lane, column)
  validate_tmem_addr(u32, ...)        -> [str]
  extract_tcgen05(ptx_text)           -> [dict]     (one per tcgen05 instruction)
  check_kernel(records)               -> [str]      (kernel-wide rules)
  KnownBits                           partially-known integer used by the scanner

decode_* / validate_* accept a plain int or a KnownBits; fields that depend on
unknown bits come back as None and are listed under 'unknown_fields'.

Plain Python, no numpy.
"""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, Optional, Tuple, Union

__all__ = [
    "KnownBits", "decode_idesc", "validate_idesc", "decode_smem_desc",
    "validate_smem_desc", "decode_tmem_addr", "validate_tmem_addr",
    "extract_tcgen05", "check_kernel", "IDESC_KINDS", "SWIZZLE_NAMES",
]


# --------------------------------------------------------------------------
# Partially known integers
# --------------------------------------------------------------------------

class KnownBits:
    """An integer of `width` bits of which the bits in `mask` are known to
    equal the corresponding bits of `value` (LLVM KnownBits, in miniature)."""

    __slots__ = ("width", "mask", "value")

    def __init__(self, width: int, mask: int = 0, value: int = 0):
        full = (1 << width) - 1
        self.width = width
        self.mask = mask & full
        self.value = value & self.mask

    # constructors
    @classmethod
    def const(cls, v: int, width: int) -> "KnownBits":
        full = (1 << width) - 1
        return cls(width, full, v & full)

    @classmethod
    def unknown(cls, width: int) -> "KnownBits":
        return cls(width, 0, 0)

    @classmethod
    def aligned(cls, width: int, log2_align: int) -> "KnownBits":
        """Unknown value whose low `log2_align` bits are zero."""
        return cls(width, (1 << log2_align) - 1, 0)

    # queries
    @property
    def full(self) -> int:
        return (1 << self.width) - 1

    def is_const(self) -> bool:
        return self.mask == self.full

    def const_value(self) -> Optional[int]:
        return self.value if self.is_const() else None

    def field(self, lo: int, n: int) -> Optional[int]:
        """Bits [lo, lo+n) if all known, else None."""
        m = ((1 << n) - 1) << lo
        if self.mask & m != m:
            return None
        return (self.value & m) >> lo

    def trailing_known(self) -> int:
        t = 0
        while t < self.width and (self.mask >> t) & 1:
            t += 1
        return t

    def trailing_known_zeros(self) -> int:
        t = 0
        while t < self.width and (self.mask >> t) & 1 and not (self.value >> t) & 1:
            t += 1
        return t

    def low(self) -> Tuple[int, int]:
        """(t, v): the low t bits are known and equal v."""
        t = self.trailing_known()
        return t, self.value & ((1 << t) - 1)

    # lattice
    def meet(self, other: "KnownBits") -> "KnownBits":
        w = max(self.width, other.width)
        agree = self.mask & other.mask & ~(self.value ^ other.value)
        return KnownBits(w, agree, self.value)

    def resize(self, width: int, signed: bool = False) -> "KnownBits":
        if width <= self.width:
            return KnownBits(width, self.mask, self.value)
        ext = ((1 << width) - 1) ^ self.full
        if not signed:
            return KnownBits(width, self.mask | ext, self.value)
        sb = self.width - 1
        if (self.mask >> sb) & 1:
            neg = (self.value >> sb) & 1
            return KnownBits(width, self.mask | ext, self.value | (ext if neg else 0))
        return KnownBits(width, self.mask, self.value)

    def __eq__(self, other):
        return (isinstance(other, KnownBits) and self.width == other.width
                and self.mask == other.mask and self.value == other.value)

    def __hash__(self):
        return hash((self.width, self.mask, self.value))

    def __repr__(self):
        if self.is_const():
            return f"KnownBits(0x{self.value:x}/{self.width})"
        return f"KnownBits(mask=0x{self.mask:x}, value=0x{self.value:x}/{self.width})"


IntLike = Union[int, KnownBits]


def _kb(v: IntLike, width: int) -> KnownBits:
    if isinstance(v, KnownBits):
        return v.resize(width) if v.width < width else KnownBits(width, v.mask, v.value)
    if v < 0 or v >> width:
        raise ValueError(f"value {v:#x} does not fit in {width} bits")
    return KnownBits.const(v, width)


def _fields(kb: KnownBits, spec: Iterable[Tuple[str, int, int]], out: dict) -> None:
    unknown = out.setdefault("unknown_fields", [])
    for name, lo, n in spec:
        v = kb.field(lo, n)
        out[name] = v
        if v is None:
            unknown.append(name)


# --------------------------------------------------------------------------
# Instruction descriptor
#   PTX ISA 9.7.16.4.2 "Instruction descriptor"
#   Table 42  #tcgen05-instuction-desc-kind-tf32-f16-f8f6f4   (.kind::tf32/f16/f8f6f4/i8)
#   Table 43  #tcgen05-instuction-desc-kind-mxf8f6f4          (.kind::mxf8f6f4)
#   Table 44  #tcgen05-instuction-desc-kind-mxf4-mxf4nvf4     (.kind::mxf4/mxf4nvf4)
# (Tables 45-47 in the PTX ISA 9.x numbering; same content.)
# --------------------------------------------------------------------------

IDESC_KINDS = ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")

# Table 42: atype/btype codes (bits 7-9 / 10-12) and dtype (bits 4-5)
_T42_AB = {
    "f16": {0: "F16", 1: "BF16"},
    "tf32": {2: "TF32"},
    "f8f6f4": {0: "E4M3", 1: "E5M2", 3: "E2M3", 4: "E3M2", 5: "E2M1"},
    "i8": {0: "U8", 1: "S8"},
}
_T42_D = {
    "f16": {0: "F16", 1: "F32"},
    "tf32": {1: "F32"},
    "f8f6f4": {0: "F16", 1: "F32"},   # 9.x table lists F16 = 0, F32 = 1
    "i8": {2: "S32"},
}
# Table 43 (mxf8f6f4) element codes: same as f8f6f4
_T43_AB = {0: "E4M3", 1: "E5M2", 3: "E2M3", 4: "E3M2", 5: "E2M1"}
# Table 44 (mxf4 / mxf4nvf4): E2M1 = 1 in a 3-bit atype and a 2-bit btype
_T44_AB = {1: "E2M1"}
# bit 23, Tables 43/44: scale matrix type for both scale_A and scale_B
_SCALE_TYPE = {0: "UE4M3", 1: "UE8M0"}

# reserved bits that must be 0 ("Reserved - Must be 0" rows)
_RESERVED = {
    # Table 42: bit 6, bit 23, bit 29
    "f16": (1 << 6) | (1 << 23) | (1 << 29),
    "tf32": (1 << 6) | (1 << 23) | (1 << 29),
    "f8f6f4": (1 << 6) | (1 << 23) | (1 << 29),
    "i8": (1 << 6) | (1 << 23) | (1 << 29),
    # Table 43: bits 0-1, 3, 6, 24-26, 31
    "mxf8f6f4": 0b11 | (1 << 3) | (1 << 6) | (0b111 << 24) | (1 << 31),
    # Table 44: bits 0-1, 3, 6, 12, 24-26
    "mxf4": 0b11 | (1 << 3) | (1 << 6) | (1 << 12) | (0b111 << 24),
    "mxf4nvf4": 0b11 | (1 << 3) | (1 << 6) | (1 << 12) | (0b111 << 24),
}


def decode_idesc(idesc: IntLike, kind: str) -> Dict:
    """Decode a 32-bit tcgen05.mma instruction descriptor for `.kind::<kind>`."""
    kind = kind.replace(".kind::", "").replace("kind::", "")
    if kind not in IDESC_KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {IDESC_KINDS}")
    kb = _kb(idesc, 32)
    out: Dict = {"kind": kind, "raw": kb.const_value()}
    if kind in _T42_AB:
        _fields(kb, [("sparsity_selector", 0, 2), ("sparse", 2, 1), ("saturate", 3, 1),
                     ("dtype_code", 4, 2), ("atype_code", 7, 3), ("btype_code", 10, 3),
                     ("negate_a", 13, 1), ("negate_b", 14, 1), ("transpose_a", 15, 1),
                     ("transpose_b", 16, 1), ("n_field", 17, 6), ("m_field", 24, 5),
                     ("max_shift", 30, 2)], out)
        ab = _T42_AB[kind]
        out["dtype"] = None if out["dtype_code"] is None else _T42_D[kind].get(out["dtype_code"], "INVALID")
        out["a_type"] = None if out["atype_code"] is None else ab.get(out["atype_code"], "INVALID")
        out["b_type"] = None if out["btype_code"] is None else ab.get(out["btype_code"], "INVALID")
        out["n"] = None if out["n_field"] is None else out["n_field"] << 3
        out["m"] = None if out["m_field"] is None else out["m_field"] << 4       # M >> 4
        out["k_per_instr"] = {"f16": 16, "tf32": 8, "f8f6f4": 32, "i8": 32}[kind]
        if out["sparse"]:
            out["k_per_instr"] *= 2
        out["max_shift_elems"] = None if out["max_shift"] is None else [0, 8, 16, 32][out["max_shift"]]
    else:
        spec = [("sparse", 2, 1), ("sfb_id", 4, 2), ("atype_code", 7, 3),
                ("negate_a", 13, 1), ("negate_b", 14, 1), ("transpose_a", 15, 1),
                ("transpose_b", 16, 1), ("n_field", 17, 6), ("scale_type_code", 23, 1),
                ("m_field", 27, 2), ("sfa_id", 29, 2)]
        if kind == "mxf8f6f4":
            spec.append(("btype_code", 10, 3))
            ab = _T43_AB
        else:
            spec += [("btype_code", 10, 2), ("k_dim", 31, 1)]
            ab = _T44_AB
        _fields(kb, spec, out)
        out["dtype"] = "F32"            # block-scaled kinds always accumulate in f32
        out["a_type"] = None if out["atype_code"] is None else ab.get(out["atype_code"], "INVALID")
        out["b_type"] = None if out["btype_code"] is None else ab.get(out["btype_code"], "INVALID")
        out["scale_type"] = (None if out["scale_type_code"] is None
                             else _SCALE_TYPE[out["scale_type_code"]])
        out["n"] = None if out["n_field"] is None else out["n_field"] << 3
        out["m"] = None if out["m_field"] is None else out["m_field"] << 7       # M >> 7
        if kind == "mxf8f6f4":
            out["k_per_instr"] = None if out["sparse"] is None else (64 if out["sparse"] else 32)
        else:
            # bit 31 "K Dimension": 0 -> dense K=64 / sparse K=128, 1 -> dense K=96
            if out["sparse"] is None or out["k_dim"] is None:
                out["k_per_instr"] = None
            elif out["k_dim"]:
                out["k_per_instr"] = 96
            else:
                out["k_per_instr"] = 128 if out["sparse"] else 64
    rmask = _RESERVED[kind]
    out["reserved_bits_set"] = None if kb.mask & rmask != rmask else kb.value & rmask
    return out


def validate_idesc(idesc: IntLike, kind: str, cta_group: int = 1,
                   block: Optional[str] = None, sparse_instr: Optional[bool] = None,
                   ws: bool = False, strict: bool = False) -> List[str]:
    """Check an instruction descriptor against the PTX ISA rules.

    block: '.block16' / 'block16' / 'scale_vec::4X' etc. of the instruction,
    when known.  Only known fields are checked; strict=True also reports
    unknown fields.  Returns a list of human-readable violations."""
    d = decode_idesc(idesc, kind)
    kind = d["kind"]
    v: List[str] = []
    if strict and d["unknown_fields"]:
        v.append("descriptor not fully known: " + ", ".join(d["unknown_fields"]))
    if d["reserved_bits_set"]:
        v.append(f"reserved bits set: {d['reserved_bits_set']:#010x}")
    if cta_group not in (1, 2):
        v.append(f"cta_group must be 1 or 2, got {cta_group}")

    # ---- shapes: PTX ISA 9.7.16.9.1 "Matrix Shape", #tcgen05-kind-shapes ----
    m, n = d["m"], d["n"]
    block_scaled = kind in ("mxf8f6f4", "mxf4", "mxf4nvf4")
    if m is not None:
        if block_scaled:
            ok_m = {1: (128,), 2: (128, 256)}.get(cta_group, ())
        elif ws:
            ok_m = (32, 64, 128) if cta_group == 1 else ()
        else:
            ok_m = {1: (64, 128), 2: (128, 256)}.get(cta_group, ())
        if m not in ok_m:
            v.append(f"M={m} invalid for .kind::{kind} cta_group::{cta_group} (allowed {list(ok_m)})")
    if n is not None:
        if ws and not block_scaled:
            ok_n = n in (64, 128, 256)
            rule = "N in {64,128,256} (.ws)"
        elif kind == "i8":
            ok_n = (n in (8, 16, 24, 32) or (32 < n <= 256 and n % 16 == 0)) if cta_group == 1 \
                else (32 <= n <= 256 and n % 32 == 0)
            rule = "i8 N table"
        elif cta_group == 1 and not (block_scaled and m == 256):
            ok_n = 8 <= n <= 256 and n % 8 == 0
            rule = "8 <= N <= 256, step 8"
        else:
            ok_n = 16 <= n <= 256 and n % 16 == 0
            rule = "16 <= N <= 256, step 16"
        if not ok_n:
            v.append(f"N={n} invalid for .kind::{kind} cta_group::{cta_group} ({rule})")

    # ---- types / transpose: Tables 42-44, Table 49 (#tcgen05-transpose-negate-mma-kind) ----
    for side in ("a", "b"):
        if d[f"{side}_type"] == "INVALID":
            v.append(f"{side}type code {d[side[0] + 'type_code']} invalid for .kind::{kind}")
    if d.get("dtype") == "INVALID":
        v.append(f"dtype code {d['dtype_code']} invalid for .kind::{kind}")
    if kind in ("mxf4", "mxf4nvf4"):
        if d["transpose_a"] or d["transpose_b"]:
            v.append(f"transpose A/B not supported for .kind::{kind} (must be K-major)")
    if kind == "i8" and (d.get("negate_a") or d.get("negate_b")):
        v.append("negate not supported for .kind::i8")
    if kind in ("f16", "tf32", "f8f6f4") and d.get("saturate"):
        v.append(f"saturate bit only valid for .kind::i8")
    if kind in _T42_AB and not d.get("sparse") and d.get("sparsity_selector"):
        v.append("sparsity selector set on a dense descriptor")
    if kind in _T42_AB and d.get("max_shift") and not ws:
        v.append("max-shift (bits 30-31) is only meaningful for .ws")

    # ---- block scaling: 9.7.16.10.7, Tables 54/55 (#tcgen05-mma-scale-valid-comb) ----
    if block_scaled:
        st = d["scale_type"]
        if kind in ("mxf4", "mxf8f6f4") and st == "UE4M3":
            v.append(f".kind::{kind} requires scale type UE8M0 (bit 23 = 1)")
        for which in ("sfa_id", "sfb_id"):
            sid = d[which]
            if sid is None:
                continue
            if kind in ("mxf4", "mxf4nvf4") and sid not in (0, 2):
                v.append(f"{which}={sid}: must be 0 or 2 for .kind::{kind}")
        b = None if block is None else block.lower().lstrip(".")
        b = {"scale_vec::4x": "block16", "scale_vec::2x": "block32",
             "scale_vec::1x": "block32"}.get(b, b)
        if b == "block16":
            if kind != "mxf4nvf4":
                v.append(f".block16/.scale_vec::4X is only valid with .kind::mxf4nvf4")
            if d["k_per_instr"] != 96:
                for which in ("sfa_id", "sfb_id"):
                    if d[which]:
                        v.append(f"{which}={d[which]}: must be 0 for block16 (scale_vec::4X)")
        elif b == "block32":
            if kind == "mxf4nvf4" and st == "UE4M3":
                v.append("UE4M3 scales require .block16 (.scale_vec::4X)")
        elif b is None and kind == "mxf4nvf4":
            pass   # the instruction must say .block16/.block32; unknown here
        if d.get("k_dim"):
            if not (cta_group == 2 and m == 256):
                v.append("K=96 (bit 31) requires cta_group::2 and M=256")
            if d["sparse"]:
                v.append("K=96 (bit 31) is dense only")
    if sparse_instr is not None and d.get("sparse") is not None and bool(d["sparse"]) != sparse_instr:
        v.append(f"sparsity bit {d['sparse']} disagrees with the instruction "
                 f"({'tcgen05.mma.sp' if sparse_instr else 'dense tcgen05.mma'})")
    return v


# --------------------------------------------------------------------------
# Shared-memory (matrix) descriptor
#   PTX ISA 9.7.16.4.1 "Shared memory descriptor", #tcgen05-shared-memory-descriptor
#   Table 40 (#tcgen05-shared-memory-desc-layout), Table 41 (#tcgen05-start-addr-swizzle-mode)
#   matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4
# --------------------------------------------------------------------------

SWIZZLE_NAMES = {0: "none", 1: "128B_base32B", 2: "128B", 4: "64B", 6: "32B"}
# swizzle code -> (swizzle width in bytes, repeating-pattern boundary in bytes)
_SWIZZLE_GEOM = {0: (16, None), 1: (128, 1024), 2: (128, 1024), 4: (64, 512), 6: (32, 256)}


def decode_smem_desc(desc: IntLike) -> Dict:
    """Decode a 64-bit tcgen05 shared-memory descriptor (Table 40)."""
    kb = _kb(desc, 64)
    out: Dict = {"raw": kb.const_value()}
    _fields(kb, [("start_field", 0, 14), ("reserved_14_15", 14, 2), ("lbo_field", 16, 14),
                 ("reserved_30_31", 30, 2), ("sbo_field", 32, 14), ("version", 46, 3),
                 ("base_offset", 49, 3), ("lbo_mode", 52, 1), ("fixed_53_60", 53, 8),
                 ("swizzle", 61, 3)], out)
    for f, name in (("start_field", "start_addr"), ("lbo_field", "lbo"), ("sbo_field", "sbo")):
        out[name] = None if out[f] is None else out[f] << 4
    out["swizzle_name"] = (None if out["swizzle"] is None
                           else SWIZZLE_NAMES.get(out["swizzle"], f"INVALID({out['swizzle']})"))
    out["lbo_mode_name"] = {None: None, 0: "relative", 1: "absolute"}[out["lbo_mode"]]
    # Partially known start address: its known low bits (bytes).
    t, low = KnownBits(14, kb.mask & 0x3FFF, kb.value & 0x3FFF).low()
    out["start_addr_known_low_bits"] = t + 4 if t < 14 else 18
    out["start_addr_mod"] = (low << 4, 1 << (t + 4)) if t < 14 else None
    return out


def validate_smem_desc(desc: IntLike, major: Optional[str] = "K",
                       expect_swizzle: Optional[str] = None,
                       expect_sbo: Optional[int] = None,
                       atom_start: bool = True, strict: bool = False) -> List[str]:
    """Check a shared-memory descriptor.

    major: 'K' or 'MN' (for the SBO/LBO conventions of Table 40's notes), or
    None to skip layout checks.  expect_swizzle: a SWIZZLE_NAMES value.
    atom_start: with base_offset == 0 the swizzle pattern must start on its
    natural boundary (Table 41); the start address may then only sit inside the
    first swizzle row of the atom (the +32 B K-steps of a K-major SW128 atom).
    Only known fields are checked; strict=True also reports what cannot be
    proven (unknown version bits, start alignment known too coarsely).
    """
    d = decode_smem_desc(desc)
    v: List[str] = []
    if d["version"] is not None and d["version"] != 0b001:
        v.append(f"bits 46-48 must be 0b001 (sm_100 descriptor version), got {d['version']:#05b}")
    if d["version"] is None and strict:
        v.append("bits 46-48 (fixed 0b001) not known")
    for f in ("reserved_14_15", "reserved_30_31", "fixed_53_60"):
        if d[f]:
            v.append(f"{f} must be 0, got {d[f]:#x}")
    sw = d["swizzle"]
    if sw is not None and sw not in SWIZZLE_NAMES:
        v.append(f"swizzle mode {sw} invalid (3, 5, 7 are reserved)")
    if expect_swizzle is not None and d["swizzle_name"] is not None and d["swizzle_name"] != expect_swizzle:
        v.append(f"swizzle {d['swizzle_name']} != expected {expect_swizzle}")
    if expect_sbo is not None and d["sbo"] is not None and d["sbo"] != expect_sbo:
        v.append(f"SBO {d['sbo']} B != expected {expect_sbo} B")
    if sw in _SWIZZLE_GEOM and sw != 0:
        width, boundary = _SWIZZLE_GEOM[sw]
        if major == "K" and d["sbo"] is not None and d["sbo"] != 8 * width:
            v.append(f"K-major {SWIZZLE_NAMES[sw]} swizzle: SBO should be 8 rows x {width} B = "
                     f"{8 * width} B, got {d['sbo']}")
        if atom_start and d["base_offset"] == 0:
            mod = d["start_addr_mod"]
            s = d["start_addr"]
            if s is not None:
                if s % boundary >= width:
                    v.append(f"start address {s:#x} is {s % boundary} B into a {boundary}-B "
                             f"swizzle pattern (> one {width}-B row) with base_offset 0")
            elif mod is not None and mod[1] >= boundary and mod[0] % boundary >= width:
                v.append(f"start address = {mod[0]} mod {mod[1]}: not in the first {width}-B row "
                         f"of a {boundary}-B swizzle pattern (base_offset 0)")
            elif strict and mod is not None and mod[1] < boundary:
                v.append(f"start address only known modulo {mod[1]} B: cannot prove the "
                         f"{boundary}-B swizzle-pattern alignment")
    if sw == 1 and major == "K":
        v.append("128B-with-32B-atom swizzle is MN-major only (Table 40 notes)")
    if d["lbo_mode"] == 1:
        v.append("LBO mode 1 (absolute address) -- check the target supports it")
    return v


# --------------------------------------------------------------------------
# Tensor memory addresses
#   PTX ISA 9.7.16.1.1 "Tensor Memory Addressing" (#tensor-memory-addressing):
#     bits 31-16 lane, bits 15-0 column; 128 lanes x 512 columns on sm_100a.
#   9.7.16.8.1 access restrictions (#tcgen05-tensor-memory-ld-st-access-restrictions):
#     warp (warpid % 4) = q of a warpgroup may access lanes 32q .. 32q+31.
#   9.7.16.10.5 data path layout (#tcgen05-data-path-layout-organization):
#     M=128 / M=256 layouts use lane alignment 0.
# --------------------------------------------------------------------------

TMEM_LANES = 128
TMEM_COLS = 512


def decode_tmem_addr(addr: int) -> Tuple[int, int]:
    if isinstance(addr, KnownBits):
        c = addr.const_value()
        if c is None:
            raise ValueError("TMEM address not fully known")
        addr = c
    return (addr >> 16) & 0xFFFF, addr & 0xFFFF


def validate_tmem_addr(addr: int, role: Optional[str] = None, warp_quarter: Optional[int] = None,
                       alloc_base: Optional[int] = None, alloc_cols: Optional[int] = None,
                       span_cols: int = 1) -> List[str]:
    """role: 'ld'/'st' (32-lane warp access), 'mma_d' / 'scale' (lane 0 for M=128/256),
    'cp' (tcgen05.cp .32x128b.warpx4 / .128x*: lane 0). span_cols: columns touched."""
    lane, col = decode_tmem_addr(addr)
    v: List[str] = []
    if lane >= TMEM_LANES:
        v.append(f"lane {lane} >= {TMEM_LANES}")
    if col + span_cols > TMEM_COLS:
        v.append(f"columns {col}..{col + span_cols - 1} exceed {TMEM_COLS}")
    if role in ("ld", "st"):
        if lane % 32:
            v.append(f"lane {lane} is not a 32-lane quarter base")
        if warp_quarter is not None and not (32 * warp_quarter <= lane < 32 * warp_quarter + 32):
            v.append(f"warp quarter {warp_quarter} may only access lanes "
                     f"{32 * warp_quarter}..{32 * warp_quarter + 31}, address has lane {lane}")
    elif role in ("mma_d", "scale", "cp") and lane != 0:
        v.append(f"{role}: lane {lane} != 0 (M=128/256 data path lane alignment is 0)")
    if alloc_base is not None:
        blane, bcol = decode_tmem_addr(alloc_base)
        if col < bcol or (alloc_cols is not None and col + span_cols > bcol + alloc_cols):
            v.append(f"columns {col}..{col + span_cols - 1} outside allocation "
                     f"[{bcol}, {bcol + (alloc_cols or 0)})")
    return v


def validate_alloc_ncols(ncols: int) -> List[str]:
    """PTX ISA 9.7.16.1.2 (#tensor-memory-allocation): unit 32 columns, power of 2, <= 512."""
    v = []
    if ncols < 32 or ncols > TMEM_COLS or ncols & (ncols - 1):
        v.append(f"nCols={ncols}: must be a power of two in [32, {TMEM_COLS}]")
    return v


# --------------------------------------------------------------------------
# PTX scanner with a flow-insensitive known-bits propagation
# --------------------------------------------------------------------------
#
# What it does
#   * splits the PTX into kernels (.entry / .func bodies);
#   * per kernel, computes for every virtual register a KnownBits value as the
#     meet over ALL its definitions (flow-insensitive, optimistic fixpoint), from
#     mov/add/sub/mul.lo/mul.wide/mad.lo/shl/shr/and/or/xor/not/cvt/bfe/selp/
#     mov-pack/unpack of immediates; symbols (mov.b64 %rd, smem) contribute the
#     alignment declared on them (.align N -> low log2 N bits zero);
#   * finds tcgen05.{mma,cp,alloc,dealloc,ld,st,commit,wait,fence,relinquish_alloc_permit}
#     and decodes idesc / smem descriptors / TMEM addresses / nCols where known.
#
# Limits (by design)
#   * flow-insensitive: a register written with different values on different
#     paths keeps only the bits all writes agree on; predicated writes count as
#     writes (never as "maybe not executed");
#   * loads (ld.*, including ld.param / ld.shared of the TMEM base), special
#     registers, call results and inline-asm outputs are unknown;
#   * multiplication keeps only exact products and known trailing zeros;
#   * address operands "[%r+imm]" are reported as base register + immediate;
#   * no interprocedural analysis; .func callees are scanned as separate kernels.

_TYPE_BITS = {"8": 8, "16": 16, "32": 32, "64": 64, "128": 128}
_IMM_RE = re.compile(r"^-?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uU]?$")
_FLT_RE = re.compile(r"^0[fFdD][0-9a-fA-F]+$")


def _parse_imm(tok: str) -> Optional[int]:
    t = tok.strip()
    if _FLT_RE.match(t):
        return int(t[2:], 16)
    if not _IMM_RE.match(t):
        return None
    neg = t.startswith("-")
    body = t[1:] if neg else t
    body = body.rstrip("uU")
    if body.lower().startswith("0x"):
        val = int(body[2:], 16)
    elif body.lower().startswith("0b"):
        val = int(body[2:], 2)
    elif len(body) > 1 and body.startswith("0"):
        val = int(body, 8)            # PTX: leading 0 = octal
    else:
        val = int(body)
    return -val if neg else val


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _split_operands(s: str) -> List[str]:
    ops, depth, cur = [], 0, []
    for ch in s:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        ops.append("".join(cur).strip())
    return ops


class _Instr:
    __slots__ = ("line", "pred", "opcode", "mods", "operands", "text")

    def __init__(self, line, pred, opcode, mods, operands, text):
        self.line, self.pred, self.opcode, self.mods = line, pred, opcode, mods
        self.operands, self.text = operands, text


def _parse_body(body: str, first_line: int) -> Tuple[List[_Instr], Dict[str, int]]:
    """Instructions and register-prefix widths (.reg .b64 %rd<10>).

    '{' / '}' open/close a scope block only at a statement boundary (or right
    after a label); inside an instruction they bracket a vector operand."""
    widths: Dict[str, int] = {}
    instrs: List[_Instr] = []
    line = first_line
    buf: List[str] = []
    buf_line = line

    def flush():
        stmt = "".join(buf).strip()
        buf.clear()
        if stmt:
            _parse_stmt(stmt, buf_line, instrs, widths)

    for ch in body:
        if ch == "\n":
            line += 1
        cur = "".join(buf).strip()
        at_boundary = (not cur) or cur.endswith(":") and cur.count("{") == cur.count("}")
        if ch == ";" or (ch in "{}" and at_boundary and cur.count("{") == cur.count("}")):
            flush()
            buf_line = line
            continue
        if not buf and ch.isspace():
            buf_line = line
            continue
        buf.append(ch)
    flush()
    return instrs, widths


def _parse_stmt(stmt: str, line: int, instrs: List[_Instr], widths: Dict[str, int]) -> None:
    # strip labels "LAB:" (possibly several)
    while True:
        m = re.match(r"^\s*([$%]?[A-Za-z_$][\w$]*)\s*:(?!:)\s*(.*)$", stmt, re.S)
        if not m:
            break
        stmt = m.group(2)
    stmt = " ".join(stmt.split())
    if not stmt:
        return
    if stmt.startswith(".reg"):
        m = re.match(r"\.reg\s+\.([busf]|pred)(\d*)\s+(.*)", stmt)
        if m:
            w = 1 if m.group(1) == "pred" else int(m.group(2) or 32)
            for r in m.group(3).split(","):
                r = r.strip()
                name = re.sub(r"<\d+>$", "", r)
                widths[name] = w
        return
    if stmt.startswith("."):
        return
    pred = None
    m = re.match(r"^@(!?%?[\w$]+)\s+(.*)$", stmt)
    if m:
        pred, stmt = m.group(1), m.group(2)
    parts = stmt.split(None, 1)
    full = parts[0]
    ops = _split_operands(parts[1]) if len(parts) > 1 else []
    name_mods = full.split(".")
    instrs.append(_Instr(line, pred, name_mods[0], name_mods[1:], ops, stmt))


def _reg_width(reg: str, widths: Dict[str, int], default: int) -> int:
    if reg in widths:
        return widths[reg]
    m = re.match(r"^(%[A-Za-z_]+)\d*$", reg)
    if m and m.group(1) in widths:
        return widths[m.group(1)]
    return default


def _type_width(mods: List[str], default: int = 32) -> int:
    for mod in reversed(mods):
        m = re.match(r"^[busf](\d+)$", mod)
        if m and m.group(1) in _TYPE_BITS:
            return int(m.group(1))
    return default


def _is_reg(tok: str) -> bool:
    return bool(re.match(r"^%[A-Za-z_][\w]*$", tok))


class _Env:
    """Per-kernel register state for the fixpoint."""

    def __init__(self, widths, symbols):
        self.widths = widths
        self.symbols = symbols        # name -> log2(alignment)
        self.val: Dict[str, KnownBits] = {}
        self.defined: set = set()

    def get(self, tok: str, width: int) -> Optional[KnownBits]:
        """KnownBits of an operand; None = no information yet (optimistic top)."""
        tok = tok.strip()
        imm = _parse_imm(tok)
        if imm is not None:
            return KnownBits.const(imm, width)
        if _is_reg(tok):
            if re.match(r"^%(tid|ntid|ctaid|nctaid|laneid|warpid|clock|smid|cluster|envreg|globaltimer|lanemask|dynamic_smem|total_smem|aggr_smem)", tok):
                return KnownBits.unknown(width)
            v = self.val.get(tok)
            if v is None:
                return None if tok in self.defined else KnownBits.unknown(width)
            return v.resize(width) if v.width < width else KnownBits(width, v.mask, v.value)
        m = re.match(r"^([A-Za-z_$][\w$]*)(?:\s*\+\s*(-?\w+))?$", tok)
        if m and m.group(1) in self.symbols:
            base = KnownBits.aligned(width, self.symbols[m.group(1)])
            off = _parse_imm(m.group(2)) if m.group(2) else 0
            return _add(base, KnownBits.const(off or 0, width))
        return KnownBits.unknown(width)


def _add(a: KnownBits, b: KnownBits, sub: bool = False) -> KnownBits:
    """a + b (or a - b) with carry propagation of known bits
    (the algorithm of LLVM's KnownBits::computeForAddCarry)."""
    w = max(a.width, b.width)
    full = (1 << w) - 1
    a = a.resize(w) if a.width < w else a
    b = b.resize(w) if b.width < w else b
    az, ao = a.mask & ~a.value & full, a.value
    bz, bo = b.mask & ~b.value & full, b.value
    carry = 0
    if sub:                       # a - b = a + ~b + 1
        bz, bo, carry = bo, bz, 1
    max_sum = ((~az & full) + (~bz & full) + carry) & full
    min_sum = (ao + bo + carry) & full
    carry_known_zero = ~(max_sum ^ az ^ bz) & full
    carry_known_one = (min_sum ^ ao ^ bo) & full
    known = (az | ao) & (bz | bo) & (carry_known_zero | carry_known_one)
    return KnownBits(w, known, min_sum & known)


def _mul(a: KnownBits, b: KnownBits, w: int) -> KnownBits:
    if a.is_const() and b.is_const():
        return KnownBits.const(a.value * b.value, w)
    tz = min(w, a.trailing_known_zeros() + b.trailing_known_zeros())
    return KnownBits(w, (1 << tz) - 1, 0)


def _shl(a: KnownBits, n: int, w: int) -> KnownBits:
    full = (1 << w) - 1
    if n >= w:
        return KnownBits.const(0, w)
    return KnownBits(w, ((a.mask << n) | ((1 << n) - 1)) & full, (a.value << n) & full)


def _shr(a: KnownBits, n: int, w: int, signed: bool) -> KnownBits:
    a = KnownBits(w, a.mask, a.value) if a.width >= w else a.resize(w)
    if n >= w:
        n = w - 1 if signed else w
    if not signed:
        hi = ((1 << n) - 1) << (w - n) if n else 0
        return KnownBits(w, (a.mask >> n) | hi, a.value >> n)
    sb = w - 1
    hi = ((1 << n) - 1) << (w - n) if n else 0
    if (a.mask >> sb) & 1:
        neg = (a.value >> sb) & 1
        return KnownBits(w, (a.mask >> n) | hi, (a.value >> n) | (hi if neg else 0))
    return KnownBits(w, (a.mask >> n) & ~hi, a.value >> n)


def _bitwise(op: str, a: KnownBits, b: KnownBits, w: int) -> KnownBits:
    full = (1 << w) - 1
    a = a.resize(w) if a.width < w else KnownBits(w, a.mask, a.value)
    b = b.resize(w) if b.width < w else KnownBits(w, b.mask, b.value)
    az, ao = a.mask & ~a.value & full, a.value
    bz, bo = b.mask & ~b.value & full, b.value
    if op == "and":
        zeros, ones = az | bz, ao & bo
    elif op == "or":
        zeros, ones = az & bz, ao | bo
    else:  # xor
        known = a.mask & b.mask
        return KnownBits(w, known, (a.value ^ b.value) & known)
    return KnownBits(w, zeros | ones, ones)


_NO_DEST = {"st", "bra", "ret", "exit", "bar", "barrier", "membar", "fence", "cp", "prefetch",
            "prefetchu", "red", "trap", "wgmma", "griddepcontrol", "setmaxnreg", "stmatrix",
            "multimem", "applypriority", "discard", "nanosleep", "brkpt", "pmevent", "st.async",
            "cp.reduce", "tensormap"}
_UNKNOWN_DEST = {"mbarrier", "elect", "call", "atom", "vote", "match", "shfl", "ld", "ldu",
                 "ldmatrix", "redux", "activemask", "clusterlaunchcontrol", "tex", "tld4", "suld",
                 "getctarank", "mapa", "isspacep", "istypep", "cvta", "clz", "popc", "brev",
                 "bfind", "fns", "prmt", "dp4a", "dp2a", "rem", "div", "min", "max", "abs", "neg",
                 "testp", "copysign", "fma", "sqrt", "rsqrt", "rcp", "sin", "cos", "lg2", "ex2",
                 "tanh", "szext", "bmsk", "lop3", "shf", "slct"}


def _regs_in(tok: str) -> List[str]:
    return re.findall(r"%[A-Za-z_]\w*", tok)


def _eval(ins: _Instr, env: _Env) -> List[Tuple[str, Optional[KnownBits]]]:
    """(dest, value) pairs defined by `ins`; value None = not computable yet."""
    op, mods, ops = ins.opcode, ins.mods, ins.operands
    if not ops or op in _NO_DEST:
        return []
    unk = lambda regs: [(r, KnownBits.unknown(_reg_width(r, env.widths, 32))) for r in regs]
    if op == "tcgen05":
        return unk(_regs_in(ops[0])) if mods and mods[0] == "ld" else []
    if "|" in ops[0]:                       # elect.sync %r|%p, setp ... %p|%q
        return unk(_regs_in(ops[0]))
    if op in _UNKNOWN_DEST:
        return unk(_regs_in(ops[0]) if ops[0].startswith("{") or _is_reg(ops[0]) else [])
    dst = ops[0]
    # mov.b64 {%r1, %r2}, %rd  (unpack)
    if op == "mov" and dst.startswith("{"):
        regs = [r.strip() for r in dst.strip("{}").split(",")]
        w = _type_width(mods, 64)
        src = env.get(ops[1], w)
        if src is None:
            return [(r, None) for r in regs]
        part = w // len(regs)
        return [(r, KnownBits(part, (src.mask >> (i * part)) & ((1 << part) - 1),
                              (src.value >> (i * part)) & ((1 << part) - 1)))
                for i, r in enumerate(regs)]
    if not _is_reg(dst):
        return []
    w = _reg_width(dst, env.widths, _type_width(mods, 32))
    tw = _type_width(mods, w)

    def g(i, width=tw):
        return env.get(ops[i], width)

    try:
        if op == "mov":
            src = ops[1]
            if src.startswith("{"):            # mov.b64 %rd, {%r1, %r2} (pack)
                regs = [r.strip() for r in src.strip("{}").split(",")]
                part = tw // len(regs)
                acc = KnownBits.const(0, tw)
                for i, r in enumerate(regs):
                    x = env.get(r, part)
                    if x is None:
                        return [(dst, None)]
                    acc = _bitwise("or", acc, _shl(x.resize(tw), i * part, tw), tw)
                return [(dst, acc)]
            return [(dst, g(1))]
        if op in ("add", "sub"):
            a, b = g(1), g(2)
            if a is None or b is None:
                return [(dst, None)]
            return [(dst, _add(a, b, sub=(op == "sub")))]
        if op == "mul" or op == "mad":
            wide = "wide" in mods          # mul.wide.u32: 32-bit inputs, 64-bit result
            a, b = g(1, tw), g(2, tw)
            ow = 2 * tw if wide else tw
            if a is None or b is None:
                return [(dst, None)]
            if "hi" in mods:
                return [(dst, KnownBits.unknown(w))]
            r = _mul(a.resize(ow), b.resize(ow), ow)
            if op == "mad":
                c = env.get(ops[3], ow)
                if c is None:
                    return [(dst, None)]
                r = _add(r, c)
            return [(dst, r)]
        if op in ("shl", "shr"):
            a = g(1)
            n = env.get(ops[2], 32)
            if a is None or n is None:
                return [(dst, None)]
            if not n.is_const():
                return [(dst, KnownBits.unknown(w))]
            if op == "shl":
                return [(dst, _shl(a, n.value, tw))]
            return [(dst, _shr(a, n.value, tw, signed=("s32" in mods or "s64" in mods or "s16" in mods)))]
        if op in ("and", "or", "xor"):
            if "pred" in mods:
                return []
            a, b = g(1), g(2)
            if a is None or b is None:
                return [(dst, None)]
            return [(dst, _bitwise(op, a, b, tw))]
        if op == "not":
            if "pred" in mods:
                return []
            a = g(1)
            if a is None:
                return [(dst, None)]
            return [(dst, KnownBits(tw, a.mask, ~a.value))]
        if op == "cvt":
            tys = [m for m in mods if re.match(r"^[busf]\d+$", m)]
            if len(tys) >= 2 and tys[0][0] in "bus" and tys[1][0] in "bus":
                dw, sw_ = int(tys[0][1:]), int(tys[1][1:])
                a = env.get(ops[1], sw_)
                if a is None:
                    return [(dst, None)]
                a = KnownBits(sw_, a.mask, a.value)
                if dw <= sw_:
                    return [(dst, KnownBits(dw, a.mask, a.value))]
                return [(dst, a.resize(dw, signed=tys[1][0] == "s"))]
            return [(dst, KnownBits.unknown(w))]
        if op == "bfe":
            a = g(1)
            pos, ln = env.get(ops[2], 32), env.get(ops[3], 32)
            if a is None or pos is None or ln is None:
                return [(dst, None)]
            if not (pos.is_const() and ln.is_const()) or "s32" in mods or "s64" in mods:
                return [(dst, KnownBits.unknown(w))]
            x = _shr(a, pos.value, tw, False)
            keep = (1 << ln.value) - 1
            return [(dst, KnownBits(tw, (x.mask & keep) | (((1 << tw) - 1) & ~keep), x.value & keep))]
        if op == "selp":
            a, b = g(1), g(2)
            if a is None or b is None:
                return [(dst, None)]
            return [(dst, a.meet(b))]
    except (ValueError, IndexError):
        pass
    if op in ("setp", "set"):
        return []
    return [(dst, KnownBits.unknown(w))]


def _propagate(instrs: List[_Instr], env: _Env, max_iter: int = 64) -> None:
    # Registers that no instruction defines (inline-asm scoped names, outputs of
    # forms we do not model) are unknown rather than "top".
    env.defined = {reg for ins in instrs for reg, _ in _eval(ins, env)}
    for _ in range(max_iter):
        new: Dict[str, KnownBits] = {}
        pending = set()
        for ins in instrs:
            for reg, val in _eval(ins, env):
                if val is None:
                    pending.add(reg)
                    continue
                rw = _reg_width(reg, env.widths, val.width)
                val = KnownBits(rw, val.mask, val.value) if rw <= val.width else val.resize(rw)
                new[reg] = val if reg not in new else new[reg].meet(val)
        if new == env.val:
            break
        env.val = new
    # registers with no resolvable definition: unknown
    return None


# ---------- operand helpers ----------

def _addr_operand(tok: str, env: _Env, width: int = 32) -> Dict:
    """'[%r81+16]' -> {'base': '%r81', 'offset': 16, 'value': KnownBits}."""
    t = tok.strip()
    if t.startswith("[") and t.endswith("]"):
        t = t[1:-1].strip()
    m = re.match(r"^([^+\-]+?)\s*(?:([+-])\s*(\w+))?$", t)
    base, off = t, 0
    if m:
        base = m.group(1).strip()
        if m.group(3):
            o = _parse_imm(m.group(3))
            off = (o or 0) * (-1 if m.group(2) == "-" else 1)
    bv = env.get(base, width)
    if bv is None:
        bv = KnownBits.unknown(width)
    val = _add(bv, KnownBits.const(off & ((1 << width) - 1), width))
    return {"operand": tok, "base": base, "offset": off, "value": val}


def _value_operand(tok: str, env: _Env, width: int) -> Dict:
    v = env.get(tok, width)
    if v is None:
        v = KnownBits.unknown(width)
    return {"operand": tok, "value": v}


def _tmem_info(d: Dict, role: Optional[str], span: int = 1, env: Optional[_Env] = None) -> Dict:
    v = d["value"]
    if env is not None and d.get("base") in getattr(env, "tmem_base_regs", ()):
        d["base_is_alloc_result"] = True
    if v.is_const():
        lane, col = decode_tmem_addr(v.value)
        d["lane"], d["column"] = lane, col
        d["violations"] = validate_tmem_addr(v.value, role=role, span_cols=span)
    else:
        # the column offset added to an unknown base is still informative
        d["lane"] = d["column"] = None
        d["violations"] = []
    return d


def _smem_info(d: Dict, **kw) -> Dict:
    d["decoded"] = decode_smem_desc(d["value"])
    d["violations"] = validate_smem_desc(d["value"], **kw)
    return d


def _quals(mods: List[str]) -> Dict:
    q: Dict = {"mods": mods}
    for m in mods:
        if m.startswith("cta_group::"):
            q["cta_group"] = int(m.split("::")[1])
        elif m.startswith("kind::"):
            q["kind"] = m.split("::")[1]
        elif m in ("block16", "block32") or m.startswith("scale_vec::"):
            q["block"] = m
        elif m.startswith("collector::"):
            q.setdefault("collector", []).append(m)
    q["block_scale"] = "block_scale" in mods
    q["sparse"] = "sp" in mods
    q["ws"] = "ws" in mods
    return q


def _decode_mma(ins: _Instr, env: _Env, rec: Dict) -> None:
    q = _quals(ins.mods)
    rec.update({k: q[k] for k in ("cta_group", "kind", "block", "block_scale", "sparse", "ws")
                if k in q})
    ops = ins.operands
    kind = q.get("kind")
    cta = q.get("cta_group", 1)
    i = 0
    rec["d_tmem"] = _tmem_info(_addr_operand(ops[i], env), "mma_d", env=env); i += 1
    if ops[i].startswith("["):
        rec["a_tmem"] = _tmem_info(_addr_operand(ops[i], env), None, env=env)
    else:
        rec["a_desc"] = _smem_info(_value_operand(ops[i], env, 64), major="K")
    i += 1
    rec["b_desc"] = _smem_info(_value_operand(ops[i], env, 64), major="K"); i += 1
    if q["sparse"]:
        rec["sp_meta_tmem"] = _tmem_info(_addr_operand(ops[i], env), None, env=env); i += 1
    idesc = _value_operand(ops[i], env, 32); i += 1
    if kind in IDESC_KINDS:
        idesc["decoded"] = decode_idesc(idesc["value"], kind)
        idesc["violations"] = validate_idesc(idesc["value"], kind, cta_group=cta,
                                             block=q.get("block"), sparse_instr=q["sparse"],
                                             ws=q["ws"])
        if kind == "mxf4nvf4" and q["block_scale"] and "block" not in q:
            idesc["violations"].append(".kind::mxf4nvf4 requires an explicit .block16/.block32 "
                                       "(.scale_vec::NX) qualifier")
    rec["idesc"] = idesc
    if q["block_scale"]:
        rec["scale_a_tmem"] = _tmem_info(_addr_operand(ops[i], env), "scale", env=env); i += 1
        rec["scale_b_tmem"] = _tmem_info(_addr_operand(ops[i], env), "scale", env=env); i += 1
    elif i < len(ops) and ops[i].startswith("{"):
        rec["disable_output_lane"] = ops[i]; i += 1
    if i < len(ops):
        rec["enable_input_d"] = ops[i]; i += 1
    if i < len(ops):
        rec["scale_input_d"] = ops[i]


def _decode_cp(ins: _Instr, env: _Env, rec: Dict) -> None:
    q = _quals(ins.mods)
    rec["cta_group"] = q.get("cta_group", 1)
    shape = next((m for m in ins.mods if re.match(r"^\d+x\d+b$", m)), None)
    rec["shape"] = shape
    rec["multicast"] = next((m for m in ins.mods if m.startswith("warpx")), None)
    rec["formats"] = [m for m in ins.mods if m.startswith("b") and "x16" in m]
    v = []
    if shape == "32x128b" and rec["multicast"] != "warpx4":
        v.append(".32x128b requires .warpx4")
    if shape == "64x128b" and rec["multicast"] not in ("warpx2::02_13", "warpx2::01_23"):
        v.append(".64x128b requires .warpx2::02_13 or .warpx2::01_23")
    rec["violations"] = v
    rec["taddr"] = _tmem_info(_addr_operand(ins.operands[0], env), "cp",
                              span=4 if shape in ("32x128b", "64x128b", "128x128b") else 8, env=env)
    rec["s_desc"] = _smem_info(_value_operand(ins.operands[1], env, 64), major=None)


def _decode_ld_st(ins: _Instr, env: _Env, rec: Dict) -> None:
    shape = next((m for m in ins.mods if re.match(r"^\d+x\d+b(x2)?$", m)), None)
    num = next((m for m in ins.mods if re.match(r"^x\d+$", m)), None)
    rec["shape"], rec["num"] = shape, num
    rec["pack"] = any(m.startswith("pack") or m.startswith("unpack") for m in ins.mods)
    n = int(num[1:]) if num else 1
    per = {"32x32b": 1, "16x64b": 1, "16x32bx2": 1, "16x128b": 2, "16x256b": 4}.get(shape, 1)
    cols = {"32x32b": 1, "16x64b": 2, "16x32bx2": 1, "16x128b": 4, "16x256b": 8}.get(shape, 1) * n
    if ins.opcode == "tcgen05" and ins.mods[0] == "ld":
        regs = ins.operands[0].strip("{}").split(",")
        rec["num_regs"] = len([r for r in regs if r.strip()])
        rec["violations"] = ([] if rec["num_regs"] == per * n else
                             [f"{rec['num_regs']} destination registers, expected {per * n}"])
        rec["taddr"] = _tmem_info(_addr_operand(ins.operands[1], env), "ld", span=cols, env=env)
    else:
        rec["taddr"] = _tmem_info(_addr_operand(ins.operands[0], env), "st", span=cols, env=env)
        rec["violations"] = []


def _find_symbols(text: str) -> Dict[str, int]:
    syms = {}
    for m in re.finditer(r"\.(?:shared|global|const)\b[^;,\n]*?\.align\s+(\d+)[^;,\n]*?\s([A-Za-z_$][\w$]*)\s*(?:\[|;|=)",
                         text):
        a = int(m.group(1))
        syms[m.group(2)] = max(0, a.bit_length() - 1)
    for m in re.finditer(r"\.(?:shared|global|const)\b(?![^;,\n]*\.align)[^;,\n]*?\s([A-Za-z_$][\w$]*)\s*(?:\[|;|=)",
                         text):
        syms.setdefault(m.group(1), 0)
    return syms


def _kernels(text: str) -> List[Tuple[str, str, int]]:
    """(name, body, first line) for each .entry / .func with a body."""
    out = []
    for m in re.finditer(r"\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)", text):
        name = m.group(2)
        # the body starts at the first '{' after the parameter list
        j = m.end()
        depth = 0
        # skip parameter list
        k = j
        while k < len(text) and text[k] not in "{;":
            if text[k] == "(":
                depth += 1
                while k < len(text) and depth:
                    k += 1
                    if text[k] == "(":
                        depth += 1
                    elif text[k] == ")":
                        depth -= 1
            k += 1
        if k >= len(text) or text[k] == ";":
            continue
        start = k
        depth = 0
        for e in range(start, len(text)):
            if text[e] == "{":
                depth += 1
            elif text[e] == "}":
                depth -= 1
                if depth == 0:
                    break
        body = text[start + 1:e]
        out.append((name, body, text.count("\n", 0, start + 1) + 1))
    return out


def extract_tcgen05(ptx_text: str) -> List[Dict]:
    """Find tcgen05 instructions and decode their compile-time-known operands.

    Each record: kernel, line, text, op ('mma', 'cp', 'alloc', 'dealloc', 'ld',
    'st', 'commit', 'wait', 'fence', 'relinquish_alloc_permit', 'shift'),
    qualifiers and, per operand, {'operand', 'value': KnownBits, ...decoded...,
    'violations': [...]}."""
    text = _strip_comments(ptx_text)
    syms = _find_symbols(text)
    records: List[Dict] = []
    for kname, body, first_line in _kernels(text):
        instrs, widths = _parse_body(body, first_line)
        env = _Env(widths, syms)
        _propagate(instrs, env)
        # registers loaded from the shared-memory slot tcgen05.alloc wrote:
        # they hold the TMEM base address (PTX ISA 9.7.16.7.1, tcgen05.alloc)
        slot_ops = [_addr_operand(ins.operands[0], env, 64) for ins in instrs
                    if ins.opcode == "tcgen05" and ins.mods and ins.mods[0] == "alloc" and ins.operands]
        slot_txt = {o["operand"].replace(" ", "") for o in slot_ops}
        slot_val = {o["value"].value for o in slot_ops if o["value"].is_const()}

        def _is_slot(tok: str) -> bool:
            if tok.replace(" ", "") in slot_txt:
                return True
            v = _addr_operand(tok, env, 64)["value"]
            return v.is_const() and v.value in slot_val

        env.tmem_base_regs = {ins.operands[0] for ins in instrs
                              if ins.opcode == "ld" and len(ins.operands) > 1
                              and _is_slot(ins.operands[1])}
        for ins in instrs:
            if ins.opcode != "tcgen05" or not ins.mods:
                continue
            sub, _, subkind = ins.mods[0].partition("::")
            rec: Dict = {"kernel": kname, "line": ins.line, "text": ins.text, "op": sub,
                         "predicate": ins.pred}
            if subkind:
                rec["kind"] = subkind
            q = _quals(ins.mods)
            if "cta_group" in q:
                rec["cta_group"] = q["cta_group"]
            try:
                if sub == "mma":
                    _decode_mma(ins, env, rec)
                elif sub == "cp":
                    _decode_cp(ins, env, rec)
                elif sub in ("ld", "st"):
                    _decode_ld_st(ins, env, rec)
                elif sub == "alloc":
                    rec["dst"] = _addr_operand(ins.operands[0], env, 64)
                    nc = _value_operand(ins.operands[1], env, 32)
                    c = nc["value"].const_value()
                    nc["ncols"] = c
                    nc["violations"] = validate_alloc_ncols(c) if c is not None else []
                    rec["ncols"] = nc
                elif sub == "dealloc":
                    rec["taddr"] = _addr_operand(ins.operands[0], env)
                    nc = _value_operand(ins.operands[1], env, 32)
                    c = nc["value"].const_value()
                    nc["ncols"] = c
                    nc["violations"] = validate_alloc_ncols(c) if c is not None else []
                    rec["ncols"] = nc
                elif sub == "commit":
                    rec["mbarrier"] = _addr_operand(ins.operands[0], env, 64)
                    rec["multicast"] = "multicast::cluster" in ins.mods
            except IndexError:
                rec["parse_error"] = "unexpected operand count"
            records.append(rec)
    return records


def check_kernel(records: List[Dict]) -> List[str]:
    """Kernel-wide rules over extract_tcgen05() records:
    * all tcgen05 instructions of a kernel use the same .cta_group
      (PTX ISA 9.7.16.10.9.1, tcgen05.mma description);
    * allocs and deallocs both present (9.7.16.1.2: all TMEM must be freed);
    * every operand violation, prefixed with its line."""
    v: List[str] = []
    by_k: Dict[str, List[Dict]] = {}
    for r in records:
        by_k.setdefault(r["kernel"], []).append(r)
    for k, rs in by_k.items():
        groups = {r["cta_group"] for r in rs if "cta_group" in r}
        if len(groups) > 1:
            v.append(f"{k}: mixed cta_group {sorted(groups)}")
        ops = [r["op"] for r in rs]
        if "alloc" in ops and "dealloc" not in ops:
            v.append(f"{k}: tcgen05.alloc without tcgen05.dealloc")
        for r in rs:
            for key, val in r.items():
                if isinstance(val, dict) and val.get("violations"):
                    v += [f"{k}:{r['line']}: {key}: {x}" for x in val["violations"]]
            for x in r.get("violations", []):
                v.append(f"{k}:{r['line']}: {x}")
    return v


def _fmt_kb(v: KnownBits) -> str:
    c = v.const_value()
    if c is not None:
        return f"{c:#x}"
    return f"?(known {bin(v.mask).count('1')}/{v.width} bits)"


def summarize(records: List[Dict]) -> str:
    """Human-readable report (used by the README and `python -m nvfp4_testing.ptx_decode`)."""
    lines = []
    for r in records:
        head = f"{r['kernel']}:{r['line']}: tcgen05.{r['op']}"
        if r["op"] == "mma":
            d = r["idesc"]
            dec = d.get("decoded", {})
            lines.append(f"{head} kind::{r.get('kind')} {r.get('block', '')} cta_group::{r.get('cta_group')}")
            lines.append(f"    idesc {d['operand']} = {_fmt_kb(d['value'])}: M={dec.get('m')} N={dec.get('n')} "
                         f"a={dec.get('a_type')} b={dec.get('b_type')} scale={dec.get('scale_type')} "
                         f"sfa_id={dec.get('sfa_id')} sfb_id={dec.get('sfb_id')} K={dec.get('k_per_instr')} "
                         f"sparse={dec.get('sparse')} transpose=({dec.get('transpose_a')},{dec.get('transpose_b')}) "
                         f"violations={d.get('violations')}")
            for key in ("a_desc", "b_desc"):
                if key in r:
                    s = r[key]
                    dd = s["decoded"]
                    start = (f"{dd['start_addr']:#x}" if dd["start_addr"] is not None else
                             (f"= {dd['start_addr_mod'][0]} mod {dd['start_addr_mod'][1]}"
                              if dd["start_addr_mod"] else "unknown"))
                    lines.append(f"    {key} {s['operand']} = {_fmt_kb(s['value'])}: start {start}, "
                                 f"LBO={dd['lbo']} SBO={dd['sbo']} version={dd['version']} "
                                 f"base_off={dd['base_offset']} lbo_mode={dd['lbo_mode_name']} "
                                 f"swizzle={dd['swizzle_name']} violations={s['violations']}")
            for key in ("d_tmem", "scale_a_tmem", "scale_b_tmem"):
                if key in r:
                    t = r[key]
                    base = t["base"] + (" (= tcgen05.alloc result)" if t.get("base_is_alloc_result") else "")
                    lines.append(f"    {key} {t['operand']}: base {base} + {t['offset']} columns"
                                 + (f" (lane {t['lane']}, col {t['column']})" if t.get("lane") is not None else ""))
        elif r["op"] == "cp":
            s = r["s_desc"]
            dd = s["decoded"]
            start = (f"{dd['start_addr']:#x}" if dd["start_addr"] is not None else
                     (f"= {dd['start_addr_mod'][0]} mod {dd['start_addr_mod'][1]}"
                      if dd["start_addr_mod"] else "unknown"))
            lines.append(f"{head} .{r['shape']}.{r['multicast']} taddr {r['taddr']['base']}+{r['taddr']['offset']}: "
                         f"s_desc start {start} LBO={dd['lbo']} SBO={dd['sbo']} version={dd['version']} "
                         f"swizzle={dd['swizzle_name']} violations={s['violations'] + r['violations']}")
        elif r["op"] in ("alloc", "dealloc"):
            lines.append(f"{head} nCols={r['ncols']['ncols']} violations={r['ncols']['violations']}")
        elif r["op"] in ("ld", "st"):
            lines.append(f"{head} .{r['shape']}.{r['num']} taddr {r['taddr']['base']}+{r['taddr']['offset']} "
                         f"violations={r['violations']}")
        else:
            lines.append(f"{head}{'::' + r['kind'] if r.get('kind') else ''}  ({r['text']})")
    return "\n".join(lines)


if __name__ == "__main__":   # python3 -m nvfp4_testing.ptx_decode file.ptx
    import sys
    recs = extract_tcgen05(open(sys.argv[1]).read())
    print(summarize(recs))
    problems = check_kernel(recs)
    print("\nkernel checks:", "OK" if not problems else "")
    for p in problems:
        print("  " + p)
