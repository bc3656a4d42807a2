"""Every worked example of the seed pages (/work/shared/seeds) and of the ONNX operator docs.

Inputs and expected outputs are typed in by hand from those documents:
- seeds: Scatter-9 examples 1 and 2, ScatterND-13 examples 1 and 2, Gather-11 axis 0 and axis 1
  (the ScatterElements toolkit page has no numeric example);
- onnx.defs.get_schema(op).doc: Gather, GatherElements (2), GatherND (5), ScatterElements (2),
  ScatterND (2), Scatter (2); TensorScatter's doc has only pseudocode, its worked examples are
  the ones in the ONNX operator docs (Operators.md "Examples" = the backend test cases),
  as are the ScatterElements and ScatterND reduction examples typed in below.
"""
from __future__ import annotations

import numpy as np
import pytest

import ops

f32 = np.float32
i64 = np.int64


def A(x, dtype=f32):
    return np.array(x, dtype=dtype)


# ---------------------------------------------------------------------------------------------
# Scatter-9 (seed page) == Scatter doc == ScatterElements doc examples 1 and 2

SCATTER_EX1 = dict(
    data=A([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    indices=A([[1, 0, 2], [0, 2, 1]], i64),
    updates=A([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]]),
    output=A([[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]]),
)
SCATTER_EX2 = dict(
    data=A([[1.0, 2.0, 3.0, 4.0, 5.0]]),
    indices=A([[1, 3]], i64),
    updates=A([[1.1, 2.1]]),
    axis=1,
    output=A([[1.0, 1.1, 3.0, 2.1, 5.0]]),
)


@pytest.mark.parametrize("ex", [SCATTER_EX1, SCATTER_EX2], ids=["ex1", "ex2"])
def test_scatter9_seed_examples(ex):
    axis = ex.get("axis", 0)
    out = ops.scatter(ex["data"], ex["indices"], ex["updates"], axis=axis)
    np.testing.assert_array_equal(out, ex["output"])
    assert out.dtype == np.float32
    out = ops.run_op("Scatter", [ex["data"], ex["indices"], ex["updates"]], {"axis": axis})
    np.testing.assert_array_equal(out, ex["output"])


@pytest.mark.parametrize("ex", [SCATTER_EX1, SCATTER_EX2], ids=["ex1", "ex2"])
def test_scatter_elements_doc_examples(ex):
    axis = ex.get("axis", 0)
    out = ops.scatter_elements(ex["data"], ex["indices"], ex["updates"], axis=axis)
    np.testing.assert_array_equal(out, ex["output"])
    out = ops.run_op("ScatterElements", [ex["data"], ex["indices"], ex["updates"]],
                     {"axis": axis})
    np.testing.assert_array_equal(out, ex["output"])


def test_scatter9_example1_with_int32_indices():
    ex = SCATTER_EX1
    out = ops.scatter(ex["data"], ex["indices"].astype(np.int32), ex["updates"])
    np.testing.assert_array_equal(out, ex["output"])


# ScatterElements reduction examples (ONNX operator docs, ScatterElements examples)
SE_RED_DATA = A([[1.0, 2.0, 3.0, 4.0, 5.0]])
SE_RED_UPDATES = A([[1.1, 2.1]])


@pytest.mark.parametrize(
    "indices, reduction, expected",
    [
        ([[1, -3]], "none", [[1.0, 1.1, 2.1, 4.0, 5.0]]),  # with_negative_indices
        ([[1, 1]], "add", [[1.0, 5.2, 3.0, 4.0, 5.0]]),  # with_duplicate_indices
        ([[1, 1]], "mul", [[1.0, 4.62, 3.0, 4.0, 5.0]]),
        ([[1, 1]], "max", [[1.0, 2.1, 3.0, 4.0, 5.0]]),
        ([[1, 1]], "min", [[1.0, 1.1, 3.0, 4.0, 5.0]]),
    ],
)
def test_scatter_elements_reduction_examples(indices, reduction, expected):
    out = ops.scatter_elements(SE_RED_DATA, A(indices, i64), SE_RED_UPDATES, axis=1,
                               reduction=reduction)
    assert out.dtype == np.float32
    if reduction in ("add", "mul"):
        # float32 arithmetic: 2 + 1.1 + 2.1 and 2 * 1.1 * 2.1 are not exact in binary
        np.testing.assert_allclose(out, A(expected), rtol=1e-6)
    else:
        np.testing.assert_array_equal(out, A(expected))


# ---------------------------------------------------------------------------------------------
# ScatterND-13 (seed page) == ScatterND doc, examples 1 and 2, plus the reduction examples


def test_scatternd13_seed_example1():
    data = A([1, 2, 3, 4, 5, 6, 7, 8], np.int64)
    indices = A([[4], [3], [1], [7]], i64)
    updates = A([9, 10, 11, 12], np.int64)
    out = ops.scatter_nd(data, indices, updates)
    np.testing.assert_array_equal(out, A([1, 11, 3, 10, 9, 6, 7, 12], np.int64))
    assert out.dtype == np.int64


ND_DATA = [[[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
           [[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
           [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]],
           [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]]
ND_UPDATES = [[[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]],
              [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]]]
ND_UNCHANGED_1_3 = [[[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
                    [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]],
                    [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]]


def test_scatternd13_seed_example2():
    out = ops.scatter_nd(A(ND_DATA), A([[0], [2]], i64), A(ND_UPDATES))
    expected = [[[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]],
                [[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
                [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]],
                [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]]
    np.testing.assert_array_equal(out, A(expected))
    # the same through run_op
    out = ops.run_op("ScatterND", [A(ND_DATA), A([[0], [2]], i64), A(ND_UPDATES)])
    np.testing.assert_array_equal(out, A(expected))


@pytest.mark.parametrize(
    "reduction, block0",
    [
        ("add", [[7, 8, 9, 10], [13, 14, 15, 16], [18, 17, 16, 15], [16, 15, 14, 13]]),
        ("mul", [[5, 10, 15, 20], [60, 72, 84, 96], [168, 147, 126, 105], [128, 96, 64, 32]]),
        ("max", [[5, 5, 5, 5], [6, 6, 7, 8], [8, 7, 7, 7], [8, 8, 8, 8]]),
        ("min", [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 3, 2, 1]]),
    ],
)
def test_scatternd_reduction_examples(reduction, block0):
    # duplicate index [0] twice; all values are small integers, so float32 is exact
    out = ops.scatter_nd(A(ND_DATA), A([[0], [0]], i64), A(ND_UPDATES), reduction=reduction)
    expected = A([block0] + ND_UNCHANGED_1_3[:1] + [ND_DATA[2], ND_DATA[3]])
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("reduction, expected", [("max", [[5, 2], [3, 4]]),
                                                 ("min", [[1, 2], [3, 1]])])
def test_scatternd_element_index_reduction_examples(reduction, expected):
    out = ops.scatter_nd(A([[1, 2], [3, 4]]), A([[0, 0], [1, 1]], i64), A([5, 1]),
                         reduction=reduction)
    np.testing.assert_array_equal(out, A(expected))


# ---------------------------------------------------------------------------------------------
# Gather-11 (seed page) == Gather doc, axis 0 and axis 1

GATHER_AXIS0 = dict(
    data=A([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]]),
    indices=A([[0, 1], [1, 2]], i64),
    axis=0,
    output=A([[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]]),
)
GATHER_AXIS1 = dict(
    data=A([[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]]),
    indices=A([[0, 2]], i64),
    axis=1,
    output=A([[[1.0, 1.9]], [[2.3, 3.9]], [[4.5, 5.9]]]),
)


@pytest.mark.parametrize("ex", [GATHER_AXIS0, GATHER_AXIS1], ids=["axis0", "axis1"])
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_gather11_seed_examples(ex, index_dtype):
    out = ops.gather(ex["data"], ex["indices"].astype(index_dtype), axis=ex["axis"])
    np.testing.assert_array_equal(out, ex["output"])
    assert out.shape == ex["output"].shape
    out = ops.run_op("Gather", [ex["data"], ex["indices"].astype(index_dtype)],
                     {"axis": ex["axis"]})
    np.testing.assert_array_equal(out, ex["output"])


# Gather doc table (data shape / indices shape / axis / output equation)
def test_gather_doc_table_scalar_index():
    data = np.arange(2 * 3 * 4, dtype=np.int64).reshape(2, 3, 4)  # (P, Q, R)
    out = ops.gather(data, np.array(1, dtype=i64), axis=1)  # (P, R): data[p, 1, r]
    np.testing.assert_array_equal(out, A([[4, 5, 6, 7], [16, 17, 18, 19]], np.int64))
    pq = data[:, :, 0]  # (P, Q) = [[0, 4, 8], [12, 16, 20]]
    out = ops.gather(pq, np.array(1, dtype=i64), axis=0)  # (Q): output[q] = data[1, q]
    assert out.shape == (3,)
    np.testing.assert_array_equal(out, A([12, 16, 20], np.int64))
    # (P, Q), indices (R, S), axis 1 -> (P, R, S): output[p, r, s] = data[p, indices[r, s]]
    out = ops.gather(pq, A([[2, 0], [1, -1]], i64), axis=1)
    np.testing.assert_array_equal(out, A([[[8, 0], [4, 8]], [[20, 12], [16, 20]]], np.int64))


# ---------------------------------------------------------------------------------------------
# GatherElements doc examples


def test_gather_elements_doc_example1():
    out = ops.gather_elements(A([[1, 2], [3, 4]], np.int64), A([[0, 0], [1, 0]], i64), axis=1)
    np.testing.assert_array_equal(out, A([[1, 1], [4, 3]], np.int64))


def test_gather_elements_doc_example2():
    data = A([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.int64)
    out = ops.gather_elements(data, A([[1, 2, 0], [2, 0, 0]], i64), axis=0)
    np.testing.assert_array_equal(out, A([[4, 8, 3], [7, 2, 3]], np.int64))


def test_gather_elements_negative_indices_example():
    # ONNX operator docs, GatherElements "gather_elements_negative_indices"
    data = A([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    out = ops.gather_elements(data, A([[-1, -2, 0], [-2, 0, 0]], i64), axis=0)
    np.testing.assert_array_equal(out, A([[7, 5, 3], [4, 2, 3]]))


# ---------------------------------------------------------------------------------------------
# GatherND doc examples 1-5

GND_2x2 = [[0, 1], [2, 3]]
GND_2x2x2 = [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


@pytest.mark.parametrize(
    "batch_dims, data, indices, output",
    [
        (0, GND_2x2, [[0, 0], [1, 1]], [0, 3]),
        (0, GND_2x2, [[1], [0]], [[2, 3], [0, 1]]),
        (0, GND_2x2x2, [[0, 1], [1, 0]], [[2, 3], [4, 5]]),
        (0, GND_2x2x2, [[[0, 1]], [[1, 0]]], [[[2, 3]], [[4, 5]]]),
        (1, GND_2x2x2, [[1], [0]], [[2, 3], [4, 5]]),
    ],
    ids=["ex1", "ex2", "ex3", "ex4", "ex5_batch_dims1"],
)
def test_gather_nd_doc_examples(batch_dims, data, indices, output):
    d = A(data, np.int32)
    out = ops.gather_nd(d, A(indices, i64), batch_dims=batch_dims)
    expected = A(output, np.int32)
    assert out.shape == expected.shape
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expected)
    out = ops.run_op("GatherND", [d, A(indices, i64)], {"batch_dims": batch_dims})
    np.testing.assert_array_equal(out, expected)


# ---------------------------------------------------------------------------------------------
# TensorScatter: the three examples of the ONNX operator docs (linear, circular, 3-D default)

TS_CACHE_4D = [[[[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [4, 3, 2, 1, 0]]],
               [[[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [4, 3, 2, 1, 0]]]]


def test_tensor_scatter_linear_example():
    update = A([[[[5, 5, 5, 5, 5]]], [[[1, 1, 1, 1, 1]]]])
    out = ops.tensor_scatter(A(TS_CACHE_4D), update, A([1, 2], i64), mode="linear")
    expected = A([[[[1, 2, 3, 4, 5], [5, 5, 5, 5, 5], [8, 7, 6, 5, 4], [4, 3, 2, 1, 0]]],
                  [[[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [1, 1, 1, 1, 1], [4, 3, 2, 1, 0]]]])
    np.testing.assert_array_equal(out, expected)


def test_tensor_scatter_circular_example():
    update = A([[[[5, 5, 5, 5, 5], [6, 6, 6, 6, 6]]], [[[1, 1, 1, 1, 1], [2, 2, 2, 2, 2]]]])
    out = ops.tensor_scatter(A(TS_CACHE_4D), update, A([1, 3], i64), mode="circular")
    expected = A([[[[1, 2, 3, 4, 5], [5, 5, 5, 5, 5], [6, 6, 6, 6, 6], [4, 3, 2, 1, 0]]],
                  [[[2, 2, 2, 2, 2], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [1, 1, 1, 1, 1]]]])
    np.testing.assert_array_equal(out, expected)


def test_tensor_scatter_3d_example_default_attributes():
    row = [[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [5, 4, 3, 2, 1]]
    cache = A([row, row, row])
    update = A([[[4] * 5, [5] * 5], [[6] * 5, [7] * 5], [[2] * 5, [3] * 5]])
    expected = A([
        [[1, 2, 3, 4, 5], [4, 4, 4, 4, 4], [5, 5, 5, 5, 5], [5, 4, 3, 2, 1]],
        [[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [6, 6, 6, 6, 6], [7, 7, 7, 7, 7]],
        [[2, 2, 2, 2, 2], [3, 3, 3, 3, 3], [8, 7, 6, 5, 4], [5, 4, 3, 2, 1]],
    ])
    out = ops.tensor_scatter(cache, update, A([1, 2, 0], i64))
    np.testing.assert_array_equal(out, expected)
    out = ops.run_op("TensorScatter", [cache, update, A([1, 2, 0], i64)])
    np.testing.assert_array_equal(out, expected)


def test_tensor_scatter_without_write_indices_writes_at_zero():
    # doc: write_indices "assumed to be zero if not provided"
    cache = A(TS_CACHE_4D)
    update = A([[[[5, 5, 5, 5, 5]]], [[[1, 1, 1, 1, 1]]]])
    expected = A([[[[5, 5, 5, 5, 5], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [4, 3, 2, 1, 0]]],
                  [[[1, 1, 1, 1, 1], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [4, 3, 2, 1, 0]]]])
    np.testing.assert_array_equal(ops.tensor_scatter(cache, update), expected)
    np.testing.assert_array_equal(ops.run_op("TensorScatter", [cache, update, None]), expected)
