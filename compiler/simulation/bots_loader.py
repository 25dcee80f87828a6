"""`--bot NAME`: a registered bot (`random`, `greedy`, or one a designer registered), or a designer's class
given as `package.module:Class` or `path/to/file.py:Class`. Workers resolve the same text, so a bot from a
file plays in every process (and on every Ray node that has the file)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any


def _registry() -> Any:
    from cardc.backends.python.loader import ensure_runtime

    ensure_runtime()
    from cardc_runtime import bots

    return bots


def bot_names() -> list[str]:
    return sorted(_registry().BOTS)


def resolve_bot(spec: str) -> type[Any]:
    """The bot class `spec` names; LookupError (with the reason) when there is none."""
    bots = _registry()
    if ":" not in spec:
        if spec not in bots.BOTS:
            raise LookupError(f"unknown bot `{spec}`")
        return bots.BOTS[spec]  # type: ignore[no-any-return]
    where, _, name = spec.rpartition(":")
    try:
        if where.endswith(".py"):
            path = Path(where).resolve()
            module_name = f"_cardc_bot_{abs(hash(str(path)))}"
            module = sys.modules.get(module_name)
            if module is None:
                if not path.is_file():
                    raise LookupError(f"bot file `{where}` does not exist")
                loader_spec = importlib.util.spec_from_file_location(module_name, path)
                assert loader_spec is not None and loader_spec.loader is not None
                module = importlib.util.module_from_spec(loader_spec)
                sys.modules[module_name] = module
                loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except ImportError as e:
        raise LookupError(f"cannot import the bot module `{where}`: {e}") from None
    cls = getattr(module, name, None)
    if not isinstance(cls, type) or not callable(getattr(cls, "choose", None)):
        raise LookupError(f"`{spec}` is not a bot class (a class with `choose(view, options) -> index`)")
    compiled = _compiled_base(cls)
    if compiled is not None:
        raise LookupError(f"`{spec}` derives from `{compiled}`, a class of the compiled runtime, which refuses "
                          "classes derived in Python: play it with `--runtime python` (or CARDC_RUNTIME=python)")
    return cls


def _compiled_base(cls: type[Any]) -> str | None:
    """The first class of the runtime that `cls` derives from and that refuses classes derived in Python (a
    class the compiled runtime, accel.py, compiled without allowing them), if any: tried on an empty subclass,
    without calling an `__init__`."""
    for base in cls.__mro__[1:]:
        if not base.__module__.startswith("cardc_runtime."):
            continue
        new: Any = base.__new__
        try:
            new(type("_Probe", (base,), {}))
        except TypeError as e:
            if "cannot inherit from compiled" in str(e):
                return base.__name__
    return None


def check_bot(spec: str) -> None:
    resolve_bot(spec)
