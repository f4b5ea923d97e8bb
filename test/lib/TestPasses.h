//===- TestPasses.h - nvfp4 test passes -------------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Passes that exist for tests only (as upstream keeps its test passes under
// mlir/test/lib): registered by nvfp4-opt and nvfp4-runner, never linked
// into the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_TEST_LIB_TESTPASSES_H
#define NVFP4_TEST_LIB_TESTPASSES_H

namespace mlir {
namespace nvfp4 {
namespace test {

/// nvfp4-test-mutate-tcgen05.
void registerTestPasses();

} // namespace test
} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_TEST_LIB_TESTPASSES_H
