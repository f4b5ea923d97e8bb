"""Import a CuTe DSL kernel into an nvfp4 program that runs through our runtime.

NVIDIA's CuTe DSL (`nvidia-cutlass-dsl`) compiles Python-written Blackwell
kernels with its own MLIR. Stopped at LLVM (its `cute-to-nvvm` pipeline with
`llvm-only=true`), a compiled function is one module holding

* `gpu.module @kernels` with the kernel, an `llvm.func` of LLVM and NVVM
  ops (tcgen05, TMA, mbarriers), and
* the host function, pure LLVM: it encodes the TMA descriptors itself (the
  128-byte CUtensorMap words), fills a launch configuration (grid, block,
  dynamic shared memory, attributes such as the cluster shape) in memory and
  launches the kernel with the `cuda` dialect's `cuda.launch_ex`.

The DSL bundles a newer MLIR than the LLVM 22 this project builds on, and a
private `cuda` dialect. `to_nvfp4_program` turns such a module into MLIR 22
input that nvfp4-opt, nvfp4-runner and nvfp4.runtime take like any program:

* the syntax differences (RULES below, each one named) are translated;
* attributes only the DSL's own passes read (`cu_attrs`,
  `cutlass_launch_facts`, `smem.*`, `compute_targets`) are dropped, and the
  gpu.module's `#nvvm.target` too: the pipeline attaches the chip it
  compiles for (sm_90a under the tcgen05 emulation);
* `cuda.launch_ex` becomes `gpu.launch_func` with the same kernel operands,
  the grid, block and dynamic shared memory read back from the launch
  configuration the DSL's host code filled in, and the cluster shape from
  the kernel's launch facts; the stream and error handling are the runtime's;
* a `func.func @main` over tensors (the kernel's operands as byte tensors,
  its output as a result) passes their device addresses to the DSL's host
  function, so nothing of what it computes (the TMA descriptors, the launch
  configuration) is redone here.

Anything the importer does not know (a `cuda` op or attribute, an NVVM form
that MLIR 22 spells differently and no rule covers) is a `DSLImportError`
naming it, never a silently different program: after the rules, every
`cuda.` / `#cuda` left is an error, and nvfp4-opt's parse of the result is
the check of the rest (python/tests/test_cutedsl.py).

    python3 -m nvfp4_testing.cutedsl run DIR [--timeout S]   every kernel (GPU)
    python3 -m nvfp4_testing.cutedsl mutants DIR --opt OPT   the mutants (CPU)
    python3 -m nvfp4_testing.cutedsl mutations DIR           run them (GPU)
"""

from __future__ import annotations

import dataclasses
import re


class DSLImportError(Exception):
    """The module holds something the importer does not translate."""


@dataclasses.dataclass(frozen=True)
class Rule:
    """One syntax difference between the DSL's MLIR and MLIR 22."""

    name: str
    pattern: str
    replacement: str
    why: str


#: The translations, applied in order to the whole module's text.
RULES = (
    Rule(
        "block-scale-kind",
        r"#nvvm\.tcgen05_mma_kind<(mxf8f6f4|mxf4nvf4|mxf4)>",
        r"#nvvm.block_scale_kind<\1>",
        "the block-scaled MMA's kind: MLIR 22 has a separate "
        "#nvvm.block_scale_kind for tcgen05.mma.block_scale",
    ),
    Rule(
        "multicast-mask-type",
        r"(nvvm\.cp\.async\.bulk\.tensor\.shared\.cluster\.global [^\n]*multicast_mask = "
        r"[^\n]*: !llvm\.ptr<\d+>, !llvm\.ptr), i16\n",
        r"\1\n",
        "a multicast TMA load: the DSL's syntax lists the i16 mask's type after "
        "the pointers' types, MLIR 22's leaves it out",
    ),
)

#: Attributes only the DSL's own passes and runtime read: dropped.
_DROPPED_FUNCTION_ATTRIBUTES = (
    r"cu_attrs = \{[^{}]*\}",
    r"cutlass_launch_facts = \{[^{}]*\}",
    r"smem\.hint_smem_base_uniform",
    r"smem\.partition_num = \d+ : i32",
)


def _split_top_level(module: str):
    """(alias lines, the gpu.module's text, the host functions' text)."""
    aliases = [l for l in module.splitlines() if l.startswith("#")]
    start = module.find("\n  gpu.module @kernels")
    if start < 0:
        raise DSLImportError("no `gpu.module @kernels` in the module: is it the DSL's "
                             "output with llvm-only=true?")
    end = module.find("\n  }\n", start + 1)
    if end < 0:
        raise DSLImportError("the gpu.module has no end")
    body_start = module.find("\n", module.find("\nmodule") + 1)
    host = module[body_start + 1:start] + "\n" + module[end + 5:module.rstrip().rfind("}")]
    return aliases, module[start + 1:end + 4], host


def _drop(text: str, attribute: str) -> str:
    """`attribute` removed from every attribute dictionary of `text`."""
    text = re.sub(attribute + ", ", "", text)
    return re.sub(", " + attribute, "", text)


@dataclasses.dataclass(frozen=True)
class Kernel:
    """What the DSL recorded about the kernel's launch."""

    name: str
    cluster: tuple
    arguments: int


def _kernel(device: str) -> Kernel:
    kernels = re.findall(r"llvm\.func @(\w+)\((.*?)\) attributes \{(.*)\} \{\n", device)
    kernels = [k for k in kernels if "gpu.kernel" in k[2]]
    if len(kernels) != 1:
        raise DSLImportError(f"expected one kernel in the gpu.module, found {len(kernels)}")
    name, params, attributes = kernels[0]
    facts = re.search(r"cutlass_launch_facts = \{([^{}]*)\}", attributes)
    if not facts:
        raise DSLImportError(f"kernel {name} has no cutlass_launch_facts")
    facts = facts.group(1)
    if "cooperative_launch = true" in facts:
        raise DSLImportError(f"kernel {name}: cooperative launches are not imported")
    cluster = re.search(r"exact_cluster_dim = array<i64: (\d+), (\d+), (\d+)>", facts)
    cluster = tuple(int(c) for c in cluster.groups()) if cluster else (1, 1, 1)
    return Kernel(name, cluster, len(re.findall(r"%arg\d+:", params)))


def _halve_inner_coordinates(device: str, parameters) -> str:
    """TMA loads through the kernel parameters `parameters` (4-bit tensor
    maps, which the runtime makes byte maps) get their innermost coordinate
    halved: a dense 4-bit map's element c is byte c / 2 (c is even: the
    kernel steps in whole boxes)."""
    out, count = [], 0
    for line in device.split("\n"):
        load = re.match(r"(\s*)nvvm\.cp\.async\.bulk\.tensor\.shared\.cluster\.global "
                        r"(%\d+), (%\d+), (%\d+), box\[(%\d+)(.*)$", line)
        if load:
            indent, _, map_, _, first, _ = load.groups()
            source = re.search(rf"\n\s*{map_} = llvm\.getelementptr %arg(\d+)\[0, 0\]", device)
            if source and int(source.group(1)) in parameters:
                count += 1
                one, half = f"%nvfp4_one{count}", f"%nvfp4_half{count}"
                out.append(f"{indent}{one} = llvm.mlir.constant(1 : i32) : i32")
                out.append(f"{indent}{half} = llvm.lshr {first}, {one} : i32")
                line = line.replace(f"box[{first}", f"box[{half}", 1)
        out.append(line)
    return "\n".join(out)


def translate_device(device: str, four_bit_parameters=()) -> str:
    """The gpu.module in MLIR 22's syntax, without the DSL's private
    attributes and target (the pipeline attaches its own); TMA loads through
    the 4-bit tensor maps among the kernel's parameters address bytes."""
    device = re.sub(r"gpu\.module @kernels \[#nvvm\.target<[^>]*>\]", "gpu.module @kernels",
                    device, count=1)
    device = re.sub(r" attributes \{compute_targets = \[(#cuda\.compute_target<[^>]*>(, )?)*\]\}",
                    "", device, count=1)
    for attribute in _DROPPED_FUNCTION_ATTRIBUTES:
        device = _drop(device, attribute)
    for rule in RULES:
        device = re.sub(rule.pattern, rule.replacement, device)
    return _halve_inner_coordinates(device, set(four_bit_parameters))


# The launch configuration the DSL's host code fills in: grid, block, dynamic
# shared memory bytes, stream, attributes, attribute count.
_CONFIG = "!llvm.struct<(array<3 x i32>, array<3 x i32>, i64, ptr, ptr, i32)>"


# A CUtensorMap as the DSL passes it to a kernel (by value, 128 bytes).
_TENSOR_MAP = "!llvm.struct<(struct<(array<16 x i64>)>)>"
_RETARGET = "nvfp4TensorMapFromSM100"


#: The DSL's element code (word 1, bits 7-10) of a dense 4-bit tensor map
#: (CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B: FP4 operands), which Hopper's TMA
#: does not have: the runtime makes it a byte map (lib/Runner/CudaRuntime.cpp).
_FOUR_BIT_CODE = 11


def _element_code(host: str, words: str, operand: str) -> int:
    """The element code the DSL's host code stores in word 1 of the tensor
    map at `words` (a constant: the maps of a compiled kernel are static but
    for their address)."""
    word1 = re.findall(rf"    (%\d+) = llvm\.getelementptr {words}\[0, 1\] ", host)
    stores = [v for w in word1 for v in re.findall(rf"llvm\.store (%\d+), {w} : i64", host)]
    constants = dict(re.findall(r"    (%\d+) = llvm\.mlir\.constant\((-?\d+) : i64\) : i64", host))
    if not stores or stores[-1] not in constants:
        raise DSLImportError(f"word 1 of the tensor map {operand} is not a constant the importer "
                             "can read")
    return (int(constants[stores[-1]]) >> 7) & 0xF


def _retarget_tensor_map(host: str, operand: str):
    """Inserts the runtime's nvfp4TensorMapFromSM100 on the tensor map the
    launch passes as `operand`, where the DSL's host code reads it from the
    words it wrote: the DSL encodes maps itself, in the sm_100 format, which
    Hopper's TMA does not take (lib/Runner/CudaRuntime.cpp). Returns the
    host and whether the map is a 4-bit one (its TMA coordinates along the
    inner dimension then count bytes, half as many)."""
    wrap = re.search(rf"    {operand} = llvm\.insertvalue (%\d+), %\d+\[0\] : {re.escape(_TENSOR_MAP)}",
                     host)
    load = wrap and re.search(
        rf"    {wrap.group(1)} = llvm\.load (%\d+) \{{nontemporal\}} : !llvm\.ptr -> "
        r"!llvm\.struct<\(array<16 x i64>\)>\n", host)
    if not load:
        raise DSLImportError(f"where the tensor map {operand} is built is not the form the importer "
                             "knows (words stored to memory, loaded, wrapped in a struct)")
    words = re.search(rf"    {load.group(1)} = llvm\.inttoptr (%\d+) : i64 to !llvm\.ptr\n", host)
    words = words and re.search(rf"    {words.group(1)} = llvm\.ptrtoint (%\d+) : !llvm\.ptr to i64\n",
                                host)
    if not words:
        raise DSLImportError(f"the words of the tensor map {operand} are not where the importer "
                             "looks for them")
    four_bit = _element_code(host, words.group(1), operand) == _FOUR_BIT_CODE
    call = f"    llvm.call @{_RETARGET}({load.group(1)}) : (!llvm.ptr) -> ()\n"
    return host[:load.start()] + call + host[load.start():], four_bit


def translate_host(host: str, kernel: Kernel) -> tuple:
    """The host functions with `cuda.launch_ex` replaced by gpu.launch_func
    and the tensor maps made the GPU's: (text, the name of the function the
    DSL's `cute.compile` compiled, its number of pointer arguments, the
    kernel parameters that are 4-bit tensor maps)."""
    casts = re.findall(r"(%\d+) = builtin\.unrealized_conversion_cast (%\d+) : !llvm\.ptr to "
                       r"!cuda\.launch_cfg<[^>]*>\n", host)
    launches = list(re.finditer(
        r"    (%\d+) = cuda\.launch_ex @kernels::@(\w+)<(%\d+)> \(([^)]*)\) \{[^}]*\} : "
        r"!cuda\.launch_cfg<[^>]*>, \((.*)\) -> !cuda\.result\n"
        r"    (%\d+) = builtin\.unrealized_conversion_cast \1 : !cuda\.result to i32\n"
        r"    cuda\.return_if_error \6 : i32\n", host))
    if len(launches) != 1 or len(casts) != 1:
        raise DSLImportError(f"expected one cuda.launch_ex of one launch configuration, found "
                             f"{len(launches)} launches and {len(casts)} configurations")
    launch = launches[0]
    config, holder = casts[0]
    if launch.group(2) != kernel.name or launch.group(3) != config:
        raise DSLImportError("the launch does not launch the kernel with its configuration")
    operands = [o.strip() for o in launch.group(4).split(",")]
    types = re.findall(r"!llvm\.(?:struct<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>|ptr(?:<\d+>)?)|"
                       r"\bi\d+\b|\bf\d+\b", launch.group(5))
    if len(operands) != kernel.arguments or len(types) != len(operands):
        raise DSLImportError(f"the launch passes {len(operands)} operands ({len(types)} types) to "
                             f"a kernel of {kernel.arguments} parameters")
    if _CONFIG not in host:
        raise DSLImportError("the launch configuration is not the layout this importer reads "
                             f"({_CONFIG})")
    lines = [f"    %cfg = llvm.load {holder} : !llvm.ptr -> !llvm.ptr"]
    dims = []
    for field, what in ((0, "grid"), (1, "block")):
        for axis in range(3):
            v = f"%{what}{axis}"
            lines += [
                f"    {v}p = llvm.getelementptr %cfg[0, {field}, {axis}] : (!llvm.ptr) -> "
                f"!llvm.ptr, {_CONFIG}",
                f"    {v}i = llvm.load {v}p : !llvm.ptr -> i32",
                f"    {v} = arith.index_cast {v}i : i32 to index",
            ]
            dims.append(v)
    lines += [
        f"    %smemp = llvm.getelementptr %cfg[0, 2] : (!llvm.ptr) -> !llvm.ptr, {_CONFIG}",
        "    %smem64 = llvm.load %smemp : !llvm.ptr -> i64",
        "    %smem = llvm.trunc %smem64 : i64 to i32",
    ]
    clusters = ""
    if kernel.cluster != (1, 1, 1):
        for axis, c in enumerate(kernel.cluster):
            lines.append(f"    %cluster{axis} = arith.constant {c} : index")
        clusters = "clusters in (%cluster0, %cluster1, %cluster2) "
    args = ", ".join(f"{o} : {t}" for o, t in zip(operands, types))
    lines.append(
        f"    gpu.launch_func @kernels::@{kernel.name} {clusters}"
        f"blocks in ({', '.join(dims[:3])}) threads in ({', '.join(dims[3:])}) "
        f"dynamic_shared_memory_size %smem args({args})")
    host = host[:launch.start()] + "\n".join(lines) + "\n" + host[launch.end():]
    four_bit = []
    for index, (operand, type_) in enumerate(zip(operands, types)):
        if type_ == _TENSOR_MAP:
            host, narrow = _retarget_tensor_map(host, operand)
            if narrow:
                four_bit.append(index)
    host = host.replace(f"    {config} = builtin.unrealized_conversion_cast {holder} : "
                        f"!llvm.ptr to {re.search(r'!cuda.launch_cfg<[^>]*>', host).group(0)}\n",
                        "")
    entry = re.search(r"llvm\.func @(\w+)\(([^)]*)\) -> i32 attributes \{llvm\.emit_c_interface\}",
                      host)
    if not entry:
        raise DSLImportError("no host function (llvm.func ... -> i32 {llvm.emit_c_interface})")
    return (host, entry.group(1), len(re.findall(r"%arg\d+: !llvm\.ptr<1>", entry.group(2))),
            four_bit)


def _check_translated(text: str):
    left = sorted(set(re.findall(r"(?:#|!|\b)cuda\.\w+", text)))
    if left:
        raise DSLImportError("the importer does not translate " + ", ".join(left))


def to_nvfp4_program(module: str, arguments, entry: str = "main") -> str:
    """A program whose `entry` takes the DSL host function's pointer
    arguments as tensors and returns the ones marked as outputs.

    arguments: one (type, is_output) per pointer argument of the DSL's host
    function, in order, each type a static MLIR tensor type such as
    "tensor<256x128xi8>" (the bytes the kernel reads or writes there)."""
    aliases, device, host = _split_top_level(module)
    kernel = _kernel(device)
    host, function, pointers, four_bit = translate_host(host, kernel)
    device = translate_device(device, four_bit)
    if pointers != len(arguments):
        raise DSLImportError(f"the host function takes {pointers} pointers, "
                             f"{len(arguments)} arguments given")
    ins = [(i, t) for i, (t, out) in enumerate(arguments) if not out]
    outs = [(i, t) for i, (t, out) in enumerate(arguments) if out]
    body, pointer_of = [], {}
    for i, t in ins + outs:
        memref = "memref" + t[len("tensor"):]
        if (i, t) in ins:
            body.append(f"    %b{i} = bufferization.to_buffer %a{i} read_only : {t} to {memref}")
        else:
            body.append(f"    %b{i} = memref.alloc() {{alignment = 128 : i64}} : {memref}")
        body += [
            f"    %x{i} = memref.extract_aligned_pointer_as_index %b{i} : {memref} -> index",
            f"    %y{i} = arith.index_cast %x{i} : index to i64",
            f"    %p{i} = llvm.inttoptr %y{i} : i64 to !llvm.ptr<1>",
        ]
        pointer_of[i] = f"%p{i}"
    ptrs = ", ".join(pointer_of[i] for i in range(len(arguments)))
    body.append(f"    %status = llvm.call @{function}({ptrs}) : "
                f"({', '.join(['!llvm.ptr<1>'] * len(arguments))}) -> i32")
    results = []
    for i, t in outs:
        memref = "memref" + t[len("tensor"):]
        body.append(f"    %t{i} = bufferization.to_tensor %b{i} restrict : {memref} to {t}")
        results.append(f"%t{i}")
    signature = ", ".join(f"%a{i}: {t}" for i, t in ins)
    main = (f"  func.func @{entry}({signature}) -> ({', '.join(t for _, t in outs)}) {{\n"
            + "\n".join(body)
            + f"\n    return {', '.join(results)} : {', '.join(t for _, t in outs)}\n  }}\n")
    if _RETARGET in host:
        host = f"  llvm.func @{_RETARGET}(!llvm.ptr)\n" + host
    text = ("\n".join(aliases) + "\nmodule attributes {gpu.container_module} {\n" + main
            + host + "\n" + device + "\n}\n")
    _check_translated(text)
    return text


def run_case(directory, name: str, seed: int = 7, program_path=None) -> int:
    """One imported kernel of `directory` (test/CuTeDSL/generate.py's output)
    on this GPU under the tcgen05 emulation, on fresh random operands (zero
    blocks, subnormal and outlier scales; D poisoned first), against the
    fp64 reference within the spec's bound, and launched again for the same
    bits; then our own sm_100a matmul,
    emulated, on the same operands, against the reference and against the
    CuTe DSL kernel's numbers. With `program_path` (a mutant of the kernel,
    `mutants`) that program instead, against the reference only. Returns
    the failures."""
    import json
    import os
    import pathlib

    import numpy as np

    from nvfp4 import compiler, runtime
    from nvfp4_testing.emulation import _check
    from nvfp4_testing.selfcheck import random_operand

    directory = pathlib.Path(directory)
    manifest = json.loads((directory / "manifest.json").read_text())
    index = [c["name"] for c in manifest].index(name)
    case = manifest[index]
    fmt, m, n, k = (case[key] for key in ("fmt", "m", "n", "k"))
    os.environ["NVFP4_EMULATE_TCGEN05"] = "1"
    rng = np.random.default_rng(seed + index)
    a_q, a_s = random_operand(m, k, fmt, rng)
    b_q, b_s = random_operand(n, k, fmt, rng)
    path = pathlib.Path(program_path) if program_path else directory / f"{name}.mlir"
    program = runtime.compile_program(path.read_text(), "gpu", emulate_tcgen05=True)
    (dsl,) = runtime.launch(program, [a_q, b_q, a_s.reshape(-1), b_s.reshape(-1)],
                            poison=0xFF)
    failures = _check(f"CuTe DSL {path.stem} {case['options']}", dsl, a_q, a_s, b_q, b_s,
                      fmt=fmt)
    if program_path:
        return failures
    # A second launch of the same compiled kernel: the same bits (the
    # emulation's per-CTA state is reset at each kernel's exit).
    (again,) = runtime.launch(program, [a_q, b_q, a_s.reshape(-1), b_s.reshape(-1)],
                              poison=0xFF)
    repeat = np.array_equal(again.view(np.uint32), dsl.view(np.uint32))
    failures += not repeat
    print(f"{'PASS' if repeat else 'FAIL'} cutedsl {name}: a second launch gives "
          f"{'the same bits' if repeat else 'other bits'}", flush=True)
    ours = compiler.matmul(a_q, a_s, b_q, b_s, fmt=fmt, out_dtype="f32", target="gpu")
    failures += _check(f"ours (sm_100a, emulated) on {name}'s operands", ours, a_q, a_s,
                       b_q, b_s, fmt=fmt)
    same = np.array_equal(dsl.view(np.uint32), ours.view(np.uint32))
    diff = float(np.max(np.abs(dsl.astype(np.float64) - ours)))
    print(f"{'SAME' if same else 'DIFF'} {name}: CuTe DSL and ours "
          f"{'bit for bit' if same else f'differ by at most {diff:.6g}'}", flush=True)
    return failures


def _case_process(directory, name, timeout, program_path=None):
    """run_case in a process of its own (a kernel that traps ends its CUDA
    context; the emulation's message, printed by the device, comes out with
    the process): (exit status or None after `timeout` seconds, the output
    without the optimizer's unrolling remarks)."""
    import subprocess
    import sys
    cmd = [sys.executable, "-m", "nvfp4_testing.cutedsl", "case", str(directory), name]
    if program_path:
        cmd += ["--program", str(program_path)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ""
    out = "\n".join(l for l in (proc.stdout + proc.stderr).splitlines()
                    if "loop not unrolled" not in l)
    return proc.returncode, out


def mutants(directory, opt: str) -> int:
    """The mutation test's programs, made on the CPU: each CTA-pair kernel
    of `directory` with one field of its tcgen05 ops corrupted by
    nvfp4-test-mutate-tcgen05 (`opt`: an nvfp4-opt, which registers the test
    pass), for every field of nvfp4_testing.emulation's MUTATIONS and
    PAIR_MUTATIONS, into DIRECTORY/mutants with mutants.json (the nvfp4-opt
    used; per mutant the kernel, the field, whether the run must fail).
    Returns the fields that did not apply."""
    import json
    import pathlib
    import shutil
    import subprocess

    from nvfp4_testing.emulation import MUTATIONS, PAIR_MUTATIONS

    directory = pathlib.Path(directory)
    manifest = json.loads((directory / "manifest.json").read_text())
    out = directory / "mutants"
    out.mkdir(exist_ok=True)
    made, missing = [], 0
    for case in manifest:
        if not case["options"].get("pair"):
            continue
        for field, must_fail in {**MUTATIONS, **PAIR_MUTATIONS}.items():
            path = out / f"{case['name']}.{field}.mlir"
            proc = subprocess.run([opt, str(directory / f"{case['name']}.mlir"),
                                   f"--nvfp4-test-mutate-tcgen05=field={field}", "-o",
                                   str(path)], capture_output=True, text=True)
            if proc.returncode != 0:
                missing += 1
                print(f"FAIL mutant {case['name']} {field}: {proc.stderr.strip()}")
                continue
            made.append(dict(kernel=case["name"], field=field, must_fail=must_fail,
                             program=path.name))
    opt_path = pathlib.Path(shutil.which(opt) or opt).resolve()
    (out / "mutants.json").write_text(json.dumps(dict(opt=str(opt_path), mutants=made),
                                                 indent=1))
    print(f"{len(made)} mutants in {out}")
    return missing


def mutations(directory, timeout: float = 30) -> int:
    """The mutation test of the cluster emulation (GPU): the unmutated pair
    kernels must pass; each mutant of `mutants` whose field the hardware
    reads must fail its run (a trap of the emulation naming the rule, wrong
    numbers, or a hang: a barrier the corrupted commit or load never
    completes, stopped after `timeout` seconds); one whose field the
    hardware does not read (LBO of a swizzled K-major operand) must pass.
    Returns the failures."""
    import json
    import pathlib

    from nvfp4_testing.emulation import judge_mutation, trap_message

    directory = pathlib.Path(directory)
    made = json.loads((directory / "mutants" / "mutants.json").read_text())["mutants"]
    failures = 0
    for kernel in sorted({m["kernel"] for m in made}):
        status, out = _case_process(directory, kernel, timeout)
        ok = status == 0
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'} mutation none ({kernel}): "
              f"{'passed' if ok else 'failed'}", flush=True)
    for m in made:
        status, out = _case_process(directory, m["kernel"], timeout,
                                    directory / "mutants" / m["program"])
        trap = trap_message(out)
        wrong = [l for l in out.splitlines() if l.startswith("FAIL emulation")]
        if status is None:
            outcome, detail = "hang", f"no result in {timeout:.0f} s"
        elif trap:
            outcome, detail = "trap", trap
        elif wrong:
            outcome, detail = "wrong numbers", wrong[0].split(" -> ", 1)[-1]
        elif status == 0:
            outcome, detail = "passed", ""
        else:
            outcome, detail = "error", (out.strip().splitlines() or [f"exit {status}"])[-1]
        failures += judge_mutation(m["field"], m["kernel"], outcome, detail, m["must_fail"])
    print(f"SUMMARY cutedsl mutations: {len(made)} mutants, {failures} failures", flush=True)
    return failures


def run(directory, timeout: float = 120) -> int:
    """Every kernel of `directory`, each in a process of its own (a kernel
    that traps ends its CUDA context; the emulation's message, printed by
    the device, comes out with the process; one that hangs, a kernel
    waiting on a barrier that never completes, is stopped after `timeout`
    seconds). Returns the failures."""
    import json
    import pathlib

    from nvfp4_testing.emulation import trap_message

    manifest = json.loads((pathlib.Path(directory) / "manifest.json").read_text())
    failures = 0
    for case in manifest:
        status, out = _case_process(directory, case["name"], timeout)
        if status is None:
            failures += 1
            print(f"FAIL cutedsl {case['name']}: no result in {timeout:.0f} s (a hang)",
                  flush=True)
            continue
        print(out, flush=True)
        if status != 0:
            failures += 1
            trap = trap_message(out)
            print(f"FAIL cutedsl {case['name']}: exit {status}"
                  f"{': ' + trap if trap else ''}", flush=True)
    print(f"SUMMARY cutedsl: {len(manifest)} kernels, {failures} failures", flush=True)
    return failures


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["run", "case", "mutants", "mutations"])
    parser.add_argument("directory")
    parser.add_argument("name", nargs="?")
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds a kernel may take before it counts as hung")
    parser.add_argument("--program", help="case: run this program (a mutant) instead")
    parser.add_argument("--opt", default="nvfp4-opt", help="mutants: the nvfp4-opt to use")
    args = parser.parse_args(argv)
    if args.command == "case":
        return 1 if run_case(args.directory, args.name, program_path=args.program) else 0
    if args.command == "mutants":
        return 1 if mutants(args.directory, args.opt) else 0
    if args.command == "mutations":
        return 1 if mutations(args.directory, args.timeout) else 0
    return 1 if run(args.directory, args.timeout) else 0


if __name__ == "__main__":
    raise SystemExit(main())
