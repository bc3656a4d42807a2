"""ONNX's node-test suite through IndexFlow: every case (1,884 in onnx 1.23).

For each case (:mod:`tests.onnx_io.node_suite` states the two judges):

- through ``nodeeditor.onnx_io.backend`` it passes, unless neither onnxruntime (one thread)
  nor ``onnx.reference`` passes it either, so IndexFlow passes at least what they pass together;
- ``import_model`` then ``export_model`` with no edit runs like the original: in onnxruntime
  where onnxruntime passes the original, else in ``onnx.reference`` where that passes it, else
  the re-export passes the ONNX checker (no case is skipped).

The cases of every generator module are made at collection (about 2 s), one test each, except the
three modules whose expected outputs take ``onnx.reference``'s per-element pooling (4-6 s each,
:data:`tests.node_cases.SLOW_MODULES`): those are made inside one test per module, so that only the
pytest-xdist worker that runs the test pays for them. ``benchmarks/bench_node_tests.py`` counts
and times the same four ways.
"""
from __future__ import annotations

import pytest

from tests import node_cases

from . import node_suite

CASES = {c.name: c for c in node_suite.load_cases(skip=node_cases.SLOW_MODULES)}
#: Cases IndexFlow fails (in some runs) although onnxruntime and the reference pass them, why, and the
#: relative tolerance IndexFlow meets instead of the case's 0.001: two float16 ulp.
KNOWN = {
    "test_attention_4d_causal_fp16_expanded":
        "onnxruntime computes the expanded Attention's float16 chain with float32 in between (it inserts casts "
        "around float16 ops and merges them); IndexFlow's session for the chain returns every intermediate "
        "value (each port can be inspected), so onnxruntime cannot merge those casts and rounds each to "
        "float16: IndexFlow's output equals onnxruntime's on the model with every intermediate made an output. "
        "29 of 192 elements differ from the expected, by at most 2 ulp (relative 0.0012)",
    "test_attention_4d_gqa_with_past_and_present_fp16_expanded":
        "the same float16 rounding of intermediate values as test_attention_4d_causal_fp16_expanded: 149 of 576 "
        "elements of the first output differ, by at most 2 ulp; one is just past the case's rtol, or not, "
        "from run to run",
}
KNOWN_RTOL = 2 * 2.0 ** -10


def test_no_generator_module_is_left_out():
    """The cases made at collection are every module's but the slow ones, and each slow module
    named is a real module (a misspelt one would drop its cases silently)."""
    assert set(node_cases.SLOW_MODULES) <= set(node_cases.module_names())


@pytest.mark.parametrize("name", sorted(set(CASES) - set(KNOWN)))
def test_indexflow_passes_what_onnxruntime_or_the_reference_passes(name):
    problem = node_suite.judge_indexflow(CASES[name])
    assert problem is None, problem


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_the_known_float16_cases_are_within_two_ulp(name):
    """What :data:`KNOWN` says of each: IndexFlow's outputs within two float16 ulp (relative)."""
    problem = node_suite.run_indexflow(CASES[name], rtol=KNOWN_RTOL)
    assert problem is None, f"{problem} ({KNOWN[name]})"


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_unedited_import_and_export_runs_like_the_original(name):
    problem = node_suite.judge_roundtrip(CASES[name])
    assert problem is None, problem


@pytest.mark.parametrize("module", node_cases.SLOW_MODULES)
def test_the_pooling_modules_pass_both_ways(module):
    """Both judges on every case of a module too slow to make at collection."""
    cases = node_cases.cases([module])
    assert cases, f"{module} made no case"
    problems = {}
    for case in cases:
        for way, judge in (("backend", node_suite.judge_indexflow), ("round trip", node_suite.judge_roundtrip)):
            problem = judge(case)
            if problem is not None:
                problems[f"{case.name} ({way})"] = problem
    assert not problems, problems
