"""File format version 2: the training fields and the Loss node are saved (defaults left
out), read back, and a version-1 file loads with the defaults."""
import json

import numpy as np
import pytest

from nodeeditor.graph import GraphFileError, LossKind, load_graph, save_graph
from nodeeditor.graph.fileformat import MIGRATIONS
from nodeeditor.graph.serialize import VERSION

V1 = {
    "format": "indexflow-graph", "version": 1, "settings": {"name": "old", "description": "", "opset": 18},
    "nodes": [
        {"id": "t", "kind": "literal", "name": "t", "position": [0, 0],
         "value": {"dtype": "float32", "shape": [2], "data": [1.0, 2.0]}},
        {"id": "z", "kind": "generator", "name": "z", "position": [0, 0], "generator": "zeros", "params": {}},
        {"id": "i", "kind": "literal", "name": "i", "position": [0, 0], "value": {"dtype": "int64", "shape": [1],
                                                                                     "data": [1]}},
        {"id": "g", "kind": "op", "name": "g", "position": [0, 0], "op": "Gather", "attributes": {}},
    ],
    "edges": [{"from": ["t", "output"], "to": ["g", "data"]}, {"from": ["i", "output"], "to": ["g", "indices"]}],
}


def test_a_version_1_file_loads_with_the_defaults(tmp_path):
    path = tmp_path / "old.ifg.json"
    path.write_text(json.dumps(V1))
    g = load_graph(path)
    assert g.node("g").training is True and g.node("g").loss_coefficient == 1.0
    assert g.node("t").trainable is False and g.node("z").trainable is False
    upgraded = MIGRATIONS[1](json.loads(json.dumps(V1)))
    assert upgraded["version"] == 2 and upgraded["nodes"][3]["training"] is True
    assert upgraded["nodes"][0]["trainable"] is False


def test_training_fields_and_loss_nodes_round_trip_and_defaults_are_left_out(tmp_path):
    path = tmp_path / "old.ifg.json"
    path.write_text(json.dumps(V1))
    g = load_graph(path)
    g.set_training("g", False)
    g.set_loss_coefficient("g", 0.5)
    g.set_trainable("t", True)
    g.add_loss("softmax_cross_entropy", node_id="loss")
    saved = save_graph(g, tmp_path / "new.ifg.json")
    doc = json.loads(saved.read_text())
    assert doc["version"] == VERSION
    nodes = {n["id"]: n for n in doc["nodes"]}
    assert nodes["g"]["training"] is False and nodes["g"]["loss_coefficient"] == 0.5
    assert nodes["t"]["trainable"] is True
    assert "trainable" not in nodes["z"] and "trainable" not in nodes["i"]   # defaults are not written
    assert nodes["loss"]["loss"] == "softmax_cross_entropy"
    back = load_graph(saved)
    assert (back.node("g").training, back.node("g").loss_coefficient, back.node("t").trainable) == (False, 0.5, True)
    assert back.node("loss").loss is LossKind.SOFTMAX_CROSS_ENTROPY
    again = save_graph(back, tmp_path / "again.ifg.json")
    assert again.read_bytes() == saved.read_bytes()
    plain = load_graph(path)
    assert "training" not in json.dumps(json.loads(save_graph(plain, tmp_path / "p.ifg.json").read_text()))


@pytest.mark.parametrize("node, message", [
    ({"id": "x", "kind": "input", "name": "x", "trainable": True,
      "example": {"dtype": "float32", "shape": [1], "data": [0.0]}}, "cannot be trainable"),
    ({"id": "x", "kind": "op", "op": "Gather", "attributes": {}, "training": "yes"},
     "'training' must be true or false"),
    ({"id": "x", "kind": "op", "op": "Gather", "attributes": {}, "loss_coefficient": "2"}, "finite number"),
    ({"id": "x", "kind": "loss", "loss": "hinge"}, "unknown loss kind 'hinge'"),
])
def test_bad_training_fields_are_refused_with_the_node_named(tmp_path, node, message):
    doc = {"format": "indexflow-graph", "version": VERSION, "nodes": [node], "edges": []}
    path = tmp_path / "bad.ifg.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(GraphFileError, match=f"node 'x'.*{message}"):
        load_graph(path)


def test_training_fields_survive_copy_and_paste():
    from nodeeditor.graph import Graph, graph_to_dict, paste_dict

    g = Graph()
    g.add_literal(np.zeros(2, np.float32), node_id="t")
    g.set_trainable("t", True)
    g.add_loss("mean", node_id="loss")
    mapping = paste_dict(g, graph_to_dict(g, ["t", "loss"]))
    assert g.node(mapping["t"]).trainable and g.node(mapping["loss"]).loss is LossKind.MEAN
