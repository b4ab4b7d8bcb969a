"""Every string operator on non-ASCII text: what torch 2.13 does, pinned.

Not from PyTorch's test suite (which uses ASCII only): these probe the one byte
model TorchScript strings follow -- a ``str`` is its UTF-8 bytes; lengths, indices,
slices and offsets count bytes, and the character classes and case mappings are
C's ``<cctype>`` in the "C" locale, i.e. ASCII only.  Each program applies the
operators of one family to every text of ``TEXTS``."""
# flake8: noqa
from typing import List, Tuple

from suite import program

P = "pyjit: non-ASCII probe"

TEXTS = ["straße é", "日本語 テキスト", "naïve café", "ΑΒΓ αβγ", "x\u00a0y\u2003z", "١٢٣",
         "Ⅻ ǅ ﬁ", "tab\tend", "", "abc"]
ONE = [(s,) for s in TEXTS]


@program(P, *ONE)
def unicode_case(s: str) -> Tuple[str, str, str, str, str]:
    return s.upper(), s.lower(), s.capitalize(), s.title(), s.swapcase()


@program(P, *ONE)
def unicode_classes(s: str) -> Tuple[bool, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool]:
    return s.isupper(), s.islower(), s.isdigit(), s.isspace(), \
        s.isalnum(), s.isalpha(), s.isdecimal(), s.isnumeric(), \
        s.isidentifier(), s.istitle(), s.isprintable()


@program(P, *ONE)
def unicode_len_and_bytes(s: str) -> Tuple[int, List[str], int]:
    n = 0
    for c in s:
        n += 1
    return len(s), list(s)[:2], n


@program(P, *ONE)
def unicode_index(s: str) -> Tuple[str, str]:
    if len(s) == 0:
        return "", ""
    return s[0], s[-1]


@program(P, *ONE)
def unicode_slices(s: str) -> Tuple[str, str, str]:
    return s[0:3], s[3:], s[::-1]


@program(P, *ONE)
def unicode_find(s: str) -> Tuple[int, int, int, int, int, int]:
    return s.find("é"), s.rfind("a"), s.find("語"), s.find(" ", 2), s.count("a"), s.count("é", 1, -1)


@program(P, *ONE)
def unicode_tail_after_find(s: str) -> Tuple[str, str]:
    i = s.find(" ")
    j = s.rfind(" ")
    return s[i + 1:], s[:j]


@program(P, ("日本語 テキスト", "語"), ("straße é", "é"), ("naïve café", "é"), ("abc", "c"))
def unicode_index_of(s: str, sub: str) -> Tuple[int, int, str]:
    i = s.index(sub)
    return i, s.rindex(sub), s[i:]


@program(P, *ONE)
def unicode_affixes(s: str) -> Tuple[bool, bool, bool, bool]:
    return s.startswith("str"), s.endswith("é"), s.startswith("ß", 4), s.endswith("語", 0, 9)


@program(P, *ONE)
def unicode_strip(s: str) -> Tuple[str, str, str, str]:
    return s.strip(), s.lstrip("sé"), s.rstrip("é"), s.strip("日ト")


@program(P, *ONE)
def unicode_split(s: str) -> Tuple[List[str], List[str], List[str], List[str]]:
    return s.split(), s.split(" "), s.rsplit(" ", 1), s.splitlines()


@program(P, *ONE)
def unicode_partition(s: str) -> Tuple[Tuple[str, str, str], Tuple[str, str, str]]:
    return s.partition(" "), s.rpartition("é")


@program(P, *ONE)
def unicode_replace_join(s: str) -> Tuple[str, str, str]:
    # (not s.replace("", "-"): torch 2.13 loops forever on an empty pattern)
    return s.replace("é", "e"), "é".join([s, s]), s.replace("a", "")


@program(P, *ONE)
def unicode_pad(s: str) -> Tuple[str, str, str, str, str]:
    return s.center(14, "*"), s.ljust(12), s.rjust(12, "-"), s.zfill(12), s.expandtabs(4)


@program(P, *ONE)
def unicode_compare(s: str) -> Tuple[bool, bool, bool, bool]:
    return s < "é", s > "z", "é" in s, s == "straße é"


@program(P, *ONE)
def unicode_format(s: str) -> Tuple[str, str, str]:
    return "{}|{}".format(s, len(s)), f"<{s}>", "%s!" % s


@program(P, ("é",), ("a",), ("日",), ("ab",))
def unicode_ord(s: str) -> int:
    return ord(s)


@program(P, (233,), (97,), (26085,), (-1,))
def unicode_chr(i: int) -> str:
    return chr(i)


@program(P, *ONE)
def unicode_pieces_rejoin(s: str) -> Tuple[bool, bool, int, int]:
    # bytes cut apart and joined again are the text again (and the same dict key)
    d = {s: 1}
    rebuilt = ""
    for c in s:
        rebuilt = rebuilt + c
    return s[:1] + s[1:] == s, rebuilt in d, len(rebuilt), d[rebuilt]


@program(P, (["é", "e", "z", "日", "ab"],), ([],))
def unicode_sort_and_extremes(l: List[str]) -> Tuple[List[str], bool]:
    return sorted(l), "é" in l


@program(P, ("a b c d",), (" x\ty\nz ",), ("日本 語",))
def split_defaults_and_limits(s: str) -> Tuple[List[str], List[str], List[str], List[str]]:
    return s.split(None, 1), s.rsplit(), s.rsplit(" ", 1), s.splitlines(True)
