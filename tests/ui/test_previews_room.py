"""Turning inline previews on makes room: no two nodes overlap, without dirtying the graph."""
from nodeeditor.graph import load_example
from nodeeditor.ui.layout import make_room


def _overlaps(window):
    items = window.scene.node_items()
    rects = {i.node_id: i.mapRectToScene(i.shape().boundingRect()) for i in items}
    ids = sorted(rects)
    return [(a, b) for k, a in enumerate(ids) for b in ids[k + 1:] if rects[a].intersects(rects[b])]


def test_make_room_moves_only_the_nodes_that_collide():
    boxes = {"a": (0, 0, 100, 80), "b": (0, 60, 100, 80), "c": (300, 60, 100, 80), "d": (0, 400, 100, 50)}
    moved = make_room(boxes, gap=10)
    assert moved == {"b": (0, 90)}                 # 80 + 10 below a; c (other column) and d stay


def test_previews_push_overlapping_nodes_down_without_dirtying_the_document(window, qtbot):
    """Turning previews on moves the nodes that would overlap, but a view setting is not an
    edit: no undo step, the document stays unmodified (the walkthrough was asked to save an
    example it had only looked at); and a graph opened while previews are on gets the room
    too, instead of each preview hiding under the node below."""
    window.set_document(load_example("kv_cache_write"), None)
    window.runner.wait()
    before = {n.id: n.position for n in window.graph.nodes}
    assert not _overlaps(window)
    undo_text = window.undo_action.text()
    window.previews_action.trigger()               # View > Inline Previews, as a click does
    qtbot.waitUntil(lambda: "moved down" in window.statusBar().currentMessage(), timeout=10000)
    assert window.previews_action.isChecked()
    assert not _overlaps(window)
    moved = {n.id for n in window.graph.nodes if n.position != before[n.id]}
    assert moved
    assert window.undo_action.text() == undo_text and not window.isWindowModified()
    window.set_document(load_example("tensorscatter_examples"), None)   # opened with previews on
    qtbot.waitUntil(lambda: not _overlaps(window), timeout=10000)
    assert not window.isWindowModified()
    window.previews_action.trigger()               # off again
