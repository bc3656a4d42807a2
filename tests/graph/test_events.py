"""The observer: subscribe, unsubscribe, payloads."""
from dataclasses import FrozenInstanceError

import pytest

from nodeeditor.graph import Graph
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
