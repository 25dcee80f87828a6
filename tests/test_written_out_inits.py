"""The runtime's dataclasses whose `__init__` is written out by hand (compiled by mypyc, a dataclass's generated
`__init__` stays interpreted and costs thousands of instructions per object): each must take the fields the
class declares, in their order, with their defaults, and give each object fresh containers, as the generated
one would. A field added to a class and forgotten in its `__init__` fails here."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from typing import Any

import pytest
from cardc.backends.python.runtime import cardc_runtime


def _written_out() -> list[type]:
    found: list[type] = []
    for info in sorted(pkgutil.iter_modules(cardc_runtime.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{cardc_runtime.__name__}.{info.name}")
        for value in vars(module).values():
            init = value.__dict__.get("__init__") if isinstance(value, type) else None
            # (a generated `__init__` is compiled from a string: its code names no file; an `__init__` that does
            # more than the generated one, such as `Extended`'s, does not say it was written out in its place)
            if (isinstance(value, type) and init is not None and value.__module__ == module.__name__
                    and dataclasses.is_dataclass(value)
                    and init.__code__.co_filename == module.__file__
                    and "written out, not made by @dataclass" in inspect.getsource(init)):
                found.append(value)
    return found


CLASSES = _written_out()


def test_the_runtime_has_written_out_inits() -> None:
    names = {c.__name__ for c in CLASSES}
    assert {"Character", "Context", "Side", "Placed", "Fight", "FightReport", "Replay"} <= names  # (not empty)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_written_out_init_takes_the_declared_fields_with_their_defaults(cls: type) -> None:
    fields = dataclasses.fields(cls)
    params = list(inspect.signature(cls).parameters.values())
    by_name = {f.name: f for f in fields}
    assert [p.name for p in params] == [f.name for f in fields if f.name in {p.name for p in params}]
    assert all(p.name in by_name for p in params), "a parameter that is not a field"
    required = {p.name: object() for p in params if p.default is inspect.Parameter.empty}
    one: Any = cls(**required)
    two: Any = cls(**required)
    for f in fields:
        param = next((p for p in params if p.name == f.name), None)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            assert param is not None and param.default is inspect.Parameter.empty, f.name
            assert getattr(one, f.name) is required[f.name]
        elif f.default_factory is not dataclasses.MISSING:
            assert param is None or param.default is None, f.name
            made = f.default_factory()
            if isinstance(made, (list, dict, set)):  # a fresh container per object (not, say, a serial number)
                assert getattr(one, f.name) == made, f.name
                assert getattr(one, f.name) is not getattr(two, f.name), f.name
        else:
            assert param is None or param.default == f.default, f.name
            assert getattr(one, f.name) == f.default, f.name
