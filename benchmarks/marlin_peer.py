#!/usr/bin/env python3
"""vLLM's Marlin FP4 GEMM as a peer for the decode benchmark.

What vLLM runs for NVFP4 checkpoints on Hopper (no FP4 tensor cores there):
Marlin W4A16, FP4 e2m1 weights with E4M3 per-16 scales and an fp32 global
scale, bf16 activations, bf16 output. The kernel comes from
.device/libmarlin_fp4.so (built by scripts/device/marlin.sh from the pinned
vLLM sdist, sm_90a only; `.device/libmarlin_fp4.so.xz` is unpacked to
/tmp/nvfp4/ by scripts/device/env.sh). This file is ours: the weight
preparation below does what vLLM's prepare_fp4_layer_for_marlin
(vllm/model_executor/layers/quantization/utils/marlin_utils_fp4.py, with
marlin_utils.py) does for a dense NVFP4 layer with bf16 params, written anew:

  weight   [N, K/2] uint8 codes -> GPTQ int32 layout [K/8, N] -> Marlin
           repack [K/16, 2N] int32 (vLLM calls gptq_marlin_repack, num_bits
           4; `repack_weights` here does the same on any device, and the .so
           has vLLM's CUDA kernel too, `MarlinLib.repack`)
  scales   [N, K/16] E4M3 -> [K/16, N] -> bf16 -> marlin_permute_scales
           (group 16 < K: the 64-wide scale_perm) -> half -> [0,2,1,3]
           interleave of each 4 -> power-of-2 rescale so the largest scale
           nears 448 -> *2^7, values < 2 flushed to 0 -> the "S0E5M3" byte
           (high byte of the half's bits << 1)
  global   fp32 * 2^(126 - 7) (bf16 exponent bias vs e2m1's) / rescale factor
  launch   thread/tile config left to Marlin (thread_k = thread_n = -1),
           use_atomic_add False (vLLM's default: VLLM_MARLIN_USE_ATOMIC_ADD
           unset), use_fp32_reduce True (USE_FP32_REDUCE_DEFAULT), locks
           workspace sms * 4 int32 zeroed once, fp32 C_tmp as marlin_gemm
           sizes it.

`python3 benchmarks/marlin_peer.py` runs selftest() (needs the GPU and the .so).
"""

from __future__ import annotations

import ctypes
import os
import sys

import torch

# e2m1 code -> value (bit 3 the sign).
E2M1_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
               -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)

# vLLM marlin_utils.py MARLIN_MAX_BLOCKS_PER_SM (locks per SM) and
# marlin.cuh max_thread_n (C_tmp width).
_MAX_BLOCKS_PER_SM = 4
_MAX_THREAD_N = 256


def _lib_candidates():
    env = os.environ.get("MARLIN_FP4_LIB")
    if env:
        yield env
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    yield "/tmp/nvfp4/libmarlin_fp4.so"
    yield os.path.join(root, ".device", "libmarlin_fp4.so")


class MarlinLib:
    """ctypes binding of libmarlin_fp4.so (scripts/device/marlin/marlin_fp4_capi.cu)."""

    _instance = None

    def __init__(self, path: str | None = None):
        if path is None:
            path = next((p for p in _lib_candidates() if os.path.exists(p)), None)
            if path is None:
                raise FileNotFoundError(
                    "libmarlin_fp4.so not found (set MARLIN_FP4_LIB, or build it "
                    "with scripts/device/marlin.sh and unpack .device/"
                    "libmarlin_fp4.so.xz)")
        self.path = path
        lib = ctypes.CDLL(path)
        vp, i32, i64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64
        lib.marlin_fp4_last_error.restype = ctypes.c_char_p
        lib.marlin_fp4_last_error.argtypes = []
        lib.marlin_fp4_version.restype = ctypes.c_char_p
        lib.marlin_fp4_version.argtypes = []
        lib.marlin_fp4_c_tmp_elems.restype = i64
        lib.marlin_fp4_c_tmp_elems.argtypes = [i64, i32]
        lib.marlin_fp4_gemm.restype = i32
        lib.marlin_fp4_gemm.argtypes = [vp, vp, vp, vp, vp, vp, vp,
                                        i32, i32, i32, i32, i32, i32, vp,
                                        i32, i32]
        lib.marlin_fp4_repack.restype = i32
        lib.marlin_fp4_repack.argtypes = [vp, vp, i32, i32, i32, vp]
        self.lib = lib
        self.version = lib.marlin_fp4_version().decode()

    @classmethod
    def get(cls) -> "MarlinLib":
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def _check(self, rc: int, what: str):
        if rc != 0:
            raise RuntimeError(f"{what}: {self.lib.marlin_fp4_last_error().decode()}")

    def repack(self, gptq_q: torch.Tensor, k: int, n: int) -> torch.Tensor:
        """vLLM's gptq_marlin_repack kernel (num_bits 4): [K/8, N] -> [K/16, 2N] int32."""
        assert gptq_q.is_cuda and gptq_q.dtype == torch.int32
        assert gptq_q.shape == (k // 8, n) and gptq_q.is_contiguous()
        out = torch.empty((k // 16, 2 * n), dtype=torch.int32, device=gptq_q.device)
        stream = torch.cuda.current_stream(gptq_q.device).cuda_stream
        self._check(self.lib.marlin_fp4_repack(gptq_q.data_ptr(), out.data_ptr(), k, n,
                                               gptq_q.device.index, stream),
                    "marlin_fp4_repack")
        return out


# ---------------------------------------------------------------------------
# Weight preparation (device-agnostic: runs on CPU tensors too).


def gptq_pack(codes: torch.Tensor) -> torch.Tensor:
    """[N, K/2] uint8 (low nibble first along K) -> [K/8, N] int32, 8
    consecutive k of one column per int32 with the first in the low nibble:
    vLLM's `layer.weight.view(torch.int32).T.contiguous()` (little endian)."""
    assert codes.dtype == torch.uint8 and codes.dim() == 2 and codes.shape[1] % 4 == 0
    return codes.contiguous().view(torch.int32).T.contiguous()


def _repack_index(device) -> tuple[torch.Tensor, torch.Tensor]:
    """Within a 16 (k) x 64 (n) tile: for output int32 t*4 + w (thread t of
    warp w in gptq_marlin_repack_kernel) and nibble j, the (k, n) it holds."""
    t = torch.arange(32).view(32, 1, 1)
    w = torch.arange(4).view(1, 4, 1)
    j = torch.arange(8).view(1, 1, 8)
    # res |= vals[pack_idx[j]] << 4j, pack_idx = {0,2,4,6,1,3,5,7};
    # vals[i] (i < 4) = q[row + off[i], col], vals[4+i] = q[row + off[i], col + 8]
    pack_idx = torch.tensor([0, 2, 4, 6, 1, 3, 5, 7]).view(1, 1, 8)
    off = torch.tensor([0, 1, 8, 9])
    v = pack_idx.expand(32, 4, 8)
    dk = (t % 4) * 2 + off[v % 4]
    dn = w * 16 + t // 4 + 8 * (v // 4)
    return dk.to(device), dn.to(device)


def repack_weights(codes: torch.Tensor, n: int, k: int) -> torch.Tensor:
    """Marlin's FP4 weight layout, [K/16, 2N] int32, as gptq_marlin_repack
    (num_bits 4, 16-bit activations) makes it from gptq_pack(codes)."""
    assert codes.shape == (n, k // 2) and k % 16 == 0 and n % 64 == 0
    c = codes.to(torch.int32)
    q = torch.stack([c & 0xF, c >> 4], dim=-1).reshape(n, k).T  # q[k, n]
    tiles = q.reshape(k // 16, 16, n // 64, 64).permute(0, 2, 1, 3)  # [kt, nt, 16, 64]
    dk, dn = _repack_index(codes.device)
    vals = tiles[:, :, dk, dn]  # [kt, nt, 32, 4, 8]
    shifts = (4 * torch.arange(8, device=codes.device)).to(torch.int64)
    words = (vals.to(torch.int64) << shifts).sum(dim=-1)  # < 2^32
    words = torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)
    return words.reshape(k // 16, 2 * n).contiguous()


def _scale_perm() -> list[int]:
    # marlin_utils.get_scale_perms()[0]: group-wise scales (group < K).
    return [i + 8 * j for i in range(8) for j in range(8)]


def prepare_scales(scales: torch.Tensor, global_scale: float | torch.Tensor,
                   n: int, k: int) -> tuple[torch.Tensor, torch.Tensor, float, int]:
    """E4M3 scales [N, K/16] (uint8 bits or float8_e4m3fn) and the fp32
    decode global scale -> (Marlin scale bytes [K/16, N] as float8_e4m3fn,
    Marlin global scale fp32 [1], the power-of-2 rescale factor, how many
    non-zero scales Marlin's encoding flushes to zero)."""
    assert scales.shape == (n, k // 16)
    if scales.dtype == torch.uint8:
        scales = scales.view(torch.float8_e4m3fn)
    assert scales.dtype == torch.float8_e4m3fn
    # vLLM: weight_scale.T.contiguous().to(params_dtype=bf16), then
    # marlin_permute_scales(size_k=K, size_n=N, group_size=16).
    s = scales.T.contiguous().to(torch.bfloat16)
    s = s.reshape(-1, 64)[:, _scale_perm()].reshape(-1, n).contiguous()
    # nvfp4_marlin_process_scales(a_dtype=bf16)
    if not bool((s.float() >= 0).all()):
        print("marlin_peer: negative NVFP4 scales; Marlin's S0E5M3 scale "
              "encoding assumes scales >= 0", file=sys.stderr)
    s = s.to(torch.half)
    s = s.reshape(-1, 4)[:, [0, 2, 1, 3]].reshape(s.shape[0], -1)
    # Power-of-2 factor that brings the largest scale * 2^7 up to <= 448 * 2^7.
    ws = s.float() * 2.0 ** 7
    factor = 1.0
    pos = ws[ws > 0]
    if pos.numel() and float(pos.max()) < 448 * 2.0 ** 7:
        factor = float(torch.floor(torch.log2(torch.tensor(448 * 2.0 ** 7) / pos.max()))
                       .exp2())
    if factor > 1.0:
        s = (s.float() * factor).to(torch.half)
    s = s * (2 ** 7)
    flushed = int(((s < 2) & (s > 0)).sum())
    s[s < 2] = 0
    s = (s.view(torch.int16) << 1).view(torch.float8_e4m3fn)[:, 1::2].contiguous()
    # nvfp4_marlin_process_global_scale(bf16): * 2^(2^7 - 2^1 - 7), then / factor.
    g = torch.as_tensor(global_scale, dtype=torch.float32).reshape(1).to(scales.device)
    g = (g * (2.0 ** (2 ** 7 - 2 ** 1 - 7))) / factor
    return s, g, factor, flushed


# ---------------------------------------------------------------------------


class MarlinFP4Linear:
    """y[M, N] (bf16) = x[M, K] (bf16) @ W^T, W = e2m1(codes) * e4m3(scales)
    per 16 along K * global_scale, through vLLM's Marlin FP4 kernel.

    codes: uint8 [N, K/2], low nibble the first of two values along K;
    scales: E4M3 [N, K/16] row-major, un-swizzled (uint8 or float8_e4m3fn);
    global_scale: fp32 decode scale (python float or 1-element tensor).
    Inputs may live on the CPU; the prepared operands go to `device`.
    """

    def __init__(self, codes: torch.Tensor, scales: torch.Tensor,
                 global_scale: float | torch.Tensor, n: int, k: int,
                 device: torch.device | str | None = None,
                 use_cuda_repack: bool = False):
        if not (n % 64 == 0 and k % 128 == 0) and not (n % 128 == 0 and k % 64 == 0):
            raise ValueError(f"N={n}, K={k}: Marlin needs (N%64, K%128) or "
                             "(N%128, K%64) == 0 (vLLM pads otherwise; not done here)")
        self.n, self.k = n, k
        self.device = torch.device(device) if device is not None else (
            codes.device if codes.is_cuda else torch.device("cuda", torch.cuda.current_device()))
        self.lib = MarlinLib.get()
        codes = codes.to(self.device)
        if use_cuda_repack:
            self.qweight = self.lib.repack(gptq_pack(codes), k, n)
        else:
            self.qweight = repack_weights(codes, n, k)
        self.scales, self.global_scale, self.scale_factor, self.flushed = prepare_scales(
            scales.to(self.device), global_scale, n, k)
        if self.flushed:
            print(f"marlin_peer: {self.flushed} non-zero scales below Marlin's "
                  "S0E5M3 range flushed to zero (as in vLLM)", file=sys.stderr)
        idx = self.device.index if self.device.index is not None else torch.cuda.current_device()
        self.dev_index = idx
        self.sms = torch.cuda.get_device_properties(idx).multi_processor_count
        self.workspace = torch.zeros(self.sms * _MAX_BLOCKS_PER_SM, dtype=torch.int32,
                                     device=self.device)
        self.use_atomic_add = False
        self.use_fp32_reduce = True
        # The largest C_tmp marlin_gemm allocates (m rounded up to 16, capped at 64).
        self.c_tmp = torch.empty(self.lib.lib.marlin_fp4_c_tmp_elems(64, self.sms),
                                 dtype=torch.float32, device=self.device)

    def __call__(self, x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        if x.dim() != 2 or x.shape[1] != self.k or x.dtype != torch.bfloat16:
            raise ValueError(f"x must be bf16 [M, {self.k}], got {x.dtype} {tuple(x.shape)}")
        if x.stride(1) != 1:
            x = x.contiguous()
        m = x.shape[0]
        if out is None:
            out = torch.empty((m, self.n), dtype=torch.bfloat16, device=x.device)
        else:
            assert out.shape == (m, self.n) and out.dtype == torch.bfloat16
            assert out.is_contiguous()
        stream = torch.cuda.current_stream(x.device).cuda_stream
        rc = self.lib.lib.marlin_fp4_gemm(
            x.data_ptr(), self.qweight.data_ptr(), out.data_ptr(), self.c_tmp.data_ptr(),
            self.scales.data_ptr(), self.global_scale.data_ptr(), self.workspace.data_ptr(),
            m, self.n, self.k, x.stride(0), self.dev_index, self.sms, stream,
            int(self.use_atomic_add), int(self.use_fp32_reduce))
        self.lib._check(rc, "marlin_fp4_gemm")
        return out


# ---------------------------------------------------------------------------
# Test data and reference.


def dequantize(codes: torch.Tensor, scales: torch.Tensor, global_scale: float,
               n: int, k: int) -> torch.Tensor:
    """fp64 W [N, K] from our layout."""
    lut = torch.tensor(E2M1_VALUES, dtype=torch.float64, device=codes.device)
    c = codes.to(torch.int64)
    vals = lut[torch.stack([c & 0xF, c >> 4], dim=-1).reshape(n, k)]
    if scales.dtype == torch.uint8:
        scales = scales.view(torch.float8_e4m3fn)
    s = scales.to(torch.float64).repeat_interleave(16, dim=1)
    return vals * s * float(global_scale)


def random_weights(n: int, k: int, scale_max: float, seed: int = 0,
                   device="cpu") -> tuple[torch.Tensor, torch.Tensor, float]:
    """Uniform random codes; positive E4M3 scales log-uniform in
    [scale_max / 2^8, scale_max] (inside Marlin's encodable range after its
    rescale); a global scale like a real checkpoint's."""
    g = torch.Generator().manual_seed(seed)
    codes = torch.randint(0, 256, (n, k // 2), dtype=torch.uint8, generator=g)
    logs = torch.rand((n, k // 16), generator=g) * 8.0 - 8.0
    scales = (scale_max * torch.exp2(logs)).to(torch.float8_e4m3fn).view(torch.uint8)
    return codes.to(device), scales.to(device), 1.0 / 2688.0


SHAPES = [(4096, 4096), (14336, 4096), (4096, 14336)]
MS = [1, 16, 64, 128]


def selftest(tol: float = 1e-2) -> bool:
    """Marlin vs an fp64 reference from the dequantized weights and the bf16
    input. Error: max |y - ref| / max |ref| (bf16 output rounding and fp32
    accumulation give a few 1e-3 at most)."""
    lib = MarlinLib.get()
    dev = torch.device("cuda", torch.cuda.current_device())
    print(f"marlin_peer selftest: {lib.path} ({lib.version}) on "
          f"{torch.cuda.get_device_name(dev)}, torch {torch.__version__}")
    ok_all = True
    for si, (n, k) in enumerate(SHAPES):
        # The second shape's scales top out at 6: exercises the rescale path.
        scale_max = 6.0 if si == 1 else 448.0
        codes, scales, gs = random_weights(n, k, scale_max, seed=si, device=dev)
        lin = MarlinFP4Linear(codes, scales, gs, n, k, device=dev)
        # The .so's repack kernel (vLLM's) against ours, bit for bit.
        cuda_q = lib.repack(gptq_pack(codes), k, n)
        same = torch.equal(cuda_q, lin.qweight)
        ok_all &= same
        print(f"  N={n:5d} K={k:5d}  repack (ours vs vLLM kernel): "
              f"{'PASS' if same else 'FAIL'}  scale_factor={lin.scale_factor:g} "
              f"flushed={lin.flushed}")
        w = dequantize(codes, scales, gs, n, k)
        for m in MS:
            gx = torch.Generator(device=dev).manual_seed(1000 + m)
            x = torch.randn((m, k), generator=gx, device=dev, dtype=torch.float32)
            x = x.to(torch.bfloat16)
            y = lin(x)
            y2 = torch.empty_like(y)
            lin(x, out=y2)
            torch.cuda.synchronize()
            ref = x.double() @ w.T
            err = (y.double() - ref).abs().max().item() / ref.abs().max().item()
            # the same inputs twice: must match bit for bit (fp32 reduce, no atomics)
            det = torch.equal(y, y2)
            ok = err <= tol and det and bool(torch.isfinite(y).all())
            ok_all &= ok
            print(f"  N={n:5d} K={k:5d} M={m:4d}  err={err:.2e}  "
                  f"{'deterministic' if det else 'NOT deterministic'}  "
                  f"{'PASS' if ok else 'FAIL'}")
    print("marlin_peer selftest:", "PASS" if ok_all else "FAIL")
    return ok_all


if __name__ == "__main__":
    sys.exit(0 if selftest() else 1)
