"""NodeStatus: what the engine reports for each node, and the static status of NodeInfo."""
import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph, NodeInfo, NodeStatus


def _three_branches():
    """data + good -> ok -> o_ok; data + bad (an index out of range) -> fails -> o_fails."""
    g = Graph()
    g.add_literal(np.arange(6.0).reshape(3, 2), node_id="data")
    g.add_literal(np.array([0, 2], np.int64), node_id="good")
    g.add_literal(np.array([5], np.int64), node_id="bad")          # row 5 of 3
    for name, idx in (("ok", "good"), ("fails", "bad")):
        g.add_operator("Gather", node_id=name)
        g.connect("data", "output", name, "data")
        g.connect(idx, "output", name, "indices")
        g.add_output(f"o_{name}", node_id=f"o_{name}")
        g.connect(name, "output", f"o_{name}", "value")
    return g


def test_the_engine_reports_each_outcome_as_a_node_status_member():
    engine = Engine(_three_branches())
    result = engine.run()
    got = {nid: r.status for nid, r in result.nodes.items()}
    assert all(type(s) is NodeStatus for s in got.values())
    assert got == {"data": NodeStatus.OK, "good": NodeStatus.OK, "bad": NodeStatus.OK,
                   "ok": NodeStatus.OK, "o_ok": NodeStatus.OK,
                   "fails": NodeStatus.ERROR, "o_fails": NodeStatus.BLOCKED}
    # the cache, and a second run served from it, give back the same members
    assert {nid: engine.result(nid).status for nid in got} == got
    assert {nid: r.status for nid, r in engine.run().nodes.items()} == got


def test_a_cancelled_run_reports_cancelled():
    result = Engine(_three_branches()).run(cancel=lambda: True)
    assert result.cancelled
    assert {r.status for r in result.nodes.values()} == {NodeStatus.CANCELLED}


def test_statuses_round_trip_through_their_names():
    names = ["ok", "error", "blocked", "cancelled", "running", "stale", "warning", "incomplete"]
    assert sorted(s.value for s in NodeStatus) == sorted(names)
    for name in names:
        assert NodeStatus(name).value == name
    with pytest.raises(ValueError):
        NodeStatus("pending")


@pytest.mark.parametrize(("info", "status"), [
    (NodeInfo(), NodeStatus.OK),
    (NodeInfo(warnings=("w",)), NodeStatus.WARNING),
    (NodeInfo(error="axis out of range"), NodeStatus.ERROR),
    (NodeInfo(error="input 'data' waits", blocked=True), NodeStatus.BLOCKED),
    (NodeInfo(error="input 'data' is not connected", incomplete=True), NodeStatus.INCOMPLETE),
])
def test_static_status_of_node_info(info, status):
    assert info.status is status


def test_the_graph_gives_each_kind_of_static_problem_its_status():
    g = Graph()
    g.add_operator("Gather", node_id="lonely")                 # inputs not connected
    g.add_output("y", node_id="y")
    g.connect("lonely", "output", "y", "value")                # waits for the gather
    g.add_operator("Gather", {"axis": 5}, node_id="wrong")
    g.add_literal(np.zeros(3), node_id="d")
    g.add_literal(np.array([0], np.int64), node_id="i")
    g.connect("d", "output", "wrong", "data")
    g.connect("i", "output", "wrong", "indices")              # axis 5 of a 1-D tensor
    assert g.node_info("lonely").status is NodeStatus.INCOMPLETE
    assert g.node_info("y").status is NodeStatus.BLOCKED
    assert g.node_info("wrong").status is NodeStatus.ERROR
    assert g.node_info("d").status is NodeStatus.OK
