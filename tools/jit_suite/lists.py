"""Lists: programs from test/jit/test_list_dict.py (TestList) and the list parts of
test/jit/test_typing.py, with the inputs those tests run them on."""
# flake8: noqa
from typing import List, Optional, Tuple

import torch
from torch import Tensor

from suite import program, seeded

L = "test/jit/test_list_dict.py::TestList::"


@program(L + "test_list_bool_conversion", ([1, 2, 3],), ([],))
def if_predicate(l: List[int]):
    if l:
        s = 0
        for n in l:
            s += n

        return s
    else:
        return -1


@program(L + "test_list_bool_conversion", ([1, 2, 3],), ([],))
def while_predicate(l: List[int]):
    s = 0

    while l:
        s += l.pop()


@program(L + "test_list_bool_conversion", ([1, 2, 3],), ([],))
def ternary_predicate(l: List[int]):
    return "non-empty" if l else "empty"


@program(L + "test_in_check", ([1, 2, 3],), ([1, 3, 3],))
def int_in(x: List[int]) -> bool:
    return 2 in x


@program(L + "test_in_check", ([1.0, 2.0, 3.0],), ([1.0, 3.0, 3.0],))
def float_in(x: List[float]) -> bool:
    return 2.0 in x


@program(L + "test_in_check", (["not", "here"],), (["hi", "bye"],), ([],))
def str_in(x: List[str]) -> bool:
    return "hi" in x


@program(L + "test_list_literal", ())
def reassign():
    x = [1]
    if 1 == 1:
        x = [2, 3]
    return


@program(L + "test_list_literal", ())
def reassign_arity_change():
    x = [1]
    if 1 == 1:
        x = [1, 2, 3]
    return


@program(L + "test_list_literal", ())
def reassign_from_empty_builtin():
    x = torch.jit.annotate(List[int], [])
    if 1 == 1:
        x = [1, 2, 3]
    y = torch.jit.annotate(List[float], [])
    if 1 == 1:
        y = [1.0, 2.0, 3.0]
    z = []
    if 1 == 1:
        z = [torch.randn([1])]
    return


@program(L + "test_list_variance", ())
def test_listliteral_is_typed_from_annotation():
    x: List[Optional[int]] = [None, None, None]
    return x


@program(L + "test_list_variance", ())
def test_listcomprehension_is_typed_from_annotation():
    x: List[Optional[int]] = [None for _ in range(3)]
    return x


@program(L + "test_del", ([1, 2, 3, 4],))
def del_fn(x: List[int]) -> List[int]:
    del x[1]
    return x


@program(L + "test_del", ([],))
def del_fn2(x: List[int]) -> List[int]:
    del x[100]
    return x


@program(L + "test_list_keyword", ())
def list_keyword_foo():
    return (
        list([1, 2, 3]),  # noqa: C410
        list(("a", "b")),  # noqa: C410
        list(range(5)),
        list("abcdefg"),
    )


@program(L + "test_list_keyword", ())
def list_keyword_foo2():
    x: List[int] = list()  # noqa: C408
    x.append(1)
    return (x,)


@program(L + "test_list_keyword", ())
def list_keyword_foo3():
    return list(list("abc"))  # noqa: C414


_MIN_MAX_INT = ([[1, 8, 8], [2, 1, 1], [], [2], [1], [1, 2, 3]],
                [[2, 1, 1], [1, 8, 8], [], [1], [], [1, 2]])
_MIN_MAX_FLOAT = ([[1.0, 8.0, 8.0], [2.0, 1.0, 1.0], [], [2.0], [1.0], [1.0, 2.0, 3.0]],
                  [[2.0, 1.0, 1.0], [1.0, 8.0, 8.0], [], [1.0], [], [1.0, 2.0]])
_MIN_MAX_BOOL = ([[], [], [], [False], [True], [False, True], [True, True],
                  [False, False, False], [False, False, True]],
                 [[], [False], [True], [True], [False], [True, True], [False, True],
                  [False, False, True], [False, False, False]])
_MAX_INT = ([[1, 8, 8], [8, 1, 1], [], [1], [], [1, 2]],
            [[8, 1, 1], [1, 8, 8], [], [2], [1], [1, 2, 3]])
_MAX_FLOAT = ([[1.0, 8.0, 8.0], [8.0, 1.0, 1.0], [], [1.0], [], [1.0, 2.0]],
              [[8.0, 1.0, 1.0], [1.0, 8.0, 8.0], [], [2.0], [1.0], [1.0, 2.0, 3.0]])


@program(L + "test_min_bool_list", ([True, False], [False, True]))
def jit_min_list_bool_pair(a: List[bool], b: List[bool]) -> List[bool]:
    return min(a, b)


@program(L + "test_min_max_list", *zip(*_MIN_MAX_INT))
def jit_min_list(a: List[int], b: List[int]) -> List[int]:
    return min(a, b)


@program(L + "test_min_max_list", *zip(*_MIN_MAX_FLOAT))
def jit_min_list_float(a: List[float], b: List[float]) -> List[float]:
    return min(a, b)


@program(L + "test_min_max_list", *zip(*_MIN_MAX_BOOL))
def jit_min_list_bool(a: List[bool], b: List[bool]) -> List[bool]:
    return min(a, b)


@program(L + "test_min_max_list", *zip(*_MAX_INT))
def jit_max_list(a: List[int], b: List[int]) -> List[int]:
    return max(a, b)


@program(L + "test_min_max_list", *zip(*_MAX_FLOAT))
def jit_max_list_float(a: List[float], b: List[float]) -> List[float]:
    return max(a, b)


@program(L + "test_min_max_list", *zip(*_MIN_MAX_BOOL))
def jit_max_list_bool(a: List[bool], b: List[bool]) -> List[bool]:
    return max(a, b)


@program(L + "test_list_gather", ())
def index():
    a = [1, 2, 3]
    return a[1]


@program(L + "test_list_gather", ())
def negative_index():
    a = [1, 2, 3]
    return a[-1]


@program(L + "test_list_gather", ())
def bad_index():
    a = [1, 2, 3]
    return a[4]


@program(L + "test_list_gather", ())
def bad_negative_index():
    a = [1, 2, 3]
    return a[-5]


@program(L + "test_list_len", ())
def list_len_func():
    a = [1, 2, 3]
    return len(a) == 3


@program(L + "test_list_len", ())
def list_len_func2():
    a = []
    return len(a) == 0


@program(L + "test_list_ops", ())
def test_equality():
    a = [1, 2, 3]
    b = [1, 2, 3]
    return a == b


@program(L + "test_list_ops", ())
def test_equality_str():
    a = ["foo", "bar"]
    b = ["foo", "bar"]
    return a == b


@program(L + "test_list_ops", ())
def test_inequality():
    a = [1, 2, 3]
    b = [1, 2, 3]
    return a != b


@program(L + "test_list_ops", ())
def test_inequality_str():
    a = ["foo", "bar"]
    b = ["foo", "bar", "food"]
    return a != b


@program(L + "test_list_ops", ())
def test_non_equality():
    a = [1, 2, 3]
    b = [3]
    return a == b


@program(L + "test_list_ops", ())
def test_non_inequality():
    a = [1, 2, 3]
    b = [3]
    return a != b


@program(L + "test_list_ops", ())
def test_list_equality_as_cond():
    a = [1, 2, 3]
    b = [3]
    if a == b:
        c = 1
    else:
        c = 2
    return c


@program(L + "test_list_ops", ())
def test_list_add():
    a = [1, 2, 3]
    b = [2]
    c = a + b
    return c == [1, 2, 3, 2]


@program(L + "test_list_ops", ())
def test_list_add_empty():
    a = [1, 2, 3]
    b = torch.jit.annotate(List[int], [])
    c = a + b
    return c == [1, 2, 3]


@program(L + "test_list_ops", ())
def test_tensor_list_equality():
    t1 = torch.ones([1, 1])
    t2 = torch.ones([1, 1])
    x = [t1, t2]
    y = [t2, t1]
    return x == y


@program(L + "test_list_ops", ())
def test_invalid_list_equality():
    t1 = torch.ones([2, 2])
    t2 = torch.ones([2, 2])
    x = [t1, t2]
    y = [t2, t1]
    # will throw since the tensors have more than one element
    return x == y


# test_list_sort formats one template with six list literals; here written out.
@program(L + "test_list_sort", ())
def list_sort_empty():
    li_1 = []
    li_2 = []
    li_3 = []
    li_1.sort()
    li_2.sort(reverse=True)
    li_4 = sorted(li_3)
    return li_1, li_2, li_3, li_4


@program(L + "test_list_sort", ())
def list_sort_ints():
    li_1 = [1, 3, 2]
    li_2 = [1, 3, 2]
    li_3 = [1, 3, 2]
    li_1.sort()
    li_2.sort(reverse=True)
    li_4 = sorted(li_3)
    return li_1, li_2, li_3, li_4


@program(L + "test_list_sort", ())
def list_sort_bools():
    li_1 = [True, False, True]
    li_2 = [True, False, True]
    li_3 = [True, False, True]
    li_1.sort()
    li_2.sort(reverse=True)
    li_4 = sorted(li_3)
    return li_1, li_2, li_3, li_4


@program(L + "test_list_sort", ())
def list_sort_floats():
    li_1 = [1.2, .2, 3.2]
    li_2 = [1.2, .2, 3.2]
    li_3 = [1.2, .2, 3.2]
    li_1.sort()
    li_2.sort(reverse=True)
    li_4 = sorted(li_3)
    return li_1, li_2, li_3, li_4


@program(L + "test_list_sort", ())
def list_sort_float_tensors():
    li_1 = [torch.tensor(1.0), torch.tensor(0.2), torch.tensor(0.5)]
    li_2 = [torch.tensor(1.0), torch.tensor(0.2), torch.tensor(0.5)]
    li_3 = [torch.tensor(1.0), torch.tensor(0.2), torch.tensor(0.5)]
    li_1.sort()
    li_2.sort(reverse=True)
    li_4 = sorted(li_3)
    return li_1, li_2, li_3, li_4


@program(L + "test_list_sort", ())
def list_sort_int_tensors():
    li_1 = [torch.tensor(5), torch.tensor(-2), torch.tensor(4)]
    li_2 = [torch.tensor(5), torch.tensor(-2), torch.tensor(4)]
    li_3 = [torch.tensor(5), torch.tensor(-2), torch.tensor(4)]
    li_1.sort()
    li_2.sort(reverse=True)
    li_4 = sorted(li_3)
    return li_1, li_2, li_3, li_4


@program(L + "test_list_sort", ([torch.zeros([2]), torch.zeros([2])],))
def test_fail(x: List[Tensor]) -> List[Tensor]:
    x.sort()
    return x


@program(L + "test_list_sort", ())
def test_mutation():
    a = [1, 2, 3]
    a.sort()
    return a


@program(L + "test_list_sort", ())
def test_sorted_copy():
    a = [torch.tensor(2), torch.tensor(0), torch.tensor(1)]
    b = sorted(a)
    a[0] = torch.tensor(10)
    return a, b


@program(L + "test_list_slice", ())
def test_regular_slice():
    a = [0, 1, 2, 3, 4]
    return a[2:3] == [2]


@program(L + "test_list_slice", ())
def test_open_ended_slice():
    a = [0, 1, 2, 3, 4]
    return a[2:] == [2, 3, 4]


@program(L + "test_list_slice", ())
def test_open_ended_slice2():
    a = [0, 1, 2, 3, 4]
    return a[:2] == [0, 1]


@program(L + "test_list_slice", ())
def test_negative_slice():
    a = [0, 1, 2, 3, 4]
    return a[:-1] == [0, 1, 2, 3]


@program(L + "test_list_slice", ())
def test_negative_slice2():
    a = [0, 1, 2, 3, 4]
    return a[-3:-1] == [2, 3]


@program(L + "test_list_slice", ())
def test_backward_slice():
    a = [0, 1, 2, 3, 4]
    return a[3:2] == torch.jit.annotate(List[int], [])


@program(L + "test_list_slice", ())
def test_over_slice():
    a = [0, 1, 2, 3, 4]
    return a[3:10] == [3, 4]


_SLICE_INDEX = torch.tensor([[[1, 11], [2, 22]], [[3, 33], [4, 44]], [[5, 55], [6, 66]]])


@program(L + "test_slice_index", (_SLICE_INDEX,))
def test_index_slice1(x):
    x = x[:, :, [0, 1]]
    return x


@program(L + "test_slice_index", (_SLICE_INDEX,))
def test_index_slice2(x):
    x = x[[2, 1, 0], :, :]
    return x


@program(L + "test_slice_index", (_SLICE_INDEX,))
def test_index_slice3(x):
    x = x[[0, 1], :, [1]]
    return x


@program(L + "test_slice_index", (_SLICE_INDEX,))
def test_index_slice_empty_list(x):
    empty_list: List[int] = []
    x = x[empty_list, :, :]
    return x


@program(L + "test_slice_index", (_SLICE_INDEX,))
def test_index_slice_out_of_bounds_index(x):
    x = x[[4], :, :]
    return x


@program(L + "test_mutable_list_append", ())
def test_append():
    a = [0, 1]
    a.append(2)
    a.append(3)
    return a == [0, 1, 2, 3]


@program(L + "test_comprehensions_basic", ([1, 2, 3],))
def comp(l: List[int]) -> List[int]:
    n = [x * 3 for x in l]
    return n


@program(L + "test_comprehensions_basic_float", ([1.0, 2.0, 3.0],))
def comp_float(l: List[float]) -> List[float]:
    n = [x * 3 for x in l]
    return n


@program(L + "test_comprehensions_two_comps", ([1, 2, 3], [4, 5]))
def comp_two(l1: List[int], l2: List[int]) -> List[int]:
    n = [x * 3 for x in l1]
    n2 = [x + 2 for x in l2]
    return n + n2


@program(L + "test_comprehension_out_type_not_in_type", ())
def list_cast() -> int:
    li = [int(i) for i in [torch.tensor(0), torch.tensor(1), torch.tensor(2)]]
    return li[0] + li[1] + li[2]


@program(L + "test_comprehension_iterable", ([1, 2, 4], [4, 7, 9]), ([5], [4, 7, 9]))
def comprehension_zip(names: List[int], results: List[int]) -> List[Tuple[int, int]]:
    return [(k + 5, v - 2) for k, v in zip(names, results)]


@program(L + "test_comprehension_iterable", (9,), (0,), (-1,))
def comprehension_range(x: int) -> List[int]:
    return [i for i in range(x)]  # noqa: C416


@program(L + "test_comprehension_iterable", ())
def changes_type():
    a = [float(i) for i in range(5)]
    b = [float(i) for i in [1, 2, 3, 4]]
    c = [(float(i), j) for i, j in enumerate([1, 2, 3, 8])]
    return a, b, c


@program(L + "test_comprehension_iterable", ())
def test_zero_iter():
    return [str(i) for i, j in zip("", "")]


@program(L + "test_mutable_list_append_2", ())
def test_append_2():
    a = [0, 1]
    a.append(2)
    a = [1]
    a.append(4)
    return a == [1, 4]


@program(L + "test_mutable_list_append_if", ())
def test_append_if():
    a = [1]
    if 1 == 1:
        a.append(4)
    return a == [1, 4]


@program(L + "test_mutable_list_append_if_else", ())
def test_append_if_else():
    a = [1]
    if 1 == 2:
        a.append(4)
    else:
        a.append(10)
    return a == [1, 10]


@program(L + "test_mutable_list_append_loop", ())
def test_append_loop():
    a = torch.jit.annotate(List[int], [])
    for i in range(5):
        a.append(i)

    return a == [0, 1, 2, 3, 4]


@program(L + "test_mutable_list_append_loop_if", ())
def test_append_loop_if():
    a = torch.jit.annotate(List[int], [])
    for i in range(5):
        if i > 3:
            a.append(i)
        else:
            a.append(0)

    return a == [0, 0, 0, 0, 4]


@program(L + "test_mutable_list_nested_loop", ())
def test_nested_loop():
    a = torch.jit.annotate(List[int], [])
    for i in range(2):
        for j in range(2):
            a.append(i + j)

    return a == [0, 1, 1, 2]


def bar(y: List[int]) -> None:
    y.append(4)


@program(L + "test_mutable_list_function_inline", ())
def function_inline_foo():
    x = [1, 2, 3]
    bar(x)
    return x


@program(L + "test_mutable_list_reverse_empty", ())
def test_reverse_empty():
    a = []
    a.reverse()

    return a == []


@program(L + "test_mutable_list_reverse", ())
def test_reverse():
    a = [1, 2, 3, 4]
    a.reverse()

    return a == [4, 3, 2, 1]


@program(L + "test_mutable_tensor_list_reverse", ())
def test_tensor_reverse():
    a = [torch.tensor(1), torch.tensor(2)]
    a.reverse()

    return a == [torch.tensor(2), torch.tensor(1)]


@program(L + "test_mutable_list_pop_empty", ())
def test_pop_empty():
    a = torch.jit.annotate(List[int], [])
    return a.pop()


@program(L + "test_mutable_list_pop", ())
def test_pop():
    a = [1, 2, 3, 4]
    b = a.pop()

    return b == 4


@program(L + "test_mutable_list_pop2", ())
def test_pop2():
    a = [1, 2, 3, 4]
    b = a.pop()

    return len(a) == 3


@program(L + "test_mutable_list_pop_at", ())
def test_pop_at():
    a = [1, 2, 3, 4]
    b = a.pop(1)

    return b == 2


@program(L + "test_mutable_list_pop_at2", ())
def test_pop_at2():
    a = [1, 2, 3, 4]
    b = a.pop(1)

    return len(a) == 3


@program(L + "test_mutable_list_pop_at_negative", ())
def test_pop_at_negative():
    a = [1, 2, 3, 4]
    b = a.pop(-2)

    return b == 3


@program(L + "test_mutable_list_pop_at_negative2", ())
def test_pop_at_negative2():
    a = [1, 2, 3, 4]
    b = a.pop(-2)

    return len(a) == 3


@program(L + "test_mutable_list_pop_slice", ())
def test_pop_slice():
    a = [1, 2, 3, 4]
    b = [1, 2, 3, 4]

    a.pop()
    b = b[:-1]

    return a == b


@program(L + "test_mutable_list_clear_empty", ())
def test_clear_empty():
    a = torch.jit.annotate(List[int], [])
    a.clear()

    return len(a) == 0


@program(L + "test_mutable_list_clear", ())
def test_clear():
    a = [1, 2, 3, 4]
    a.clear()

    return len(a) == 0


@program(L + "test_mutable_list_insert", ())
def test_list_insert():
    a = [1, 2, 3, 4]
    a.insert(2, 5)

    return a == [1, 2, 5, 3, 4]


@program(L + "test_mutable_list_insert_negative", ())
def test_list_insert_negative():
    a = [1, 2, 3, 4]
    a.insert(-1, 5)

    return a == [1, 2, 3, 5, 4]


@program(L + "test_mutable_list_insert_neg_out_of_bounds", ())
def test_list_insert_neg_out_of_bounds():
    a = [1, 2, 3, 4]
    a.insert(-10, 5)

    return a == [5, 1, 2, 3, 4]


@program(L + "test_mutable_list_insert_out_of_bounds", ())
def test_list_insert_out_of_bounds():
    a = [1, 2, 3, 4]
    a.insert(10, 5)

    return a == [1, 2, 3, 4, 5]


@program(L + "test_mutable_list_remove_not_existing", ())
def test_list_remove_not_existing():
    a = [1, 2, 3, 4]
    a.remove(5)

    return a


@program(L + "test_mutable_list_remove", ())
def test_list_remove():
    a = [1, 2, 3, 4]
    a.remove(3)

    return a == [1, 2, 4]


@program(L + "test_mutable_list_remove", ())
def test_str_list_remove():
    a = ["foo", "bar"]
    a.remove("foo")

    return a == ["bar"]


@program(L + "test_list_index_not_existing", ())
def list_index_not_existing():
    a = [4, 1, 3, 2]
    i = a.index(5)

    return i


@program(L + "test_list_index", ())
def list_index():
    a = [4, 1, 3, 2]
    i = a.index(3)

    return i == 2


@program(L + "test_list_index", ())
def list_str_index():
    a = ["foo", "bar"]
    i = a.index("bar")

    return i == 1


@program(L + "test_tensor_list_index", ())
def tensor_list_index():
    a = [torch.tensor(4), torch.tensor(1), torch.tensor(3), torch.tensor(2)]
    i = a.index(torch.tensor(3))

    return i == 2


@program(L + "test_tensor_list_index_not_existing", ())
def tensor_list_index_not_existing():
    a = [torch.tensor(4), torch.tensor(1), torch.tensor(3), torch.tensor(2)]
    i = a.index(torch.tensor(5))

    return i


@program(L + "test_list_count", ())
def list_count():
    a = [4, 1, 4, 2, 4]
    i = a.count(4)

    return i == 3


@program(L + "test_list_count", ())
def list_str_count():
    a = ["foo", "bar", "foo"]
    i = a.count("foo")

    return i == 2


@program(L + "test_list_count_not_existing", ())
def list_count_not_existing():
    a = [4, 1, 4, 2, 4]
    i = a.count(5)

    return i == 0


@program(L + "test_tensor_list_count", ())
def tensor_list_count():
    a = [torch.tensor(4), torch.tensor(1), torch.tensor(4), torch.tensor(4)]
    i = a.count(torch.tensor(4))

    return i == 3


@program(L + "test_tensor_list_count_not_existing", ())
def tensor_list_count_not_existing():
    a = [torch.tensor(4), torch.tensor(1), torch.tensor(4), torch.tensor(4)]
    i = a.count(torch.tensor(5))

    return i == 0


@program(L + "test_mutable_list_remove_tensor", ())
def test_list_remove_tensor():
    a = [torch.ones(1), torch.zeros(1), torch.ones(2)]
    a.remove(torch.zeros(1))

    return len(a) == 2


@program(L + "test_mutable_list_remove2", ())
def test_list_remove2():
    a = [1]
    a.remove(1)

    return len(a) == 0


_T3 = [[], [seeded(1, 2)], [seeded(2, 2), seeded(3, 2), seeded(4, 2)]]


@program(L + "test_extend_list_mutable", *[(l, r) for l in _T3 for r in _T3])
def extend_list_tensors(a: List[Tensor], b: List[Tensor]) -> List[Tensor]:
    a.extend(b)
    return a


@program(L + "test_extend_list_immutable",
         *[(l, r) for l in [[], [1], [1, 2, 3]] for r in [[], [1], [1, 2, 3]]])
def extend_list_ints(a: List[int], b: List[int]) -> List[int]:
    a.extend(b)
    return a


@program(L + "test_copy_list_mutable", *[(l,) for l in _T3])
def copy_list_tensors(a: List[Tensor]) -> List[Tensor]:
    return a.copy()


@program(L + "test_copy_list_immutable", ([],), ([1],), ([1, 2, 3],))
def copy_list_ints(a: List[int]) -> List[int]:
    return a.copy()


_INT_LISTS = [1], [2, 1, 2], [-3, 4, 2], [-2, -7, 1, 4], [2, 1, 0, 4], []


@program(L + "test_min_max_single_list", *[(li,) for li in _INT_LISTS])
def min_intlist(li: List[int]) -> int:
    return min(li)


@program(L + "test_min_max_single_list", *[(li,) for li in _INT_LISTS])
def max_intlist(li: List[int]) -> int:
    return max(li)


@program(L + "test_min_max_single_list", *[([bool(x) for x in li],) for li in _INT_LISTS])
def min_boollist(li: List[bool]) -> bool:
    return min(li)


@program(L + "test_min_max_single_list", *[([bool(x) for x in li],) for li in _INT_LISTS])
def max_boollist(li: List[bool]) -> bool:
    return max(li)


@program(L + "test_min_max_single_list", *[([float(x) for x in li],) for li in _INT_LISTS])
def min_floatlist(li: List[float]) -> float:
    return min(li)


@program(L + "test_min_max_single_list", *[([float(x) for x in li],) for li in _INT_LISTS])
def max_floatlist(li: List[float]) -> float:
    return max(li)


_BOOL_3D = torch.tensor([[[True, False], [False, True]], [[True, False], [False, False]]],
                        dtype=torch.bool)
_INT_3D = torch.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], dtype=torch.long)


@program(L + "test_to_list", (torch.tensor(False, dtype=torch.bool),))
def to_list_bool_0D(x: torch.Tensor) -> bool:
    li = torch.jit.annotate(bool, x.tolist())
    return li


@program(L + "test_to_list", (torch.tensor([True, False, True, False], dtype=torch.bool),))
def to_list_bool_1D(x: torch.Tensor) -> List[bool]:
    li = torch.jit.annotate(List[bool], x.tolist())
    return li


@program(L + "test_to_list", (torch.tensor([[True, True, False], [False, True, False]]),))
def to_list_bool_2D(x: torch.Tensor) -> List[List[bool]]:
    li = torch.jit.annotate(List[List[bool]], x.tolist())
    return li


@program(L + "test_to_list", (_BOOL_3D,), (_BOOL_3D.transpose(0, 1),))
def to_list_bool_3D(x: torch.Tensor) -> List[List[List[bool]]]:
    li = torch.jit.annotate(List[List[List[bool]]], x.tolist())
    return li


@program(L + "test_to_list", (torch.tensor(1, dtype=torch.long),))
def to_list_int_0D(x: torch.Tensor) -> int:
    li = torch.jit.annotate(int, x.tolist())
    return li


@program(L + "test_to_list", (torch.tensor([1, 2, 3, 4], dtype=torch.long),))
def to_list_int_1D(x: torch.Tensor) -> List[int]:
    li = torch.jit.annotate(List[int], x.tolist())
    return li


@program(L + "test_to_list", (torch.tensor([[1, 2, 3], [3, 4, 5]], dtype=torch.long),))
def to_list_int_2D(x: torch.Tensor) -> List[List[int]]:
    li = torch.jit.annotate(List[List[int]], x.tolist())
    return li


@program(L + "test_to_list", (_INT_3D,), (_INT_3D.transpose(0, 1),))
def to_list_int_3D(x: torch.Tensor) -> List[List[List[int]]]:
    li = torch.jit.annotate(List[List[List[int]]], x.tolist())
    return li


@program(L + "test_to_list", (seeded(5, 5)[0],), (seeded(6, 5, dtype=torch.double)[0],))
def to_list_float_0D(x: torch.Tensor) -> float:
    li = torch.jit.annotate(float, x.tolist())
    return li


@program(L + "test_to_list", (seeded(7, 5),), (seeded(8, 5, dtype=torch.double),))
def to_list_float_1D(x: torch.Tensor) -> List[float]:
    li = torch.jit.annotate(List[float], x.tolist())
    return li


@program(L + "test_to_list", (seeded(9, 5, 6),), (seeded(10, 5, 6, dtype=torch.double),))
def to_list_float_2D(x: torch.Tensor) -> List[List[float]]:
    li = torch.jit.annotate(List[List[float]], x.tolist())
    return li


@program(L + "test_to_list", (seeded(11, 2, 3, 4),), (seeded(12, 2, 3, 4).transpose(0, 1),),
         (seeded(13, 2, 3, 4, dtype=torch.double),))
def to_list_float_3D(x: torch.Tensor) -> List[List[List[float]]]:
    li = torch.jit.annotate(List[List[List[float]]], x.tolist())
    return li


@program(L + "test_to_list", (seeded(14, 5, dtype=torch.double),))
def to_list_type_annotation_wrong_dim(x: torch.Tensor) -> List[List[float]]:
    li = torch.jit.annotate(List[List[float]], x.tolist())
    return li


@program(L + "test_to_list", (torch.ones(5, dtype=torch.long),))
def to_list_type_annotation_incorrect_scalar_type(
    x: torch.Tensor,
) -> List[float]:
    li = torch.jit.annotate(List[float], x.tolist())
    return li


# ---- test/jit/test_typing.py: the list and tuple programs --------------------------

T = "test/jit/test_typing.py::TestTyping::"


@program(T + "test_tuple_io", ((seeded(15, 3), seeded(16, 3)),))
def stuff(x):
    # type: (Tuple[Tensor, Tensor]) -> Tuple[Tensor, Tensor]
    a, b = x
    return b, a


@program(T + "test_tuple_keyword", ())
def tuple_keyword_bar():
    f = tuple((1, 2))  # noqa: C409
    return f


@program(T + "test_tuple_create_return", (3,))
def stuff2(x):
    # type: (int) -> Tuple[Tensor, Tensor]
    a = (torch.ones(x), torch.zeros(x))
    return a


@program(T + "test_list_io", ([3, 2],))
def stuff3(x):
    # type: (List[int]) -> Tuple[Tensor, List[int]]
    return torch.ones(x), x


@program(T + "test_bool_list_io", ([True],))
def stuff4(x):
    # type: (List[bool]) -> Tuple[List[bool], List[bool], List[List[bool]]]
    return x, [True, False], [[True]]


@program(T + "test_nested_list", ((1, [[1, 2], [3, 4]]),))
def nested_list_foo(z):
    # type: (Tuple[int, List[List[int]]]) -> int
    x, y = z
    return y[0][1]


@program(T + "test_list_sum", ([1, 2, 3],))
def list_sum_fn(x: List[int]) -> int:
    return sum(x)


@program(T + "test_list_sum", ([1.0, 2.0, 3.0],), ([1.0, 2.8, 3.0],))
def list_sum_fn1(x: List[float]):
    return sum(x)


@program(T + "test_list_sum", ([True, False, False],), ([False, False, False],),
         ([False, True, True, False],))
def list_sum_fn2(x: List[bool]):
    return sum(x)


@program(T + "test_list_unification", ())
def list_unification_fn():
    return [1, None, 2]


@program(T + "test_list_unification", (torch.ones(2, 2),))
def list_unification_fn2(x):
    return [torch.ones(2, 2), None, x]


@program(T + "test_sum_list_diff_elms", ([1, 2, 3, 4, 5],), ([],), ([1],))
def sum_list(a):
    # type: (List[int]) -> int
    sum = 0
    for i in a:
        sum += i

    return sum


@program(T + "test_sum_list_literal", ())
def sum_list_literal():
    # type: () -> int
    sum = 0
    for i in [1, 2, 3, 4, 5]:
        sum += i

    return sum


@program(T + "test_for_in_string", (["hello", "world"],), (["hello", " ", "world", ""],))
def test_list_strings(x):
    # type: (List[str]) -> str
    result = ""
    for sub_str in x:
        result += sub_str
    return result


@program(T + "test_for_tuple_unpack", (torch.tensor(3), torch.tensor(5)))
def for_tuple_unpack(x, y):
    for i, j in [[3, 4], [5, 6], [7, 8]]:
        x += i
        y += j
    return x, y


@program(T + "test_for_tuple_unpack", ([1, 3, 5], [2, 4, 6]))
def nested_tuple_unpack(x, y):
    # type: (List[int], List[int]) -> int
    sum = 0
    for i, (j, k), v in zip(x, enumerate(x), y):
        sum += i + j + k + v
    return sum


@program(T + "test_for_tuple_assign", ((1, 2.5),))
def test_simple_assign(x):
    # type: (Tuple[int, float]) -> float
    sum = 0.0
    for a in x:
        sum += float(a)
    return sum


@program(T + "test_for_tuple_assign", (((1, 2), (4, 7)),))
def test_tuple_assign(x):
    # type: (Tuple[Tuple[int, int], Tuple[int, int]]) -> int
    sum = 0
    for a in x:
        sum += a[0]
        sum += a[1]
    return sum


@program(T + "test_singleton_tuple_unpack", (seeded(17, 3),))
def singleton_tuple_unpack(a):
    (b,) = (a,)
    return b + 1


@program(T + "test_tuple_assignments", ((seeded(18, 1, 4), seeded(19, 3, 4)), seeded(20, 3, 4)))
def var_tuple_assign(x, y):
    # type: (Tuple[Tensor, Tensor], Tensor) -> Tensor
    (a, b), c = x, y
    return a + b + c


@program(T + "test_tuple_assignments", (1, (2, (3, 4)), (5, 6)))
def nested_tuple_assign(x, y, z):
    # type: (int, Tuple[int, Tuple[int, int]], Tuple[int, int]) -> int
    a, (b, (c, d)), (e, f) = x, y, z
    return a + b + c + d + e + f


@program(T + "test_tuple_assignments", ([12, 7, 9, 11], torch.tensor((3, 13, 17)), 0))
def subscript_tuple_assign(a, x, i):
    # type: (List[int], Tensor, int) -> Tuple[int, Tensor, int]
    a[i], (x[i], b) = 1, (2, 3)
    return a[i] + 1, x + 5, b


@program(T + "test_tuple_assignments", ())
def star_tuple_assign():
    # type: () -> Tuple[int, int, Tuple[int, int], Tuple[int, int]]
    a, (b, *c), *d = 1, (2, 3, 4), 5, 6
    return a, b, c, d


@program(T + "test_multiple_assign", ())
def multiple_assign():
    a = b, c = d, f = (1, 1)

    # side effect
    ten = torch.tensor(1)
    ten1 = ten2 = ten.add_(1)

    # ordering
    x = 1
    y = 3
    x, y = y, x + y

    return a, b, c, d, f, ten, ten1, ten2, x, y


# pyjit's probes of lists of tensors: torch compares two tensors with a.eq(b) (or
# a.lt(b)), broadcast, then is_nonzero, where Python would compare the objects.
TL = "pyjit: tensor-list probe (test/jit/test_list_dict.py::TestList::test_list_ops)"


@program(TL, ())
def tensor_list_eq_broadcast():
    return [torch.tensor(1), torch.tensor([2.0])] == [torch.tensor([1.0]), torch.tensor(2)]


@program(TL, ())
def tensor_list_eq_same_object():
    t = torch.ones(2)
    return [t] == [t]


@program(TL, ())
def tensor_list_eq_no_values():
    return [torch.zeros(0)] == [torch.zeros(0)]


@program(TL, ())
def tensor_list_eq_lengths():
    t = torch.ones(2)
    return [t] == [t, t], [t] != [t, t]


@program(TL, (torch.tensor(3), torch.tensor(4)), (torch.tensor(3), torch.tensor(3.0)))
def tensor_list_ne(a: Tensor, b: Tensor) -> bool:
    return [a, a] != [a, b]


@program(TL, ())
def tensor_list_sorted_error():
    return sorted([torch.ones(2), torch.zeros(2)])


@program(TL, ())
def tensor_list_sort_shapes():
    li = [torch.tensor(3), torch.tensor([1.5]), torch.tensor([[2]])]
    li.sort()
    li2 = [torch.tensor(3), torch.tensor([1.5]), torch.tensor([[2]])]
    li2.sort(reverse=True)
    return li, li2


@program(TL, ())
def tensor_list_sort_one_object():
    t = torch.ones(3)
    li = [t, t]
    li.sort()
    return li


@program(TL, ())
def tensor_list_count_broadcast():
    a = [torch.tensor(1), torch.tensor([1, 1])]
    return a.count(torch.tensor(1))


@program(TL, ())
def tensor_list_remove_found():
    a = [torch.tensor(4), torch.tensor(1.5), torch.tensor(3)]
    a.remove(torch.tensor(1.5))
    return a


@program(TL, ())
def tensor_list_remove_missing():
    a = [torch.tensor(4), torch.tensor(1)]
    a.remove(torch.tensor(5))
    return a


@program(TL, ())
def tensor_list_index_float_missing():
    a = [torch.tensor(4.0), torch.tensor(1.0)]
    return a.index(torch.tensor(5.5))


@program(TL, ())
def tensor_list_index_broadcast_error():
    a = [torch.tensor(4), torch.tensor(1)]
    return a.index(torch.tensor([4, 4]))


@program(TL, ())
def tensor_list_index_vector_missing():
    a = [torch.tensor([4, 2])]
    return a.index(torch.tensor([5]))
