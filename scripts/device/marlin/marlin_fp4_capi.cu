// C entry points of libmarlin_fp4.so (ours, nvfp4-mlir): vLLM's Marlin
// W4A16 GEMM for NVFP4 weights (FP4 e2m1 codes, E4M3 per-16 scales, fp32
// global scale), bf16 activations and output, sm_90a only.
//
// scripts/device/marlin.sh builds this file together with parts of vLLM's
// own sources, taken from the pinned sdist at build time (nothing of vLLM is
// kept in this repository):
//   marlin_launcher.inc  csrc/quantization/marlin/marlin.cu, the launcher
//                        `marlin::marlin_mm` and its thread-config heuristics
//                        (the torch-op wrapper `marlin_gemm` left out)
//   marlin_repack.inc    csrc/quantization/marlin/gptq_marlin_repack.cu, the
//                        kernel `marlin::gptq_marlin_repack_kernel` (the
//                        torch-op wrapper left out)
//   kernel_selector.h    from vLLM's generate_kernels.py, reduced to the
//                        bf16 x FE2M1f(FE4M3fn scales, group 16) x bf16 kernels
// and the Marlin<...> instantiations for those, compiled in their own files.
//
// All pointers are raw device pointers; every call is asynchronous on the
// given stream. Functions return 0 on success, -1 on a failed check or CUDA
// error; marlin_fp4_last_error() then says why (per thread).

#include <cuda_runtime.h>

#include <cstdint>
#include <exception>
#include <string>

#include "kernel.h"
#include "marlin_launcher.inc"
#include "marlin_repack.inc"

namespace {
thread_local std::string last_error;

int fail(const std::string& msg) {
  last_error = msg;
  return -1;
}

int check_launch(const char* what) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return fail(std::string(what) + ": " + cudaGetErrorString(err));
  return 0;
}
}  // namespace

#define MARLIN_FP4_API __attribute__((visibility("default")))

extern "C" {

MARLIN_FP4_API const char* marlin_fp4_last_error(void) { return last_error.c_str(); }

MARLIN_FP4_API const char* marlin_fp4_version(void) { return MARLIN_FP4_VLLM_VERSION; }

// fp32 elements of the C_tmp buffer that marlin_gemm (csrc/quantization/
// marlin/marlin.cu) allocates for use_fp32_reduce: sms * min(round_up(m,
// 16), 64) * max_thread_n.
MARLIN_FP4_API int64_t marlin_fp4_c_tmp_elems(int64_t m, int sms) {
  int64_t mb = (m + 15) / 16 * 16;
  if (mb > 64) mb = 64;
  return (int64_t)sms * mb * marlin::max_thread_n;
}

// C[m, n] (bf16, row-major, contiguous) = A[m, k] (bf16, row stride lda
// elements, lda % 8 == 0, 16-byte aligned) x B^T, B the Marlin-repacked FP4
// weight ([k/16, 2n] int32, see marlin_fp4_repack), b_scales the Marlin-
// processed E4M3 scales ([k/16, n] bytes), global_scale one fp32 already
// processed for Marlin (see benchmarks/marlin_peer.py). workspace: >= sms
// int32 zeroed once (Marlin resets its locks after each call); c_tmp:
// marlin_fp4_c_tmp_elems(m, sms) fp32 when use_fp32_reduce, else unused.
// Thread/tile choice is Marlin's own (thread_k = thread_n = -1), as in vLLM.
MARLIN_FP4_API int marlin_fp4_gemm(const void* a, const void* b_q, void* c, void* c_tmp,
                    const void* b_scales, const void* global_scale,
                    void* workspace, int m, int n, int k, int lda, int dev,
                    int sms, cudaStream_t stream, int use_atomic_add,
                    int use_fp32_reduce) {
  try {
    STD_TORCH_CHECK(k % 16 == 0, "k = ", k, " is not divisible by 16");
    STD_TORCH_CHECK(n % marlin::min_thread_n == 0, "n = ", n,
                    " is not divisible by ", marlin::min_thread_n);
    STD_TORCH_CHECK(lda % 8 == 0 && ((uintptr_t)a) % 16 == 0,
                    "A must be 16-byte aligned with lda % 8 == 0");
    if (m == 0) return 0;
    marlin::marlin_mm(a, b_q, c, c_tmp, /*b_bias=*/nullptr,
                      /*a_s=*/nullptr, const_cast<void*>(b_scales),
                      const_cast<void*>(global_scale), /*zp=*/nullptr, m, n,
                      k, lda, workspace, vllm::kBFloat16, vllm::kFE2M1f,
                      vllm::kBFloat16, vllm::kFE4M3fn, /*has_bias=*/false,
                      /*has_zp=*/false, /*num_groups=*/k / 16,
                      /*group_size=*/16, dev, stream, /*thread_k_init=*/-1,
                      /*thread_n_init=*/-1, sms, use_atomic_add != 0,
                      use_fp32_reduce != 0, /*is_zp_float=*/false);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return check_launch("marlin_mm");
}

// vLLM's gptq_marlin_repack for num_bits = 4, 16-bit activations: in is the
// GPTQ layout [k/8, n] int32 (8 consecutive k of one column per int32, the
// first in the low nibble), out is [k/16, 2n] int32.
MARLIN_FP4_API int marlin_fp4_repack(const void* in, void* out, int k, int n, int dev,
                      cudaStream_t stream) {
  try {
    STD_TORCH_CHECK(k % marlin::tile_k_size == 0, "k = ", k,
                    " is not divisible by ", marlin::tile_k_size);
    STD_TORCH_CHECK(n % marlin::tile_n_size == 0, "n = ", n,
                    " is not divisible by ", marlin::tile_n_size);
    int blocks = 0, max_shared_mem = 0;
    cudaDeviceGetAttribute(&blocks, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&max_shared_mem,
                           cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    STD_TORCH_CHECK(blocks > 0 && max_shared_mem > 0, "device query failed");
    auto kernel =
        marlin::gptq_marlin_repack_kernel<marlin::repack_threads, 4, false>;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         max_shared_mem);
    kernel<<<blocks, marlin::repack_threads, max_shared_mem, stream>>>(
        static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out), k, n);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return check_launch("gptq_marlin_repack_kernel");
}

}  // extern "C"
