"""layout.free_offset: where a new block or a paste goes so it buries no node (pure)."""
from nodeeditor.ui.layout import free_offset


def test_a_free_place_stays_put():
    assert free_offset((0, 0, 100, 50), [(300, 300, 100, 50)]) == (0, 0)


def test_an_occupied_place_moves_down_to_the_first_gap():
    occupied = [(0, 0, 100, 50), (0, 80, 100, 50)]
    dx, dy = free_offset((0, 0, 100, 50), occupied, step=40, margin=10)
    assert dx == 0 and dy == 160            # 40 and 80 touch the nodes (with the margin), 120 too
    moved = (0 + dx, 0 + dy, 100, 50)
    assert all(not (moved[1] < r[1] + r[3] + 10 and r[1] < moved[1] + moved[3] + 10) for r in occupied)


def test_a_full_column_moves_right_and_giving_up_means_no_move():
    column = [(0, y, 100, 40) for y in range(0, 4000, 40)]
    dx, dy = free_offset((0, 0, 100, 40), column, step=40, margin=5, tries=60)
    assert dx > 100 and dy == 0
    everywhere = [(-10000, -10000, 30000, 30000)]
    assert free_offset((0, 0, 100, 40), everywhere) == (0, 0)
