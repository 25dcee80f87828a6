"""The runtime against the catalogue: every verb either runs or says why it is only described.

A catalogue verb (other than a trigger) is generated as a call of the runtime function of its name, with the
catalogue's parameters by position, in its order (or by keyword, where an invocation's arguments are not in that
order), unless it has a `python:` template. A verb with neither would compile
to nothing that plays, so it must be marked `descriptive: <reason>`, and then it must have no function (one of
the two is wrong). Each problem is reported at the verb's line in the catalogue, before anything is generated,
by `cardc check` as well as `cardc build`: what check accepts, build builds.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from cardc.catalogue import Catalogue, CatalogueError, Verb
from cardc.diagnostics import Diagnostic, Severity

RUNTIME_FILE = "compiler/backends/python/runtime/cardc_runtime/verbs.py"


RUNTIME_DIR = Path(__file__).resolve().parent / "runtime" / "cardc_runtime"


@lru_cache(maxsize=1)
def runtime_functions() -> dict[str, Callable[..., Any]]:
    """The runtime's verb functions by name (`cardc_runtime.verbs`, which gathers every verb module); only
    functions of the runtime itself, not what it imports (`contextmanager`)."""
    import inspect  # only here: a check reads the frozen signatures, and importing inspect was 3% of it

    from cardc.backends.python.runtime.cardc_runtime import verbs

    package = verbs.__name__.rpartition(".")[0] + "."
    return {n: f for n, f in vars(verbs).items()
            if not n.startswith("_") and inspect.isfunction(f) and f.__module__.startswith(package)}


def _verb_module_texts() -> list[str] | None:
    """Name and text of each of the runtime's verb modules (`*verbs.py`), which define every verb function."""
    texts = []
    try:
        for path in sorted(RUNTIME_DIR.glob("*verbs.py")):
            texts += [path.name, path.read_text(encoding="utf-8")]
    except (OSError, UnicodeDecodeError):
        return None
    return texts


def _signatures() -> dict[str, list[str]]:
    import inspect

    return {n: [p.name for p in inspect.signature(f).parameters.values()] for n, f in runtime_functions().items()}


def freeze_runtime() -> str:
    """The frozen table of the runtime's verb functions and their parameters (`python -m cardc.frozen`)."""
    from cardc import frozen

    texts = _verb_module_texts()
    if texts is None:
        raise OSError(f"cannot read the runtime's verb modules in {RUNTIME_DIR}")
    return frozen.dumps(tuple(texts), _signatures())


@lru_cache(maxsize=1)
def runtime_signatures() -> dict[str, list[str]]:
    """Each runtime verb function's parameter names, by name. Read from the frozen table when it was made from
    the verb modules as they are (a first `cardc check` then neither imports the runtime nor reads its
    signatures: a tenth of its time); otherwise from the runtime itself."""
    from cardc import frozen

    texts = _verb_module_texts()
    found = frozen.load("runtime", *texts) if texts is not None else None
    if isinstance(found, dict):
        return found
    return _signatures()


def py_name(param: str) -> str:
    """The runtime's name for a catalogue parameter: the same, with `_` after a Python keyword."""
    return f"{param}_" if keyword.iskeyword(param) else param


def _problem(verb: Verb) -> str | None:
    """What is wrong between `verb` and the runtime, or None."""
    if verb.role == "trigger" or "python" in verb.extra:
        return None
    got = runtime_signatures().get(verb.name)
    if verb.descriptive:
        if got is not None:
            return (f"`{verb.name}` is marked descriptive, but the runtime has a function for it: remove the marking "
                    "or the function")
        return None
    if got is None or keyword.iskeyword(verb.name):
        return (f"the {verb.role} `{verb.name}` has no runtime function and is not marked descriptive: generated "
                "rules could not play it")
    want = ["ctx", *(py_name(p.name) for p in verb.params)]
    if got != want:
        return (f"the runtime function `{verb.name}({', '.join(got)})` does not take the catalogue's parameters "
                f"`({', '.join(want)})`")
    return None


def runtime_diagnostics(catalogue: Catalogue) -> list[Diagnostic]:
    """One E151 per verb the generated rules could not run as the catalogue declares it."""
    out: list[Diagnostic] = []
    for verb in catalogue.verbs.values():
        why = _problem(verb)
        if why is not None:
            hint = (f"write `def {verb.name}(ctx, ...)` in the runtime ({RUNTIME_FILE} or a module it imports), or "
                    "mark the verb `descriptive: <why it cannot be simulated>`")
            out.append(Diagnostic(Severity.ERROR, "E151", why, verb.span, hint))
    return out


def check_runtime(catalogue: Catalogue) -> None:
    """Raise CatalogueError (diagnostics at the catalogue's lines) if a verb cannot run as declared.

    A pass is remembered on disk under the catalogue's text and the compiler's code (the runtime included):
    importing the runtime to read its signatures is most of the cost of this check."""
    from cardc import diskcache

    key = diskcache.digest(diskcache.code_fingerprint(), catalogue.file, catalogue.source) if catalogue.source else ""
    if key and diskcache.load("runtime-check", key) is True:
        return
    problems = runtime_diagnostics(catalogue)
    if problems:
        raise CatalogueError(problems, {catalogue.file: catalogue.source} if catalogue.source else {})
    if key:
        diskcache.store("runtime-check", key, True)
