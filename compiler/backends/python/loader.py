"""Load generated rule packages into this process (for `cardc odds`, balance tables and tests).

The generated files are imported under private names, so packages compiled from different content can
live side by side; `cardc_runtime` is the compiler's own copy of the runtime, the same source as emitted.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from cardc.backends.python import RUNTIME_SOURCE, python_files
from cardc.backends.python.accel import ENV, is_compiled, load
from cardc.model import Project

_counter = itertools.count(1)


def ensure_runtime() -> ModuleType:
    """Make `import cardc_runtime` (and its modules) resolve to the runtime shipped with the compiler, the
    very same module objects, so code importing either name shares one runtime. A process that a run started
    with `$CARDC_COMPILED_RUNTIME` set imports that compiled runtime instead, if nothing imported one before."""
    if "cardc_runtime" not in sys.modules and os.environ.get(ENV):
        load(Path(os.environ[ENV]))
    if is_compiled():
        return sys.modules["cardc_runtime"]
    import cardc.backends.python.runtime.cardc_runtime as runtime

    sys.modules.setdefault("cardc_runtime", runtime)
    for source in sorted(RUNTIME_SOURCE.glob("*.py")):
        if source.stem != "__init__":
            module = importlib.import_module(f"{runtime.__name__}.{source.stem}")
            sys.modules.setdefault(f"cardc_runtime.{source.stem}", module)
    return sys.modules["cardc_runtime"]


def load_games(project: Project, folder: Path | None = None) -> dict[str, ModuleType]:
    """Generate the project's packages (into `folder` or a temporary one) and import each game package."""
    ensure_runtime()
    tmp = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="cardc-py-"))
    try:
        return _import_all(project, tmp)
    finally:
        if folder is None:  # the modules are in memory now; leave no temporary files behind
            shutil.rmtree(tmp, ignore_errors=True)


def _import_all(project: Project, tmp: Path) -> dict[str, ModuleType]:
    for rel, text in python_files(project).items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    games: dict[str, ModuleType] = {}
    for game in sorted(project.games):
        name = f"_cardc_generated_{next(_counter)}_{game}"
        init = tmp / game / "__init__.py"
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        games[game] = module
    return games
