"""ONNX's node-test suite (1,884 models in onnx 1.23, generated in memory) run four ways: through
IndexFlow's backend, through onnxruntime (one thread), through ``onnx.reference``, and as an
unedited import-then-export run in onnxruntime. Shared by ``tests/onnx_io/test_node_suite.py``
(every case) and ``benchmarks/bench_node_tests.py`` (every case, timed and counted).

Each runner returns None when the case passes and the first line of the failure otherwise.
A case passes when every data set's outputs match ONNX's expected outputs under the harness's
own comparison (``onnx.backend.test.runner.Runner.assert_similar_outputs``, the case's rtol and
atol); a case that draws random numbers (:func:`samples`) passes when its outputs match in shape and
element type. The two judges (:func:`judge_indexflow`, :func:`judge_roundtrip`) state what the test suite
asks of each case.

Cases are generated through ``tests/node_cases.py``, once per process.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import onnx
from onnx.backend.test.runner import Runner, _normalize_tensor

from tests import node_cases


def load_cases() -> list:
    """Every node-test case, in ONNX's order of generation."""
    return node_cases.cases()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:300] if text else ''}"


#: Ops that draw random numbers. A case built on one expects one draw of numpy's generator, which
#: no runtime reproduces; by luck one sometimes does (onnxruntime matches test_bernoulli's ten
#: draws about once in 60 runs, (2/3) ** 10), which made both judges fail now and then.
SAMPLING_OPS = frozenset({"Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike", "RandomUniform",
                          "RandomUniformLike"})


def _op_types(graph: onnx.GraphProto):
    for node in graph.node:
        yield node.op_type
        for attribute in node.attribute:
            yield from _op_types(attribute.g)
            for sub in attribute.graphs:
                yield from _op_types(sub)


def samples(model: onnx.ModelProto) -> bool:
    """Whether ``model`` draws random numbers: a :data:`SAMPLING_OPS` node in its graph, a
    subgraph or a local function."""
    used = set(_op_types(model.graph)).union(*({n.op_type for n in f.node} for f in model.functions))
    return not SAMPLING_OPS.isdisjoint(used)


def _assert_same_kind(expected: list, got: list) -> None:
    """Outputs alike in number, shape and element type, whatever their values."""
    assert len(expected) == len(got), f"{len(got)} outputs, expected {len(expected)}"
    for i, (want, have) in enumerate(zip(expected, got, strict=True)):
        want, have = np.asarray(want), np.asarray(have)
        assert (want.shape, want.dtype) == (have.shape, have.dtype), (
            f"output {i} is {have.dtype}{list(have.shape)}, expected {want.dtype}{list(want.shape)}")


def _check(case, run: Callable[[list], list], rtol: float | None = None) -> str | None:
    """Runs every data set of ``case``; its outputs must match the expected ones within the
    case's tolerances, or, for a case that :func:`samples`, in number, shape and element type."""
    rtol = case.rtol if rtol is None else rtol
    random = samples(case.model)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for inputs, expected in case.data_sets:
                got = list(run([_normalize_tensor(x) for x in inputs]))
                expected = [_normalize_tensor(x) for x in expected]
                if random:
                    _assert_same_kind(expected, got)
                else:
                    Runner.assert_similar_outputs(expected, got, rtol, case.atol)
    except Exception as exc:  # noqa: BLE001 - every way a case fails is a failure to report
        return _first_line(exc)
    return None


def run_indexflow(case, rtol: float | None = None) -> str | None:
    """The case through ``nodeeditor.onnx_io.backend`` (import, then the engine), compared with
    the case's own tolerances (``rtol`` overrides its relative one)."""
    from nodeeditor.onnx_io import backend

    try:
        rep = backend.prepare(case.model)
    except Exception as exc:  # noqa: BLE001 - an import refusal is a failure of the case
        return _first_line(exc)
    return _check(case, rep.run, rtol)


def ort_session(model: onnx.ModelProto):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def _ort_runner(model: onnx.ModelProto) -> Callable[[list], list]:
    session = ort_session(model)
    names = [i.name for i in session.get_inputs()]
    return lambda inputs: session.run(None, dict(zip(names, inputs, strict=True)))


def run_onnxruntime(case) -> str | None:
    """The case in onnxruntime, one thread."""
    try:
        runner = _ort_runner(case.model)
    except Exception as exc:  # noqa: BLE001 - onnxruntime refuses many models with its own kinds
        return _first_line(exc)
    return _check(case, runner)


def run_reference(case) -> str | None:
    """The case in ``onnx.reference``."""
    from onnx.reference import ReferenceEvaluator

    try:
        ref = ReferenceEvaluator(case.model)
    except Exception as exc:  # noqa: BLE001
        return _first_line(exc)
    return _check(case, lambda inputs: ref.run(None, dict(zip(ref.input_names, inputs, strict=True))))


def run_roundtrip(case, judge: str = "onnxruntime") -> str | None:
    """``import_model``, ``export_model`` with no edit, then ``judge`` (onnxruntime or
    ``onnx.reference``) on the re-export (its inputs matched to the original's by name)."""
    from onnx.reference import ReferenceEvaluator

    from nodeeditor.onnx_io import export_model, import_model

    try:
        model = export_model(import_model(case.model))
        session = ort_session(model) if judge == "onnxruntime" else ReferenceEvaluator(model)
    except Exception as exc:  # noqa: BLE001
        return _first_line(exc)
    initializers = {t.name for t in case.model.graph.initializer}
    names = [i.name for i in case.model.graph.input if i.name not in initializers]
    wanted = [o.name for o in case.model.graph.output]

    def run(inputs: list) -> list:
        feeds = {n: v for n, v in zip(names, inputs, strict=True)}
        inputs_of = [i.name for i in session.get_inputs()] if judge == "onnxruntime" else session.input_names
        return session.run(wanted, {n: feeds[n] for n in inputs_of})

    return _check(case, run)


def judge_indexflow(case) -> str | None:
    """None when IndexFlow's backend passes the case, or when neither onnxruntime nor the
    reference passes it either (so IndexFlow passes at least what they pass together); else what
    went wrong and which of them passes."""
    problem = run_indexflow(case)
    if problem is None:
        return None
    others = {"onnxruntime": run_onnxruntime(case), "reference": run_reference(case)}
    passing = [way for way, p in others.items() if p is None]
    return f"IndexFlow fails where {' and '.join(passing)} pass: {problem}" if passing else None


def judge_roundtrip(case) -> str | None:
    """None when ``import_model`` then ``export_model`` with no edit runs like the original:
    judged by onnxruntime where it passes the original, else by ``onnx.reference`` where that
    passes it; a case neither passes must still re-export to a model the ONNX checker accepts."""
    if run_onnxruntime(case) is None:
        return run_roundtrip(case)
    if run_reference(case) is None:
        return run_roundtrip(case, judge="reference")
    from nodeeditor.onnx_io import export_model, import_model

    try:
        onnx.checker.check_model(export_model(import_model(case.model)))
    except Exception as exc:  # noqa: BLE001 - a refused re-export is the failure to report
        return _first_line(exc)
    return None


RUNNERS = {"indexflow": run_indexflow, "onnxruntime": run_onnxruntime, "reference": run_reference,
           "roundtrip": run_roundtrip}


def same_tensor(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
