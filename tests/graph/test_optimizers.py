"""Optimizers against first steps computed by hand (the numbers in the comments)."""
import numpy as np
import pytest

from nodeeditor.graph.optimizers import DEFAULT_LEARNING_RATES, Optimizer, OptimizerKind, OptimizerSettings


def test_sgd_with_momentum_first_two_steps():
    opt = Optimizer(OptimizerSettings(OptimizerKind.SGD, learning_rate=0.1, momentum=0.9))
    p = {"w": np.array([1.0, -2.0])}
    # step 1: v = g = [0.5, -1]; p = [1 - 0.05, -2 + 0.1] = [0.95, -1.9]
    p = opt.step(p, {"w": np.array([0.5, -1.0])})
    np.testing.assert_allclose(p["w"], [0.95, -1.9], rtol=1e-15)
    # step 2: v = 0.9 * [0.5, -1] + [1, 1] = [1.45, 0.1]; p = [0.95 - 0.145, -1.9 - 0.01] = [0.805, -1.91]
    p = opt.step(p, {"w": np.array([1.0, 1.0])})
    np.testing.assert_allclose(p["w"], [0.805, -1.91], rtol=1e-14)


def test_adam_first_two_steps_with_bias_correction():
    opt = Optimizer(OptimizerSettings("adam", learning_rate=0.1, beta1=0.9, beta2=0.999, epsilon=1e-8))
    p = {"w": np.array([1.0, 1.0])}
    # step 1: m = 0.1 g, v = 0.001 g^2; m_hat = g, v_hat = g^2: the step is lr * g / (|g| + eps) ~ 0.1 sign(g)
    p = opt.step(p, {"w": np.array([0.2, -4.0])})
    np.testing.assert_allclose(p["w"], [1.0 - 0.1 * 0.2 / (0.2 + 1e-8), 1.0 + 0.1 * 4.0 / (4.0 + 1e-8)], rtol=1e-14)
    # step 2 with g2 = [0.4, 0]: m = 0.9*0.1*[0.2,-4] + 0.1*[0.4,0] = [0.058, -0.36]; m_hat = m / 0.19
    # v = 0.999*0.001*[0.04, 16] + 0.001*[0.16, 0] = [0.00019996, 0.015984]; v_hat = v / (1 - 0.999**2)
    m = np.array([0.058, -0.36]) / (1 - 0.9 ** 2)
    v = np.array([0.00019996, 0.015984]) / (1 - 0.999 ** 2)
    before = p["w"].copy()
    p = opt.step(p, {"w": np.array([0.4, 0.0])})
    np.testing.assert_allclose(p["w"], before - 0.1 * m / (np.sqrt(v) + 1e-8), rtol=1e-12)


def test_a_parameter_without_a_gradient_is_left_alone_and_inputs_are_not_modified():
    opt = Optimizer(OptimizerSettings())
    w, g = np.array([1.0]), np.array([1.0])
    out = opt.step({"w": w, "u": np.array([3.0])}, {"w": g})
    assert out["u"][0] == 3.0 and w[0] == 1.0 and g[0] == 1.0


def test_defaults_and_bad_settings():
    assert OptimizerSettings().lr == DEFAULT_LEARNING_RATES[OptimizerKind.SGD]
    assert OptimizerSettings("adam").lr == DEFAULT_LEARNING_RATES[OptimizerKind.ADAM]
    with pytest.raises(ValueError, match="learning rate must be a positive finite number"):
        OptimizerSettings(learning_rate=0.0)
    with pytest.raises(ValueError, match="momentum must be in"):
        OptimizerSettings(momentum=1.0)
    with pytest.raises(ValueError, match="unknown optimizer 'rmsprop'; choose sgd or adam"):
        OptimizerSettings("rmsprop")
