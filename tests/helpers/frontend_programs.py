"""The frontend corpus: classic small programs, written as plain annotated Python.

``tests/test_frontend_corpus.py`` scripts each one with ``pyjit.script`` and checks
that running the graph gives what CPython gives, for every argument tuple listed
in its ``@case(...)``.  The functions are ordinary Python: nothing here imports
pyjit, so the same source is the reference and the thing compiled.
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import numpy as np

#: (function, [argument tuples]) in definition order.
CASES: list = []


def case(*arg_sets):
    """Register the decorated function with the argument tuples to run it on."""
    def register(fn):
        CASES.append((fn, list(arg_sets)))
        return fn
    return register


# -- numbers ---------------------------------------------------------------------------------

@case((0,), (1,), (2,), (10,), (30,))
def fib(n: int) -> int:
    a = 0
    b = 1
    for _ in range(n):
        a, b = b, a + b
    return a


@case((12, 18), (17, 5), (0, 9), (270, 192))
def gcd(a: int, b: int) -> int:
    while b != 0:
        a, b = b, a % b
    return a


@case((0,), (1,), (5,), (12,))
def factorial(n: int) -> int:
    result = 1
    i = 2
    while i <= n:
        result *= i
        i += 1
    return result


@case((1,), (6,), (27,), (97,))
def collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@case((2,), (10,), (50,), (1,))
def primes(n: int) -> List[int]:
    found: List[int] = []
    for candidate in range(2, n + 1):
        is_prime = True
        for d in range(2, candidate):
            if d * d > candidate:
                break
            if candidate % d == 0:
                is_prime = False
                break
        if is_prime:
            found.append(candidate)
    return found


@case((0,), (7,), (12345,), (-408,))
def digit_sum(n: int) -> int:
    n = abs(n)
    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total


@case((0,), (1,), (255,), (1023,), (12345,))
def popcount(n: int) -> int:
    count = 0
    while n:
        count += n & 1
        n = n >> 1
    return count


@case((1,), (9,), (36,), (97,))
def totient(n: int) -> int:
    count = 0
    for k in range(1, n + 1):
        a, b = n, k
        while b:
            a, b = b, a % b
        if a == 1:
            count += 1
    return count


@case((2.0,), (9.0,), (0.25,), (1e6,))
def newton_sqrt(x: float) -> float:
    guess = x / 2.0 if x > 1.0 else 1.0
    while True:
        better = (guess + x / guess) / 2.0
        if abs(better - guess) < 1e-12:
            return better
        guess = better


@case((1990, 2030), (1896, 1905), (2000, 2000))
def leap_years(start: int, stop: int) -> int:
    count = 0
    for year in range(start, stop + 1):
        if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
            count += 1
    return count


@case((3, 4, 5), (2, 2, 2), (2, 2, 3), (1, 2, 8), (0, 1, 1))
def triangle(a: int, b: int, c: int) -> str:
    if a <= 0 or b <= 0 or c <= 0:
        return "invalid"
    elif a + b <= c or a + c <= b or b + c <= a:
        return "impossible"
    elif a == b == c:
        return "equilateral"
    elif a == b or b == c or a == c:
        return "isosceles"
    else:
        return "scalene"


@case((5,), (-3,), (0,))
def sign_word(x: int) -> str:
    return "positive" if x > 0 else ("zero" if x == 0 else "negative")


@case((0, 10, 5), (0, 10, 11), (3, 3, 3), (-5, 5, 0))
def in_range(lo: int, hi: int, x: int) -> bool:
    return lo <= x < hi or x == hi


@case((6,), (0,), (1,))
def pascal_row(n: int) -> List[int]:
    row = [1]
    for _ in range(n):
        nxt = [1]
        for i in range(len(row) - 1):
            nxt.append(row[i] + row[i + 1])
        nxt.append(1)
        row = nxt
    return row


@case((1,), (4,), (14,), (1994,), (3999,))
def roman(n: int) -> str:
    table = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
             (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = ""
    for value, letters in table:
        while n >= value:
            out += letters
            n -= value
    return out


@case((15,), (1,), (0,))
def fizzbuzz(n: int) -> List[str]:
    out: List[str] = []
    for i in range(1, n + 1):
        if i % 15 == 0:
            out.append("FizzBuzz")
        elif i % 3 == 0:
            out.append("Fizz")
        elif i % 5 == 0:
            out.append("Buzz")
        else:
            out.append(str(i))
    return out


@case((1234,), (0,), (-560,), (1000,))
def reverse_digits(n: int) -> int:
    negative = n < 0
    n = -n if negative else n
    out = 0
    while n > 0:
        out = out * 10 + n % 10
        n = n // 10
    if negative:
        return -out
    return out


# -- lists -----------------------------------------------------------------------------------

@case(([5, 1, 4, 2, 8],), ([],), ([3, 3, 1],), ([9, 8, 7, 6, 5, 4, 3, 2, 1],))
def bubble_sort(xs: List[int]) -> List[int]:
    out = xs.copy()
    n = len(out)
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if out[j] > out[j + 1]:
                out[j], out[j + 1] = out[j + 1], out[j]
                swapped = True
        if not swapped:
            break
    return out


@case(([5, 2, 9, 1],), ([],), ([1, 1, 0],))
def insertion_sort(xs: List[int]) -> List[int]:
    out: List[int] = []
    for x in xs:
        i = 0
        while i < len(out) and out[i] <= x:
            i += 1
        out.insert(i, x)
    return out


@case(([1, 3, 5, 7, 9, 11], 7), ([1, 3, 5], 4), ([], 1), ([2], 2))
def binary_search(xs: List[int], target: int) -> int:
    lo = 0
    hi = len(xs) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if xs[mid] == target:
            return mid
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


@case(([-2, 1, -3, 4, -1, 2, 1, -5, 4],), ([-3, -1, -2],), ([5],))
def max_subarray(xs: List[int]) -> int:
    best = xs[0]
    current = 0
    for x in xs:
        current = max(x, current + x)
        best = max(best, current)
    return best


@case(([1, 3, 5], [2, 4, 6, 8]), ([], [1]), ([4, 4], [4]))
def merge_sorted(a: List[int], b: List[int]) -> List[int]:
    out: List[int] = []
    i = 0
    j = 0
    while i < len(a) and j < len(b):
        if a[i] <= b[j]:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    while i < len(a):
        out.append(a[i])
        i += 1
    out.extend(b[j:])
    return out


@case(([3, 1, 4, 1, 5, 9, 2, 6], 10), ([1, 2], 7), ([5, 5], 10))
def find_pair(xs: List[int], target: int) -> Tuple[int, int]:
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if xs[i] + xs[j] == target:
                return i, j
    return -1, -1


@case(([2, 7, 11, 15], 9), ([3, 2, 4], 6), ([1, 2], 10))
def two_sum(xs: List[int], target: int) -> Tuple[int, int]:
    seen: Dict[int, int] = {}
    for i, x in enumerate(xs):
        if target - x in seen:
            return seen[target - x], i
        seen[x] = i
    return -1, -1


@case(([3, -1, 4, -1, -5],), ([1, 2],), ([],))
def first_negative(xs: List[int]) -> Optional[int]:
    for x in xs:
        if x < 0:
            return x
    return None


@case(([1, 2, 2, 3, 1, 4],), ([],), ([7, 7, 7],))
def dedupe(xs: List[int]) -> List[int]:
    seen: Dict[int, bool] = {}
    out: List[int] = []
    for x in xs:
        if x not in seen:
            seen[x] = True
            out.append(x)
    return out


@case(([1.0, 2.0, 3.0, 4.0],), ([5.5],))
def running_mean(xs: List[float]) -> List[float]:
    out: List[float] = []
    total = 0.0
    for i in range(len(xs)):
        total += xs[i]
        out.append(total / (i + 1))
    return out


@case(([[1, 2], [3, 4]], [[5, 6], [7, 8]]), ([[1, 0, 2]], [[1], [2], [3]]))
def matmul_lists(a: List[List[int]], b: List[List[int]]) -> List[List[int]]:
    rows = len(a)
    inner = len(b)
    cols = len(b[0])
    out: List[List[int]] = []
    for i in range(rows):
        row: List[int] = []
        for j in range(cols):
            acc = 0
            for k in range(inner):
                acc += a[i][k] * b[k][j]
            row.append(acc)
        out.append(row)
    return out


@case(([1, 5, 7, 12, 3, 9], 3), ([], 2))
def histogram(xs: List[int], buckets: int) -> List[int]:
    counts = [0] * buckets
    if not xs:
        return counts
    lo = min(xs)
    hi = max(xs)
    width = (hi - lo) // buckets + 1
    for x in xs:
        counts[(x - lo) // width] += 1
    return counts


@case(([4, 1, 3],), ([10, -2, 7, 7],))
def list_builtins(xs: List[int]) -> Tuple[int, int, int, List[int], int]:
    return sum(xs), min(xs), max(xs), sorted(xs), len(xs)


@case(([1, 2, 3], [4, 5, 6]), ([1], [2, 3]))
def zip_dot(a: List[int], b: List[int]) -> int:
    total = 0
    for x, y in zip(a, b):
        total += x * y
    return total


@case(([10, 20, 30],), ([],))
def weighted(xs: List[int]) -> int:
    total = 0
    for i, x in enumerate(xs, 1):
        total += i * x
    return total


@case((10,), (0,))
def even_squares(n: int) -> List[int]:
    return [i * i for i in range(n) if i % 2 == 0]


@case(([[1, 2], [3], []],))
def flatten(rows: List[List[int]]) -> List[int]:
    return [x for row in rows for x in row]


@case(([3, 8, 1, 9],))
def stack_ops(xs: List[int]) -> Tuple[int, int, List[int]]:
    stack: List[int] = []
    for x in xs:
        stack.append(x)
    top = stack.pop()
    bottom = stack.pop(0)
    stack.reverse()
    stack.sort()
    return top, bottom, stack


@case(((1, 2, 3),), ((-4, 0, 4),))
def tuple_stats(t: Tuple[int, int, int]) -> Tuple[int, int]:
    total = 0
    biggest = t[0]
    for x in t:
        total += x
        if x > biggest:
            biggest = x
    return total, biggest


# -- strings and dicts -------------------------------------------------------------------------------

@case((4,), (0,))
def build_string(n: int) -> str:
    s = ""
    for i in range(n):
        if i > 0:
            s = s + ","
        s = s + str(i * i)
    return s


@case(("racecar",), ("pyjit",), ("",), ("abba",))
def is_palindrome(s: str) -> bool:
    i = 0
    j = len(s) - 1
    while i < j:
        if s[i] != s[j]:
            return False
        i += 1
        j -= 1
    return True


@case(("the quick brown fox",), ("one",))
def reverse_words(s: str) -> str:
    words = s.split(" ")
    words.reverse()
    return " ".join(words)


@case(("Hello World",), ("xyz",), ("",))
def count_vowels(s: str) -> int:
    count = 0
    for ch in s.lower():
        if ch in "aeiou":
            count += 1
    return count


@case((["a", "b", "a", "c", "b", "a"],), ([],))
def word_count(words: List[str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for w in words:
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    return counts


@case(("mississippi",))
def char_counts(s: str) -> List[Tuple[str, int]]:
    counts: Dict[str, int] = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    keys = sorted(list(counts.keys()))
    return [(k, counts[k]) for k in keys]


@case(("abc xyz", 3), ("Hello", 13))
def caesar(s: str, k: int) -> str:
    out = ""
    for ch in s:
        if "a" <= ch <= "z":
            out += chr((ord(ch) - ord("a") + k) % 26 + ord("a"))
        elif "A" <= ch <= "Z":
            out += chr((ord(ch) - ord("A") + k) % 26 + ord("A"))
        else:
            out += ch
    return out


@case(("pyjit", 3), ("ab", 0))
def describe(name: str, n: int) -> str:
    return f"{name} has {len(name)} letters and n={n}"


@case(("hello world foo",))
def title_case(s: str) -> str:
    parts: List[str] = []
    for w in s.split(" "):
        parts.append(w[:1].upper() + w[1:])
    return " ".join(parts)


@case((["x", "yy", "zzz"],))
def lengths(words: List[str]) -> Dict[str, int]:
    return {w: len(w) for w in words}


@case(("stressed",), ("",))
def reverse_string(s: str) -> str:
    return s[::-1]


# -- control flow corners ----------------------------------------------------------------------

@case((None,), (3,), (-7,))
def optional_default(x: Optional[int]) -> int:
    if x is None:
        return 0
    y = x * 2
    return y + 1


@case((5,), (50,))
def best_below(n: int) -> int:
    best: Optional[int] = None
    for i in range(n):
        if i * i < n and (best is None or i > best):
            best = i
    assert best is not None, "nothing found"
    return best


@case((3,), (20,))
def nested_exits(n: int) -> int:
    total = 0
    for i in range(n):
        if i % 2 == 1:
            continue
        j = 0
        while True:
            j += 1
            if j > i:
                break
            if i * j > 40:
                return total
            total += j
    return -total


@case((10,), (-1,))
def checked(n: int) -> int:
    if n < 0:
        raise ValueError("negative: " + str(n))
    return n * 2


def _helper_square(x: int) -> int:
    return x * x


@case((3,), (0,))
def uses_helper(x: int) -> int:
    return _helper_square(x) + _helper_square(x + 1)


@case(([1, None, -2, 5],), ([],))
def sum_present(xs: List[Optional[int]]) -> int:
    total = 0
    for x in xs:
        if x is not None and x > 0:
            total += x
        total += 0 if x is None else 1
    return total


@case((0,), (4,))
def optional_accumulate(n: int) -> Optional[int]:
    best: Optional[int] = None
    i = 0
    while i < n:
        if best is None:
            best = i
        else:
            best = best + i
        i += 1
    return best


@case(((1, "ab", 2.5),), ((12345, "abcdef", 0.5),))
def join_tuple(t: Tuple[int, str, float]) -> str:
    out = ""
    for v in t:
        out += str(v) + ";"
        if len(out) > 8:
            return out
    return out + "!"


def _first_square_above(n: int) -> int:
    for i in range(n):
        if i * i > n:
            return i
    return -1


@case((10, 3), (0, 50))
def inlined_loops(a: int, b: int) -> int:
    return _first_square_above(a) * 100 + _first_square_above(b)


@case(({"ab": 2, "c": 5},), ({},))
def dict_walk(d: Dict[str, int]) -> Tuple[int, str]:
    total = 0
    keys = ""
    for k in d:
        keys += k
    for k, v in d.items():
        total += v * len(k)
    return total, keys


@case(([[1, 2], [3, 4, 5]],))
def bump_grid(grid: List[List[int]]) -> List[List[int]]:
    for row in grid:
        for j in range(len(row)):
            row[j] += j
    grid[0][0] = 99
    return grid


@case(("banana",), ("a",))
def string_slices(s: str) -> Tuple[str, str, str, int]:
    return s[1:3], s[-2:], s[::2], s.count("a")


@case((3,), (6,))
def maybe_total(n: int):
    total = 0
    for i in range(n):
        total += i
    if total > 10:
        return total
    return None


@case((1,), (None,), (12,))
def settle(x: Optional[int]) -> int:
    steps = 0
    while x is not None:
        steps += 1
        if x > 10:
            x = None
        else:
            x = x + 3
    return steps


@case((-1,), (3,))
def upto(n: int) -> List[int]:
    if n < 0:
        return []
    out: List[int] = []
    for i in range(n):
        out.append(i)
    return out


@case((10,), (0,), (1,))
def isqrt_ceil(n: int) -> int:
    i = 0
    while True:
        if i * i >= n:
            break
        i += 1
    return i


@case((["a", "b", "a", "c"],))
def positions(words: List[str]) -> Dict[str, List[int]]:
    index: Dict[str, List[int]] = {}
    for i, w in enumerate(words):
        if w not in index:
            index[w] = []
        index[w].append(i)
    return index


@case(([1, 2, 3, 4, 7],))
def split_parity(xs: List[int]) -> Tuple[List[int], List[int]]:
    evens: List[int] = []
    odds: List[int] = []
    for x in xs:
        (evens if x % 2 == 0 else odds).append(x)
    return evens, odds


@case((7.5, 2.0), (-7.5, 2.0))
def float_ops(a: float, b: float) -> Tuple[float, float, float, int, bool]:
    return a / b, a // b, a % b, math.floor(a / b), a > b


# -- numpy -------------------------------------------------------------------------------------------

_RNG = np.random.default_rng(7)
_X = _RNG.standard_normal((4, 3))
_W1 = _RNG.standard_normal((3, 5))
_B1 = _RNG.standard_normal(5)
_W2 = _RNG.standard_normal((5, 2))
_B2 = _RNG.standard_normal(2)


@case((_X, _W1, _B1, _W2, _B2))
def mlp_forward(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                b2: np.ndarray) -> np.ndarray:
    h = np.tanh(x @ w1 + b1)
    return 1.0 / (1.0 + np.exp(-(h @ w2 + b2)))


@case((_X,))
def softmax_rows(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x))
    return e / np.sum(e, axis=1, keepdims=True)


@case((_X, 3))
def scale_steps(x: np.ndarray, n: int) -> np.ndarray:
    y = x
    for i in range(n):
        y = y * 0.5 + float(i)
    return y


@case((_X, _W1, 0.1, 3), (_X, _W1, 0.0, 1))
def gradient_steps(x: np.ndarray, w: np.ndarray, lr: float, n: int) -> np.ndarray:
    for _ in range(n):
        grad = x.T @ np.tanh(x @ w)
        w -= lr * grad
        w *= 0.5
        w /= np.max(np.abs(w))
    return w


@case((_X,), (_W1,), (_B2,))
def leaky_signed_squares(x: np.ndarray) -> np.ndarray:
    leaky = np.where(x > 0, x, 0.1 * x)
    return np.sign(x) * np.square(leaky) + np.clip(x, -0.5, 0.5)


@case((_X,), (_W2,))
def min_max_scale(x: np.ndarray) -> np.ndarray:
    lo = np.amin(x, axis=0)
    hi = np.amax(x, axis=0, keepdims=True)
    return np.clip((x - lo) / (hi - lo), 0.1, None).T


@case((_X,), (_B1,))
def hyperbolic_identities(x: np.ndarray) -> np.ndarray:
    y = x
    y += 0.5  # in place: x sees it too
    one = np.square(np.cosh(x)) - np.square(np.sinh(x))
    return np.transpose(one * np.tan(x)) + np.arctan(y.T) * np.sinh(x).T
