"""Loss kinds: values against their formulas written out, gradients against central finite
differences in float64, dtypes, and the type rules with their messages."""
import numpy as np
import pytest

from nodeeditor.graph.losses import LossError, LossKind, loss_type, loss_value, loss_vjp
from ops import TensorType

RNG = np.random.default_rng(11)


def finite_difference(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (f(up) - f(down)) / (2 * eps)
    return grad


CASES = {
    LossKind.SUM: (lambda p, t: p.sum(), None),
    LossKind.MEAN: (lambda p, t: p.mean(), None),
    LossKind.MEAN_SQUARED_ERROR: (lambda p, t: ((p - t) ** 2).mean(), lambda: RNG.normal(size=(3, 4))),
    LossKind.SOFTMAX_CROSS_ENTROPY: (
        lambda p, t: np.mean([-np.log(np.exp(p[i, t[i]]) / np.exp(p[i]).sum()) for i in range(len(t))]),
        lambda: np.array([2, 0, 3], np.int64)),
}


@pytest.mark.parametrize("kind", list(LossKind))
def test_value_is_the_formula_and_the_gradient_is_the_finite_difference(kind):
    formula, make_target = CASES[kind]
    p = RNG.normal(size=(3, 4))
    t = None if make_target is None else make_target()
    value = loss_value(kind, p, t)
    assert value.shape == () and value.dtype == np.float64
    np.testing.assert_allclose(value, formula(p, t), rtol=1e-12)
    d_pred, d_target = loss_vjp(kind, p, t, 1.0)
    np.testing.assert_allclose(d_pred, finite_difference(lambda x: formula(x, t), p), rtol=1e-6, atol=1e-9)
    if kind is LossKind.MEAN_SQUARED_ERROR:
        np.testing.assert_allclose(d_target, finite_difference(lambda x: formula(p, x), t), rtol=1e-6, atol=1e-9)
    else:
        assert d_target is None
    scaled, _ = loss_vjp(kind, p, t, 2.5)   # the incoming gradient multiplies
    np.testing.assert_allclose(scaled, 2.5 * d_pred, rtol=1e-12)


def test_cross_entropy_takes_any_leading_shape_and_int32_ids():
    p = RNG.normal(size=(2, 3, 5))
    t = np.array([[0, 4, 2], [1, 1, 3]], np.int32)
    expected = -np.mean([p[i, j, t[i, j]] - np.log(np.exp(p[i, j]).sum()) for i in range(2) for j in range(3)])
    np.testing.assert_allclose(loss_value(LossKind.SOFTMAX_CROSS_ENTROPY, p, t), expected, rtol=1e-12)


def test_float32_in_float32_out_computed_in_float64():
    p = np.array([1e8, 1.0, -1e8], np.float32)   # float32 sums would lose the 1
    assert loss_value(LossKind.SUM, p).dtype == np.float32
    assert float(loss_value(LossKind.SUM, p)) == 1.0
    d, _ = loss_vjp(LossKind.MEAN, p)
    assert d.dtype == np.float32 and np.allclose(d, 1 / 3)


def test_class_ids_out_of_range_are_named_by_position():
    with pytest.raises(LossError, match=r"target class id 5 at position \[1\] is outside \[0, 3\]"):
        loss_value(LossKind.SOFTMAX_CROSS_ENTROPY, np.zeros((2, 4)), np.array([0, 5]))


@pytest.mark.parametrize("kind, prediction, target, message", [
    (LossKind.SUM, TensorType("int64", (3,)), None, "the prediction must be a float tensor"),
    (LossKind.SUM, TensorType("float32", (3,)), TensorType("float32", (3,)), "a sum loss takes no target"),
    (LossKind.MEAN, TensorType("float32", (0, 3)), None, "is empty"),
    (LossKind.MEAN_SQUARED_ERROR, TensorType("float32", (3,)), TensorType("float64", (3,)),
     "the target must have the prediction's dtype float32; it is float64"),
    (LossKind.MEAN_SQUARED_ERROR, TensorType("float32", (3,)), TensorType("float32", (4,)),
     r"the target \[4\] must have the prediction's shape \[3\]"),
    (LossKind.SOFTMAX_CROSS_ENTROPY, TensorType("float32", ()), TensorType("int64", ()), "rank >= 1"),
    (LossKind.SOFTMAX_CROSS_ENTROPY, TensorType("float32", (2, 5)), TensorType("float32", (2,)),
     "integer class ids"),
    (LossKind.SOFTMAX_CROSS_ENTROPY, TensorType("float32", (2, 5)), TensorType("int64", (2, 5)),
     r"without its class axis, \[2\]"),
])
def test_type_rules_refuse_with_a_message_that_says_what_fits(kind, prediction, target, message):
    with pytest.raises(LossError, match=message):
        loss_type(kind, prediction, target)


def test_the_loss_type_is_a_scalar_of_the_prediction_dtype_and_unknown_dims_pass():
    assert loss_type(LossKind.MEAN_SQUARED_ERROR, TensorType("float16", (None, 3)),
                     TensorType("float16", (2, 3))) == TensorType("float16", ())
    assert LossKind.parse("softmax_cross_entropy").title == "softmax cross-entropy"
    with pytest.raises(LossError, match="the kinds are sum, mean, mean_squared_error, softmax_cross_entropy"):
        LossKind.parse("hinge")
