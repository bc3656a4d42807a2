"""The observer: subscribe, unsubscribe, payloads."""
from nodeeditor.graph import Graph
from nodeeditor.graph.events import NODE_ADDED, Observable


def test_subscribe_and_unsubscribe():
    bus = Observable()
    seen = []
    unsubscribe = bus.subscribe(seen.append)
    event = bus.emit("x", a=1)
    assert seen == [event] and event["a"] == 1 and event.kind == "x"
    unsubscribe()
    unsubscribe()  # twice is harmless
    bus.emit("y")
    assert len(seen) == 1


def test_listener_sees_a_consistent_graph():
    g = Graph()
    states = []
    g.events.subscribe(lambda ev: states.append((ev.kind, g.has_node(ev.data.get("node_id", "")))))
    g.add_output("y", node_id="y")
    assert states[0] == (NODE_ADDED, True)


def test_listener_may_unsubscribe_during_emit():
    bus = Observable()
    seen = []
    holder = {}

    def once(ev):
        seen.append(ev.kind)
        holder["off"]()

    holder["off"] = bus.subscribe(once)
    bus.subscribe(lambda ev: seen.append("second"))
    bus.emit("a")
    bus.emit("b")
    assert seen == ["a", "second", "second"]
