"""indexflow grad and indexflow train: what they print and write, and their exit codes."""
import numpy as np
import pytest

from nodeeditor import cli, training_cli
from nodeeditor.graph import Graph, load_graph, save_graph


def line_graph(tmp_path, *, loss=True, trainable=True, name="line.ifg.json"):
    """weights [3] (zeros) -> Gather [0, 1, 2, 2] -> mean squared error against [1, -2, 3, 3]."""
    g = Graph("line")
    g.add_generator("zeros", {"shape": [3], "dtype": "float32"}, name="my weights", node_id="w")
    g.set_trainable("w", trainable)
    g.add_literal(np.array([0, 1, 2, 2]), node_id="ids")
    g.add_literal(np.array([1.0, -2.0, 3.0, 3.0], np.float32), name="targets", node_id="t")
    g.add_operator("Gather", node_id="gather")
    g.connect("w", "output", "gather", "data")
    g.connect("ids", "output", "gather", "indices")
    if loss:
        g.add_loss("mean_squared_error", node_id="loss")
        g.connect("gather", "output", "loss", "prediction")
        g.connect("t", "output", "loss", "target")
    return save_graph(g, tmp_path / name)


def test_grad_prints_the_loss_and_writes_each_gradient_under_its_source_name(tmp_path, capsys):
    path = line_graph(tmp_path)
    assert cli.main(["grad", str(path), "-o", str(tmp_path / "grads")]) == 0
    out = capsys.readouterr().out
    # by hand at w = 0: loss = (1 + 4 + 9 + 9) / 4 = 5.75; d w = 2/4 * [-1, 2, -3 - 3] = [-0.5, 1, -3]
    assert "loss: 5.75" in out and "d loss / d my weights: float32[3]" in out
    assert f"wrote 1 gradient(s) to {tmp_path / 'grads.npz'}" in out
    with np.load(tmp_path / "grads.npz") as grads:
        assert grads.files == ["my weights"]
        np.testing.assert_allclose(grads["my weights"], [-0.5, 1.0, -3.0], rtol=1e-6)


@pytest.mark.parametrize("loss, trainable, missing", [
    (False, True, ["no Loss node"]),
    (True, False, ["no tensor source is marked trainable"]),
    (False, False, ["no Loss node", "no tensor source is marked trainable"]),
])
@pytest.mark.parametrize("verb", [["grad"], ["train", "--steps", "3"]])
def test_grad_and_train_say_what_is_missing_and_exit_1(tmp_path, capsys, loss, trainable, missing, verb):
    path = line_graph(tmp_path, loss=loss, trainable=trainable)
    assert cli.main([verb[0], str(path), *verb[1:]]) == 1
    err = capsys.readouterr().err        # a message that stops the command: standard error
    error = [line for line in err.splitlines() if line.startswith("indexflow: error: ")]
    assert len(error) == 1 and all(m in error[0] for m in missing)
    assert ("no Loss node" in error[0]) == (not loss)


def test_train_prints_the_loss_as_it_goes_and_writes_the_trained_graph(tmp_path, capsys):
    path = line_graph(tmp_path)
    assert cli.main(["train", str(path), "--steps", "150", "--optimizer", "adam", "--lr", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "training my weights: 150 steps of adam (learning rate 0.1" in out
    assert "step   1/150  loss 5.75" in out and "step  15/150  loss" in out and "step 150/150  loss" in out
    written = tmp_path / "line.trained.ifg.json"
    assert f"wrote {written}" in out and "-fold lower" in out
    trained = load_graph(written)
    w = trained.node("w")
    assert w.kind == "literal" and w.trainable and w.name == "my weights"
    # the optimum: w = [1, -2, 3]
    np.testing.assert_allclose(w.value, [1.0, -2.0, 3.0], atol=0.01)
    assert load_graph(path).node("w").kind == "generator"   # the input file is left alone


def test_train_names_its_output_after_an_example_in_the_working_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["train", "train_segment_sum", "--steps", "2"]) == 0
    assert (tmp_path / "train_segment_sum.trained.ifg.json").is_file()


@pytest.mark.parametrize("argv, message", [
    (["--steps", "0"], "--steps must be at least 1"),
    (["--steps", "5", "--lr", "-1"], "learning rate must be a positive finite number"),
])
def test_train_usage_errors_exit_2(tmp_path, capsys, argv, message):
    path = line_graph(tmp_path)
    assert cli.main(["train", str(path), *argv]) == 2
    assert message in capsys.readouterr().err


def test_train_requires_steps(tmp_path, capsys):
    assert cli.main(["train", str(line_graph(tmp_path))]) == 2
    assert "--steps" in capsys.readouterr().err


def test_a_diverging_run_exits_1_and_writes_nothing(tmp_path, capsys):
    path = line_graph(tmp_path)
    assert cli.main(["train", str(path), "--steps", "200", "--lr", "50", "-o", str(tmp_path / "out.ifg.json")]) == 1
    assert "indexflow: error: step" in (err := capsys.readouterr().err) and "smaller learning rate" in err
    assert not (tmp_path / "out.ifg.json").exists()


def test_the_training_bar_shows_on_a_terminal_only():
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    bar = training_cli.TrainingBar(stream, delay=0.0, width=10)
    bar(5, 10, 0.5)
    assert "[#####.....] step 5/10  loss 0.5" in stream.getvalue()
    quiet = io.StringIO()
    training_cli.TrainingBar(quiet, delay=0.0)(5, 10, 0.5)
    assert quiet.getvalue() == ""


def test_trainable_sources_sharing_a_name_are_refused_by_name(tmp_path, capsys):
    g = load_graph(line_graph(tmp_path))
    g.set_trainable("t", True)
    g.rename_node("t", "my weights")
    path = save_graph(g, tmp_path / "twins.ifg.json")
    assert cli.main(["grad", str(path)]) == 1
    assert "indexflow: error: 2 trainable sources are called 'my weights' (w, t); gradients are named after " \
        "their source" in capsys.readouterr().err


@pytest.mark.parametrize(("verb", "example"), [("run", "outputs.npz"), ("grad", "gradients.npz")])
def test_an_output_that_names_a_folder_is_refused_with_a_file_name_to_use(tmp_path, capsys, verb, example):
    path = line_graph(tmp_path)
    folder = tmp_path / "results"
    folder.mkdir()
    assert cli.main([verb, str(path), "-o", str(folder)]) == cli.EXIT_USAGE   # a usage error, as the README says
    err = capsys.readouterr().err
    assert f"error: --output {folder} names a folder; give a file name, e.g. {folder / example}" in err
    assert list(folder.iterdir()) == []


def test_check_shows_a_foreign_ops_training_switch_and_coefficient(tmp_path, capsys):
    """`indexflow check` named an operator's switch and coefficient, a foreign op's not."""
    import numpy as np

    from nodeeditor.onnx_io.foreign_ops import new_foreign_node

    g = Graph("switches", opset=18)
    g.add_literal(np.array([1.0, -2.0]), name="x", node_id="x")
    g.add_node(new_foreign_node("Relu", node_id="relu"))
    g.add_node(new_foreign_node("Tanh", node_id="tanh"))
    g.connect("x", "output", "relu", g.node("relu").input_ports()[0])
    g.connect("relu", g.node("relu").output_ports()[0], "tanh", g.node("tanh").input_ports()[0])
    g.set_training("relu", False)
    g.set_loss_coefficient("tanh", 0.1)
    path = save_graph(g, tmp_path / "switches.ifg.json")
    assert cli.main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "switched off (no gradient to its inputs)" in out and "loss coefficient 0.1" in out
