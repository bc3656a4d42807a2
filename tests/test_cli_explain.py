"""``indexflow explain GRAPH NODE``: the step lines of every seed example on stdout and nothing
else (no Qt loaded), slides as a GIF with one frame per step and as numbered PNG frames, drawn
offscreen; usage errors on stderr. Expected lines come from the seed pages' loops
(tests/ops/seed_steps.py)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nodeeditor.cli import main

from .ops.seed_steps import SCATTERND_EX2, SEEDS

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nodeeditor", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env or {**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"{s.graph}/{s.node}")
def test_text_prints_the_seed_examples_steps_in_the_loop_order_of_its_page(seed, capsys):
    assert main(["explain", seed.graph, seed.node, "--text"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == [s.line for s in seed.steps]


def test_text_is_the_default_and_a_node_is_found_by_its_name(capsys):
    # "example2" names the ScatterND node and its output node: the operator is meant
    assert main(["explain", "scatternd13_examples", "example2"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == [s.line for s in SCATTERND_EX2.steps]


def test_elements_steps_through_a_slice_op_one_element_at_a_time(capsys):
    assert main(["explain", "scatternd13_examples", "ex2_op", "--elements"]) == 0
    lines = capsys.readouterr()[0].splitlines()
    assert len(lines) == 32
    # element 17 is updates[1, 0, 0] = 1 -> output[indices[1], 0, 0] = output[2, 0, 0]
    assert lines[16] == "17: updates[1, 0, 0] = 1 → output[2, 0, 0]   (indices[1] = [2])"


def test_text_pipes_into_wc_and_grep_and_loads_no_qt():
    """Only the step lines reach stdout (so `| wc -l` counts steps), and the text path never
    imports Qt."""
    code = ("import sys; from nodeeditor.cli import main; rc = main(sys.argv[1:]); "
            "print('qt' if 'PySide6' in sys.modules else 'no qt', file=sys.stderr); sys.exit(rc)")
    result = subprocess.run([sys.executable, "-c", code, "explain", "scatter9_examples", "example1", "--text"],
                            capture_output=True, text=True, cwd=ROOT, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines()[-1] == "no qt"
    lines = result.stdout.splitlines()
    assert len(lines) == 6 and all(line.startswith(f"{i + 1}: updates[") for i, line in enumerate(lines))
    assert [line for line in lines if "→ output[2, " in line] == [lines[2], lines[4]]   # a grep


@pytest.mark.parametrize("args,message", [
    (["scatter9_examples", "nope"], "no node 'nope'"),
    (["scatter9_examples", "ex1_data"], "(literal) is not an indexing operator node"),
    (["no_such_example", "x"], "no_such_example"),
    (["scatter9_examples", "ex1_op", "--frame-ms", "0"], "--frame-ms must be a positive number of milliseconds"),
    (["scatter9_examples", "ex1_op", "--gif", ""], "--gif needs a file name"),
    (["scatter9_examples", "ex1_op", "--gif", "."], "--gif . names a folder"),
])
def test_usage_errors_go_to_stderr_with_exit_code_2(args, message, capsys):
    assert main(["explain", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err
    if "nope" in args:
        assert "ex1_op (example1, Scatter)" in err


def test_a_bad_size_is_a_usage_error(tmp_path, capsys):
    assert main(["explain", "scatter9_examples", "ex1_op", "--gif", str(tmp_path / "a.gif"), "--size", "big"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr()[1]
    assert not (tmp_path / "a.gif").exists()


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"{s.graph}/{s.node}")
def test_the_gif_has_one_frame_per_step_and_the_frames_are_numbered(seed, tmp_path, capsys):
    from PIL import Image

    gif, frames = tmp_path / "steps.gif", tmp_path / "frames"
    assert main(["explain", seed.graph, seed.node, "--gif", str(gif), "--frames", str(frames),
                 "--size", "480x270"]) == 0
    out, err = capsys.readouterr()
    assert out == ""                                   # only --text writes to stdout
    with Image.open(gif) as image:
        assert image.n_frames == len(seed.steps) and image.size == (480, 270)
    names = sorted(p.name for p in frames.iterdir())
    assert names == [f"step_{i + 1:03d}.png" for i in range(len(seed.steps))]
    assert f"wrote {len(seed.steps)} frames to {gif}" in err


def test_a_title_frame_comes_first_and_renders_without_a_display(tmp_path):
    """A fresh process with neither DISPLAY nor a Qt platform set: the slides are drawn
    offscreen; the GIF has the title frame plus one per step."""
    from PIL import Image

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT)
    gif, frames = tmp_path / "title.gif", tmp_path / "frames"
    result = _run("explain", "scatternd13_examples", "ex2_op", "--gif", str(gif), "--frames", str(frames),
                  "--title", "--size", "640x360", "--frame-ms", "500", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    # only what was written: not Qt's offscreen "does not support propagateSizeHints()"
    assert result.stderr.splitlines() == [f"wrote 3 frames to {gif}", f"wrote 3 PNG files to {frames}"]
    with Image.open(gif) as image:
        assert image.n_frames == 3 and image.info["duration"] == 500
    assert sorted(p.name for p in frames.iterdir()) == ["step_001.png", "step_002.png", "title.png"]


@pytest.mark.parametrize("seed", [s for s in SEEDS if s.graph == "gather11_examples"][:1], ids=lambda s: s.node)
def test_an_onnx_model_is_explained_as_run_takes_it(seed, tmp_path, capsys):
    """``explain`` takes what ``run`` takes: the example exported to a model and named by its
    file gives the seed page's steps (the node found by its name: ids are not in a model)."""
    from nodeeditor.graph import load_example

    model = tmp_path / "g.onnx"
    assert main(["export", seed.graph, "-o", str(model)]) == 0
    capsys.readouterr()
    assert main(["explain", str(model), load_example(seed.graph).node(seed.node).name]) == 0
    assert capsys.readouterr().out.splitlines() == [s.line for s in seed.steps]


def test_every_stopping_message_is_one_line_on_stderr_with_one_prefix(tmp_path, capsys):
    """A missing graph (usage), a missing node (explain's own), a model that is not one (a file
    error) and an unwritable output (run): each ends the command with ``indexflow: error:`` on
    standard error and nothing of it on standard output."""
    (tmp_path / "not.onnx").write_bytes(b"\x00garbage")
    cases = [(["explain", "no_such_graph", "x"], 2), (["explain", "gather11_examples", "no_such_node"], 2),
             (["explain", str(tmp_path / "not.onnx"), "x"], 1), (["check", str(tmp_path / "not.onnx")], 1),
             (["run", "one_hot", "-o", str(tmp_path / "no" / "x.npz")], 2),
             (["export", "one_hot", "-o", str(tmp_path), "--opset", "99"], 2)]
    for argv, code in cases:
        assert main(argv) == code, argv
        out, err = capsys.readouterr()
        assert err.startswith("indexflow: error: ") and len(err.strip().splitlines()) == 1, (argv, err)
        assert "error" not in out, (argv, out)


def test_an_input_from_the_second_output_of_a_node_is_that_output(tmp_path, capsys):
    """GatherElements reading TopK's second output (the int64 indices): explain steps through
    those indices (numpy's argsort gives them), not through TopK's first output (the values)."""
    import numpy as np
    import onnx
    from onnx import TensorProto as T
    from onnx import helper, numpy_helper

    from ops.explain import explain
    from ops.steps import step_line

    x = np.array([[0.5, 3.0, 1.0], [2.0, -1.0, 4.0]], np.float32)
    model = helper.make_model(helper.make_graph(
        [helper.make_node("TopK", ["x", "k"], ["vals", "idx"], axis=1),
         helper.make_node("GatherElements", ["x", "idx"], ["picked"], name="ge", axis=1)], "t", [],
        [helper.make_tensor_value_info("picked", T.FLOAT, [2, 2])],
        [numpy_helper.from_array(x, "x"), numpy_helper.from_array(np.array([2], np.int64), "k")]),
        opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, tmp_path / "m.onnx")
    assert main(["explain", str(tmp_path / "m.onnx"), "ge"]) == 0
    idx = np.argsort(-x, axis=1, kind="stable")[:, :2]     # TopK: the two largest, largest first
    expected = [step_line(s) for s in explain("GatherElements", [x, idx], {"axis": 1}).steps()]
    assert capsys.readouterr().out.splitlines() == expected


def test_an_op_with_no_steps_says_so_on_stderr(tmp_path, capsys):
    """Gather of a (3, 0) tensor: no element is read or written, so no step line, and a note."""
    import numpy as np

    from nodeeditor.graph import Graph, save_graph

    g = Graph(name="empty", opset=18)
    d = g.add_input("data", np.zeros((3, 0), np.float32))
    i = g.add_input("idx", np.array([1, 0]))
    op = g.add_operator("Gather", name="pick")
    g.connect(d, "output", op, "data")
    g.connect(i, "output", op, "indices")
    g.connect(op, "output", g.add_output("out"), "value")
    save_graph(g, tmp_path / "e.ifg.json")
    assert main(["explain", str(tmp_path / "e.ifg.json"), "pick"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "note: pick (Gather) has no steps" in err


def test_slides_on_a_scaled_screen_are_the_size_asked_for(tmp_path):
    """With QT_SCALE_FACTOR=1.5 (a projector), every frame, the title's and the steps', is
    exactly --size pixels (the steps came out 1.5 times larger, and a GIF cropped them to the
    title's size)."""
    from PySide6 import QtGui

    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "QT_SCALE_FACTOR": "1.5"}
    folder = tmp_path / "frames"
    result = _run("explain", "scatter9_examples", "example1", "--frames", str(folder), "--size", "640x360",
                  "--title", env=env)
    assert result.returncode == 0, result.stderr
    files = sorted(folder.iterdir())
    assert len(files) == 7                               # the title and six steps
    for path in files:
        image = QtGui.QImage(str(path))
        assert (image.width(), image.height()) == (640, 360), path.name


def test_a_foreign_op_is_named_as_one_the_explainer_does_not_step(tmp_path, capsys):
    from nodeeditor.graph import Graph, save_graph
    from nodeeditor.onnx_io.foreign_ops import new_foreign_node

    g = Graph("sm", opset=18)
    g.add_literal(np.ones((2, 2), np.float32), name="x", node_id="x")
    g.add_node(new_foreign_node("Softmax", node_id="sm"))
    g.connect("x", "output", "sm", g.node("sm").input_ports()[0])
    save_graph(g, tmp_path / "sm.ifg.json")
    assert main(["explain", str(tmp_path / "sm.ifg.json"), "sm"]) == 2
    assert "'sm' (ONNX op Softmax) is not an indexing operator node" in capsys.readouterr().err
