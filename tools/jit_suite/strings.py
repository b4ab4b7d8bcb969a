"""Strings: programs from test/test_jit_string.py and the string parts of
test/jit/test_typing.py and test/jit/test_slice.py, with the inputs those tests use."""
# flake8: noqa
from typing import List, Tuple

from suite import program

S = "test/test_jit_string.py::TestScript::"

INPUTS = ["", "12a", "!B", "12", "a", "B", "aB", "$12", "B12", "AB ",
          "  \t", "  \n", "\na", "abc", "123.3", "s a", "b12a ",
          "more strings with spaces", "Titular Strings", "\x0acan'tprintthis",
          "spaces at the end ", " begin"]
ONE = [(s,) for s in INPUTS]


@program(S + "test_str_ops", *ONE)
def test_str_is(s: str) -> Tuple[bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool]:
    return s.isupper(), s.islower(), s.isdigit(), s.isspace(), \
        s.isalnum(), s.isalpha(), s.isdecimal(), s.isnumeric(), \
        s.isidentifier(), s.istitle(), s.isprintable()


@program(S + "test_str_ops", *ONE)
def test_str_to(s: str) -> Tuple[str, str, str, str, str]:
    return s.upper(), s.lower(), s.capitalize(), s.title(), s.swapcase()


@program(S + "test_str_ops", *ONE)
def test_str_strip(s: str) -> Tuple[str, str, str]:
    return (
        s.lstrip(),
        s.rstrip(),
        s.strip(),
    )


@program(S + "test_str_ops", *[(s, c) for s in INPUTS for c in ["abc", "123", " ", "\t"]])
def test_str_strip_char_set(s: str, char_set: str) -> Tuple[str, str, str]:
    return (
        s.lstrip(char_set),
        s.rstrip(char_set),
        s.strip(char_set),
    )


@program(S + "test_str_ops", *[(i, s) for s in INPUTS for i in range(7)])
def test_str_center(i: int, s: str) -> str:
    return s.center(i)


@program(S + "test_str_ops", *[(i, s) for s in INPUTS for i in range(7)])
def test_str_center_fc(i: int, s: str) -> str:
    return s.center(i, '*')


@program(S + "test_str_ops", ("error",))
def test_str_center_error(s: str) -> str:
    return s.center(10, '**')


@program(S + "test_str_ops", *[(s, i) for s in INPUTS for i in range(7)])
def test_ljust(s: str, i: int) -> str:
    return s.ljust(i)


@program(S + "test_str_ops", *[(s, i, '*') for s in INPUTS for i in range(7)])
def test_ljust_fc(s: str, i: int, fc: str) -> str:
    return s.ljust(i, fc)


@program(S + "test_str_ops", ("error",))
def test_ljust_fc_err(s: str) -> str:
    return s.ljust(10, '**')


@program(S + "test_str_ops", *[(s, i) for s in INPUTS for i in range(7)])
def test_rjust(s: str, i: int) -> str:
    return s.rjust(i)


@program(S + "test_str_ops", *[(s, i, '*') for s in INPUTS for i in range(7)])
def test_rjust_fc(s: str, i: int, fc: str) -> str:
    return s.rjust(i, fc)


@program(S + "test_str_ops", ("error",))
def test_rjust_fc_err(s: str) -> str:
    return s.rjust(10, '**')


@program(S + "test_str_ops", *[(s, i) for s in INPUTS for i in range(7)])
def test_zfill(s: str, i: int) -> str:
    return s.zfill(i)


@program(S + "test_str_ops", ())
def test_count() -> Tuple[int, int, int, int, int, int, int, int, int, int, int, int]:
    return (
        "hello".count("h"),
        "hello".count("h", 0, 1),
        "hello".count("h", -3),
        "hello".count("h", -10, 1),
        "hello".count("h", 0, -10),
        "hello".count("h", 0, 10),
        "hello".count("ell"),
        "hello".count("ell", 0, 1),
        "hello".count("ell", -3),
        "hello".count("ell", -10, 1),
        "hello".count("ell", 0, -10),
        "hello".count("ell", 0, 10)
    )


@program(S + "test_str_ops", ())
def test_endswith() -> Tuple[bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool]:
    return (
        "hello".endswith("lo"),
        "hello".endswith("lo", 0),
        "hello".endswith("lo", -2),
        "hello".endswith("lo", -8),
        "hello".endswith("lo", 0, -5),
        "hello".endswith("lo", -2, 3),
        "hello".endswith("lo", -8, 4),
        "hello".endswith("l"),
        "hello".endswith("l", 0),
        "hello".endswith("l", -2),
        "hello".endswith("l", -8),
        "hello".endswith("l", 0, -5),
        "hello".endswith("l", -2, 3),
        "hello".endswith("l", -8, 4)
    )


@program(S + "test_str_ops", ())
def test_startswith() -> Tuple[bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool]:
    return (
        "hello".startswith("lo"),
        "hello".startswith("lo", 0),
        "hello".startswith("lo", -2),
        "hello".startswith("lo", -8),
        "hello".startswith("lo", 0, -5),
        "hello".startswith("lo", -2, 3),
        "hello".startswith("lo", -8, 4),
        "hello".startswith("l"),
        "hello".startswith("l", 0),
        "hello".startswith("l", -2),
        "hello".startswith("l", -8),
        "hello".startswith("l", 0, -5),
        "hello".startswith("l", -2, 3),
        "hello".startswith("l", -8, 4)
    )


@program(S + "test_str_ops", ())
def test_expandtabs() -> Tuple[str, str, str, str, str, str]:
    return (
        'xyz\t82345\tabc'.expandtabs(),
        'xyz\t32345\tabc'.expandtabs(3),
        'xyz\t52345\tabc'.expandtabs(5),
        'xyz\t62345\tabc'.expandtabs(6),
        'xyz\t72345\tabc'.expandtabs(7),
        'xyz\t62345\tabc'.expandtabs(-5),
    )


@program(S + "test_str_ops", ())
def test_rfind() -> Tuple[int, int, int, int, int, int, int, int, int]:
    return (
        "hello123abc".rfind("llo"),
        "hello123abc".rfind("12"),
        "hello123abc".rfind("ab"),
        "hello123abc".rfind("ll", -1),
        "hello123abc".rfind("12", 4),
        "hello123abc".rfind("ab", -7),
        "hello123abc".rfind("ll", -1, 8),
        "hello123abc".rfind("12", 4, -4),
        "hello123abc".rfind("ab", -7, -20),
    )


@program(S + "test_str_ops", ())
def test_find() -> Tuple[int, int, int, int, int, int, int, int, int]:
    return (
        "hello123abc".find("llo"),
        "hello123abc".find("12"),
        "hello123abc".find("ab"),
        "hello123abc".find("ll", -1),
        "hello123abc".find("12", 4),
        "hello123abc".find("ab", -7),
        "hello123abc".find("ll", -1, 8),
        "hello123abc".find("12", 4, -4),
        "hello123abc".find("ab", -7, -20),
    )


@program(S + "test_str_ops", ())
def test_index() -> Tuple[int, int, int, int, int, int]:
    return (
        "hello123abc".index("llo"),
        "hello123abc".index("12"),
        "hello123abc".index("ab"),
        "hello123abc".index("12", 4),
        "hello123abc".index("ab", -7),
        "hello123abc".index("12", 4, -4),
    )


@program(S + "test_str_ops", ())
def test_rindex() -> Tuple[int, int, int, int, int, int]:
    return (
        "hello123abc".rindex("llo"),
        "hello123abc".rindex("12"),
        "hello123abc".rindex("ab"),
        "hello123abc".rindex("12", 4),
        "hello123abc".rindex("ab", -7),
        "hello123abc".rindex("12", 4, -4),
    )


@program(S + "test_str_ops", ())
def test_replace() -> Tuple[str, str, str, str, str, str, str]:
    return (
        "hello123abc".replace("llo", "sdf"),
        "ff".replace("f", "ff"),
        "abc123".replace("a", "testing"),
        "aaaaaa".replace("a", "testing", 3),
        "bbb".replace("a", "testing", 3),
        "ccc".replace("c", "ccc", 3),
        "cc".replace("c", "ccc", -3),
    )


@program(S + "test_str_ops", ())
def test_partition() -> Tuple[Tuple[str, str, str], Tuple[str, str, str], Tuple[str, str, str],
                              Tuple[str, str, str], Tuple[str, str, str], Tuple[str, str, str],
                              Tuple[str, str, str]]:
    return (
        "hello123abc".partition("llo"),
        "ff".partition("f"),
        "abc123".partition("a"),
        "aaaaaa".partition("testing"),
        "bbb".partition("a"),
        "ccc".partition("ccc"),
        "cc".partition("ccc"),
    )


@program(S + "test_str_ops", ())
def test_rpartition() -> Tuple[Tuple[str, str, str], Tuple[str, str, str], Tuple[str, str, str],
                               Tuple[str, str, str], Tuple[str, str, str], Tuple[str, str, str],
                               Tuple[str, str, str]]:
    return (
        "hello123abc".rpartition("llo"),
        "ff".rpartition("f"),
        "abc123".rpartition("a"),
        "aaaaaa".rpartition("testing"),
        "bbb".rpartition("a"),
        "ccc".rpartition("ccc"),
        "cc".rpartition("ccc"),
    )


@program(S + "test_str_ops", ())
def test_split() -> Tuple[List[str], List[str], List[str], List[str], List[str],
                          List[str], List[str], List[str], List[str], List[str], List[str]]:
    return (
        "a a a a a".split(),
        "a  a a   a a".split(),
        "   a a\ta \v a \v\f\n a \t   ".split(),
        " a a a a a ".split(" "),
        "a a a a a ".split(" ", 10),
        "a a a a a ".split(" ", -1),
        "a a a a a ".split(" ", 3),
        " a a a a a ".split("*"),
        " a*a a*a a".split("*"),
        " a*a a*a a ".split("*", -1),
        " a*a a*a a ".split("a*", 10),
    )


@program(S + "test_str_ops", ())
def test_split_empty_separator():
    s = "test"
    return s.split("")


@program(S + "test_str_ops", ())
def test_rsplit() -> Tuple[List[str], List[str], List[str], List[str], List[str],
                           List[str], List[str], List[str], List[str]]:
    return (
        "a a a a a".rsplit(),
        " a a a a a ".rsplit(" "),
        "a a a a a ".rsplit(" ", 10),
        "a a a a a ".rsplit(" ", -1),
        "a a a a a ".rsplit(" ", 3),
        " a a a a a ".rsplit("*"),
        " a*a a*a a ".rsplit("*"),
        " a*a a*a a ".rsplit("*", -1),
        " a*a a*a a".rsplit("a*", 10),
    )


@program(S + "test_str_ops", ())
def test_splitlines() -> Tuple[List[str], List[str], List[str], List[str],
                               List[str], List[str]]:
    return (
        "hello\ntest".splitlines(),
        "hello\n\ntest\n".splitlines(),
        "hello\ntest\n\n".splitlines(),
        "hello\vtest".splitlines(),
        "hello\v\f\ntest".splitlines(),
        "hello\ftest".splitlines(),
    )


@program(S + "test_str_ops", *[(INPUTS[i], INPUTS[i + 1]) for i in range(len(INPUTS) - 1)])
def test_str_cmp(a: str, b: str) -> Tuple[bool, bool, bool, bool, bool, bool]:
    return a != b, a == b, a < b, a > b, a <= b, a >= b


@program(S + "test_str_ops", ())
def test_str_join():
    return (
        ",".join(["a"]),
        ",".join(["a", "b", "c"]),
        ",".join(["aa", "bb", "cc"]),
        ",".join(["a,a", "bb", "c,c"]),
        "**a**".join(["b", "c", "d", "e"]),
        "".join(["a", "b", "c"]),
    )


@program(S + "test_str_ops", ("nonempty",), ("",))
def test_bool_conversion(a: str):
    if a:
        return a
    else:
        return "default"


@program(S + "test_string_slice", ("hellotest",))
def test_slice(a: str) -> Tuple[str, str, str, str, str]:
    return (
        a[0:1:2],
        a[0:6:1],
        a[4:1:2],
        a[0:3:2],
        a[-1:1:3],
    )


@program("test/jit/test_typing.py::TestTyping::test_for_in_string", ("hello",), ("",))
def test_strings(x):
    # type: (str) -> str
    reverse = ""
    for c in x:
        reverse = c + reverse
    return reverse


@program("test/jit/test_slice.py::TestSlice::test_slice_string", ("foo_bar",))
def slice_string(x: str):
    return x[slice(None, 3, 1)]
