"""The quiz of a lesson: the learner works out an op's output, each answer is checked.

A :class:`Quiz` holds one op application (op, inputs, attributes) and asks about it in one of
two ways (:class:`QuizMode`):

- ``FILL``: type the value of each asked output cell. A gather asks every output cell; a
  scatter asks the cells some update reaches (the others are copies of ``data``, given).
- ``PLACE`` (scatters only): click the output cell where each update lands, one update at a
  time in row-major order (the explainer's step order). Where one index moves a whole slice
  (ScatterND with index tuples shorter than the rank of ``data``, TensorScatter's sequence
  rows), a question is that slice: one click on any cell where it lands places all of it.

The right answers are never worked out here: values come from running the op
(:func:`ops.run_op`), landing cells from its index map through :class:`ops.explain.Explanation`.
A wrong answer's :attr:`Verdict.explanation` is that element's formula
(:func:`ops.formula`), the formula with the element's coordinates put in, and the
explainer's sentence for that step, which has the numbers.

Scoring: a question is *solved* by its first right answer; :class:`Score` counts the
questions solved at the first try, the wrong answers given, and the questions solved. A solved
question stays solved (answering it again changes nothing); :meth:`Quiz.reveal` gives up on
the rest.

"Another one": :meth:`Quiz.another` draws new inputs of the same shapes and dtypes from
``numpy.random.default_rng(seed)``, so the same quiz and seed always give the same new quiz (a
class shares a seed). Drawn indices are valid for the op (in range; negative ones only when
the quiz's own indices had some); for a scatter without a reduction no two updates reach one
cell, for one with a reduction at least two do, whenever the shapes allow it. Values are small
and easy to add up: distinct numbers with one decimal (floats) or distinct small integers.

No Qt. A Quiz is used from one thread.
"""
from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

import ops
from ops import formula as op_formula
from ops.dtypes import COMPLEX_NAMES, INTEGER_NAMES, dtype_name
from ops.explain import Explanation, Granularity, Move, position_text, value_text, values_text
from ops.opdef import PortRole

#: At most this many questions (output cells or update elements) in one quiz.
MAX_QUESTIONS = 400
#: A PLACE question names its slice's values when it has at most this many (the lessons' 4 x 4
#: blocks); a larger slice is named by its position and size.
SLICE_VALUES_SHOWN = 16


class QuizError(ValueError):
    """The quiz cannot be built (too large, no elements, a mode the op does not have), or an
    answer cannot be read (not a value of the output's dtype, a question not asked)."""


class QuizMode(enum.Enum):
    """How the learner answers (see the module docstring)."""

    FILL = "fill"
    PLACE = "place"


def default_mode(op: str, reduction: str | None = None) -> QuizMode:
    """PLACE for a scatter that only writes (no reduction): where each update lands is the
    whole question; FILL for gathers and for reductions (the folded value is the question)."""
    writes = ops.get_opdef(op).writes
    return QuizMode.PLACE if writes and (reduction or "none") == "none" else QuizMode.FILL


@dataclass(frozen=True)
class Verdict:
    """The check of one answer. ``question`` is an output position (FILL) or an update
    element (PLACE); ``expected`` the right value (FILL) or landing cell (PLACE); ``given`` what
    the learner gave (parsed). ``headline`` says in one line whether it was right and what is
    (``output[1, 0]: 3.4 is wrong; it is 4.5``); ``explanation`` is always set: the formula and
    the numbers."""

    correct: bool
    question: tuple[int, ...]
    expected: Any
    given: Any
    headline: str
    explanation: str


@dataclass(frozen=True)
class Score:
    """``right``: questions solved at the first try; ``wrong``: wrong answers given;
    ``solved``: questions solved at any try; ``total``: questions asked."""

    right: int
    wrong: int
    solved: int
    total: int

    @property
    def left(self) -> int:
        return self.total - self.solved

    def __str__(self) -> str:
        return f"{self.right} of {self.total} right at the first try, {self.wrong} wrong answer" \
               f"{'s' * (self.wrong != 1)}, {self.left} left"


class Quiz:
    """One op application to work out (see the module docstring). ``inputs`` in schema
    order (None for an omitted optional input); ``seed`` is the seed the inputs were drawn
    with (None: given inputs, e.g. the lesson's example)."""

    def __init__(self, op: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None = None,
                 mode: QuizMode | None = None, seed: int | None = None) -> None:
        self.op = op
        self.opdef = ops.get_opdef(op)
        self.attrs = self.opdef.schema.check_attributes(attrs)
        self.inputs = tuple(None if x is None else np.asarray(x) for x in inputs)
        self.seed = seed
        self.reduction = self.attrs.get("reduction", "none")
        self.mode = default_mode(op, self.reduction) if mode is None else mode
        if self.mode is QuizMode.PLACE and not self.opdef.writes:
            raise QuizError(f"{op} is a gather: nothing lands anywhere, so a quiz on it fills in the output")
        try:
            self.output = ops.run_op(op, self.inputs, self.attrs)   # the right values
            # the right places and the sentences, one step per element: a quiz asks about
            # elements, also where the explainer moves whole slices (GatherND, ScatterND)
            self.explanation = Explanation(op, self.inputs, self.attrs, Granularity.ELEMENT)
        except ops.OpError as exc:
            raise QuizError(str(exc)) from None
        #: Update elements per PLACE question: the slice one index moves (1: single elements).
        self.unit = max(1, self.explanation.map.block) if self.mode is QuizMode.PLACE else 1
        self.questions: tuple[tuple[int, ...], ...] = self._questions()
        if not self.questions:
            raise QuizError(f"{op}: nothing to ask (no elements)")
        self._asked = set(self.questions)
        self._tries: dict[tuple[int, ...], int] = {}
        self._solved: set[tuple[int, ...]] = set()
        self._right = self._wrong = 0
        self.revealed = False

    # ------------------------------------------------------------------ what is asked
    def _questions(self) -> tuple[tuple[int, ...], ...]:
        """The update slices by their first element (PLACE), the output cells (a gather) or the
        output cells some update reaches (a scatter), row-major; QuizError above MAX_QUESTIONS."""
        if self.mode is QuizMode.PLACE:
            flats, shape = np.arange(0, self.explanation.count, self.unit), self.explanation.map.element_shape
        elif not self.opdef.writes:
            flats, shape = np.arange(self.output.size), self.output.shape
        else:
            flats, shape = np.unique(self._target_flats()), self.output.shape
        if len(flats) > MAX_QUESTIONS:
            raise QuizError(f"{self.op}: {len(flats)} questions is too many for a quiz "
                            f"(at most {MAX_QUESTIONS}; use a smaller example)")
        if not len(flats):
            return ()
        coords = np.unravel_index(flats, shape) if len(shape) else ()
        return tuple(tuple(int(c[n]) for c in coords) for n in range(len(flats)))

    def _target_flats(self) -> np.ndarray:
        """The output cell (flat) each update element reaches, in step order."""
        imap = self.explanation.map
        rows = np.asarray(imap.rows).reshape(-1)
        k = np.arange(self.explanation.count)
        return rows[k // imap.block] * imap.block + k % imap.block

    @property
    def data(self) -> np.ndarray:
        """The input read from (gathers) or copied and written into (scatters)."""
        return self.inputs[self.opdef.input_index(self.opdef.data_port)]

    def is_asked(self, question: Sequence[int]) -> bool:
        return tuple(question) in self._asked

    def given_cells(self) -> dict[tuple[int, ...], Any]:
        """FILL on a scatter: the output cells no update reaches, with their value (a copy of
        ``data``); shown to the learner, not asked. Empty otherwise."""
        if self.mode is not QuizMode.FILL or not self.opdef.writes:
            return {}
        return {tuple(int(i) for i in p): self.output[p] for p in np.ndindex(self.output.shape)
                if tuple(int(i) for i in p) not in self._asked}

    @property
    def current(self) -> tuple[int, ...] | None:
        """The first unsolved question in order (what PLACE asks now); None when done."""
        if self.revealed:
            return None
        return next((q for q in self.questions if q not in self._solved), None)

    @property
    def done(self) -> bool:
        return self.current is None

    def is_solved(self, question: Sequence[int]) -> bool:
        return tuple(question) in self._solved

    def step_of(self, element: Sequence[int]) -> int:
        """The explainer's step (0-based) of an update element (PLACE) or output cell (gather)."""
        return int(np.ravel_multi_index(tuple(element), self.explanation.map.element_shape)) \
            if len(element) else 0

    def expected(self, question: Sequence[int]) -> Any:
        """The right answer: an output value (FILL) or the landing cell (PLACE; of the slice's
        first element, where a question is a slice)."""
        question = self._check_asked(question)
        if self.mode is QuizMode.PLACE:
            return self.explanation.move(self.step_of(question)).target
        return self.output[question]

    def slice_steps(self, question: Sequence[int]) -> range:
        """PLACE: the explainer's steps of the update elements ``question`` places (one, or
        its slice's)."""
        first = self.step_of(question)
        return range(first, first + self.unit)

    def slice_elements(self, question: Sequence[int]) -> list[tuple[int, ...]]:
        """PLACE: the update elements ``question`` places, in order (its first element alone,
        or its whole slice)."""
        return [self.explanation.move(k).element for k in self.slice_steps(question)]

    def landing_cells(self, question: Sequence[int]) -> list[tuple[int, ...]]:
        """PLACE: the output cells ``question``'s elements land on, in the order of
        :meth:`slice_elements`; a click on any of them is right."""
        return [self.explanation.move(k).target for k in self.slice_steps(question)]

    def update_value(self, element: Sequence[int]) -> Any:
        """PLACE: the value update element ``element`` writes (a question's first element)."""
        return self.explanation.move(self.step_of(element)).value

    def question_text(self, question: Sequence[int]) -> str:
        """PLACE: what the question places, with its value(s): ``updates[1, 0] = 3.5``, for a
        slice ``updates[1, :] = [4, 5, 6]``, or ``updates[1, :] (40 values)`` for a slice of more
        than :data:`SLICE_VALUES_SHOWN`."""
        source = self.opdef.updates_port
        if self.unit == 1:
            return f"{source}{position_text(question)} = {value_text(self.update_value(question))}"
        prefix = self._slice_prefix(question)
        where = f"{source}{position_text(prefix, len(question))}"
        if self.unit > SLICE_VALUES_SHOWN:
            return f"{where} ({self.unit} values)"
        return f"{where} = {values_text(self.inputs[self.opdef.input_index(source)][prefix])}"

    def landing_text(self, question: Sequence[int]) -> str:
        """PLACE: where ``question`` lands: ``output[2, 1]``, or for a slice ``output[2, :]``."""
        target = tuple(self.expected(question))
        if self.unit == 1:
            return f"output{position_text(target)}"
        kept = len(target) - len(self.explanation.map.block_shape)
        return f"output{position_text(target[:kept], len(target))}"

    def _slice_prefix(self, question: Sequence[int]) -> tuple[int, ...]:
        """The index part of a slice question's first element (what one index decides)."""
        return tuple(question)[: len(question) - len(self.explanation.map.block_shape)]

    @property
    def score(self) -> Score:
        return Score(self._right, self._wrong, len(self._solved), len(self.questions))

    # ------------------------------------------------------------------ answering
    def answer(self, question: Sequence[int], given: Any) -> Verdict:
        """Check ``given`` for ``question`` and count it (see Scoring in the module
        docstring). FILL: ``given`` is text or a number, read as the output's dtype (QuizError,
        not counted, when it is not such a value); PLACE: the clicked output cell."""
        question = self._check_asked(question)
        expected = self.expected(question)
        if self.mode is QuizMode.PLACE:
            given = tuple(int(i) for i in given)
            correct = given in self.landing_cells(question)
        else:
            given = parse_value(given, self.output.dtype)
            correct = values_match(given, expected, self.output.dtype)
        verdict = Verdict(correct, question, expected, given, self._headline(question, expected, given, correct),
                          self.explain(question))
        if question not in self._solved and not self.revealed:
            self._tries[question] = self._tries.get(question, 0) + 1
            if correct:
                self._solved.add(question)
                self._right += self._tries[question] == 1
            else:
                self._wrong += 1
        return verdict

    def _headline(self, question: tuple[int, ...], expected: Any, given: Any, correct: bool) -> str:
        if self.mode is QuizMode.PLACE:
            what = f"{self.question_text(question)} lands on {self.landing_text(question)}"
            return f"{what}: right" if correct else f"{what}, not on output{position_text(given)}"
        cell = f"output{position_text(question)}"
        if correct:
            return f"{cell} = {value_text(expected)}: right"
        return f"{cell}: {value_text(given)} is wrong; it is {value_text(expected)}"

    def reveal(self) -> None:
        """Give up on the unsolved questions: the quiz is done, the score stays."""
        self.revealed = True

    def _check_asked(self, question: Sequence[int]) -> tuple[int, ...]:
        question = tuple(int(i) for i in question)
        if question not in self._asked:
            what = "update" if self.mode is QuizMode.PLACE else "output cell"
            raise QuizError(f"{what} {position_text(question)} is not a question of this quiz")
        return question

    # ------------------------------------------------------------------ explaining
    def formula(self) -> str | None:
        """The op's formula for these ranks and attributes (None where the op has none)."""
        idx = self.inputs[self.opdef.input_index(self.opdef.index_ports[0])]
        data = self.data
        return op_formula(self.op, self.attrs, data.ndim, None if idx is None else idx.ndim,
                          None if idx is None or idx.ndim == 0 else int(idx.shape[-1]))

    def explain(self, question: Sequence[int]) -> str:
        """Why the answer to ``question`` is what it is: the formula, then per step that
        decides it the formula with the coordinates put in and the explainer's sentence."""
        question = tuple(int(i) for i in question)
        e = self.explanation
        if self.mode is QuizMode.PLACE or not self.opdef.writes:
            moves = [e.move(self.step_of(question))]
            lead = []
        else:
            flat = int(np.ravel_multi_index(question, self.output.shape)) if question else 0
            moves = [e.move(k) for k in e.contributors(flat)]
            lead = [f"output{position_text(question)} starts as a copy of "
                    f"{self.opdef.data_port}{position_text(question)} = {value_text(self.data[question])}"]
        general = self.formula()
        lines = [f"Formula: {general}"] if general else []
        lines += lead
        for move in moves:
            here = _with_coordinates(general, move, writes=self.opdef.writes)
            if here:
                lines.append(f"Here: {here}")
            lines.append(move.text)
        if self.mode is QuizMode.PLACE and self.unit > 1:
            cells = (", ".join(f"output{position_text(c)}" for c in self.landing_cells(question))
                     if self.unit <= SLICE_VALUES_SHOWN else self.landing_text(question))
            lines.append(f"The index moves the whole slice: its {self.unit} elements land on {cells}.")
        return "\n".join(lines)

    # ------------------------------------------------------------------ another one
    def another(self, seed: int) -> Quiz:
        """A quiz of the same op, attributes, mode, shapes and dtypes on inputs drawn with
        ``seed`` (see the module docstring)."""
        rng = np.random.default_rng(int(seed))
        inputs = random_inputs(self.op, self.inputs, self.attrs, rng)
        return Quiz(self.op, inputs, self.attrs, self.mode, seed=int(seed))


def same_inputs(a: Sequence[np.ndarray | None], b: Sequence[np.ndarray | None]) -> bool:
    """Whether two input lists hold the same arrays (dtype, shape and values, NaN alike; None
    alike): a quiz on either asks the same."""
    def same(x, y) -> bool:
        if x is None or y is None:
            return x is None and y is None
        x, y = np.asarray(x), np.asarray(y)
        return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))


# ---------------------------------------------------------------------- answers as values
def parse_value(given: Any, dtype: np.dtype) -> Any:
    """``given`` (text the learner typed, or a number) as a value of ``dtype``; QuizError when
    it is not one (``abc`` for a float, ``1.5`` for an integer)."""
    name = dtype_name(np.empty(0, dtype))
    if not isinstance(given, str):
        return given
    text = given.strip()
    try:
        if name == "bool":
            words = {"true": True, "1": True, "false": False, "0": False}
            if text.lower() not in words:
                raise ValueError
            return words[text.lower()]
        if name in INTEGER_NAMES or name in ("int4", "uint4"):
            number = float(text)
            if not number.is_integer():
                raise ValueError
            return int(number)
        if name in COMPLEX_NAMES:
            return complex(text.replace(" ", "").replace("i", "j"))
        if name == "string":
            return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text
        return float(text)   # float32/64/16, bfloat16 and the small float formats
    except ValueError:
        raise QuizError(f"“{given}” is not a {name} value") from None


def values_match(given: Any, expected: Any, dtype: np.dtype) -> bool:
    """Whether a learner's value counts as ``expected``: equal for integers, booleans and
    strings; for floats within a few units of the dtype's precision (at least 1e-4 relative),
    since a typed ``5.2`` is not bit for bit the float32 sum 2 + 1.1 + 2.1; NaN matches NaN."""
    name = dtype_name(np.empty(0, dtype))
    if name == "string" or name == "bool" or name in INTEGER_NAMES:
        return given == expected
    try:
        eps = float(np.finfo(dtype).eps)
    except ValueError:   # ml_dtypes formats
        import ml_dtypes

        eps = float(ml_dtypes.finfo(dtype).eps)
    rtol = max(1e-4, 4 * eps)
    kind = complex if name in COMPLEX_NAMES else float
    try:
        return bool(np.isclose(kind(given), kind(np.asarray(expected, dtype=np.complex128 if kind is complex
                                                              else np.float64)), rtol=rtol, atol=1e-6,
                               equal_nan=True))
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------- explaining
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _with_coordinates(general: str | None, move: Move, writes: bool) -> str | None:
    """``general`` (``output[i, j] = data[indices[i, j], j]``) with the coordinates of
    ``move``'s element put in for the names that stand for them (the output's for a gather,
    the updates' for a scatter); None when the formula does not name them that way."""
    if not general:
        return None
    tensor = "updates" if writes else "output"
    start = general.find(f"{tensor}[")
    if start < 0:
        return None if move.element else general
    end = general.find("]", start)
    names = [n.strip() for n in general[start + len(tensor) + 1:end].split(",")]
    if len(names) != len(move.element) or not all(_NAME.fullmatch(n) for n in names):
        return None
    values = dict(zip(names, (str(v) for v in move.element), strict=True))
    return re.sub(r"\b[A-Za-z_][A-Za-z_0-9]*\b", lambda m: values.get(m.group(0), m.group(0)), general)


# ---------------------------------------------------------------------- random inputs
def random_inputs(op: str, like: Sequence[np.ndarray | None], attrs: Mapping[str, Any],
                  rng: np.random.Generator) -> list[np.ndarray | None]:
    """Inputs of the shapes and dtypes of ``like`` (schema order, None stays None) for ``op``
    with ``attrs`` (checked): values from :func:`random_values`, indices valid for the op (see
    the module docstring). QuizError when no valid index exists (an axis of length 0)."""
    opdef = ops.get_opdef(op)
    attrs = opdef.schema.check_attributes(attrs)
    out: list[np.ndarray | None] = []
    for i, port in enumerate(p.name for p in opdef.schema.inputs):
        value = like[i] if i < len(like) else None
        if value is None:
            out.append(None)
        elif opdef.role(port) is PortRole.INDICES:
            out.append(None)   # drawn below, once data and updates are known
        else:
            out.append(random_values(value.shape, value.dtype, rng))
    for i, port in enumerate(p.name for p in opdef.schema.inputs):
        if i < len(like) and like[i] is not None and opdef.role(port) is PortRole.INDICES:
            drawn = _INDEX_DRAWS[op](opdef, np.asarray(like[i]), list(like), dict(attrs), rng)
            out[i] = drawn.astype(np.asarray(like[i]).dtype)
    return out


def random_values(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    """Easy values of ``dtype``: distinct numbers 0.1..10.0 with one decimal (floats; the
    real part of complex numbers), distinct integers from 1 (integers), random booleans,
    distinct short words (strings). Distinct while the size allows it."""
    dtype = np.dtype(dtype)
    name = dtype_name(np.empty(0, dtype))
    n = prod(shape)
    if name == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if name == "string":
        words = np.array([f"{chr(97 + i % 26)}{i // 26 or ''}" for i in rng.permutation(max(26, n))[:n]],
                         dtype=object)
        return words.reshape(shape)
    if name in INTEGER_NAMES or name in ("int4", "uint4"):
        top = 7 if name in ("int4", "uint4") else min(max(20, n), int(np.iinfo(dtype).max))
        picks = rng.permutation(np.arange(1, top + 1))[:n] if n <= top else rng.integers(1, top + 1, n)
        return picks.reshape(shape).astype(dtype)
    tenths = rng.permutation(np.arange(1, max(100, n) + 1))[:n] / 10.0
    if name in COMPLEX_NAMES:
        return tenths.reshape(shape).astype(dtype)
    return np.asarray(tenths.reshape(shape), dtype=np.float32).astype(dtype)


def _negatives(values: np.ndarray, sizes: np.ndarray | int, like: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Half of ``values`` (each in 0..size-1) written counted from the end, when ``like`` has
    negative indices: a lesson on negative indices keeps asking about them."""
    if like.size == 0 or not np.any(like < 0):
        return values
    flip = rng.integers(0, 2, size=values.shape).astype(bool)
    return np.where(flip, values - sizes, values)


def _along_axis(like: np.ndarray, size: int, axis: int, distinct: bool, collide: bool,
                rng: np.random.Generator) -> np.ndarray:
    """Indices of ``like``'s shape, each in 0..size-1; with ``distinct``, no two equal along
    ``axis`` (each line a prefix of a permutation) when the line is no longer than ``size``;
    with ``collide``, two equal in some line when a line has two or more."""
    if size == 0:
        raise QuizError(f"no index is valid for an axis of length 0 (indices {list(like.shape)})")
    if like.ndim == 0:
        return np.asarray(rng.integers(0, size))
    moved = np.moveaxis(np.empty(like.shape), axis, -1)
    n = moved.shape[-1]
    lines = prod(moved.shape[:-1])
    if distinct and n <= size:
        drawn = np.stack([rng.permutation(size)[:n] for _ in range(lines)]) if lines else np.empty((0, n))
    else:
        drawn = rng.integers(0, size, size=(lines, n))
        if collide and lines and n >= 2 and not any(len(set(row)) < n for row in drawn.tolist()):
            line, (a, b) = rng.integers(0, lines), rng.choice(n, size=2, replace=False)
            drawn[line, b] = drawn[line, a]
    return np.moveaxis(drawn.reshape(moved.shape), -1, axis).astype(np.int64)


def _gather_indices(_opdef, like, inputs, attrs, rng):
    data = inputs[0]
    size = data.shape[attrs["axis"] % data.ndim]
    if size == 0:
        raise QuizError("Gather: data has no rows along the axis, so no index is valid")
    drawn = rng.integers(0, size, size=like.shape)
    return _negatives(drawn, size, like, rng)


def _elementwise_indices(opdef, like, inputs, attrs, rng):
    """GatherElements, Scatter, ScatterElements: along ``axis``; a scatter without a
    reduction keeps each line's indices distinct (no two updates in one cell), one with a
    reduction sends two updates to one cell (the fold is the lesson)."""
    data = inputs[0]
    axis = attrs["axis"] % data.ndim
    size = data.shape[axis]
    reduces = attrs.get("reduction", "none") != "none"
    drawn = _along_axis(like, size, axis, opdef.writes and not reduces, opdef.writes and reduces, rng)
    return _negatives(drawn, size, like, rng)


def _nd_indices(opdef, like, inputs, attrs, rng):
    """GatherND, ScatterND: tuples of ``k`` indices into the leading (after ``batch_dims``)
    axes of data; a ScatterND without a reduction gets distinct tuples when there are enough,
    one with a reduction two equal ones when it has two or more."""
    data = inputs[0]
    if like.ndim == 0:
        raise QuizError("the indices of GatherND and ScatterND have rank 1 or more")
    batch = int(attrs.get("batch_dims", 0))
    k = like.shape[-1]
    dims = np.array(data.shape[batch:batch + k], dtype=np.int64)
    count = prod(like.shape[:-1])
    if k and (len(dims) < k or np.any(dims == 0)):
        raise QuizError(f"no index tuple is valid for data {list(data.shape)}")
    total = prod(int(d) for d in dims)
    reduces = attrs.get("reduction", "none") != "none"
    if opdef.writes and not reduces and count <= total:
        flat = rng.choice(total, size=count, replace=False)
    else:
        flat = rng.integers(0, max(total, 1), size=count)
        if opdef.writes and reduces and count >= 2 and len(set(flat.tolist())) == count:
            a, b = rng.choice(count, size=2, replace=False)
            flat[b] = flat[a]
    tuples = np.stack(np.unravel_index(flat, tuple(int(d) for d in dims)), axis=-1) if k else np.empty((count, 0))
    drawn = tuples.reshape(like.shape).astype(np.int64)
    return _negatives(drawn, dims, like, rng)


def _write_indices(_opdef, like, inputs, attrs, rng):
    """TensorScatter: a start position per batch sample; linear mode keeps every write inside
    the cache (start + sequence_length <= max_sequence_length), circular may wrap."""
    cache, update = inputs[0], inputs[1]
    axis = attrs["axis"] % cache.ndim
    longest, length = cache.shape[axis], update.shape[axis]
    top = longest if attrs.get("mode", "linear") == "circular" else longest - length + 1
    return rng.integers(0, max(top, 1), size=like.shape)


#: How to draw valid indices for each op: ``draw(opdef, like_indices, like_inputs, attrs, rng)``.
_INDEX_DRAWS = {
    "Gather": _gather_indices,
    "GatherElements": _elementwise_indices,
    "Scatter": _elementwise_indices,
    "ScatterElements": _elementwise_indices,
    "GatherND": _nd_indices,
    "ScatterND": _nd_indices,
    "TensorScatter": _write_indices,
}
