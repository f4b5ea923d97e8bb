// Stand-in for torch/headeronly/util/Exception.h, which vLLM's
// csrc/core/scalar_type.hpp includes for STD_TORCH_CHECK. Ours (nvfp4-mlir):
// libmarlin_fp4.so links no torch; a failed check throws std::runtime_error,
// which marlin_fp4_capi.cu catches at the C boundary.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace marlin_capi_detail {
template <typename... Args>
std::string check_msg(const char* cond, const char* file, int line,
                      const Args&... args) {
  std::ostringstream oss;
  oss << "check failed: " << cond << " (" << file << ":" << line << ") ";
  ((oss << args), ...);
  return oss.str();
}
}  // namespace marlin_capi_detail

#define STD_TORCH_CHECK(cond, ...)                                       \
  if (!(cond)) {                                                         \
    throw std::runtime_error(marlin_capi_detail::check_msg(              \
        #cond, __FILE__, __LINE__, ##__VA_ARGS__));                      \
  }
#define STD_TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) \
  STD_TORCH_CHECK(cond, ##__VA_ARGS__)
