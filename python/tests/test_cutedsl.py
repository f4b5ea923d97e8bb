"""nvfp4_testing.cutedsl: the CuTe DSL importer on the DSL's real output.

The kernels of test/CuTeDSL, compiled by NVIDIA's CuTe DSL (scripts/cutedsl.sh,
which scripts/test.sh runs and points $NVFP4_CUTEDSL_KERNELS at): each
imports into a program whose every construct MLIR 22 knows, and what the
importer does not know is an error naming it, never a different program.
Their execution on a GPU: test/Integration/GPU/cutedsl.test.
"""
import json
import os
import pathlib
import re
import subprocess

import pytest

from nvfp4_testing import cutedsl

KERNELS = os.environ.get("NVFP4_CUTEDSL_KERNELS", "")
pytestmark = pytest.mark.skipif(
    not KERNELS or not (pathlib.Path(KERNELS) / "manifest.json").exists(),
    reason="no CuTe DSL kernels (scripts/cutedsl.sh; $NVFP4_CUTEDSL_KERNELS)")


def _cases():
    return json.loads((pathlib.Path(KERNELS) / "manifest.json").read_text())


def _dsl(name):
    return (pathlib.Path(KERNELS) / f"{name}.dsl.mlir").read_text()


def _arguments(case):
    """What generate.py gave the importer: [(tensor type, is output), ...]."""
    return [(t, out) for t, out in case["arguments"]]


def test_import_is_what_generate_wrote():
    # The importer is deterministic: importing the DSL's output again gives
    # the program the generator wrote, byte for byte.
    for case in _cases():
        again = cutedsl.to_nvfp4_program(_dsl(case["name"]), _arguments(case))
        assert again == (pathlib.Path(KERNELS) / f"{case['name']}.mlir").read_text()


def test_every_difference_is_translated():
    for case in _cases():
        text = (pathlib.Path(KERNELS) / f"{case['name']}.mlir").read_text()
        assert not re.search(r"(#|!|\b)cuda\.", text)
        assert "tcgen05_mma_kind" not in text
        assert "cutlass_launch_facts" not in text and "cu_attrs" not in text
        assert text.count("gpu.launch_func") == 1
        # One runtime call per tensor map, the maps being 4 (A, B, SFA, SFB).
        assert text.count("llvm.call @nvfp4TensorMapFromSM100") == 4
        # A's and B's maps are 4-bit: two loads with a halved coordinate.
        assert len(re.findall(r"box\[%nvfp4_half\d+,", text)) == 2


def test_rules_are_named_and_used():
    # Every rule is named, explained, and needed by some kernel's output.
    names = [r.name for r in cutedsl.RULES]
    assert len(set(names)) == len(names) and all(r.why for r in cutedsl.RULES)
    texts = [_dsl(c["name"]) for c in _cases()]
    for rule in cutedsl.RULES:
        assert any(re.search(rule.pattern, t) for t in texts), rule.name


def _mutated(old, new):
    case = _cases()[0]
    text = _dsl(case["name"])
    assert old in text, old
    return text.replace(old, new, 1), _arguments(case)


def test_unknown_cuda_construct_is_named():
    text, args = _mutated("cuda.return_if_error", "cuda.return_if_error_v2")
    with pytest.raises(cutedsl.DSLImportError, match="one cuda.launch_ex"):
        cutedsl.to_nvfp4_program(text, args)
    # A cuda attribute the importer does not drop anywhere in the module.
    text, args = _mutated("gpu.kernel,", "gpu.kernel, cuda.mystery = #cuda.mystery<1>,")
    with pytest.raises(cutedsl.DSLImportError, match=r"#cuda\.mystery"):
        cutedsl.to_nvfp4_program(text, args)


def test_not_the_dsl_output():
    with pytest.raises(cutedsl.DSLImportError, match="no `gpu.module @kernels`"):
        cutedsl.to_nvfp4_program("module {\n}\n", [])


def test_argument_count_is_checked():
    case = _cases()[0]
    with pytest.raises(cutedsl.DSLImportError, match="takes 5 pointers, 4 arguments given"):
        cutedsl.to_nvfp4_program(_dsl(case["name"]), _arguments(case)[:4])


def test_cooperative_launch_is_refused():
    text, args = _mutated("cooperative_launch = false", "cooperative_launch = true")
    with pytest.raises(cutedsl.DSLImportError, match="cooperative launches are not imported"):
        cutedsl.to_nvfp4_program(text, args)


def test_tensor_map_word_that_is_not_constant():
    # The element code of a map must be readable: a word 1 computed at run
    # time is refused, not guessed.
    case = _cases()[0]
    text = _dsl(case["name"])
    host = text[text.index("\n  }\n", text.index("gpu.module")):]
    store = re.search(r"llvm\.store (%\d+), (%\d+) : i64, !llvm\.ptr\n", host[host.index("udiv"):])
    # The first store after the address computation writes word 0; the next
    # one, word 1 (the constant): make it the address too.
    stores = re.findall(r"llvm\.store (%\d+), (%\d+) : i64, !llvm\.ptr\n", host)
    word0 = [s for s in stores if s[0] == store.group(1)][0]
    index = stores.index(word0)
    word1_value, word1_slot = stores[index + 1]
    mutated = host.replace(f"llvm.store {word1_value}, {word1_slot} : i64",
                           f"llvm.store {word0[0]}, {word1_slot} : i64", 1)
    with pytest.raises(cutedsl.DSLImportError, match="word 1 of the tensor map .* not a constant"):
        cutedsl.to_nvfp4_program(text.replace(host, mutated), _arguments(case))


def test_mutants_cover_every_field_of_every_pair_kernel():
    # The cluster mutation test's programs (scripts/cutedsl.sh made them with
    # nvfp4-opt's nvfp4-test-mutate-tcgen05): every field of both mutation
    # lists for each CTA-pair kernel, each program different from the
    # kernel it mutates; LBO the one that must pass.
    from nvfp4_testing.emulation import MUTATIONS, PAIR_MUTATIONS
    recorded = json.loads((pathlib.Path(KERNELS) / "mutants" / "mutants.json").read_text())
    made = recorded["mutants"]
    pairs = [c["name"] for c in _cases() if c["options"].get("pair")]
    assert len(pairs) == 2
    fields = {**MUTATIONS, **PAIR_MUTATIONS}
    assert sorted((m["kernel"], m["field"]) for m in made) == \
        sorted((k, f) for k in pairs for f in fields)
    # Each kernel as the nvfp4-opt that made the mutants prints it unmutated.
    printed = {k: subprocess.run([recorded["opt"], str(pathlib.Path(KERNELS) / f"{k}.mlir")],
                                 capture_output=True, text=True, check=True).stdout
               for k in pairs}
    for m in made:
        assert m["must_fail"] == fields[m["field"]]
        mutant = (pathlib.Path(KERNELS) / "mutants" / m["program"]).read_text()
        assert mutant != printed[m["kernel"]], m
