"""The two exceptions every op raises: nothing else escapes the ops core."""


class OpError(ValueError):
    """A bad input shape, dtype or attribute. The message names the op and the shapes involved."""


class IndexOutOfRangeError(OpError, IndexError):
    """An index value outside ``[-s, s-1]``.

    The message names the op, the input, the position of the first bad element, its value and
    the valid range, e.g. ``ScatterND: indices[2, 0] = 5 is out of range for data axis 0 of
    size 4 (valid -4..3)``.
    """


class ShapeUnknownError(OpError):
    """Static inference cannot tell the output's shape (not even its rank) because it depends
    on a size known only at run time (GatherND with the last dimension of indices unknown).
    Nothing is wrong with the node; a run gives the shape."""
