//===- inputs_fuzzer.cpp - the .npy reader and the runner's input checks --===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target over what a runner does with its inputs before and while
// running a program (lib/Runner): parseNpy on arbitrary bytes, then
// checkInputs against one of a few entry functions (grouped matmuls in
// contiguous and masked mode, a quantize with a scalar seed, a dequantize
// with a decode scale). The input is
//
//   byte 0: which program, byte 1: which argument, rest: the .npy file
//
// and the other arguments get valid arrays. Checked:
//   - no crash, abort, hang or sanitizer report in the reader or the checks;
//   - an accepted input has exactly the bytes its type needs, and accepted
//     group tables are in contract (re-checked here independently);
//   - the program, JIT-compiled for the CPU, runs on every input whose
//     dtype and shape are right -- also on out-of-contract group tables,
//     which the lowering must clamp -- in buffers that end at a guard page
//     and start after one, so no kernel reads or writes out of bounds.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"
#include "nvfp4/Runner/Inputs.h"
#include "nvfp4/Runner/Npy.h"
#include "nvfp4/Runner/Program.h"
#include "nvfp4/Runner/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

const char *const programs[] = {
    // contiguous: S = 8 rows, G = 2, K = 32, N = 8
    R"mlir(
func.func @main(%a: tensor<8x32xf4E2M1FN>,
                %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %b: tensor<2x8x32xf4E2M1FN>,
                %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %offsets: tensor<3xi32>, %alpha: tensor<2xf32>) -> tensor<8x8xbf16> {
  %c = nvfp4.grouped_matmul contiguous
      a(%a : tensor<8x32xf4E2M1FN>)
      a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%b : tensor<2x8x32xf4E2M1FN>)
      b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%offsets : tensor<3xi32>) alpha(%alpha : tensor<2xf32>)
      -> tensor<8x8xbf16>
  return %c : tensor<8x8xbf16>
})mlir",
    // masked: G = 2, maxM = 8
    R"mlir(
func.func @main(%a: tensor<2x8x32xf4E2M1FN>,
                %sa: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %b: tensor<2x8x32xf4E2M1FN>,
                %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %masked_m: tensor<2xi32>) -> tensor<2x8x8xf32> {
  %c = nvfp4.grouped_matmul masked
      a(%a : tensor<2x8x32xf4E2M1FN>)
      a_scales(%sa : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%b : tensor<2x8x32xf4E2M1FN>)
      b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      masked_m(%masked_m : tensor<2xi32>)
      -> tensor<2x8x8xf32>
  return %c : tensor<2x8x8xf32>
})mlir",
    // a scalar argument (the seed) and a caller amax
    R"mlir(
func.func @main(%x: tensor<16x32xbf16>, %amax: tensor<f32>, %seed: i64)
    -> (tensor<16x32xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x amax %amax : tensor<f32> seed %seed {rounding = #nvfp4.rounding<stochastic>} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  return %q, %s, %d : tensor<16x32xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
})mlir",
    // MXFP4 dequantize of row-major scales
    R"mlir(
func.func @main(%q: tensor<4x64xf4E2M1FN>, %s: tensor<4x2xf8E8M0FNU>) -> tensor<4x64xf16> {
  %x = nvfp4.dequantize %q, %s : tensor<4x64xf4E2M1FN>, tensor<4x2xf8E8M0FNU> -> tensor<4x64xf16>
  return %x : tensor<4x64xf16>
})mlir",
};
constexpr size_t numPrograms = sizeof(programs) / sizeof(programs[0]);

struct Entry {
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  EntrySignature signature;
  std::vector<NpyArray> validInputs;
  std::vector<std::string> names;
  std::unique_ptr<Program> program; // null when NVFP4_FUZZ_NO_RUN is set
};

MLIRContext *context;
std::vector<Entry> *entries;

/// A valid array for an argument: small codes, unit scales, in-contract
/// group tables.
NpyArray validArray(const ValueSpec &spec,
                    const std::vector<GroupTable> &tables, unsigned argument) {
  NpyArray array;
  array.descr = spec.descr;
  if (!spec.isScalar)
    array.shape = spec.storageShape;
  int64_t bytes = spec.isScalar ? spec.elementBytes : spec.numBytes();
  array.data.assign(bytes, 0x22);
  Type element =
      spec.isScalar ? spec.type : cast<ShapedType>(spec.type).getElementType();
  if (element.isF32()) {
    float one = 1.0f;
    for (int64_t i = 0; i < bytes; i += 4)
      std::memcpy(&array.data[i], &one, 4);
  }
  if (isa<Float8E4M3FNType>(element))
    std::fill(array.data.begin(), array.data.end(), 0x38); // 1.0
  if (isa<Float8E8M0FNUType>(element))
    std::fill(array.data.begin(), array.data.end(), 127); // 1.0
  for (const GroupTable &t : tables) {
    if (t.argument != int64_t(argument))
      continue;
    std::vector<int32_t> values(bytes / 4);
    for (size_t g = 0; g < values.size(); ++g)
      values[g] = t.kind == GroupTable::Offsets
                      ? int32_t(std::min<int64_t>(g * 4, t.rows))
                      : int32_t(t.rows / 2);
    if (t.kind == GroupTable::Offsets)
      values.back() = int32_t(t.rows);
    std::memcpy(array.data.data(), values.data(), bytes);
  }
  return array;
}

/// A buffer with an inaccessible page before it and right after its end.
struct GuardedBuffer {
  void *base = nullptr;
  size_t total = 0;
  void *ptr = nullptr;
  explicit GuardedBuffer(size_t bytes) {
    size_t page = sysconf(_SC_PAGESIZE);
    size_t rounded = (bytes + 15) / 16 * 16; // keep 16-byte alignment
    size_t span = (rounded + page - 1) / page * page;
    total = span + 2 * page;
    base = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
      abort();
    mprotect(base, page, PROT_NONE);
    mprotect(static_cast<char *>(base) + page + span, page, PROT_NONE);
    ptr = static_cast<char *>(base) + page + span - rounded;
  }
  ~GuardedBuffer() { munmap(base, total); }
  GuardedBuffer(const GuardedBuffer &) = delete;
};

std::vector<int64_t> descriptor(void *ptr, const std::vector<int64_t> &shape) {
  std::vector<int64_t> words = {reinterpret_cast<int64_t>(ptr),
                                reinterpret_cast<int64_t>(ptr), 0};
  words.insert(words.end(), shape.begin(), shape.end());
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  words.insert(words.end(), strides.begin(), strides.end());
  return words;
}

/// Runs the compiled program on `inputs` in guarded buffers.
void run(Entry &entry, const std::vector<NpyArray> &inputs) {
  const EntrySignature &sig = entry.signature;
  size_t n = sig.inputs.size() + sig.outputs.size();
  std::vector<std::unique_ptr<GuardedBuffer>> buffers(n);
  std::vector<std::vector<int64_t>> descriptors(n);
  std::vector<void *> descriptorPtrs(n), args(n);
  std::vector<uint64_t> scalars(n);
  for (size_t i = 0; i < n; ++i) {
    bool isInput = i < sig.inputs.size();
    const ValueSpec &spec =
        isInput ? sig.inputs[i] : sig.outputs[i - sig.inputs.size()];
    if (spec.isScalar) {
      std::memcpy(&scalars[i], inputs[i].data.data(), spec.elementBytes);
      args[i] = &scalars[i];
      continue;
    }
    buffers[i] = std::make_unique<GuardedBuffer>(spec.numBytes());
    if (isInput)
      std::memcpy(buffers[i]->ptr, inputs[i].data.data(), spec.numBytes());
    else
      std::memset(buffers[i]->ptr, 0xff, spec.numBytes());
    descriptors[i] = descriptor(buffers[i]->ptr, spec.storageShape);
    descriptorPtrs[i] = descriptors[i].data();
    args[i] = &descriptorPtrs[i];
  }
  if (llvm::Error err = entry.program->invoke(args)) {
    llvm::errs() << "invoke failed: " << toString(std::move(err)) << "\n";
    abort();
  }
}

bool inContract(const GroupTable &t, const std::vector<int32_t> &v) {
  if (t.kind == GroupTable::MaskedM) {
    for (int32_t m : v)
      if (m < 0 || m > t.rows)
        return false;
    return true;
  }
  if (v.empty() || v.front() != 0 || v.back() != t.rows)
    return false;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[i - 1])
      return false;
  return true;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  context = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  entries = new std::vector<Entry>();
  bool runPrograms = std::getenv("NVFP4_FUZZ_NO_RUN") == nullptr;
  for (const char *text : programs) {
    Entry entry;
    entry.module = parseSourceString<ModuleOp>(text, ParserConfig(context));
    if (!entry.module)
      abort();
    entry.func = entry.module->lookupSymbol<func::FuncOp>("main");
    llvm::Expected<EntrySignature> sig = getEntrySignature(entry.func);
    if (!sig) {
      llvm::errs() << toString(sig.takeError()) << "\n";
      abort();
    }
    entry.signature = std::move(*sig);
    std::vector<GroupTable> tables = getGroupTables(entry.func);
    for (auto [i, spec] : llvm::enumerate(entry.signature.inputs)) {
      entry.validInputs.push_back(validArray(spec, tables, i));
      entry.names.push_back("input" + std::to_string(i) + ".npy");
    }
    if (llvm::Error err = checkInputs(entry.func, entry.signature,
                                      entry.validInputs, entry.names)) {
      llvm::errs() << "valid inputs rejected: " << toString(std::move(err))
                   << "\n";
      abort();
    }
    if (runPrograms) {
      auto program = Program::compile(*entry.module, "main", ProgramOptions());
      if (!program) {
        llvm::errs() << toString(program.takeError()) << "\n";
        abort();
      }
      entry.program = std::move(*program);
      run(entry, entry.validInputs);
    }
    entries->push_back(std::move(entry));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || size > (1 << 16))
    return 0;
  Entry &entry = (*entries)[data[0] % numPrograms];
  unsigned argument = data[1] % entry.signature.inputs.size();
  llvm::StringRef bytes(reinterpret_cast<const char *>(data + 2), size - 2);

  llvm::Expected<NpyArray> array = parseNpy(bytes, "fuzz.npy");
  if (!array) {
    llvm::consumeError(array.takeError());
    return 0;
  }
  // parseNpy's own contract: the data is a whole number of items of the
  // shape (none for an empty shape), and no more than the file holds.
  {
    unsigned __int128 elements = 1;
    for (int64_t d : array->shape)
      elements *= uint64_t(d);
    if (array->data.size() > bytes.size() ||
        (elements == 0 && !array->data.empty()) ||
        (elements != 0 && array->data.size() % elements != 0))
      abort();
  }
  std::vector<NpyArray> inputs = entry.validInputs;
  inputs[argument] = std::move(*array);
  const ValueSpec &spec = entry.signature.inputs[argument];

  llvm::Error err =
      checkInputs(entry.func, entry.signature, inputs, entry.names);
  bool accepted = !err;
  llvm::consumeError(std::move(err));

  // The shape and dtype decide whether the program can run at all.
  std::vector<int64_t> shape =
      spec.isScalar ? std::vector<int64_t>{} : spec.storageShape;
  bool fits =
      spec.accepts(inputs[argument].descr) && inputs[argument].shape == shape;
  int64_t bytesNeeded = spec.isScalar ? spec.elementBytes : spec.numBytes();
  if (accepted &&
      (!fits || int64_t(inputs[argument].data.size()) != bytesNeeded))
    abort(); // accepted an input of the wrong size
  if (!fits)
    return 0;

  // Accepted group tables must be in contract; rejected ones must not be.
  bool allInContract = true;
  for (const GroupTable &t : getGroupTables(entry.func)) {
    if (t.argument < 0)
      continue;
    const NpyArray &table = inputs[t.argument];
    std::vector<int32_t> values(table.data.size() / 4);
    std::memcpy(values.data(), table.data.data(), values.size() * 4);
    allInContract &= inContract(t, values);
  }
  if (accepted != allInContract)
    abort();

  // Run the kernel, in contract or not: it must stay in bounds.
  if (entry.program)
    run(entry, inputs);
  return 0;
}
