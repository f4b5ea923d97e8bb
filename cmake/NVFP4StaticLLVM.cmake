# Link LLVM statically into every tool.
#
# Debian's LLVM is configured with LLVM_LINK_LLVM_DYLIB=ON, so each imported
# MLIR library names the shared `LLVM` target (libLLVM.so.22.1) in its link
# interface. The GPU machine has no LLVM installed, so the tools must carry
# LLVM inside them. We rewrite the link interface of every imported MLIR
# target to use the static component archives (libLLVM*.a) instead: the same
# archives `llvm-config --link-static --libs <components>` names.

set(NVFP4_LLVM_COMPONENTS
  Core Support Demangle TargetParser BinaryFormat Analysis TransformUtils
  IRReader AsmParser BitReader BitWriter Linker Passes ipo Instrumentation
  MC MCParser Object Target CodeGen AsmPrinter FrontendOpenMP FrontendOffloading
  OrcJIT OrcShared OrcTargetProcess JITLink ExecutionEngine RuntimeDyld
  PerfJITEvents
  NVPTXCodeGen NVPTXDesc NVPTXInfo
  X86CodeGen X86AsmParser X86Desc X86Info)

# The static LLVMSupport names these imported targets in its link interface.
find_package(ZLIB REQUIRED)
find_package(zstd REQUIRED)

llvm_map_components_to_libnames(NVFP4_LLVM_STATIC_LIBS ${NVFP4_LLVM_COMPONENTS})
add_library(nvfp4_llvm_static INTERFACE)
target_link_libraries(nvfp4_llvm_static INTERFACE ${NVFP4_LLVM_STATIC_LIBS})

# Our own libraries and tools: static LLVM components, not libLLVM.so.
set(LLVM_LINK_LLVM_DYLIB OFF)

# MLIRExecutionEngine names the shared libMLIR.so (`MLIR`) as well: give it
# the static libraries its sources use instead.
add_library(nvfp4_mlir_static INTERFACE)
target_link_libraries(nvfp4_mlir_static INTERFACE
  MLIRExecutionEngineUtils MLIRTargetLLVMIRExport MLIRLLVMDialect MLIRIR
  MLIRSupport)

get_property(_nvfp4_imported DIRECTORY PROPERTY IMPORTED_TARGETS)
foreach(_t IN LISTS _nvfp4_imported)
  get_target_property(_type ${_t} TYPE)
  if(_type STREQUAL "INTERFACE_LIBRARY" OR _type STREQUAL "EXECUTABLE")
    continue()
  endif()
  get_target_property(_libs ${_t} INTERFACE_LINK_LIBRARIES)
  if(_libs)
    list(TRANSFORM _libs REPLACE "^LLVM$" "nvfp4_llvm_static")
    list(TRANSFORM _libs REPLACE "^MLIR$" "nvfp4_mlir_static")
    set_target_properties(${_t} PROPERTIES INTERFACE_LINK_LIBRARIES "${_libs}")
  endif()
endforeach()

# A static tool only needs the shared libraries some pulled-in object really
# uses (LLVMSupport names libz3 and libxml2, which the GPU machine lacks).
add_link_options("LINKER:--as-needed")
# The GPU machine's libstdc++ may differ from this one's. (Not for the
# fuzzers: AddressSanitizer must see libstdc++'s operator new, and a static
# libstdc++ hides it behind malloc.)
if(NOT NVFP4_ENABLE_FUZZERS)
  add_link_options("-static-libstdc++" "-static-libgcc")
endif()
