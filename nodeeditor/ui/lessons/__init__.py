"""Help > Lessons: the Lessons dock (:class:`LessonsPanel`), the Quiz (:class:`QuizWidget`),
and :class:`LessonsController`, which opens a lesson's graph and runs its quiz. The lessons
and the quiz logic themselves are headless (:mod:`nodeeditor.teaching.lessons`,
:mod:`nodeeditor.teaching.quiz`)."""
from .controller import LessonsController
from .panel import LessonsPanel
from .quiz_widget import QuizWidget

__all__ = ["LessonsController", "LessonsPanel", "QuizWidget"]
