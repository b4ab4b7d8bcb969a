"""The pickles of an archive, read by a pickle machine of pyjit's own.

``data.pkl``, ``constants.pkl`` and the ``.debug_pkl`` files are ordinary pickles
(protocol 2), and :mod:`pickle` would import and call whatever global they name
(``os.system`` as easily as ``collections.OrderedDict``), apply any ``BUILD`` state
to any object, and call Python protocols (``keys``, ``__setstate__``,
``__reduce__``) on what it built.  :class:`ArchiveUnpickler` is not :mod:`pickle`:
it runs the opcodes that build data -- numbers, strings, lists, tuples, dicts,
the memo -- and only these calls, each checked for the arguments torch writes:

==========================================  =================================================
``torch._utils._rebuild_tensor_v2``         a tensor: a *view* of its storage, checked to
(and ``_rebuild_tensor``)                   lie inside it (``(storage, offset, size,
                                            stride, requires_grad, hooks[, metadata])``)
``torch.FloatStorage`` ... in a persistent  a storage: ``data/<key>``'s bytes, read once
id ``('storage', type, key, device, n)``    into an array of its own
``collections.OrderedDict``                 a dict, from nothing or a list of pairs
``torch.jit._pickle.restore_type_tag``      a container, unchanged
``torch.jit._pickle.build_intlist`` ...     a list of ints (doubles, bools, tensors), unchanged
``torch.device``                            a device, kept as its text
``__torch__.<class>``, ``NEWOBJ``           an object of a class of the archive's code: an
then ``BUILD`` with a dict                  empty record, then its declared attributes set
==========================================  =================================================

Any other global is refused when the pickle names it, before anything is
called; so are the opcodes of other objects (``INST``, ``OBJ``, ``EXT``,
``NEWOBJ_EX``, sets, buffers) and of protocol 0's text forms.  Nothing is imported,
no method of a built object is ever looked up, and a record's attributes are only
those its class declares (:mod:`.records`).  The machine is a loop over a stack,
so no pickle can make it recurse; what a pickle builds is bounded
(:class:`~.limits.Limits`): its memory by a multiple of the pickle's size,
containers' nesting, the length of strings it names in errors, and the keys of a
dict that share a hash (colliding keys make building a dict quadratic).
"""

from __future__ import annotations

import re
import struct
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..errors import ArchiveError, PyjitError
from .limits import DEFAULT_LIMITS, Limits
from .reader import quote
from .records import Record

__all__ = ["ArchiveUnpickler", "STORAGE_DTYPES"]

#: torch's typed storage classes and the numpy dtype of their elements, as
#: little-endian archives hold them (a big-endian archive swaps each storage once).
STORAGE_DTYPES: Dict[str, np.dtype] = {
    "DoubleStorage": np.dtype("<f8"), "FloatStorage": np.dtype("<f4"),
    "HalfStorage": np.dtype("<f2"), "LongStorage": np.dtype("<i8"),
    "IntStorage": np.dtype("<i4"), "ShortStorage": np.dtype("<i2"),
    "CharStorage": np.dtype("i1"), "ByteStorage": np.dtype("u1"),
    "BoolStorage": np.dtype("?"), "ComplexFloatStorage": np.dtype("<c8"),
    "ComplexDoubleStorage": np.dtype("<c16"),
}

# Storage types numpy has no dtype for: named in the refusal.
_NO_NUMPY = {"BFloat16Storage", "QInt8Storage", "QUInt8Storage", "QInt32Storage",
             "QUInt4x2Storage", "QUInt2x4Storage", "Float8_e4m3fnStorage",
             "Float8_e5m2Storage"}

_INT64 = (-(1 << 63), (1 << 63) - 1)
_KEY_TYPES = (str, int, float, bool, complex)   # TorchScript's dict keys, less Tensor
_STORAGE_KEY = re.compile(r"[A-Za-z0-9_]{1,64}")
_MAX_DIMS = 64                                   # numpy's
_CONTAINERS = (list, tuple, dict)

# Estimated sizes (CPython 3.11, 64-bit) charged against the memory budget.
_CONTAINER, _SLOT, _NUMBER = 64, 8, 32


class _Mark:
    """The MARK opcode's place on the stack (never a value)."""


class _Global:
    """What ``GLOBAL`` pushes for an allowed callable: its name and the function
    that checks the arguments torch writes and builds the value."""

    __slots__ = ("name", "build")

    def __init__(self, name: str, build: Callable[..., Any]) -> None:
        self.name = name
        self.build = build


class _StorageType:
    """What ``GLOBAL 'torch FloatStorage'`` gives: the storage's dtype, by name."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str) -> None:
        self.name = name
        self.dtype = STORAGE_DTYPES.get(name)


class _ClassRef:
    """What ``GLOBAL '__torch__.m C'`` gives: a class NEWOBJ may instantiate."""

    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls


class ArchiveUnpickler:
    """Unpickles one archive pickle.

    Args:
        data: the pickle's bytes.
        part: its name in the archive, for messages.
        read_storage: ``read_storage(key, dtype)``: the bytes of ``data/<key>``
            (or the directory the caller chose), or an array of ``dtype`` of
            its own holding them; None refuses tensors.
        make_object: ``make_object(qualified_name) -> class`` for ``__torch__``
            classes, a :class:`~.records.Record` subclass; None refuses objects.
        limits: the bounds of :mod:`.limits`.
        byteorder: how the storages hold numbers (the archive's byteorder record).
    """

    def __init__(self, data: bytes, part: str,
                 read_storage: Optional[Callable[[str, np.dtype], Any]] = None,
                 make_object: Optional[Callable[[str], type]] = None, *,
                 limits: Limits = DEFAULT_LIMITS, byteorder: str = "little") -> None:
        self._data = memoryview(data)
        self._part = part
        self._read_storage = read_storage
        self._make_object = make_object
        self._limits = limits
        self._byteorder = byteorder
        self._budget = limits.pickle_expansion * len(data) + limits.inflation_slack
        self._storages: Dict[str, np.ndarray] = {}
        self._globals: Dict[Tuple[str, str], _Global] = {
            ("torch._utils", "_rebuild_tensor_v2"): _Global("_rebuild_tensor_v2",
                                                           self._rebuild_tensor_v2),
            ("torch._utils", "_rebuild_tensor"): _Global("_rebuild_tensor",
                                                        self._rebuild_tensor),
            ("collections", "OrderedDict"): _Global("OrderedDict", self._ordered_dict),
            ("torch.jit._pickle", "restore_type_tag"): _Global("restore_type_tag",
                                                              _restore_type_tag),
            ("torch", "device"): _Global("device", _device),
        }
        for kind, elem in (("intlist", int), ("doublelist", float), ("boollist", bool),
                           ("tensorlist", np.ndarray), ("list", None)):
            self._globals["torch.jit._pickle", f"build_{kind}"] = _Global(
                f"build_{kind}", _list_builder(kind, elem))
        #: The records this pickle built, with their BUILD state applied.
        self.records: List[Record] = []
        self._built: set = set()
        self._same_hash: Dict[int, Tuple[dict, Dict[int, int]]] = {}

    def storages(self) -> List[np.ndarray]:
        """The storages the pickle's tensors are views of."""
        return list(self._storages.values())

    # -- the machine ------------------------------------------------------------------------------
    def load(self) -> Any:
        """The pickled value.

        Raises:
            ArchiveError: the pickle is malformed, names something outside the
                allow-list, or asks for more than :class:`~.limits.Limits` allows.
        """
        try:
            value = self._run()
            self._check_nesting(value)
            return value
        except PyjitError:
            raise
        except (MemoryError, RecursionError) as exc:
            raise ArchiveError(f"{self._part} is too large to unpickle "
                               f"({type(exc).__name__})") from None
        except Exception as exc:  # a check below missed a malformed shape
            raise ArchiveError(f"{self._part} is malformed: {type(exc).__name__}: "
                               f"{quote(str(exc), 200)[1:-1]}") from None

    def _fail(self, message: str, at: Optional[int] = None) -> ArchiveError:
        where = f" (byte {at})" if at is not None else ""
        return ArchiveError(f"{self._part} is malformed{where}: {message}")

    def _charge(self, nbytes: int) -> None:
        self._budget -= nbytes
        if self._budget < 0:
            raise ArchiveError(
                f"{self._part} builds more than {self._limits.pickle_expansion} times its "
                f"{len(self._data)} bytes in objects (Limits.pickle_expansion)")

    def _run(self) -> Any:  # noqa: C901  (one loop over the opcodes, as pickle's)
        data, n = self._data, len(self._data)
        unpack_int = struct.Struct("<I").unpack_from
        stack: List[Any] = []
        marks: List[int] = []
        memo: Dict[int, Any] = {}
        pos = 0

        def take(k: int) -> memoryview:
            nonlocal pos
            if k < 0 or pos + k > n:
                raise self._fail(f"it ends inside an opcode's argument ({k} bytes wanted, "
                                 f"{n - pos} left)", pos)
            out = data[pos:pos + k]
            pos += k
            return out

        def line() -> str:
            nonlocal pos
            end = bytes(data[pos:pos + 2 * self._limits.name_chars]).find(b"\n")
            if end < 0:
                raise self._fail("a text argument has no end of line", pos)
            text = bytes(data[pos:pos + end]).decode("utf-8")
            pos += end + 1
            return text

        def pop_mark() -> List[Any]:
            if not marks:
                raise self._fail("an opcode needs a MARK and there is none", pos)
            start = marks.pop()
            items = stack[start:]
            del stack[start:]
            return items

        def pop() -> Any:
            if len(stack) <= (marks[-1] if marks else 0):
                raise self._fail("an opcode pops from an empty stack", pos)
            return stack.pop()

        def top() -> Any:
            if len(stack) <= (marks[-1] if marks else 0):
                raise self._fail("an opcode reads an empty stack", pos)
            return stack[-1]

        def text(k: int) -> str:
            raw = take(k)
            self._charge(_CONTAINER + k)
            try:
                return bytes(raw).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise self._fail(f"a string is not UTF-8 ({exc.reason} at byte "
                                 f"{exc.start})", pos - k) from None

        def integer(raw: memoryview) -> int:
            value = int.from_bytes(raw, "little", signed=True)
            if not _INT64[0] <= value <= _INT64[1]:
                raise self._fail(f"an int of {len(raw)} bytes, outside int64 (TorchScript's "
                                 "int)", pos)
            return value

        while True:
            if pos >= n:
                raise self._fail("it ends before its STOP opcode")
            at = pos
            op = data[pos]
            pos += 1
            if op == 0x4D:                      # BININT2
                if pos + 2 > n:
                    take(2)
                stack.append(data[pos] | data[pos + 1] << 8)
                pos += 2
                self._budget -= _NUMBER
            elif op in (0x85, 0x86, 0x87):        # TUPLE1, TUPLE2, TUPLE3
                k = op - 0x84
                if len(stack) - (marks[-1] if marks else 0) < k:
                    raise self._fail(f"TUPLE{k} with fewer than {k} values", at)
                items = tuple(stack[-k:])
                del stack[-k:]
                self._charge(_CONTAINER + _SLOT * k)
                stack.append(items)
            elif op == 0x4B:                      # BININT1
                if pos >= n:
                    take(1)
                stack.append(data[pos])
                pos += 1
            elif op in (0x68, 0x6A):              # BINGET, LONG_BINGET
                if op == 0x68:
                    index = take(1)[0]
                else:
                    if pos + 4 > n:
                        take(4)
                    index = unpack_int(data, pos)[0]
                    pos += 4
                try:
                    stack.append(memo[index])
                except KeyError:
                    raise self._fail(f"memo entry {index} was never stored", at) from None
            elif op == 0x58:                      # BINUNICODE
                stack.append(text(struct.unpack("<I", take(4))[0]))
            elif op in (0x71, 0x72, 0x94):        # BINPUT, LONG_BINPUT, MEMOIZE
                if op == 0x71:
                    index = take(1)[0]
                elif op == 0x72:
                    index = struct.unpack("<I", take(4))[0]
                else:
                    index = len(memo)
                self._charge(_CONTAINER)
                memo[index] = top()
            elif op == 0x28:                      # MARK
                marks.append(len(stack))
            elif op == 0x74:                      # TUPLE
                items = tuple(pop_mark())
                self._charge(_CONTAINER + _SLOT * len(items))
                stack.append(items)
            elif op == 0x52:                      # REDUCE
                args = pop()
                fn = pop()
                if not isinstance(fn, _Global):
                    raise self._fail(f"REDUCE calls a {_what(fn)}; only the allowed "
                                     "torch functions are called", at)
                if not isinstance(args, tuple):
                    raise self._fail(f"{fn.name} is called with a {_what(args)}, not a "
                                     "tuple of arguments", at)
                stack.append(fn.build(*args))
            elif op == 0x5D:                      # EMPTY_LIST
                self._charge(_CONTAINER)
                stack.append([])
            elif op == 0x65:                      # APPENDS
                items = pop_mark()
                self._target(top(), list, "APPENDS", at).extend(items)
                self._charge(_SLOT * len(items))
            elif op == 0x29:                      # EMPTY_TUPLE
                stack.append(())
            elif op == 0x7D:                      # EMPTY_DICT
                self._charge(_CONTAINER)
                stack.append({})
            elif op == 0x75:                      # SETITEMS
                items = pop_mark()
                self._set_items(self._target(top(), dict, "SETITEMS", at), items, at)
            elif op == 0x81:                      # NEWOBJ
                args = pop()
                cls = pop()
                if not isinstance(cls, _ClassRef) or args != ():
                    raise self._fail(f"NEWOBJ of a {_what(cls)} with {_what(args)}: torch "
                                     "writes NEWOBJ of an archive class with no arguments",
                                     at)
                self._charge(_CONTAINER * 2)
                stack.append(cls.cls._new())
            elif op == 0x62:                      # BUILD
                state = pop()
                self._build(top(), state, at)
            elif op == 0x51:                      # BINPERSID
                stack.append(self._persistent_load(pop(), at))
            elif op == 0x63:                      # GLOBAL
                module = line()
                name = line()
                stack.append(self._find_class(module, name))
            elif op == 0x88:                      # NEWTRUE
                stack.append(True)
            elif op == 0x89:                      # NEWFALSE
                stack.append(False)
            elif op == 0x4E:                      # NONE
                stack.append(None)
            elif op == 0x80:                        # PROTO
                proto = take(1)[0]
                if proto > 5:
                    raise self._fail(f"pickle protocol {proto}", at)
            elif op == 0x95:                      # FRAME: a length, nothing to do
                take(8)
            elif op == 0x2E:                      # STOP
                if len(stack) != 1 or marks:
                    raise self._fail(f"STOP with {len(stack)} values on the stack", at)
                return stack[0]
            elif op == 0x30:                      # POP
                pop()
            elif op == 0x31:                      # POP_MARK
                pop_mark()
            elif op == 0x32:                      # DUP
                stack.append(top())
            elif op == 0x4A:                      # BININT
                self._charge(_NUMBER)
                stack.append(struct.unpack("<i", take(4))[0])
            elif op == 0x8A:                      # LONG1
                k = take(1)[0]
                self._charge(_NUMBER)
                stack.append(integer(take(k)))
            elif op == 0x8B:                      # LONG4
                k = struct.unpack("<i", take(4))[0]
                if not 0 <= k <= 9:
                    raise self._fail(f"an int of {k} bytes, outside int64 (TorchScript's "
                                     "int)", at)
                self._charge(_NUMBER)
                stack.append(integer(take(k)))
            elif op == 0x47:                      # BINFLOAT
                self._charge(_NUMBER)
                stack.append(struct.unpack(">d", take(8))[0])
            elif op == 0x8C:                      # SHORT_BINUNICODE
                stack.append(text(take(1)[0]))
            elif op == 0x8D:                      # BINUNICODE8
                k = struct.unpack("<Q", take(8))[0]
                stack.append(text(k if k <= n else n + 1))
            elif op == 0x6C:                      # LIST
                items = pop_mark()
                self._charge(_CONTAINER + _SLOT * len(items))
                stack.append(items)
            elif op == 0x61:                      # APPEND
                value = pop()
                self._target(top(), list, "APPEND", at).append(value)
                self._charge(_SLOT)
            elif op == 0x64:                      # DICT
                items = pop_mark()
                d: dict = {}
                self._set_items(d, items, at)
                stack.append(d)
            elif op == 0x73:                      # SETITEM
                value = pop()
                key = pop()
                self._set_items(self._target(top(), dict, "SETITEM", at), [key, value], at)
            elif op == 0x93:                      # STACK_GLOBAL
                name = pop()
                module = pop()
                if not (isinstance(module, str) and isinstance(name, str)):
                    raise self._fail("STACK_GLOBAL of values that are not names", at)
                stack.append(self._find_class(module, name))
            else:
                name = _REFUSED.get(op)
                what = f"opcode {name}" if name else f"unknown opcode 0x{op:02x}"
                raise self._fail(f"{what}, which a TorchScript archive never holds: refused",
                                 at)

    # -- containers ---------------------------------------------------------------------------------
    def _target(self, value: Any, kind: type, op: str, at: int) -> Any:
        if type(value) is not kind:
            raise self._fail(f"{op} on a {_what(value)}, not a {kind.__name__}", at)
        return value

    def _set_items(self, d: dict, items: List[Any], at: int) -> None:
        if len(items) % 2:
            raise self._fail("a dict's items are not key, value pairs", at)
        entry = self._same_hash.get(id(d))
        if entry is None:
            entry = self._same_hash[id(d)] = (d, {})
        hashes = entry[1]
        limit = self._limits.same_hash_keys
        self._charge((_CONTAINER + _SLOT) * (len(items) // 2))
        for i in range(0, len(items), 2):
            key = items[i]
            if type(key) not in _KEY_TYPES:
                raise self._fail(f"a dict key that is a {_what(key)} (TorchScript's keys are "
                                 "str, int, float, complex and bool)", at)
            h = hash(key)
            count = hashes.get(h, 0)
            if count and key not in d:
                if count >= limit:
                    raise ArchiveError(
                        f"{self._part}: a dict has more than {limit} keys with one hash "
                        f"({h}): a hash-collision attack (Limits.same_hash_keys)")
                hashes[h] = count + 1
            elif not count:
                hashes[h] = 1
            d[key] = items[i + 1]

    def _check_nesting(self, root: Any) -> None:
        """No container inside another deeper than ``Limits.nesting``, and none inside
        itself: what is checked, printed or compared later may then recurse safely.
        A record ends a walk (a value's checks stop at an object of a class), so its
        attributes are walks of their own."""
        limit = self._limits.nesting
        depth: Dict[int, int] = {}         # id -> how deep the containers in it go
        roots = [root] + [v for r in self.records for v in r._fields.values()]
        for start in roots:
            path: set = set()
            todo: List[Tuple[Any, bool]] = [(start, False)]
            while todo:
                value, leaving = todo.pop()
                items = value.values() if type(value) is dict else value
                if leaving:
                    path.discard(id(value))
                    depth[id(value)] = 1 + max((depth[id(v)] for v in items
                                                if type(v) in _CONTAINERS), default=0)
                    if depth[id(value)] > limit:
                        raise ArchiveError(f"{self._part}: containers nested more than "
                                           f"{limit} deep (Limits.nesting)")
                    continue
                if type(value) not in _CONTAINERS or id(value) in depth:
                    continue
                if id(value) in path:
                    raise ArchiveError(f"{self._part}: a container that holds itself")
                kids = [v for v in items if type(v) in _CONTAINERS]
                if not kids:                        # the common case: no walk below
                    depth[id(value)] = 1
                    continue
                if len(path) >= limit:
                    raise ArchiveError(f"{self._part}: containers nested more than {limit} "
                                       "deep (Limits.nesting)")
                path.add(id(value))
                todo.append((value, True))
                todo.extend((v, False) for v in kids)

    # -- globals: the allow-list ----------------------------------------------------------------------
    def _find_class(self, module: str, name: str) -> Any:
        found = self._globals.get((module, name))
        if found is not None:
            return found
        shown = quote(f"{module}.{name}", self._limits.name_chars)[1:-1]
        if module == "torch" and name.endswith("Storage"):
            if name in STORAGE_DTYPES:
                return _StorageType(name)
            if name in _NO_NUMPY:
                raise ArchiveError(f"{self._part}: tensors of {name} have no numpy dtype; "
                                   "pyjit cannot load them")
        if module == "__torch__" or module.startswith("__torch__."):
            if self._make_object is None:
                raise ArchiveError(f"{self._part} names class {shown}, and holds no objects")
            return _ClassRef(self._make_object(f"{module}.{name}"))
        raise ArchiveError(f"{self._part} names the global {shown}, which a "
                           "TorchScript archive never holds: refused (not imported, not run)")

    def _ordered_dict(self, *args: Any) -> dict:
        """``OrderedDict()`` or ``OrderedDict([(k, v), ...])``: a dict keeps the order."""
        d: dict = {}
        if args == ():
            return d
        if len(args) != 1 or type(args[0]) is not list or not all(
                type(p) is tuple and len(p) == 2 for p in args[0]):
            raise self._fail("OrderedDict is called with something other than a list of "
                             "pairs")
        self._set_items(d, [x for pair in args[0] for x in pair], -1)
        return d

    # -- objects ----------------------------------------------------------------------------------
    def _build(self, obj: Any, state: Any, at: int) -> None:
        if not isinstance(obj, Record) or id(obj) in self._built:
            raise self._fail(f"BUILD on a {_what(obj)}: torch writes BUILD once for each "
                             "object of an archive class", at)
        if type(state) is not dict or not all(type(k) is str for k in state):
            raise self._fail(f"BUILD of {type(obj)._class.name} with a {_what(state)}, not a "
                             "dict of its attributes", at)
        self._built.add(id(obj))
        obj._build(state)
        self.records.append(obj)

    # -- tensors ----------------------------------------------------------------------------------
    def _persistent_load(self, pid: Any, at: int) -> np.ndarray:
        if not (type(pid) is tuple and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], _StorageType) and type(pid[2]) is str
                and type(pid[3]) is str and type(pid[4]) is int):
            raise self._fail(f"an unknown persistent reference {quote(pid)}", at)
        _, stype, key, _location, numel = pid
        if stype.dtype is None:
            raise ArchiveError(f"{self._part}: storage type {stype.name} is not supported")
        if not _STORAGE_KEY.fullmatch(key):
            raise self._fail(f"a storage named {quote(key)}", at)
        if self._read_storage is None:
            raise ArchiveError(f"{self._part} refers to a tensor storage, and holds none")
        storage = self._storages.get(key)
        if storage is not None and storage.dtype.newbyteorder("<") != stype.dtype.newbyteorder("<"):
            raise ArchiveError(f"{self._part}: storage {key} is read as {stype.name} and as a "
                               f"storage of {storage.dtype}")
        if storage is None:
            dtype = stype.dtype if self._byteorder == "little" else stype.dtype.newbyteorder(">")
            raw = self._read_storage(key, dtype)
            # An array of its own, writable: the tensors are views of it, so
            # torch's views of one storage share their elements here too.
            if type(raw) is np.ndarray and raw.dtype == dtype:
                storage = raw    # read into an array of its own (Archive.read_storage)
            else:
                usable = len(raw) - len(raw) % dtype.itemsize
                storage = np.frombuffer(bytearray(raw[:usable]), dtype=dtype)
            if not dtype.isnative:
                storage = storage.byteswap().view(dtype.newbyteorder("="))
            if 0 <= numel < storage.size:
                # an array of its own again: the tensors' views keep their
                # storage alive only if it owns its elements (numpy's base)
                storage = storage[:numel].copy()
            self._storages[key] = storage
        return storage

    def _rebuild_tensor_v2(self, *args: Any) -> np.ndarray:
        if len(args) not in (6, 7):
            raise self._fail(f"_rebuild_tensor_v2 with {len(args)} arguments, not 6 or 7")
        storage, offset, size, stride, requires_grad, hooks = args[:6]
        if type(requires_grad) is not bool or type(hooks) is not dict or hooks or (
                len(args) == 7 and args[6] is not None and type(args[6]) is not dict):
            raise self._fail("_rebuild_tensor_v2 with a requires_grad, hooks or metadata "
                             "that torch does not write")
        return self._rebuild_tensor(storage, offset, size, stride)

    def _rebuild_tensor(self, storage: Any, offset: Any, size: Any, stride: Any,
                        *rest: Any) -> np.ndarray:
        """A tensor: a view of ``storage`` by ``offset``, ``size`` and ``stride`` in
        elements, every index checked against the storage first.  A view, never a
        copy: a stride-0 tensor of a billion elements costs its one element."""
        if rest:
            raise self._fail(f"_rebuild_tensor with {4 + len(rest)} arguments, not 4")
        if not isinstance(storage, np.ndarray):
            raise ArchiveError(f"{self._part}: a tensor whose storage is {_what(storage)}")
        if not (type(offset) is int and type(size) is tuple and type(stride) is tuple
                and len(size) == len(stride) <= _MAX_DIMS
                and all(type(s) is int and s >= 0 for s in size + stride) and offset >= 0):
            raise ArchiveError(f"{self._part}: a tensor with offset {quote(offset)}, size "
                               f"{quote(size)} and stride {quote(stride)}")
        # A dimension of one (or none) never moves: its stride is any number in
        # torch and 0 here, so that no stride of it can overflow numpy's.
        stride = tuple(s if n > 1 else 0 for n, s in zip(size, stride))
        if 0 in size:
            last = offset - 1
        else:
            last = offset + sum((n - 1) * s for n, s in zip(size, stride))
        if offset > storage.size or last >= storage.size:
            raise ArchiveError(f"{self._part}: a tensor of size {list(size)} and stride "
                               f"{list(stride)} at offset {offset} reaches past its storage "
                               f"of {storage.size} elements")
        item = storage.itemsize
        return np.lib.stride_tricks.as_strided(storage[offset:], size,
                                               tuple(s * item for s in stride))


def _what(value: Any) -> str:
    if isinstance(value, _Global):
        return f"function {value.name}"
    if isinstance(value, _ClassRef):
        return f"class {value.cls._class.name}"
    if isinstance(value, Record):
        return f"{type(value)._class.name} object"
    return type(value).__name__


def _restore_type_tag(*args: Any) -> Any:
    """``restore_type_tag(container, "Dict[str, int]")``: the container, unchanged."""
    if len(args) != 2 or type(args[0]) not in (list, dict, tuple) or type(args[1]) is not str:
        raise ArchiveError("restore_type_tag is called with something other than a "
                           "container and its type's text")
    return args[0]


def _list_builder(kind: str, elem: Optional[type]) -> Callable[..., list]:
    def build(*args: Any) -> list:
        if len(args) != 1 or type(args[0]) is not list or (elem is not None and not all(
                isinstance(x, elem) if elem is np.ndarray else type(x) is elem
                for x in args[0])):
            raise ArchiveError(f"build_{kind} is called with something other than a list" +
                               (f" of {elem.__name__}" if elem is not None else ""))
        return args[0]
    return build


def _device(*args: Any) -> str:
    """A ``Device`` attribute (``torch.device('cpu')``), as ``aten::device`` makes it."""
    if not (1 <= len(args) <= 2 and type(args[0]) is str and
            (len(args) == 1 or type(args[1]) is int)):
        raise ArchiveError("torch.device is called with something other than a device's "
                           "text (and index)")
    from ..ops.conversions import device
    try:
        return device(*args)
    except ValueError as exc:
        raise ArchiveError(f"a device attribute: {quote(str(exc), 120)[1:-1]}") from None


_REFUSED = {
    0x69: "INST", 0x6F: "OBJ", 0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 0x92: "NEWOBJ_EX",
    0x8F: "EMPTY_SET", 0x90: "ADDITEMS", 0x91: "FROZENSET", 0x96: "BYTEARRAY8",
    0x97: "NEXT_BUFFER", 0x98: "READONLY_BUFFER", 0x50: "PERSID", 0x49: "INT", 0x4C: "LONG",
    0x46: "FLOAT", 0x53: "STRING", 0x56: "UNICODE", 0x70: "PUT", 0x67: "GET",
    0x54: "BINSTRING", 0x55: "SHORT_BINSTRING", 0x42: "BINBYTES", 0x43: "SHORT_BINBYTES",
    0x8E: "BINBYTES8",
}
