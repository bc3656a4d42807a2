"""A main window made narrower after it opened (a laptop, a projector) keeps a usable canvas:
the side docks give up width, as they do on a first start on a small window."""
from __future__ import annotations

from nodeeditor.ui import screen_fit

from .helpers import deliver_posted_events, save_shot


def test_narrowing_the_window_shrinks_the_side_docks_to_their_shares(window, qtbot):
    """1480 wide, then 800 x 600: the palette and the right column take at most their
    DOCK_SHARES of the width (they kept their widths, and the canvas got a 195 px strip); a
    wider window later leaves the narrower docks alone (the user's widths)."""
    w = window
    w.resize(1480, 900)
    qtbot.waitUntil(lambda: w.width() == 1480, timeout=10000)
    deliver_posted_events()
    wide = (w.palette_dock.width(), w.properties_dock.width())
    assert wide[0] > 0.22 * 800 and wide[1] > 0.30 * 800     # a narrowing has something to take
    w.resize(800, 600)
    palette_share, right_share = screen_fit.DOCK_SHARES

    # the right column is as wide as its widest minimum (the tensor viewer's)
    right_minimum = max(d.minimumSizeHint().width() for d in (w.properties_dock, w.viewer_dock))

    def within() -> bool:
        deliver_posted_events()
        return (w.width() == 800 and w.palette_dock.width() <= max(int(800 * palette_share),
                                                                    w.palette_dock.minimumSizeHint().width())
                and w.properties_dock.width() <= max(int(800 * right_share), right_minimum))

    qtbot.waitUntil(within, timeout=10000)
    assert w.view.width() >= 0.4 * w.width()
    save_shot(w, "window/narrowed_to_800x600")
    narrow = (w.palette_dock.width(), w.properties_dock.width())
    w.resize(1200, 800)
    qtbot.waitUntil(lambda: w.width() == 1200, timeout=10000)
    deliver_posted_events()
    assert (w.palette_dock.width(), w.properties_dock.width()) == narrow
