"""resolve_graph_argument: a file, a bundled example, or an error that names the argument."""
import pytest

from nodeeditor.graph import GraphArgumentError, GraphFileError, resolve_graph_argument
from nodeeditor.graph.examples import EXAMPLES_DIR


def test_an_existing_file_is_that_file_even_when_an_example_has_its_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one_hot").write_text("{}")
    assert resolve_graph_argument("one_hot").path.name == "one_hot"
    assert resolve_graph_argument("one_hot").example is None
    assert resolve_graph_argument(tmp_path / "one_hot").path == tmp_path / "one_hot"


def test_an_example_name_is_the_bundled_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    got = resolve_graph_argument("one_hot")
    assert got.example == "one_hot"
    assert got.path == EXAMPLES_DIR / "one_hot.ifg.json"


def test_a_mistyped_example_name_is_named_with_a_suggestion(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(GraphArgumentError) as caught:
        resolve_graph_argument("scatterelements")
    message = str(caught.value)
    assert message.startswith("scatterelements: ")
    assert "no bundled example" in message and "did you mean scatterelements_examples?" in message
    assert caught.value.argument == "scatterelements"


def test_a_missing_path_is_named_as_a_file_not_found(tmp_path):
    missing = tmp_path / "nope.ifg.json"
    with pytest.raises(GraphArgumentError) as caught:
        resolve_graph_argument(str(missing))
    assert str(caught.value) == f"{missing}: file not found"
    assert isinstance(caught.value, GraphFileError)   # callers that catch file errors catch it too
