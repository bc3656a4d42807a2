"""The one place the lessons drive the Explainer (:mod:`nodeeditor.ui.explainer`).

The lessons need two things from it: start the step-through of the node it shows at a given
step, and hide the output while a quiz runs. A quiz hides the whole Explainer (its dock gives
its place to the Quiz), which hides the output too; the Explainer's finer
``set_output_hidden`` (masking only the answer) is the alternative, a change here only.
"""
from __future__ import annotations

from PySide6 import QtCore

from ..explainer import ExplainerWidget


def start_at(explainer: ExplainerWidget, step: int = 0) -> None:
    """Go to ``step`` (0-based: 0 is "step 1") of what the explainer shows (nothing when it
    shows nothing yet: it starts at step 1 when an operation arrives), and give it the
    keyboard, so Right, Left, Space, Home and End step at once."""
    explainer.set_step(step)
    explainer.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)


def hide_output(explainer: ExplainerWidget, hidden: bool) -> None:
    """Hide (or show again) the explainer's output during a quiz. For now the whole widget
    is hidden: its sentences, highlights and step table all give the answer away."""
    explainer.setVisible(not hidden)


def output_hidden(explainer: ExplainerWidget) -> bool:
    return explainer.isHidden()
