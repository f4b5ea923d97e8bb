"""nvfp4.swiglu through the Python API: bad input is refused with a clear
message before anything compiles, and the CPU result equals the reference
(docs/spec.md 2.10) bit for bit, NaN, inf and clamped values included."""
import numpy as np
import pytest

from nvfp4 import compiler, reference as ref


def test_swiglu_rejects_bad_input():
    x = np.ones((4, 7), np.float32)
    with pytest.raises(ValueError, match="even last dimension"):
        compiler.swiglu(x, target="cpu")
    with pytest.raises(ValueError, match="positive limit"):
        compiler.swiglu(np.ones((4, 8), np.float32), limit=0.0, target="cpu")
    with pytest.raises(ValueError, match="finite parameters"):
        compiler.swiglu(np.ones((4, 8), np.float32), sigmoid_scale=np.inf, target="cpu")
    with pytest.raises(ValueError, match="out_dtype"):
        compiler.swiglu(np.ones((4, 8), np.float32), out_dtype="f64", target="cpu")
    with pytest.raises(TypeError, match="float32, float16 or bf16"):
        compiler.swiglu(np.ones((4, 8), np.int32), target="cpu")


@pytest.mark.parametrize("kw", [{}, {"limit": 7.0},
                                {"sigmoid_scale": 1.702, "limit": 7.0, "up_offset": 1.0}])
def test_swiglu_cpu_matches_reference(kw):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((9, 40)) * 20).astype(np.float32)
    x[0, :6] = [np.nan, 1.0, np.inf, -2.0, -np.inf, 3.0]
    got = compiler.swiglu(x, target="cpu", **kw)
    want = ref.swiglu(x, **kw)
    assert got.shape == (9, 20)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.nan_to_num(got).view(np.uint32), np.nan_to_num(want).view(np.uint32))


def test_swiglu_takes_torch_tensors():
    torch = pytest.importorskip("torch")
    x = torch.randn(5, 16, dtype=torch.bfloat16) * 8
    y = compiler.swiglu(x, limit=7.0, target="cpu")
    assert isinstance(y, torch.Tensor) and y.dtype == torch.bfloat16 and y.shape == (5, 8)
    want = ref.swiglu(x.view(torch.int16).numpy().view(np.uint16), limit=7.0)
    assert np.array_equal(y.float().numpy(), want)
