"""Strings on TorchScript's byte model, and ``%`` formatting.

torch's own results on non-ASCII text are pinned by the JIT-suite fixtures
(tests/fixtures/jit_suite/unicode_strings, formatting); these tests show the
model itself: bytes cut from a character and joined again, canonical strs, and
the cases where torch never returns.
"""

from __future__ import annotations

import pytest

from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.ops import formatting, strings


def test_len_index_and_slices_count_bytes():
    s = "日本語 テキスト"
    assert strings.string_len(s) == 22
    tail = strings.string_slice(s, strings.find(s, "語"), None, 1)
    assert tail == "語 テキスト"                      # find and slices agree on offsets
    assert strings.index(s, "テ") == strings.find(s, "テ") == 10


def test_pieces_of_a_character_join_back_into_it():
    pieces = [strings.string_getitem("日", i) for i in range(3)]
    assert pieces == ["\udce6", "\udc97", "\udca5"]   # one byte each, kept
    joined = strings.concat(strings.concat(pieces[0], pieces[1]), pieces[2])
    assert joined == "日" and hash(joined) == hash("日")
    assert strings.join("", pieces) == "日"
    assert strings.string_list("é") == ["\udcc3", "\udca9"]
    assert formatting.torch_format("{}{}", "\udcc3", "\udca9") == "é"


def test_case_and_classes_are_ascii_only():
    assert strings._bytewise(bytes.upper)("straße é") == "STRAßE é"
    assert strings._bytewise(bytes.title)("straße é") == "StraßE é"
    assert not strings._bytewise(bytes.isdigit)("١٢٣")
    assert not strings.isidentifier("naïve") and not strings.isidentifier("a_b")
    assert strings.isprintable("") and not strings.isprintable("tab\t")


def test_whitespace_and_line_breaks_are_torchs_byte_lists():
    # 0xA9 (the second byte of "é") is one of torch's split() bytes
    assert strings.split("café x") == ["caf\udcc3", "x"]
    assert strings.split("a\x1cb") == ["a", "b"]
    assert strings.splitlines("a\r\nb\n") == ["a", "", "b"]
    assert strings.splitlines("a\nb", True) == ["a", "\n", "b"]


def test_offsets_follow_torchs_substr():
    assert strings.count("hello", "ell", 0, 2) == 1     # starts before the end: counted
    assert not strings.startswith("hello", "lo", -2, 3)
    with pytest.raises(IndexError, match=r"basic_string::substr: __pos \(which is 4\) > "
                                         r"this->size\(\) \(which is 3\)"):
        strings.startswith("abc", "x", 4, -1)


def test_padding_counts_bytes_and_takes_one_byte_fills():
    assert strings.center("é", 6, "*") == "**é**"
    assert strings.zfill("-3", 4) == "00-3"              # no sign handling, as torch
    assert strings.expandtabs("a\nb\tc", 4) == "a\nb c"   # the column spans lines
    with pytest.raises(TypeError, match="exactly one character long"):
        strings.ljust("x", 3, "é")


def test_what_never_ends_in_torch_is_an_error_here():
    with pytest.raises(ValueError, match="never ends"):
        strings.replace("ab", "", "-")
    assert strings.replace("ab", "", "-", 2) == "--ab"
    with pytest.raises(ValueError, match="never ends"):
        strings.count("ab", "")
    assert strings.count("ab", "", 5) == 0
    with pytest.raises(ValueError, match="never ends"):
        strings.rsplit("ab", "")


def test_ord_and_chr_are_bytes():
    assert strings.string_ord("\udce9") == 233
    assert strings.string_chr(233) == "\udce9" and strings.string_chr(26085) == "\udce5"
    with pytest.raises(ValueError, match=r"must be 1 character, found 2"):
        strings.string_ord("é")
    with pytest.raises(ValueError, match=r"not in range\(0x110000\), found 1114111"):
        strings.string_chr(0x10FFFF)


@pytest.mark.parametrize("fmt, args, text", [
    ("%s|%d|%i", ("a", 3, -2), "a|3|-2"),
    ("%d", 3.9, "3"),
    ("%d", 3e9, "-2147483648"),                    # a C int of a float
    ("%f|%e|%E|%F", (1e20,) * 4,
     "100000002004087734272.000000|1.000000e+20|1.000000E+20|100000002004087734272.000000"),
    ("%E|%F", (float("nan"),) * 2, "NAN|nan"),
    ("%c%c", (97, "b"), "ab"),
    ("%c", 0x1E9, "\udce9"),                       # the low byte only
    ("100%% %s", [1, "x"], "100% [1, x]"),
    ("%s", (1.0, None), None),                     # too many
])
def test_percent_format(fmt, args, text):
    if text is None:
        with pytest.raises(ValueError, match="Too many arguments for format string"):
            formatting.percent_format(fmt, args)
    else:
        assert formatting.percent_format(fmt, args) == text


@pytest.mark.parametrize("fmt, args, message", [
    ("%s %", "x", "Incomplete format specifier"),
    ("%s %s", "x", "Too few arguments for format string"),
    ("%5d", 1, "The specifier %5 is not supported in TorchScript format strings"),
    ("%é", 1, "The specifier %\udcc3 is not supported"),
    ("%d", "1", "%d requires a number for formatting, but got String"),
    ("%e", [1], "%e requires a number for formatting, but got GenericList"),
    ("%c", 1.5, "%c requires an int or char for formatting, but got Double"),
    ("%c", "ab", "%c requires an int or char for formatting, but got String"),
    ("%d", True, "INTERNAL ASSERT FAILED"),
])
def test_percent_format_errors(fmt, args, message):
    with pytest.raises(ValueError) as info:
        formatting.percent_format(fmt, args)
    assert message in str(info.value)


def test_percent_format_in_a_graph(loop):
    f = Function(parse_ir("""\
graph(%a : str, %b : int):
  %fmt : str = prim::Constant[value="%s=%d"]()
  %args : (str, int) = prim::TupleConstruct(%a, %b)
  %r : str = aten::percentFormat(%fmt, %args) # f.py:2:11
  return (%r)
"""), loop=loop)
    assert f("x", 7) == "x=7"


def test_print_writes_the_bytes_of_a_cut_character(loop, capsysbinary):
    f = Function(parse_ir("""\
graph(%s : str):
  %i : int = prim::Constant[value=0]()
  %c : str = aten::__getitem__(%s, %i)
   = prim::Print(%c, %s)
  return (%c)
"""), loop=loop)
    assert f("é") == "\udcc3"
    assert capsysbinary.readouterr().out == b"\xc3 \xc3\xa9\n"
