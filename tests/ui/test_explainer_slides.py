"""Explainer > Export Slides…: the step-through as an animated GIF (one frame per step, read
back with Pillow) or numbered PNG frames, at the chosen size, drawn offscreen by the
Explainer's own widget."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import load_example
from nodeeditor.ui.explainer import ExplainerWidget, slides
from nodeeditor.ui.explainer.slides_dialog import SlidesDialog

from ..ops.seed_steps import SCATTER9_EX1, SCATTERND_EX2


def test_render_frames_gives_one_picture_per_step_at_the_size_asked(qapp):
    frames = slides.render_frames("ex1", "Scatter", list(SCATTER9_EX1.inputs), {},
                                  slides.SlideOptions((800, 450), title_frame=True))
    assert len(frames) == 1 + 6
    assert {(f.width(), f.height()) for f in frames} == {(800, 450)}
    assert len({bytes(f.constBits()) for f in frames}) == 7      # every picture differs (the step moves)


def test_the_slides_widget_never_shows_on_a_screen(qapp, monkeypatch):
    made = []
    original = ExplainerWidget.__init__

    def record(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(ExplainerWidget, "__init__", record)
    slides.render_frames("ex2", "ScatterND", list(SCATTERND_EX2.inputs), {}, slides.SlideOptions((640, 360)))
    from PySide6 import QtCore

    assert made and made[0].testAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen)


def test_gif_and_frames_are_written_and_read_back(qapp, tmp_path):
    frames = slides.render_frames("ex2", "ScatterND", list(SCATTERND_EX2.inputs), {},
                                  slides.SlideOptions((640, 360)))
    gif = slides.write_gif(frames, tmp_path / "ex2.gif", 700)
    with Image.open(gif) as image:
        assert image.n_frames == 2 and image.size == (640, 360) and image.info["duration"] == 700
        assert image.info.get("loop") == 0
    written = slides.write_frames(frames, tmp_path / "frames")
    assert [p.name for p in written] == ["step_001.png", "step_002.png"]
    with Image.open(written[1]) as image:
        assert image.size == (640, 360)


@pytest.mark.parametrize("text", ["big", "10x10", "1280x", "99999x720"])
def test_a_bad_size_says_what_is_accepted(text):
    with pytest.raises(slides.SizeError):
        slides.parse_size(text)
    assert slides.parse_size("1280x720") == (1280, 720)


def test_an_unwritable_gif_is_a_slide_error(qapp, tmp_path):
    frames = slides.render_frames("g", "Gather", [np.arange(3.0), np.array([2])], {}, slides.SlideOptions((320, 200)))
    (tmp_path / "file").write_text("x")
    with pytest.raises(slides.SlideError):
        slides.write_gif(frames, tmp_path / "file" / "x.gif")


def test_export_slides_from_the_explainer_menu_writes_the_gif(window, qtbot, tmp_path):
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    assert window.explainer_controller.explain("ex1_op")
    assert window.explainer.export_action in window.explainer.menu.actions()
    window.explainer.export_action.trigger()
    qtbot.waitUntil(lambda: isinstance(QtWidgets.QApplication.activeModalWidget(), SlidesDialog), timeout=10000)
    dialog = QtWidgets.QApplication.activeModalWidget()
    dialog.path.setText(str(tmp_path / "lesson"))              # .gif is added
    dialog.width_box.setValue(640)
    dialog.height_box.setValue(360)
    dialog.title_box.setChecked(True)
    assert dialog.export()
    with Image.open(tmp_path / "lesson.gif") as image:
        assert image.n_frames == 1 + 6 and image.size == (640, 360)


def test_export_slides_as_frames_into_a_folder(window, qtbot, tmp_path, dialogs):
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    window.explainer_controller.explain("ex2_op")
    dialog = window.explainer_controller.export_slides()
    dialog.frames_button.setChecked(True)
    assert dialog.path.text().endswith("_frames")
    dialog.path.setText(str(tmp_path / "frames"))
    assert dialog.export() and not dialog.isVisible()
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == ["step_001.png", "step_002.png"]
    # an unwritable place: a message, the dialog stays
    (tmp_path / "file").write_text("x")
    dialog = window.explainer_controller.export_slides()
    dialog.path.setText(str(tmp_path / "file" / "x.gif"))
    assert not dialog.export()
    assert dialogs.calls and dialogs.calls[-1][0] == "warning" and dialog.isVisible()
    dialog.reject()


def test_a_slide_shows_no_control_of_the_editor(qapp):
    widget = ExplainerWidget()
    controls = (widget.prev_button, widget.slider, widget.next_button, widget.play_button, widget.menu_button,
                widget.backward_button)
    widget.set_slide_mode(True)
    assert [c for c in controls if not c.isHidden()] == []   # the backward toggle showed on every slide
    widget.set_slide_mode(False)
    assert all(not c.isHidden() for c in controls)


def test_too_many_steps_are_refused_before_anything_is_drawn(qapp, tmp_path, monkeypatch):
    """A Gather of 300 indices on (50, 400): 120,000 steps, far beyond MAX_FRAMES; a GIF is also
    held to MAX_GIF_PIXELS (4 pictures of 1280x720 when the cap is 4 million pixels)."""
    data, indices = np.zeros((50, 400), np.float32), np.arange(300) % 50
    with pytest.raises(slides.SlideError, match="has 120,000 steps; slides hold at most 240 pictures"):
        slides.write_slides("big", "Gather", [data, indices], {}, slides.SlideOptions(), folder=tmp_path / "f")
    assert not (tmp_path / "f").exists() or not any((tmp_path / "f").iterdir())
    monkeypatch.setattr(slides, "MAX_GIF_PIXELS", 4 * 1280 * 720)
    six = [np.arange(6.0), np.arange(6)]                # 6 steps
    with pytest.raises(slides.SlideError, match="at most 4 pictures at 1280x720"):
        slides.write_slides("g", "Gather", six, {}, slides.SlideOptions(), gif=tmp_path / "g.gif")
    written, count = slides.write_slides("g", "Gather", six, {}, slides.SlideOptions(), folder=tmp_path / "png")
    assert count == 6 and len(written) == 6                # PNG files are written one by one: no pixel cap


def test_progress_is_reported_per_picture_and_cancel_keeps_what_was_written(qapp, tmp_path):
    seen = []

    def progress(done, total):
        seen.append((done, total))
        return done < 3                                    # stop after the third picture

    with pytest.raises(slides.SlidesCancelledError):
        slides.write_slides("ex1", "Scatter", list(SCATTER9_EX1.inputs), {}, slides.SlideOptions((320, 200)),
                            gif=tmp_path / "a.gif", folder=tmp_path / "frames", progress=progress)
    assert seen == [(1, 6), (2, 6), (3, 6)]
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == ["step_001.png", "step_002.png",
                                                                       "step_003.png"]
    assert not (tmp_path / "a.gif").exists()


def test_a_gif_name_without_gif_gets_it(qapp, tmp_path, capsys):
    from nodeeditor.cli import main

    assert main(["explain", "scatter9_examples", "example1", "--gif", str(tmp_path / "out.png"),
                 "--size", "320x200"]) == 0
    assert (tmp_path / "out.png.gif").exists() and not (tmp_path / "out.png").exists()
    assert f"wrote 6 frames to {tmp_path / 'out.png.gif'}" in capsys.readouterr().err


def test_the_dialog_proposes_the_last_used_folder_not_the_examples_one(window, tmp_path, monkeypatch):
    from nodeeditor.ui import settings

    monkeypatch.setattr(settings, "last_directory", lambda: str(tmp_path))
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    assert window.explainer_controller.explain("ex1_op")
    dialog = window.explainer_controller.export_slides()
    assert dialog.path.text() == str(tmp_path / "example1.gif")
    # a usual path shows whole in the box (it showed its last 20 characters)
    path = "/home/teacher/lessons/week3/scatter9_examples.gif"
    dialog.path.setText(path)
    dialog.path.setCursorPosition(len(path))
    box = dialog.path
    room = box.style().subElementRect(QtWidgets.QStyle.SubElement.SE_LineEditContents, _line_edit_option(box), box)
    assert box.fontMetrics().horizontalAdvance(path) <= room.width(), (room.width(), path)
    dialog.reject()


def _line_edit_option(box):
    option = QtWidgets.QStyleOptionFrame()
    box.initStyleOption(option)
    return option


def test_the_cap_counts_the_title_picture(qapp, monkeypatch):
    monkeypatch.setattr(slides, "MAX_FRAMES", 6)
    six = [np.arange(6.0), np.arange(6)]                # 6 steps: 7 pictures with the title
    with pytest.raises(slides.SlideError, match="has 6 steps and a title; slides hold at most 6 pictures"):
        slides.render_frames("g", "Gather", six, {}, slides.SlideOptions((320, 200), title_frame=True))
    assert len(slides.render_frames("g", "Gather", six, {}, slides.SlideOptions((320, 200)))) == 6


def test_without_pillow_a_gif_is_refused_before_anything_is_written(qapp, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(slides.SlideError, match="needs Pillow"):
        slides.write_slides("ex1", "Scatter", list(SCATTER9_EX1.inputs), {}, slides.SlideOptions((320, 200)),
                            gif=tmp_path / "a.gif", folder=tmp_path / "frames")
    assert not (tmp_path / "frames").exists()


def test_save_clicked_again_while_drawing_starts_no_second_export(window, qtbot, tmp_path, monkeypatch):
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    assert window.explainer_controller.explain("ex1_op")
    dialog = window.explainer_controller.export_slides()
    dialog.path.setText(str(tmp_path / "s.gif"))
    save = dialog.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Save)
    calls, original = [], slides.write_slides

    def counted(*args, progress=None, **kwargs):
        calls.append(1)

        def step(done, total):
            if done == 1:
                assert not save.isEnabled() and dialog.export() is False   # a second Save does nothing
            return progress(done, total)

        return original(*args, progress=step, **kwargs)

    monkeypatch.setattr(slides, "write_slides", counted)
    with qtbot.waitSignal(dialog.accepted, timeout=30000):
        QTest.mouseClick(save, QtCore.Qt.MouseButton.LeftButton)   # draws and writes inside the click
    assert len(calls) == 1 and (tmp_path / "s.gif").exists()


def test_the_title_picture_says_the_ops_attributes(qapp):
    """A lesson's title slide named the node ("reduction add") and the op only: two reductions
    of the same inputs gave the same title picture."""
    data, indices, updates = (np.arange(6, dtype=np.float32).reshape(2, 3), np.array([[1, 0, 1]]),
                              np.ones((1, 3), np.float32))
    titles = [slides.render_frames("node", "ScatterElements", [data, indices, updates], {"reduction": r},
                                   slides.SlideOptions((640, 360), title_frame=True))[0] for r in ("add", "mul")]
    assert bytes(titles[0].constBits()) != bytes(titles[1].constBits())
