"""Pickling the frozen dataclasses of parse trees, the IR and diagnostics by their constructor.

The on-disk cache (`cardc.diskcache`) stores parse trees: tens of thousands of small frozen dataclasses.
Python pickles a frozen, slotted dataclass as "make an empty object, then call `__setstate__`", and the
`__setstate__` dataclasses generates looks its fields up again for every object: loading the bundled
content's parse trees took twice as long that way as calling each class with its field values, which is what
`__reduce__` here asks for. The result is the same object (every field is an `__init__` argument, and these
classes have no `__post_init__`).
"""

from __future__ import annotations

import copyreg
import dataclasses
import io
import operator
import pickle
from collections.abc import Callable, Mapping
from typing import Any

_REDUCERS: dict[type, Callable[[Any], Any]] = {}  # every class given a `__reduce__` here -> that reducer


def pickle_by_constructor(namespace: Mapping[str, object]) -> None:
    """Give every frozen dataclass defined in the module of `namespace` (its `globals()`) a `__reduce__`
    that rebuilds it with `cls(*fields)`; a class with a `__post_init__`, a field outside `__init__` or a
    keyword-only field keeps the default pickling."""
    module = namespace["__name__"]
    for value in list(namespace.values()):
        if not (isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module):
            continue
        fields = dataclasses.fields(value)
        params: Any = getattr(value, "__dataclass_params__")  # noqa: B009 - not in the type stubs
        if not params.frozen or hasattr(value, "__post_init__") or any(not f.init or f.kw_only for f in fields):
            continue
        reducer = _reducer(tuple(f.name for f in fields))
        setattr(value, "__reduce__", reducer)  # noqa: B010
        _REDUCERS[value] = reducer


def dumps(value: object) -> bytes:
    """`pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)`, the same bytes, sooner: the pickler is handed the
    record classes' reducers in its dispatch table, where it otherwise reaches each one through `__reduce_ex__`
    (a fifth of the time of pickling a parse tree). Only exact classes are in the table: a subclass pickles as
    before."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, **_REDUCERS}
    pickler.dump(value)
    return out.getvalue()


def _reducer(names: tuple[str, ...]) -> Callable[[object], tuple[type, tuple[object, ...]]]:
    if len(names) == 1:
        get_one = operator.attrgetter(names[0])

        def reduce_one(self: object) -> tuple[type, tuple[object, ...]]:
            return type(self), (get_one(self),)

        return reduce_one
    get: Callable[[object], tuple[object, ...]] = operator.attrgetter(*names) if names else (lambda _: ())

    def reduce(self: object) -> tuple[type, tuple[object, ...]]:
        return type(self), get(self)

    return reduce
