"""The Explainer's public API for lessons and quizzes: open a graph's operator at a step, hide
the answer of each step."""
import numpy as np
import pytest

from nodeeditor.graph import load_example

# Scatter-9 example 1 (axis 0): data[indices[i][j]][j] = updates[i][j]
SCATTER9_INDICES = np.array([[1, 0, 2], [0, 2, 1]])


def test_explain_selects_the_node_and_goes_to_the_step(window, qtbot):
    window.set_document(load_example("scatter9_examples"), None)
    window.explainer_dock.hide()
    with qtbot.waitSignal(window.explainer_controller.explaining, timeout=10000) as blocker:
        window.explainer_controller.explain("ex1_op", step=4)
    assert blocker.args == ["ex1_op"]
    assert window.explainer_dock.isVisible()
    assert window.scene.selected_node_ids() == ["ex1_op"]
    assert window.explainer.step == 4 and window.explainer.counter.text() == "5 / 6"
    # step 4 is updates[1, 1] -> output[indices[1, 1], 1] = output[2, 1]
    assert window.explainer.grid("output").highlights == {(SCATTER9_INDICES[1, 1], 1): "target"}


def test_explain_after_a_run_shows_it_at_once_and_starts_over_on_the_same_node(window, qtbot):
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    assert window.explainer_controller.explain("ex1_op", step=2)
    assert window.explainer.step == 2
    window.explainer.set_step(5)
    assert window.explainer_controller.explain("ex1_op")          # step 0 again
    assert window.explainer.step == 0
    assert window.explainer_controller.explain("ex2_op", step=99)  # clamped to the last step
    assert window.explainer.step == window.explainer.count - 1


def test_explain_an_unknown_node_is_a_key_error(window):
    with pytest.raises(KeyError):
        window.explainer_controller.explain("no such node")


def test_hidden_output_masks_the_answer_and_keeps_the_question(window, qtbot):
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    controller, w = window.explainer_controller, window.explainer
    controller.set_output_hidden(True)
    assert controller.explain("ex1_op", step=1)
    output, updates, indices = w.grid("output"), w.grid("updates"), w.grid("indices")
    assert set(output.cell_texts().values()) == {"?"}
    assert output.highlights == {} and w.grid("data").highlights == {}
    assert updates.highlights == {(0, 1): "source"} and indices.highlights == {(0, 1): "index"}
    assert "1.1" not in w.sentence.text() and "output[" not in w.sentence.text()
    assert not w.tabs.isTabVisible(1)                  # the "All steps" table gives every answer
    # kept on another node and on stepping
    controller.explain("ex2_op")
    w.set_step(1)
    assert set(w.grid("output").cell_texts().values()) == {"?"}
    controller.set_output_hidden(False)
    assert "?" not in w.grid("output").cell_texts().values()
    assert w.grid("output").highlights and w.tabs.isTabVisible(1) and "output[" in w.sentence.text()


def test_hidden_output_of_a_gather_hides_the_cell_read_and_keeps_the_element_asked(qtbot):
    from nodeeditor.ui.explainer import ExplainerWidget

    w = ExplainerWidget()
    qtbot.addWidget(w)
    w.set_output_hidden(True)
    w.set_operation("g", "Gather", [np.arange(5.0) * 10, np.array([4, 0, 2])])
    w.set_step(2)                                      # output[2] = data[indices[2]] = data[2]
    assert w.grid("data").highlights == {}
    assert w.grid("indices").highlights == {(2,): "index"}
    assert w.grid("output").highlights == {(2,): "target"}
    assert set(w.grid("output").cell_texts().values()) == {"?"}
