"""The observer (subscribe, unsubscribe) and the event each Graph mutator emits: the right
dataclass with the right fields."""
from dataclasses import FrozenInstanceError

import numpy as np
import pytest

from nodeeditor.graph import Edge, Graph
from nodeeditor.graph import events as E
from nodeeditor.graph.events import NodeAdded, Observable, SettingChanged


def test_subscribe_and_unsubscribe():
    bus = Observable()
    seen = []
    unsubscribe = bus.subscribe(seen.append)
    event = bus.emit(NodeAdded("x"))
    assert seen == [event] and event.node_id == "x"
    unsubscribe()
    unsubscribe()  # twice is harmless
    bus.emit(NodeAdded("y"))
    assert len(seen) == 1


def test_events_are_frozen_values():
    event = SettingChanged("opset", 17, 18)
    assert event == SettingChanged("opset", 17, 18) and event != SettingChanged("opset", 18, 17)
    with pytest.raises(FrozenInstanceError):
        event.new = 19


def test_listener_sees_a_consistent_graph():
    g = Graph()
    states = []
    g.events.subscribe(lambda ev: states.append((type(ev), g.has_node(getattr(ev, "node_id", "")))))
    g.add_output("y", node_id="y")
    assert states[0] == (NodeAdded, True)


def test_listener_may_unsubscribe_during_emit():
    bus = Observable()
    seen = []
    holder = {}

    def once(ev):
        seen.append(ev.node_id)
        holder["off"]()

    holder["off"] = bus.subscribe(once)
    bus.subscribe(lambda ev: seen.append("second"))
    bus.emit(NodeAdded("a"))
    bus.emit(NodeAdded("b"))
    assert seen == ["a", "second", "second"]


# ---------------------------------------------------------------- one dataclass per mutator
def _wired():
    """data -> gather.data, indices -> gather.indices, gather -> y."""
    g = Graph(name="t")
    g.add_literal(np.zeros((3, 2), np.float32), name="data", node_id="data")
    g.add_literal(np.array([0, 2], np.int64), name="indices", node_id="indices")
    g.add_operator("Gather", name="gather", node_id="gather")
    g.add_output("y", node_id="y")
    g.connect("data", "output", "gather", "data")
    g.connect("indices", "output", "gather", "indices")
    g.connect("gather", "output", "y", "value")
    return g


def _changes(graph, change):
    """The events ``change()`` emits, TypesChanged left out (the type tests look at it)."""
    seen = []
    off = graph.events.subscribe(seen.append)
    change()
    off()
    return [ev for ev in seen if not isinstance(ev, E.TypesChanged)]


def test_add_node_emits_node_added_with_its_id():
    g = Graph()
    assert _changes(g, lambda: g.add_output("y", node_id="y")) == [E.NodeAdded(node_id="y")]


def test_connect_and_disconnect_emit_the_edge():
    g = _wired()
    g.disconnect("y", "value")
    edge = Edge("gather", "output", "y", "value")
    assert _changes(g, lambda: g.connect("gather", "output", "y", "value")) == [E.EdgeAdded(edge=edge)]
    assert _changes(g, lambda: g.disconnect("y", "value")) == [E.EdgeRemoved(edge=edge)]


def test_remove_node_emits_each_edge_then_the_node_object():
    g = _wired()
    gather = g.node("gather")
    events = _changes(g, lambda: g.remove_node("gather"))
    assert events == [E.EdgeRemoved(Edge("data", "output", "gather", "data")),
                      E.EdgeRemoved(Edge("indices", "output", "gather", "indices")),
                      E.EdgeRemoved(Edge("gather", "output", "y", "value")),
                      E.NodeRemoved(node_id="gather", node=gather)]
    assert events[-1].node is gather


def test_setters_emit_old_and_new_values():
    g = _wired()
    assert _changes(g, lambda: g.set_attribute("gather", "axis", 1)) == [
        E.AttributeChanged(node_id="gather", name="axis", old=None, new=1)]
    assert _changes(g, lambda: g.set_attribute("gather", "axis", None)) == [
        E.AttributeChanged(node_id="gather", name="axis", old=1, new=None)]
    assert _changes(g, lambda: g.set_position("y", (10, 20))) == [
        E.PositionChanged(node_id="y", old=(0.0, 0.0), new=(10.0, 20.0))]
    assert _changes(g, lambda: g.rename_node("y", "result")) == [
        E.NodeRenamed(node_id="y", old="y", new="result")]
    assert _changes(g, lambda: g.set_setting("opset", 13)) == [E.SettingChanged(name="opset", old=18, new=13)]


def test_set_source_emits_one_event_per_field():
    g = Graph()
    g.add_generator("zeros", {"shape": [2]}, node_id="z")
    events = _changes(g, lambda: g.set_source("z", generator="ones", params={"shape": [3]}))
    assert events == [E.SourceChanged(node_id="z", field="generator", old="zeros", new="ones"),
                      E.SourceChanged(node_id="z", field="params", old={"shape": [2]}, new={"shape": [3]})]


def test_a_new_value_emits_source_changed_then_types_changed_for_what_it_feeds():
    g = _wired()
    seen = []
    g.events.subscribe(seen.append)
    g.set_source_value("indices", np.array([1], np.int64))
    assert [type(ev) for ev in seen] == [E.SourceChanged, E.TypesChanged]
    changed, types = seen
    assert (changed.node_id, changed.field) == ("indices", "value")
    assert changed.old.tolist() == [0, 2] and changed.new.tolist() == [1]
    assert types.node_ids == frozenset({"indices", "gather", "y"})
