"""Compile the CuTe DSL kernels of blockscaled_gemm.py and import them.

    python generate.py OUTDIR [--only NAME,...]

Runs where `nvidia-cutlass-dsl` is installed (no GPU needed: the DSL
compiles for sm_100a on any machine). For each case of CASES it compiles
the kernel with the DSL's pipeline stopped at LLVM (`llvm-only=true`),
imports the module with nvfp4_testing.cutedsl.to_nvfp4_program and writes

* OUTDIR/NAME.dsl.mlir: the DSL's own output (for reading; not run),
* OUTDIR/NAME.mlir: the imported program (`@main`: A, B, SFA, SFB as byte
  tensors -> D f32), and
* OUTDIR/manifest.json: the cases (name, fmt, m, n, k, the kernel's options,
  the importer's arguments).

`python3 -m nvfp4_testing.cutedsl run OUTDIR` executes them on a GPU under
the tcgen05 emulation (docs/design/cutedsl.md).
"""

import argparse
import json
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "python"))

#: name -> (fmt, (m, n, k), BlockScaledGemm options). M and N are multiples
#: of the tile, K of 256 (one pipeline stage): the kernel stores D without
#: predicates.
CASES = {
    "nvfp4_1cta": ("nvfp4", (256, 256, 512), dict(tile_n=128)),
    "mxfp4_1cta": ("mxfp4", (256, 256, 512), dict(tile_n=128)),
    "nvfp4_1cta_n64": ("nvfp4", (128, 384, 768), dict(tile_n=64)),
    "nvfp4_1cta_n256": ("nvfp4", (256, 512, 1024), dict(tile_n=256, stages=2)),
    "nvfp4_persistent": ("nvfp4", (384, 512, 768), dict(tile_n=128, persistent=True,
                                                         max_ctas=4)),
    "mxfp4_persistent": ("mxfp4", (512, 256, 1024), dict(tile_n=128, persistent=True,
                                                         max_ctas=3)),
    # CTA pairs (cta_group::2, clusters of 2, multicast loads).
    "nvfp4_pair": ("nvfp4", (512, 256, 512), dict(tile_n=128, pair=True)),
    "mxfp4_pair_persistent": ("mxfp4", (768, 256, 512), dict(tile_n=256, pair=True,
                                                             persistent=True, max_ctas=4)),
}

def _capture(path):
    """Make the DSL's compiler write the module its pipeline produced to
    `path` and stop there (an LLVM-level module is not something the DSL
    can load and run). Returns a function that undoes it and says whether
    the module was written."""
    from cutlass.base_dsl import compiler

    original = compiler.Compiler.compile
    written = []

    def compile_and_capture(self, module, pipeline, *args, **kwargs):
        original(self, module, pipeline, *args, **kwargs)
        pathlib.Path(path).write_text(module.operation.get_asm())
        written.append(path)
        raise RuntimeError(f"captured {path}")

    compiler.Compiler.compile = compile_and_capture

    def restore():
        compiler.Compiler.compile = original
        return bool(written)

    return restore


def compile_case(name, outdir):
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_ptr

    from blockscaled_gemm import BlockScaledGemm
    from nvfp4_testing.cutedsl import to_nvfp4_program

    fmt, (m, n, k), options = CASES[name]
    sf_vec = 16 if fmt == "nvfp4" else 32
    sf_type = cutlass.Float8E4M3FN if fmt == "nvfp4" else cutlass.Float8E8M0FNU
    gemm = BlockScaledGemm(sf_vec, **options)
    gmem = cutlass.AddressSpace.gmem
    # Addresses only shape the compile (alignment): the kernel gets the real
    # ones at run time through the imported program's arguments.
    pointers = [
        make_ptr(cutlass.Float4E2M1FN, 1 << 20, gmem, 32),
        make_ptr(cutlass.Float4E2M1FN, 2 << 20, gmem, 32),
        make_ptr(sf_type, 3 << 20, gmem, 16),
        make_ptr(sf_type, 4 << 20, gmem, 16),
        make_ptr(cutlass.Float32, 5 << 20, gmem, 16),
    ]
    raw = outdir / f"{name}.dsl.mlir"
    restore = _capture(raw)
    try:
        cute.compile(gemm, *pointers, (m, n, k))
    except Exception:  # the DSL wraps what the capture raises
        if not restore():
            raise
    else:
        restore()
        raise RuntimeError(f"{name}: the DSL compiled nothing (a cached kernel?)")
    sf_bytes = lambda rows: -(-rows // 128) * 128 * -(-k // sf_vec // 4) * 4  # noqa: E731
    arguments = [
        (f"tensor<{m}x{k // 2}xi8>", False),
        (f"tensor<{n}x{k // 2}xi8>", False),
        (f"tensor<{sf_bytes(m)}xi8>", False),
        (f"tensor<{sf_bytes(n)}xi8>", False),
        (f"tensor<{m}x{n}xf32>", True),
    ]
    program = to_nvfp4_program(raw.read_text(), arguments)
    (outdir / f"{name}.mlir").write_text(program)
    return dict(name=name, fmt=fmt, m=m, n=n, k=k, options=options,
                arguments=arguments)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    # The DSL compiles for sm_100a whatever GPU (if any) this machine has,
    # and stops at LLVM; its on-disk cache would hand back a finished binary.
    os.environ["CUTE_DSL_ARCH"] = "sm_100a"
    os.environ["CUTE_DSL_COMPILER_OPT"] = "llvm-only=true"
    os.environ["CUTE_DSL_DISABLE_FILE_CACHING"] = "1"
    outdir = pathlib.Path(args.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    names = args.only.split(",") if args.only else list(CASES)
    manifest = [compile_case(name, outdir) for name in names]
    (outdir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest)} kernels imported into {outdir}")


if __name__ == "__main__":
    main()
