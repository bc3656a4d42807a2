"""Lessons are data files: every bundled one loads, together they cover every op, every
reduction and every worked example of the seed pages, a teacher's new file needs no code,
and a bad file is refused with its name and the field."""
import fnmatch
from pathlib import Path

import numpy as np
import pytest
import tomllib

import ops
from nodeeditor.graph import Graph, save_graph
from nodeeditor.graph.resources import resource_dir
from nodeeditor.teaching.lessons import (
    LESSONS_DIR,
    LessonError,
    find_lesson,
    list_lessons,
    node_inputs,
    read_lesson,
    scan_lessons,
)
from nodeeditor.teaching.quiz import QuizMode

ROOT = Path(__file__).resolve().parents[2]

#: The worked examples of the seed pages (example graph, op node): Scatter-9, ScatterND-13,
#: Gather-11, and the toolkit's ScatterElements with each reduction.
SEED_EXAMPLES = {
    ("scatter9_examples", "ex1_op"), ("scatter9_examples", "ex2_op"),
    ("scatternd13_examples", "ex1_op"), ("scatternd13_examples", "ex2_op"),
    ("gather11_examples", "axis0_op"), ("gather11_examples", "axis1_op"),
    ("scatterelements_examples", "ex2_op"), ("scatterelements_examples", "add_op"),
    ("scatterelements_examples", "mul_op"), ("scatterelements_examples", "max_op"),
    ("scatterelements_examples", "min_op"),
}

GOOD = '''
id = "my-gather"
title = "My Gather"
op = "Gather"
node = "g"
what = "Picks rows."
formula = "output[i, b] = data[indices[i], b]"
mistake = "Forgetting the rows."
'''


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def teacher_graph(folder: Path) -> Path:
    g = Graph("a teacher's graph", 13)
    g.add_literal(np.arange(6, dtype=np.float32).reshape(3, 2), name="data", node_id="data")
    g.add_literal(np.array([2, 0], np.int64), name="indices", node_id="indices")
    g.add_operator("Gather", node_id="g")
    g.add_output("out", node_id="out")
    g.connect("data", "output", "g", "data")
    g.connect("indices", "output", "g", "indices")
    g.connect("g", "output", "out", "value")
    return save_graph(g, folder / "mine.ifg.json")


def test_every_bundled_lesson_loads_and_has_its_three_texts():
    scan = scan_lessons()
    assert scan.errors == ()
    assert len(scan.lessons) >= 19
    assert len({x.id for x in scan.lessons}) == len(scan.lessons)
    for lesson in scan.lessons:
        assert lesson.title and lesson.what and lesson.formula and lesson.mistake
        assert lesson.path.parent == LESSONS_DIR
        assert lesson.example is not None   # the bundled lessons use bundled examples


def test_lessons_cover_every_op_every_reduction_and_every_seed_worked_example():
    lessons = list_lessons()
    assert {x.op for x in lessons} == set(ops.OP_NAMES)
    assert {x.reduction for x in lessons if x.op == "ScatterElements"} == {"none", "add", "mul", "max", "min"}
    assert SEED_EXAMPLES <= {(x.example, x.node) for x in lessons}


def test_lessons_are_listed_in_file_name_order():
    lessons = list_lessons()
    assert [x.path.name for x in lessons] == sorted(x.path.name for x in lessons)
    assert lessons[0].id == "gather-axis0"


def test_a_lessons_quiz_uses_its_example_node_and_the_default_mode():
    lesson = find_lesson("scatter9-axis0")
    assert lesson.quiz is QuizMode.PLACE and lesson.case == "Scatter"
    quiz = lesson.make_quiz()
    # seed page Scatter-9.txt, Example 1
    np.testing.assert_array_equal(quiz.inputs[1], [[1, 0, 2], [0, 2, 1]])
    np.testing.assert_allclose(quiz.output, [[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]])
    add = find_lesson("scatterelements-add")
    assert add.quiz is QuizMode.FILL and add.case == "ScatterElements, reduction add"
    assert add.make_quiz().answer((0, 1), "5.2").correct   # the ONNX page's output


def test_a_teachers_lesson_with_a_graph_beside_it_needs_no_code(tmp_path):
    teacher_graph(tmp_path)
    write(tmp_path, "a.toml", GOOD + 'graph = "mine.ifg.json"\nquiz = "fill"\nsource = "my class"\n')
    (lesson,) = list_lessons(tmp_path)
    assert lesson.id == "my-gather" and lesson.example is None and lesson.graph_path == tmp_path / "mine.ifg.json"
    assert lesson.source == "my class" and lesson.reduction is None
    quiz = lesson.make_quiz()
    np.testing.assert_array_equal(quiz.output, [[4, 5], [0, 1]])


@pytest.mark.parametrize("text,field,problem", [
    (GOOD.replace('title = "My Gather"\n', ""), "title", "missing"),
    (GOOD + 'titel = "x"\n', "titel", "unknown field"),
    (GOOD.replace('"Gather"', '"Gathr"'), "op", "'Gathr' is not one of"),
    (GOOD + 'example = "no_such_example"\n', "example", "no bundled example 'no_such_example'"),
    (GOOD + 'example = "gather11_examples"\ngraph = "mine.ifg.json"\n', "example", "not both"),
    (GOOD, "example", "not neither"),
    (GOOD + 'graph = "elsewhere.ifg.json"\n', "graph", "no file"),
    (GOOD.replace('node = "g"', 'node = "nope"') + 'graph = "mine.ifg.json"\n', "node", "has no node 'nope'"),
    (GOOD.replace('node = "g"', 'node = "data"') + 'graph = "mine.ifg.json"\n', "node", "a literal node"),
    (GOOD.replace('"Gather"', '"Scatter"') + 'graph = "mine.ifg.json"\n', "node", "is Gather, not Scatter"),
    (GOOD + 'graph = "mine.ifg.json"\nreduction = "add"\n', "reduction", "no reduction attribute"),
    (GOOD + 'graph = "mine.ifg.json"\nquiz = "place"\n', "quiz", "gather"),
    (GOOD + 'graph = "mine.ifg.json"\nquiz = "guess"\n', "quiz", "'guess' is not one of fill, place"),
    (GOOD.replace('"my-gather"', '"my gather"') + 'graph = "mine.ifg.json"\n', "id", "letters, digits"),
    (GOOD.replace('"Picks rows."', '""') + 'graph = "mine.ifg.json"\n', "what", "non-empty text"),
    (GOOD.replace('"Picks rows."', "3") + 'graph = "mine.ifg.json"\n', "what", "non-empty text"),
])
def test_a_bad_lesson_is_refused_naming_the_file_and_the_field(tmp_path, text, field, problem):
    teacher_graph(tmp_path)
    path = write(tmp_path, "bad.toml", text)
    with pytest.raises(LessonError) as info:
        read_lesson(path)
    assert info.value.path == path and info.value.field == field
    assert problem in info.value.problem
    assert str(info.value).startswith(f"{path}: {field}: ")


def test_a_reduction_that_is_not_the_nodes_is_refused():
    text = (LESSONS_DIR / "14-scatterelements-add.toml").read_text(encoding="utf-8")
    with pytest.raises(LessonError, match="node 'add_op' has reduction add, the lesson says mul"):
        from nodeeditor.teaching.lessons import _lesson_from

        _lesson_from(tomllib.loads(text.replace('reduction = "add"', 'reduction = "mul"')), Path("x.toml"))


def test_a_file_that_is_not_toml_is_refused_with_the_line(tmp_path):
    path = write(tmp_path, "broken.toml", 'id = "x"\ntitle = \n')
    with pytest.raises(LessonError, match=r"broken.toml: not valid TOML: .*line 2"):
        read_lesson(path)


def test_a_scan_keeps_the_good_lessons_and_lists_each_bad_file(tmp_path):
    teacher_graph(tmp_path)
    write(tmp_path, "1-good.toml", GOOD + 'graph = "mine.ifg.json"\n')
    write(tmp_path, "2-same-id.toml", GOOD + 'graph = "mine.ifg.json"\n')
    write(tmp_path, "3-bad.toml", GOOD)
    write(tmp_path, "notes.txt", "not a lesson")
    scan = scan_lessons(tmp_path)
    assert [x.id for x in scan.lessons] == ["my-gather"]
    assert [(e.path.name, e.field) for e in scan.errors] == [("2-same-id.toml", "id"), ("3-bad.toml", "example")]
    assert "used by 1-good.toml already" in str(scan.errors[0])
    with pytest.raises(LessonError, match="2-same-id.toml"):
        list_lessons(tmp_path)


def test_find_lesson_names_the_known_ids():
    assert find_lesson("gather-axis1").node == "axis1_op"
    with pytest.raises(KeyError, match="gather-axis0"):
        find_lesson("nope")


def test_lessons_are_found_in_the_tree_or_where_an_install_puts_them():
    assert LESSONS_DIR == ROOT / "resources" / "lessons"
    import sys

    assert resource_dir("no-such-folder") == Path(sys.prefix) / "share" / "indexflow" / "no-such-folder"
    # a regular install copies every file of the folder (pyproject's data-files)
    with open(ROOT / "pyproject.toml", "rb") as f:
        patterns = tomllib.load(f)["tool"]["setuptools"]["data-files"]["share/indexflow/lessons"]
    for path in LESSONS_DIR.iterdir():
        rel = path.relative_to(ROOT).as_posix()
        assert any(fnmatch.fnmatch(rel, p) for p in patterns), rel


def test_the_readme_example_lesson_loads(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Lessons", 1)[1]
    example = section.split("```toml\n", 1)[1].split("```", 1)[0]
    lesson = read_lesson(write(tmp_path, "readme.toml", example))
    assert (lesson.op, lesson.reduction, lesson.node, lesson.quiz) == ("ScatterElements", "add", "add_op",
                                                                       QuizMode.FILL)


def landing_cell(op, inputs, attrs, element):
    """Where update element ``element`` lands, from the ONNX pages' loops (not the index map):
    Scatter / ScatterElements replace the axis coordinate by the index there; ScatterND puts the
    index tuple in front of the slice coordinates; TensorScatter (opset 24) writes sequence
    position s of sample p at write_indices[p[0]] + s (circular: modulo the cache's length)."""
    data, indices = inputs[0], inputs[1]
    element = tuple(int(i) for i in element)
    if op in ("Scatter", "ScatterElements"):
        axis = attrs.get("axis", 0) % data.ndim
        where = list(element)
        where[axis] = int(indices[element]) % data.shape[axis]     # a negative index counts from the end
        return tuple(where)
    if op == "ScatterND":
        lead = element[:indices.ndim - 1]
        tuple_ = [int(v) % data.shape[d] for d, v in enumerate(indices[lead])]
        return tuple(tuple_) + element[indices.ndim - 1:]
    assert op == "TensorScatter"
    axis = attrs.get("axis", -2) % data.ndim
    write = 0 if len(inputs) < 3 or inputs[2] is None else int(inputs[2][element[0]])
    t = write + element[axis]
    if attrs.get("mode", "linear") == "circular":
        t %= data.shape[axis]
    return element[:axis] + (t,) + element[axis + 1:]


@pytest.mark.parametrize("lesson", list_lessons(), ids=lambda x: x.id)
def test_every_lessons_quiz_in_both_modes_runs_to_the_end(lesson):
    """Each question answered right, each one once wrong first: no question raises, the quiz
    ends done with every question solved. FILL's right values are ``ops.run_op``'s (checked
    against onnxruntime elsewhere), PLACE's landing cells :func:`landing_cell`'s."""
    from nodeeditor.teaching.quiz import QuizError, default_mode

    quiz = lesson.make_quiz()
    modes = [QuizMode.FILL] + ([QuizMode.PLACE] if ops.get_opdef(lesson.op).writes else [])
    assert quiz.mode in modes and quiz.mode == (lesson.quiz or default_mode(lesson.op, lesson.reduction))
    for mode in modes:
        try:
            q = type(quiz)(quiz.op, quiz.inputs, quiz.attrs, mode)
        except QuizError as exc:       # a gather has no PLACE; nothing else may refuse
            pytest.fail(f"{lesson.id} {mode}: {exc}")
        output = ops.run_op(q.op, q.inputs, q.attrs)
        for question in q.questions:
            q.explain(question)
            if mode is QuizMode.FILL:
                right = output[question]
                assert not q.answer(question, "999999").correct
                verdict = q.answer(question, str(right.item() if hasattr(right, "item") else right))
            else:
                right = landing_cell(q.op, q.inputs, q.attrs, question)
                wrong = tuple((c + 1) % n for c, n in zip(right, output.shape, strict=True))
                assert not q.answer(question, wrong).correct
                verdict = q.answer(question, right)
            assert verdict.correct, (lesson.id, mode, verdict.headline)
        assert q.done and q.score.solved == q.score.total


def test_node_inputs_reads_the_port_each_input_is_wired_from():
    """Indices wired from TopK's second output (its indices) arrived as its first (the values):
    a quiz on a teacher's own wiring asked about the wrong numbers."""
    from nodeeditor.onnx_io.foreign_ops import new_foreign_node

    g = Graph(opset=18)
    g.add_literal(np.array([[5.0, 1.0, 9.0]], np.float32), node_id="x")
    g.add_literal(np.array([2], np.int64), node_id="k")
    g.add_node(new_foreign_node("TopK", node_id="topk"))
    top = g.node("topk")
    g.connect("x", "output", "topk", top.input_ports()[0])
    g.connect("k", "output", "topk", top.input_ports()[1])
    g.add_literal(np.array([10.0, 20.0, 30.0], np.float32), node_id="table")
    g.add_operator("Gather", {}, node_id="gather")
    g.connect("table", "output", "gather", "data")
    g.connect("topk", top.output_ports()[1], "gather", "indices")
    inputs, _ = node_inputs(g, "gather")
    np.testing.assert_array_equal(inputs[1], [[2, 0]])          # TopK's indices of the two largest
    assert inputs[1].dtype == np.int64
