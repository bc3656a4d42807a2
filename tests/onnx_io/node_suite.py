"""ONNX's node-test suite (1,884 models in onnx 1.23, generated in memory) run four ways: through
IndexFlow's backend, through onnxruntime (one thread), through ``onnx.reference``, and as an
unedited import-then-export run in onnxruntime. Shared by ``tests/onnx_io/test_node_suite.py``
(every case) and ``benchmarks/bench_node_tests.py`` (every case, timed and counted).

Each runner returns None when the case passes and the first line of the failure otherwise.
A case passes when every data set's outputs match ONNX's expected outputs under the harness's
own comparison (``onnx.backend.test.runner.Runner.assert_similar_outputs``, the case's rtol and
atol). The two judges (:func:`judge_indexflow`, :func:`judge_roundtrip`) state what the test suite
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


def _check(case, run: Callable[[list], list], rtol: float | None = None) -> str | None:
    rtol = case.rtol if rtol is None else rtol
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for inputs, expected in case.data_sets:
                got = run([_normalize_tensor(x) for x in inputs])
                Runner.assert_similar_outputs([_normalize_tensor(x) for x in expected], list(got), rtol, case.atol)
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
