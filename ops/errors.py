"""The two exceptions every op raises: nothing else escapes the ops core."""


class OpError(ValueError):
    """A bad input shape, dtype or attribute. The message names the op and the shapes involved.

    ``port`` names the input whose shape, dtype or values are wrong (the one to change: of
    ``updates`` and ``indices`` whose shapes disagree, ``updates``), or is None when the
    problem is an attribute or no one input. Callers show it as data (the editor highlights
    that port), never by reading the message."""

    def __init__(self, message: str, port: str | None = None) -> None:
        super().__init__(message)
        self.port = port


class IndexOutOfRangeError(OpError, IndexError):
    """An index value outside ``[-s, s-1]``.

    The message names the op, the input, the position of the first bad element, its value and
    the valid range, e.g. ``ScatterND: indices[2, 0] = 5 is out of range for data axis 0 of
    size 4 (valid -4..3)``. ``position`` is that element's position in input ``port`` (a
    tuple; None where not known), for callers that show it (the Explainer marks the cell)."""

    def __init__(self, message: str, port: str | None = None, position: tuple[int, ...] | None = None) -> None:
        super().__init__(message, port)
        self.position = position


class ShapeUnknownError(OpError):
    """Static inference cannot tell the output's shape (not even its rank) because it depends
    on a size known only at run time (GatherND with the last dimension of indices unknown).
    Nothing is wrong with the node; a run gives the shape."""
