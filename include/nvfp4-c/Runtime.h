/*===- nvfp4-c/Runtime.h - C API of the nvfp4 runtime --------------*- C -*-===*\
|*                                                                            *|
|* Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.     *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* The runtime of nvfp4/Runner/Runtime.h behind a C ABI, exported by           *|
|* libnvfp4_runtime.so (which carries the whole compiler, LLVM linked in and  *|
|* hidden): the Python bindings are built against this header alone, so they  *|
|* can be compiled where the compiler cannot (the GPU machine has no LLVM).   *|
|*                                                                            *|
|* Every function that can fail returns 0 on success and otherwise a non-zero *|
|* value and, when `error` is not null, a message in *error that the caller   *|
|* frees with nvfp4_free().                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef NVFP4_C_RUNTIME_H
#define NVFP4_C_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NVFP4_C_API_VERSION 1

typedef struct nvfp4_kernel nvfp4_kernel;

/* A caller-owned array: DLPack's element code and bits (a byte type for
 * packed FP4 and f8 scales), C-contiguous; strides in elements or NULL. */
typedef struct nvfp4_array {
  void *data;
  const int64_t *shape;
  const int64_t *strides;
  int32_t ndim;
  uint8_t code;
  uint8_t bits;
  uint8_t on_device; /* CUDA device memory (else host) */
  uint8_t reserved;
} nvfp4_array;

typedef struct nvfp4_compile_options {
  const char *target;           /* "cpu" or "gpu" */
  const char *chip;             /* NULL or "": the GPU's */
  int32_t portable_kernels;     /* the portable SIMT kernels on any chip */
  int64_t ctas;                 /* 0: the GPU's SM count */
  const char *pipeline_options; /* as nvfp4-opt takes them, or NULL */
  int32_t emulate_tcgen05;      /* the sm_100a kernels, tcgen05 emulated */
} nvfp4_compile_options;

#define NVFP4_MAX_RANK 8

/* An entry argument or result as the runtime stores it (docs/spec.md 1). */
typedef struct nvfp4_value_info {
  int32_t ndim;
  int64_t shape[NVFP4_MAX_RANK];
  uint32_t element_bytes;
  int32_t is_scalar;
  char type[256]; /* the MLIR type, e.g. "tensor<128x64xf4E2M1FN>" */
} nvfp4_value_info;

int nvfp4_api_version(void);
/* Identifies the compiler build (part of every cache key); static string. */
const char *nvfp4_compiler_version(void);
void nvfp4_free(void *ptr);

/* 1 when a CUDA GPU is usable (its description in *info), else 0 (why in
 * *info). *info is freed with nvfp4_free. */
int nvfp4_gpu_info(char **info);

/* The on-disk kernel cache's directory ("" when disabled); free it. */
char *nvfp4_cache_directory(void);
/* memory hits, disk hits, compiles, disk writes */
void nvfp4_cache_stats(int64_t counts[4]);
void nvfp4_clear_memory_cache(void);

int nvfp4_compile(const char *program, size_t program_size, const char *entry,
                  const nvfp4_compile_options *options, nvfp4_kernel **kernel,
                  char **error);
void nvfp4_kernel_release(nvfp4_kernel *kernel);
int32_t nvfp4_kernel_num_inputs(const nvfp4_kernel *kernel);
int32_t nvfp4_kernel_num_outputs(const nvfp4_kernel *kernel);
/* index: the inputs, then the outputs. */
int nvfp4_kernel_value(const nvfp4_kernel *kernel, int32_t index,
                       nvfp4_value_info *info);
int32_t nvfp4_kernel_is_gpu(const nvfp4_kernel *kernel);
int32_t nvfp4_kernel_from_disk_cache(const nvfp4_kernel *kernel);
double nvfp4_kernel_compile_seconds(const nvfp4_kernel *kernel);

typedef struct nvfp4_launch_options {
  /* GPU: a CUstream of the primary context (the default stream is
   * CU_STREAM_LEGACY or CU_STREAM_PER_THREAD, as frameworks' handle 0 means
   * the legacy one); NULL: the runtime's own stream, waited for before
   * nvfp4_launch returns. A caller's stream is never waited for. */
  void *stream;
  /* Check the group tables' contract (device tables are copied to the
   * host, which waits for the stream). */
  int32_t check_tables;
  /* A GPU program given host arrays: copy them to the device and the
   * outputs back (no stream then). */
  int32_t stage_host_arrays;
  /* With `times` (room for `reps` doubles): time the program after the
   * checked call, `warmup` untimed calls, then `reps` timed ones (graph:
   * CUDA graph replays), in microseconds. No stream then. */
  int32_t warmup, reps, graph;
  double *times;
} nvfp4_launch_options;

/* Checks `args` (the inputs, then one array per output) and calls the
 * program on them in place; `options` NULL: a checked call on the
 * runtime's stream. Nothing is launched when a check fails. */
int nvfp4_launch(nvfp4_kernel *kernel, const nvfp4_array *args, size_t count,
                 const nvfp4_launch_options *options, char **error);

#ifdef __cplusplus
}
#endif

#endif /* NVFP4_C_RUNTIME_H */
