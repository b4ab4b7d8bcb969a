"""``%`` string formatting: every program of test/jit/test_string_formatting.py."""
# flake8: noqa
from typing import Dict, List, Optional, Tuple

import torch

from suite import program

F = "test/jit/test_string_formatting.py::TestStringFormatting::"


@program(F + "test_modulo_operator", (5, 2))
def modulo_operator(dividend: int, divisor: int) -> int:
    return dividend % divisor


@program(F + "test_string_interpolation_with_string_placeholder_and_string_variable", ("foo",))
def string_placeholder_and_string_variable(arg1: str):
    return "%s in template" % arg1


@program(F + "test_string_interpolation_with_string_placeholder_and_format_string_variable",
         ("%s in template",))
def string_placeholder_and_format_string_variable(arg1: str):
    return arg1 % "foo"


@program(F + "test_string_interpolation_with_double_percent_in_string", ("foo",))
def double_percent_in_string(arg1: str):
    return "%s in template %%" % arg1


@program(F + "test_string_interpolation_with_percent_in_string", ("foo",))
def percent_in_string(arg1: str) -> str:
    return "%s in template %" % arg1    # noqa: F501


@program(F + "test_string_interpolation_with_string_placeholder_and_digit_variable", (1,))
def string_placeholder_and_digit_variable(arg1: int) -> str:
    return "%s in template" % arg1


@program(F + "test_string_interpolation_with_digit_placeholder_and_digit_variable", (1,))
def digit_placeholder_and_digit_variable(arg1: int) -> str:
    return "%d in template" % arg1


@program(F + "test_string_interpolation_with_alternate_digit_placeholder", (1,))
def alternate_digit_placeholder(arg1: int) -> str:
    return "%i in template" % arg1


@program(F + "test_string_interpolation_with_digit_placeholder_and_string_variable", ("1",))
def digit_placeholder_and_string_variable(arg1: str) -> str:
    return "%d in template" % arg1


@program(F + "test_string_interpolation_with_exponent_placeholder_and_string_variable", ("1",))
def exponent_placeholder_and_string_variable(arg1: str) -> str:
    return "%e in template" % arg1


@program(F + "test_string_interpolation_with_lowercase_exponent_placeholder_and_digit_variable",
         (1,))
def lowercase_exponent_placeholder_and_digit_variable(arg1: int) -> str:
    return "%e in template" % arg1


@program(F + "test_string_interpolation_with_capital_exponent_placeholder_and_digit_variable",
         (1,))
def capital_exponent_placeholder_and_digit_variable(arg1: int) -> str:
    return "%E in template" % arg1


@program(F + "test_string_interpolation_with_float_placeholder_and_float_variable", (1.0,))
def float_placeholder_and_float_variable(arg1: float) -> str:
    return "%f in template" % arg1


@program(F + "test_string_interpolation_with_float_placeholder_and_digit_variable", (1,))
def float_placeholder_and_digit_variable(arg1: int) -> str:
    return "%f in template" % arg1


@program(F + "test_string_interpolation_with_char_placeholder_and_char_variable", ("a",))
def char_placeholder_and_char_variable(arg1: str) -> str:
    return "%c in template" % arg1


@program(F + "test_string_interpolation_with_char_placeholder_and_digit_variable", (97,))
def char_placeholder_and_digit_variable(arg1: int) -> str:
    return "%c in template" % arg1


@program(F + "test_string_interpolation_with_char_placeholder_and_true_string_variable", ("foo",))
def char_placeholder_and_true_string_variable(arg1: str) -> str:
    return "%c in template" % arg1


@program(F + "test_string_interpolation_with_multiple_placeholders", ("foo", 1, 1.0))
def multiple_placeholders(arg1: str, arg2: int, arg3: float) -> str:
    return "%s %d %f in template" % (arg1, arg2, arg3)


@program(F + "test_string_interpolation_with_subscript", (["foo", "bar"],))
def subscript(arg1: List[str]) -> str:
    return "%s in template" % arg1[0]


@program(F + "test_string_interpolation_with_too_few_arguments", ("foo",))
def too_few_arguments(arg1: str) -> str:
    return "%s %s in template" % arg1


@program(F + "test_string_interpolation_with_too_many_arguments", ("foo", "bar"))
def too_many_arguments(arg1: str, arg2: str) -> str:
    return "%s in template" % (arg1, arg2)    # noqa: F507


@program(F + "test_string_interpolation_with_unknown_format_specifier", ("foo",))
def unknown_format_specifier(arg1: str) -> str:
    return "%a in template" % arg1    # noqa: F501


# ---- pyjit's probes of the rules above, on more kinds of values -------------------

PF = "pyjit: %-format probe"


@program(PF, (0,), (-3,), (97,), (2 ** 40,), (2 ** 63 - 1,))
def percent_int_specifiers(x: int) -> str:
    return "%d|%i|%e|%E|%f|%F|%s" % (x, x, x, x, x, x, x)


@program(PF, (1.0,), (-2.5e-7,), (1e20,), (3.9,), (-3.9,), (float("nan"),), (float("inf"),),
         (float("-inf"),), (1e300,), (0.1,), (2147483647.5,), (-2147483648.7,), (3e9,))
def percent_float_specifiers(y: float) -> str:
    return "%d|%i|%e|%E|%f|%F|%s" % (y, y, y, y, y, y, y)


@program(PF, (True,), (False,))
def percent_bool_as_number(b: bool) -> str:
    return "%d" % b


@program(PF, (97,), (0,), (2 ** 40 + 65,), (-3,), (233,))
def percent_char_of_int(x: int) -> str:
    return "[%c]" % x


@program(PF, ("a",), ("é",), ("",), (" ",))
def percent_char_of_str(s: str) -> str:
    return "[%c]" % s


@program(PF, ([1, 2], (3, "x"), 2.5, True, None), ([], (0, ""), -0.0, False, 7))
def percent_str_of_values(x: List[int], t: Tuple[int, str], f: float, b: bool, n: Optional[int]) -> str:
    return "%s|%s|%s|%s|%s" % (x, t, f, b, n)


@program(PF, (1,), (-1,))
def percent_str_of_nested_tuple(x: int) -> str:
    return "%s" % ((x, (x, "a")),)


@program(PF, ("x",))
def percent_too_few_before_unknown(s: str) -> str:
    return "%s %a" % (s,)


@program(PF, ("x",))
def percent_unknown_before_too_many(s: str) -> str:
    return "%a" % (s, s)


@program(PF, ("x",))
def percent_no_specifier(s: str) -> str:
    return "plain" % s


@program(PF, ("x",), ("é",))
def percent_literal_percents(s: str) -> str:
    return "100%% %s%%" % s


@program(PF, (3,))
def percent_width(x: int) -> str:
    return "%5d" % x


@program(PF, (3,))
def percent_general(x: int) -> str:
    return "%g" % x


@program(PF, (torch.tensor([1.5, 2.0]),), (torch.tensor(3),))
def percent_str_of_tensor(t: torch.Tensor) -> str:
    return "%s" % t


@program(PF, (torch.tensor(3),))
def percent_number_of_tensor(t: torch.Tensor) -> str:
    return "%d" % t


@program(PF, ({"a": 1},))
def percent_dict(d: Dict[str, int]) -> str:
    return "%s, %d" % (d, d["a"])
