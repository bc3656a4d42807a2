"""The document's training fields: setters that return the old value and emit typed events,
revisions untouched by the training fields, the Loss node's ports and type inference, and
replace_node."""
import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph, LossKind
from nodeeditor.graph import events as E
from nodeeditor.graph import nodes as N


def small():
    g = Graph()
    g.add_literal(np.arange(6, dtype=np.float32).reshape(3, 2), name="table", node_id="table")
    g.add_literal(np.array([2, 0]), node_id="ids")
    g.add_operator("Gather", node_id="gather")
    g.connect("table", "output", "gather", "data")
    g.connect("ids", "output", "gather", "indices")
    return g


def test_defaults_of_the_training_fields():
    g = small()
    assert g.node("gather").training is True and g.node("gather").loss_coefficient == 1.0
    assert g.node("table").trainable is False
    g.add_input("x", np.zeros(2), node_id="x")
    assert not isinstance(g.node("x"), N.TrainableSource)   # a graph input's value comes from outside


def test_setters_return_the_old_value_emit_one_typed_event_and_leave_the_revision():
    g = small()
    seen = []
    g.events.subscribe(seen.append)
    revisions = (g.node("gather").revision, g.node("table").revision)
    assert g.set_training("gather", False) is True
    assert g.set_training("gather", False) is False     # no change, no event
    assert g.set_loss_coefficient("gather", 0.25) == 1.0
    assert g.set_trainable("table", True) is False
    assert [e for e in seen if not isinstance(e, E.TypesChanged)] == [
        E.TrainingChanged("gather", True, False), E.LossCoefficientChanged("gather", 1.0, 0.25),
        E.TrainableChanged("table", False, True)]
    assert (g.node("gather").revision, g.node("table").revision) == revisions   # the forward cache stays valid


def test_setters_refuse_what_does_not_fit_and_name_the_node():
    g = small()
    g.add_input("x", np.zeros(2), node_id="x")
    with pytest.raises(ValueError, match="x is a input node and cannot be trainable"):
        g.set_trainable("x", True)
    with pytest.raises(ValueError, match="table is a literal node, not an operator"):
        g.set_training("table", False)
    with pytest.raises(ValueError, match="must be a finite number"):
        g.set_loss_coefficient("gather", float("nan"))
    with pytest.raises(ValueError, match="must be true or false"):
        g.set_training("gather", 0)


def test_loss_node_ports_types_and_kind_changes():
    g = small()
    loss = g.add_loss("mean_squared_error", node_id="loss")
    node = g.node(loss)
    assert node.kind == "loss" and node.input_ports() == ("prediction", "target") and node.output_ports() == ("loss",)
    g.connect("gather", "output", loss, "prediction")
    info = g.node_info(loss)
    assert info.incomplete and "'target' is not connected" in info.error
    g.add_literal(np.zeros((2, 2), np.float32), node_id="target")
    g.connect("target", "output", loss, "target")
    assert str(g.output_type(loss)) == "float32[]"
    revision = node.revision
    seen = []
    g.events.subscribe(seen.append)
    assert g.set_loss_kind(loss, "sum") is LossKind.MEAN_SQUARED_ERROR
    assert E.LossKindChanged(loss, LossKind.MEAN_SQUARED_ERROR, LossKind.SUM) in seen
    assert node.revision != revision   # the loss value changes
    assert "a sum loss takes no target" in g.node_info(loss).error
    g.disconnect(loss, "target")
    assert g.node_info(loss).ok
    g.set_loss_kind(loss, LossKind.SOFTMAX_CROSS_ENTROPY)
    assert g.node_info(loss).incomplete
    g.add_literal(np.array([1, 0]), node_id="classes")
    g.connect("classes", "output", loss, "target")
    result = Engine(g).run([loss])
    assert result.ok
    logits = np.array([[4.0, 5.0], [0.0, 1.0]])   # rows 2 and 0 of the table
    expected = -np.mean([logits[0, 1] - np.log(np.exp(logits[0]).sum()),
                         logits[1, 0] - np.log(np.exp(logits[1]).sum())])
    engine = Engine(g, keep_intermediates=True)
    engine.run([loss])
    np.testing.assert_allclose(engine.value(loss), expected, rtol=1e-6)


def test_a_loss_fails_on_a_class_id_out_of_range_with_the_node_named():
    g = small()
    g.add_loss("softmax_cross_entropy", name="my loss", node_id="loss")
    g.add_literal(np.array([1, 7]), node_id="classes")
    g.connect("gather", "output", "loss", "prediction")
    g.connect("classes", "output", "loss", "target")
    result = Engine(g).run()
    assert result.errors() == [("loss", "my loss [loss]: target class id 7 at position [1] is outside [0, 1] "
                                        "(the prediction has 2 classes on its last axis)")]


def test_replace_node_keeps_place_and_edges_and_undoes_with_the_old_object():
    g = small()
    g.add_generator("normal", {"shape": [3, 2]}, name="init", node_id="init")
    g.disconnect("gather", "data")
    g.connect("init", "output", "gather", "data")
    old = g.node("init")
    order, edges = g.node_ids, g.edges
    literal = N.LiteralSource(id="init", name="init", value=N.frozen_array(np.ones((3, 2), np.float32)), trainable=True)
    assert g.replace_node("init", literal) is old
    assert g.node_ids == order and g.edges == edges and g.node("init") is literal
    assert g.replace_node("init", old) is literal
    assert g.node("init") is old and g.edges == edges
    with pytest.raises(ValueError, match="has no port 'output'"):
        g.replace_node("init", N.OutputNode(id="init", name="init"))
