"""Pasted text as cell texts (``properties.pasted_text``) and cell texts as values
(``properties.values``): what people copy from spreadsheets, CSV files and Python/NumPy
print-outs, and the words used when a text is not a value."""
from __future__ import annotations

import numpy as np
import pytest

from nodeeditor.ui.properties.pasted_text import parse_block
from nodeeditor.ui.properties.values import CellError, cell_text, parse_value, pasted_value


@pytest.mark.parametrize(("text", "rows", "shape"), [
    ("1\t2\t3\n4\t5\t6\n", (("1", "2", "3"), ("4", "5", "6")), (2, 3)),      # a spreadsheet
    ("1, 2\r\n3, 4", (("1", "2"), ("3", "4")), (2, 2)),                      # CSV, Windows lines
    ("1,2,\n3,4,", (("1", "2"), ("3", "4")), (2, 2)),                        # trailing commas
    ("1 2 3", (("1", "2", "3"),), (1, 3)),                                   # spaces
    ("7", (("7",),), (1, 1)),
    ("[1, 2, 3]", (("1", "2", "3"),), (3,)),
    ("[[1, 2], [3, 4]]", (("1", "2"), ("3", "4")), (2, 2)),
    ("[[1. 2.]\n [3. 4.]]", (("1.", "2."), ("3.", "4.")), (2, 2)),
    ("np.array([[1, 2]], dtype=np.int64)", (("1", "2"),), (1, 2)),
    ("[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]", (("1", "2"), ("3", "4"), ("5", "6"), ("7", "8")), (2, 2, 2)),
    ("['a b', \"c\"]", (("a b", "c"),), (2,)),
])
def test_a_pasted_block_reads_rows_and_nested_lists(text, rows, shape):
    block = parse_block(text)
    assert block.rows == rows and block.shape == shape


@pytest.mark.parametrize(("text", "words"), [
    ("", "no values"),
    ("1\t2\n3", "row 2 has 1 value, row 1 has 2"),
    ("[[1, 2], [3]]", "every row as long as the others"),
    ("[[1, 2]", "never closed"),
    ("[1, 2]]", "closes no"),
    ("[" * 3000 + "1" + "]" * 3000, "nest deeper than 64"),       # was a RecursionError
])
def test_a_block_that_is_not_a_tensor_is_refused_in_words(text, words):
    with pytest.raises(ValueError, match=words):
        parse_block(text)


@pytest.mark.parametrize(("text", "dtype", "words"), [
    ("9 8 7 6", "int64", "several values"),
    ("1.5", "int64", "'1.5' is not an integer (int64)"),
    ("abc", "float32", "'abc' is not a number"),
    ("300", "uint8", "300 does not fit uint8 (0..255)"),
    ("maybe", "bool", "not a bool"),
    ("", "int32", "empty"),
])
def test_a_cell_text_that_is_no_value_says_why_in_words(text, dtype, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")) as info:
        parse_value(text, np.dtype(dtype))
    assert "invalid literal" not in str(info.value)


def test_integers_take_whole_numbers_written_as_floats_and_complex_takes_spaces():
    assert parse_value("2.0", np.dtype(np.int64)) == 2
    assert parse_value("1e3", np.dtype(np.int32)) == 1000
    assert parse_value("1 + 2j", np.dtype(np.complex64)) == 1 + 2j
    assert parse_value("TRUE", np.dtype(bool)) is True


def test_a_cell_shows_the_shortest_exact_text_and_the_stored_value_where_that_differs():
    assert cell_text(np.float32(1.1)) == ("1.1", "stored exactly as 1.10000002384185791015625")
    assert cell_text(np.float64(0.25)) == ("0.25", "")
    assert cell_text(np.int64(-3)) == ("-3", "")
    assert cell_text(np.bool_(True))[0] == "True"


def test_a_paste_fills_from_a_cell_or_replaces_the_whole_tensor():
    value = np.zeros((2, 3), np.int32)
    new, dropped = pasted_value(value, parse_block("1\t2\n3\t4"), 1, 1, whole=False)
    assert new.tolist() == [[0, 0, 0], [0, 1, 2]] and dropped == 2 and new.dtype == np.int32
    new, dropped = pasted_value(value, parse_block("[[1, 2], [3, 4]]"), 0, 0, whole=True)
    assert new.tolist() == [[1, 2], [3, 4]] and dropped == 0
    scalar = np.array(5.0, np.float32)
    assert pasted_value(scalar, parse_block("7"), 0, 0, whole=True)[0].shape == ()
    with pytest.raises(CellError) as info:
        pasted_value(value, parse_block("1\tx"), 0, 1, whole=False)
    assert (info.value.row, info.value.col) == (0, 2) and "'x' is not an integer" in str(info.value)


def test_numbers_past_a_float_dtypes_range_and_long_integers_are_read_exactly_or_refused():
    """70000 into float16 became inf with no word; 9007199254740993.0 into int64 was rounded
    through a float to ...992."""
    with pytest.raises(ValueError, match="past float16's range"):
        parse_value("70000", np.dtype(np.float16))
    assert parse_value("65504", np.dtype(np.float16)) == 65504.0 and parse_value("inf", np.dtype(np.float16)) == np.inf
    assert parse_value("9007199254740993.0", np.dtype(np.int64)) == 9007199254740993
    assert parse_value("1e3", np.dtype(np.int64)) == 1000
    block = parse_block("1\t70000")
    with pytest.raises(CellError, match="past float16's range"):
        pasted_value(np.zeros(2, np.float16), block, 0, 0, whole=True)


def test_a_large_paste_of_floats_reads_every_text_as_one_would_be_read():
    """The million-value paste is read in one pass; its values are float()'s of each text."""
    texts = ["0.1", "-0", "1e-3", " 2.5 ", "inf", "-1.5e300"]
    block = parse_block("\t".join(texts))
    got, dropped = pasted_value(np.zeros(1, np.float64), block, 0, 0, whole=True)
    assert dropped == 0 and got.dtype == np.float64
    np.testing.assert_array_equal(got, [float(t) for t in texts])
    assert np.signbit(got[1])


def test_an_integer_written_with_a_huge_exponent_is_refused_at_once():
    """1E+1000000 into int64 held the UI thread for 47 s turning it into a whole number; 1e309
    into float64 quietly became inf."""
    with pytest.raises(ValueError, match="does not fit int64"):
        parse_value("1E+1000000", np.dtype(np.int64))
    with pytest.raises(ValueError, match="past float64's range"):
        parse_value("1e309", np.dtype(np.float64))
