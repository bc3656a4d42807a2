"""The quiz: it accepts the right output, rejects a wrong cell with that cell's formula and
numbers, keeps a score, and makes new quizzes from a seed. The right answers in these tests
are the outputs printed on the ONNX pages (the seed pages) or plain loops, never the code
under test."""
import numpy as np
import pytest

from nodeeditor.teaching.quiz import Quiz, QuizError, QuizMode, Score, default_mode

f32 = lambda v: np.array(v, dtype=np.float32)  # noqa: E731
i64 = lambda v: np.array(v, dtype=np.int64)  # noqa: E731

# seed page Gather-11.txt, axis = 0
GATHER_DATA = f32([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]])
GATHER_INDICES = i64([[0, 1], [1, 2]])
GATHER_OUTPUT = [[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]]
# seed page Scatter-9.txt, Example 1
SCATTER_DATA = f32(np.zeros((3, 3)))
SCATTER_INDICES = i64([[1, 0, 2], [0, 2, 1]])
SCATTER_UPDATES = f32([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]])
SCATTER_OUTPUT = [[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]]
# ONNX ScatterElements page, duplicate indices with a reduction (output [[1, 5.2, 3, 4, 5]] for add)
ROW = f32([[1.0, 2.0, 3.0, 4.0, 5.0]])


def gather_quiz():
    return Quiz("Gather", [GATHER_DATA, GATHER_INDICES])


def scatter_quiz():
    return Quiz("Scatter", [SCATTER_DATA, SCATTER_INDICES, SCATTER_UPDATES])


def test_the_quiz_accepts_the_right_output_typed_from_the_page():
    quiz = gather_quiz()
    assert quiz.mode is QuizMode.FILL
    expected = np.array(GATHER_OUTPUT)
    verdicts = [quiz.answer(pos, str(expected[pos])) for pos in np.ndindex(expected.shape)]
    assert all(v.correct for v in verdicts)
    assert quiz.done
    assert quiz.score == Score(right=8, wrong=0, solved=8, total=8)


def test_a_wrong_cell_is_rejected_with_that_cells_formula_and_numbers():
    quiz = gather_quiz()
    verdict = quiz.answer((1, 0, 0), "3.4")   # output[1, 0, 0] is data[indices[1, 0] = 1, 0] = 2.3
    assert not verdict.correct
    assert verdict.headline == "output[1, 0, 0]: 3.4 is wrong; it is 2.3"
    lines = verdict.explanation.splitlines()
    assert lines[0] == "Formula: output[i, j, b] = data[indices[i, j], b]"
    assert lines[1] == "Here: output[1, 0, 0] = data[indices[1, 0], 0]"
    assert "data[1, 0] = 2.3" in lines[2] and "indices[1, 0] = 1" in lines[2]
    assert not quiz.is_solved((1, 0, 0))


def test_the_score_counts_first_tries_wrong_answers_and_solved_cells():
    quiz = gather_quiz()
    assert quiz.answer((0, 0, 0), "1").correct                 # right at once
    assert not quiz.answer((0, 0, 1), "9").correct             # wrong, then right
    assert quiz.answer((0, 0, 1), "1.2").correct
    assert not quiz.answer((0, 1, 0), "0").correct             # wrong, not solved yet
    assert quiz.score == Score(right=1, wrong=2, solved=2, total=8)
    assert quiz.score.left == 6
    assert str(quiz.score) == "1 of 8 right at the first try, 2 wrong answers, 6 left"
    # a solved cell stays solved: answering it again counts nothing
    assert not quiz.answer((0, 0, 0), "5").correct
    assert quiz.score == Score(right=1, wrong=2, solved=2, total=8)


def test_text_that_is_not_a_value_is_refused_without_counting():
    quiz = gather_quiz()
    with pytest.raises(QuizError, match="not a float32 value"):
        quiz.answer((0, 0, 0), "abc")
    with pytest.raises(QuizError, match="not a question"):
        quiz.answer((5, 0, 0), "1")
    assert quiz.score == Score(0, 0, 0, 8)
    ints = Quiz("GatherElements", [i64([[1, 2], [3, 4]]), i64([[0, 0], [1, 0]])], {"axis": 1})
    with pytest.raises(QuizError, match="not a int64 value"):
        ints.answer((0, 0), "1.5")
    assert ints.answer((0, 0), "1.0").correct      # ONNX GatherElements Example 1: [[1, 1], [4, 3]]


def test_a_scatter_asks_where_each_update_lands_in_row_major_order():
    quiz = scatter_quiz()
    assert quiz.mode is QuizMode.PLACE
    # Scatter-9: data[indices[i][j]][j] = updates[i][j] for axis 0 (a plain loop, from the page)
    landing = {(i, j): (int(SCATTER_INDICES[i, j]), j) for i in range(2) for j in range(3)}
    assert quiz.questions == tuple(sorted(landing))
    for element in sorted(landing):
        assert quiz.current == element
        assert quiz.answer(element, landing[element]).correct
    assert quiz.done and quiz.score == Score(6, 0, 6, 6)
    built = SCATTER_DATA.copy()
    for (i, j), cell in landing.items():
        built[cell] = SCATTER_UPDATES[i, j]
    np.testing.assert_allclose(built, SCATTER_OUTPUT)   # the clicks build the page's output


def test_a_wrong_click_is_explained_with_the_updates_index_and_target():
    quiz = scatter_quiz()
    verdict = quiz.answer((0, 0), (0, 0))
    assert not verdict.correct and verdict.expected == (1, 0)
    assert verdict.headline == "updates[0, 0] = 1 lands on output[1, 0], not on output[0, 0]"
    assert "Formula: output[indices[i, j], j] = updates[i, j]" in verdict.explanation
    assert "Here: output[indices[0, 0], 0] = updates[0, 0]" in verdict.explanation
    assert "indices[0, 0] = 1" in verdict.explanation
    assert quiz.current == (0, 0) and quiz.score.wrong == 1


def test_a_reduction_asks_the_folded_value_of_the_cells_the_updates_reach():
    quiz = Quiz("ScatterElements", [ROW, i64([[1, 1]]), f32([[1.1, 2.1]])], {"axis": 1, "reduction": "add"})
    assert quiz.mode is QuizMode.FILL
    assert quiz.questions == ((0, 1),)
    assert {k: float(v) for k, v in quiz.given_cells().items()} == {(0, 0): 1, (0, 2): 3, (0, 3): 4, (0, 4): 5}
    wrong = quiz.answer((0, 1), "3.2")        # 1.1 + 2.1: the data value forgotten
    assert not wrong.correct
    assert "starts as a copy of data[0, 1] = 2" in wrong.explanation
    assert "2 + 1.1" in wrong.explanation and "= 5.2 (final)" in wrong.explanation
    assert quiz.answer((0, 1), "5.2").correct   # the page's output
    mul = Quiz("ScatterElements", [ROW, i64([[1, 1]]), f32([[1.1, 2.1]])], {"axis": 1, "reduction": "mul"})
    assert not mul.answer((0, 1), "4.6").correct
    assert mul.answer((0, 1), "4.62").correct   # the page's output; float32 gives 4.6200004


def test_the_default_mode_and_what_a_gather_refuses():
    assert default_mode("Gather") is QuizMode.FILL
    assert default_mode("ScatterND", "none") is QuizMode.PLACE
    assert default_mode("ScatterElements", "max") is QuizMode.FILL
    assert default_mode("TensorScatter") is QuizMode.PLACE
    with pytest.raises(QuizError, match="gather"):
        Quiz("Gather", [GATHER_DATA, GATHER_INDICES], mode=QuizMode.PLACE)


def test_reveal_ends_the_quiz_and_keeps_the_score():
    quiz = scatter_quiz()
    quiz.answer((0, 0), (1, 0))
    quiz.reveal()
    assert quiz.done and quiz.current is None
    assert quiz.score == Score(1, 0, 1, 6)


def test_the_same_seed_gives_the_same_quiz_and_another_seed_another():
    quiz = scatter_quiz()
    a, b, c = quiz.another(1234), quiz.another(1234), quiz.another(99)
    assert a.seed == 1234
    for x, y in zip(a.inputs, b.inputs, strict=True):
        np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(x, y) for x, y in zip(a.inputs, c.inputs, strict=True))
    for x, y in zip(quiz.inputs, a.inputs, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype
    assert a.mode is quiz.mode and a.attrs == quiz.attrs


def _targets_along_axis(indices, axis, size):
    """Where each element of a ScatterElements-style indices tensor writes (plain loop)."""
    cells = []
    for pos in np.ndindex(indices.shape):
        cell = list(pos)
        cell[axis] = int(indices[pos]) % size
        cells.append(tuple(cell))
    return cells


@pytest.mark.parametrize("seed", range(12))
def test_new_scatter_indices_are_in_range_and_never_collide_without_a_reduction(seed):
    quiz = scatter_quiz().another(seed)
    indices = quiz.inputs[1]
    assert indices.min() >= 0 and indices.max() < 3
    cells = _targets_along_axis(indices, 0, 3)
    assert len(set(cells)) == len(cells)


@pytest.mark.parametrize("seed", range(12))
def test_new_indices_with_a_reduction_send_two_updates_to_one_cell(seed):
    base = Quiz("ScatterElements", [f32(np.zeros((2, 4))), i64([[0, 1, 2], [3, 2, 1]]),
                                    f32([[1, 2, 3], [4, 5, 6]])], {"axis": 1, "reduction": "max"})
    quiz = base.another(seed)
    cells = _targets_along_axis(quiz.inputs[1], 1, 4)
    assert len(set(cells)) < len(cells)


def test_negative_indices_stay_in_a_quiz_about_them_and_land_in_range():
    base = Quiz("ScatterElements", [ROW, i64([[1, -3]]), f32([[1.1, 2.1]])], {"axis": 1})
    drawn = [base.another(seed).inputs[1] for seed in range(20)]
    assert any((d < 0).any() for d in drawn)
    for d in drawn:
        assert d.min() >= -5 and d.max() < 5
        cells = _targets_along_axis(d, 1, 5)
        assert len(set(cells)) == len(cells)
    assert not any((scatter_quiz().another(seed).inputs[1] < 0).any() for seed in range(20))


@pytest.mark.parametrize("seed", range(8))
def test_new_nd_and_cache_indices_are_valid_for_their_op(seed):
    # ScatterND-13 Example 1: tuples into 8 elements, distinct
    nd = Quiz("ScatterND", [i64(np.arange(1, 9)), i64([[4], [3], [1], [7]]), i64([9, 10, 11, 12])]).another(seed)
    tuples = nd.inputs[1][:, 0].tolist()
    assert all(0 <= t < 8 for t in tuples) and len(set(tuples)) == 4
    # GatherND with batch_dims 1: each tuple indexes axis 1 of length 2
    gnd = Quiz("GatherND", [i64(np.arange(8).reshape(2, 2, 2)), i64([[1], [0]])], {"batch_dims": 1}).another(seed)
    assert set(gnd.inputs[1].ravel().tolist()) <= {0, 1}
    # TensorScatter linear: start + sequence length <= max_sequence_length (4), per sample
    ts = Quiz("TensorScatter", [f32(np.zeros((2, 1, 4, 5))), f32(np.ones((2, 1, 2, 5))), i64([1, 2])]).another(seed)
    assert all(0 <= w <= 2 for w in ts.inputs[2].tolist())


def test_new_values_keep_the_dtype_and_are_easy_numbers():
    quiz = Quiz("ScatterElements", [np.zeros((2, 3), np.float16), np.array([[0, 1, 2], [2, 1, 0]], np.int32),
                                    np.ones((2, 3), np.float16)], {"axis": 1, "reduction": "add"}).another(7)
    data, indices, updates = quiz.inputs
    assert (data.dtype, indices.dtype, updates.dtype) == (np.float16, np.int32, np.float16)
    tenths = data.astype(np.float64) * 10
    np.testing.assert_allclose(tenths, np.round(tenths), atol=0.05)   # one decimal
    assert len(set(data.ravel().tolist())) == data.size                # distinct
    # a float16 sum typed to two decimals counts as right
    cell = quiz.questions[0]
    assert quiz.answer(cell, f"{float(quiz.output[cell]):.2f}").correct


def test_a_quiz_too_large_or_empty_is_refused():
    with pytest.raises(QuizError, match="too many"):
        Quiz("Gather", [f32(np.zeros((30, 30))), i64(np.zeros(20, np.int64))])   # 600 output cells
    with pytest.raises(QuizError, match="nothing to ask"):
        Quiz("Gather", [f32(np.zeros((3, 2))), i64(np.zeros((0,), np.int64))])


# ---------------------------------------------------------------------- slices (GatherND, ScatterND)
# seed page GatherND-13, example 3 (a short tuple picks a row): data [[0, 1], [2, 3]],
# indices [[1], [0]] -> output [[2, 3], [0, 1]]
ND_DATA = i64([[0, 1], [2, 3]])
ND_INDICES = i64([[1], [0]])
ND_OUTPUT = [[2, 3], [0, 1]]


def test_a_gathernd_slice_quiz_asks_every_element_of_every_slice():
    quiz = Quiz("GatherND", [ND_DATA, ND_INDICES])
    expected = np.array(ND_OUTPUT)
    assert sorted(quiz.questions) == sorted(np.ndindex(expected.shape))
    verdicts = [quiz.answer(pos, str(expected[pos])) for pos in np.ndindex(expected.shape)]
    assert all(v.correct for v in verdicts) and quiz.done
    assert "output[1, 0]" in verdicts[2].headline and "data[0, 0]" in verdicts[2].explanation
    wrong = Quiz("GatherND", [ND_DATA, ND_INDICES]).answer((1, 1), "12345")
    assert not wrong.correct and "it is 1" in wrong.headline


def test_a_scatternd_slice_quiz_asks_where_each_slice_lands():
    """ScatterND with k = 1 on a (3, 2) data: the spec's loop moves updates[i] (a row) to
    output[indices[i]] whole, so one click on any cell of that row places it; a cell of
    another row is wrong."""
    data = np.zeros((3, 2), np.float32)
    indices = i64([[2], [0]])
    updates = f32([[1.5, 2.5], [3.5, 4.5]])
    quiz = Quiz("ScatterND", [data, indices, updates])
    assert quiz.mode is QuizMode.PLACE and quiz.unit == 2
    assert quiz.questions == ((0, 0), (1, 0))
    assert quiz.slice_elements((1, 0)) == [(1, 0), (1, 1)]
    assert quiz.landing_cells((1, 0)) == [(0, 0), (0, 1)]
    wrong = quiz.answer((0, 0), (0, 1))                       # the row of updates[1]
    assert not wrong.correct
    assert wrong.headline == "updates[0, :] = [1.5, 2.5] lands on output[2, :], not on output[0, 1]"
    assert "its 2 elements land on output[2, 0], output[2, 1]" in wrong.explanation
    assert quiz.answer((0, 0), (2, 1)).correct                # any cell of the slice's row
    verdict = quiz.answer((1, 0), (0, 0))
    assert verdict.correct and verdict.headline == "updates[1, :] = [3.5, 4.5] lands on output[0, :]: right"
    assert quiz.done and quiz.score.total == 2 and quiz.score.wrong == 1


def test_a_tensorscatter_place_quiz_asks_one_click_per_sequence_row():
    """TensorScatter (circular, max_sequence_length 4): update[b, s, :] is written to
    cache[b, (write_indices[b] + s) mod 4, :] (ONNX TensorScatter page), a row at a time."""
    cache = np.zeros((2, 4, 3), np.float32)
    update = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    write_indices = i64([3, 1])
    quiz = Quiz("TensorScatter", [cache, update, write_indices], {"mode": "circular"})
    assert quiz.mode is QuizMode.PLACE
    assert quiz.questions == ((0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0))
    for b, s, _ in quiz.questions:
        row = (int(write_indices[b]) + s) % 4
        assert quiz.landing_cells((b, s, 0)) == [(b, row, c) for c in range(3)]
        assert not quiz.answer((b, s, 0), (b, (row + 1) % 4, 0)).correct
        assert quiz.answer((b, s, 0), (b, row, 2)).correct
    assert quiz.done and quiz.score.solved == 4


def test_a_large_slice_is_named_by_its_position_and_size_not_its_values():
    data = np.zeros((2, 5, 4), np.float32)
    quiz = Quiz("ScatterND", [data, i64([[1]]), np.ones((1, 5, 4), np.float32)])
    assert quiz.question_text((0, 0, 0)) == "updates[0, :, :] (20 values)"
    verdict = quiz.answer((0, 0, 0), (1, 4, 3))
    assert verdict.headline == "updates[0, :, :] (20 values) lands on output[1, :, :]: right"
    # the explanation names the slice, not its 20 cells (1000 made 18,583 characters, on every cell's tooltip)
    assert verdict.explanation.endswith("its 20 elements land on output[1, :, :].")
