"""The bundled data the check reads, read ahead of time into JSON (`python -m cardc.frozen` writes it): the YAML
files, the parser's tables and the runtime's verb signatures.

A first `cardc check` (nothing cached) spent about a quarter of its time on the compiler's own YAML files: importing
PyYAML, composing and constructing `dsl/catalogue.yaml` (205 KB) with positions, generating and running its schema
validator, and reading `lexicon/words.yaml`. Their data is fixed for a given copy of the compiler, so it is kept in
`dsl/frozen/` as JSON (about a millisecond to load), each file with a hash of the texts it was made from. The JSON is
used only when those texts are the ones read now: an edited catalogue or schema is read from its YAML as before (and
`tests/test_frozen.py` says the frozen file is stale). Only data that loaded without a problem is frozen, so every
diagnostic about these files still comes from reading the YAML.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cardc.resources import DSL_DIR

FROZEN_DIR = DSL_DIR / "frozen"
FORMAT = "cardc-frozen 1"


def made_from(*texts: str) -> str:
    """The hash a frozen file records: of the format and of every text it was made from."""
    from cardc.diskcache import plain_digest

    return plain_digest(FORMAT, *texts)


def load(name: str, *texts: str) -> Any | None:
    """The frozen data of `name` (e.g. `catalogue`) if it was made from exactly `texts`; else None (missing,
    stale or unreadable: the caller reads the YAML).

    Read from the JSON once: the data is then kept marshalled beside the package's bytecode (`cardc.pycache`),
    under the same hash of the texts, and read from there (JSON's parser and its import were 2% of a first
    `cardc check`)."""
    import marshal

    from cardc import pycache

    expected = made_from(*texts)
    header = f"cardc frozen 1\n{marshal.version}\n{expected}\n".encode()
    kept = pycache.read(f"frozen-{name}", header)
    if kept is not None:
        try:
            return marshal.loads(kept)
        except (EOFError, ValueError, TypeError):
            pass
    try:
        raw = (FROZEN_DIR / f"{name}.json").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    import json

    try:
        frozen = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(frozen, dict) or frozen.get("made_from") != expected:
        return None
    data = frozen.get("data")
    if pycache.writable(f"frozen-{name}"):
        pycache.write(f"frozen-{name}", header, marshal.dumps(data))
    return data


def _plain(value: Any) -> bool:
    """Whether `value` is made only of what JSON gives back as it was (str-keyed dicts, lists, str, int, float,
    bool, None)."""
    if value is None or isinstance(value, str | bool | int | float):
        return True
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def dumps(texts: tuple[str, ...], data: Any) -> str:
    """The text of a frozen file holding `data`, made from `texts`."""
    import json

    if not _plain(data):
        raise ValueError("only plain JSON data can be frozen")
    return json.dumps({"made_from": made_from(*texts), "data": data}, ensure_ascii=False,
                      indent=0) + "\n"  # a line per value: a change to the YAML is a readable diff


def frozen_files() -> dict[str, str]:
    """Every frozen file, name -> text, as `python -m cardc.frozen` writes them (from the YAML, read afresh)."""
    from cardc.backends.python.vocabulary import freeze_runtime
    from cardc.catalogue import freeze_catalogue
    from cardc.fastparse import freeze_parser
    from cardc.lexicon import freeze_lexicon

    return {"catalogue.json": freeze_catalogue(), "words.json": freeze_lexicon(), "parser.json": freeze_parser(),
            "runtime.json": freeze_runtime()}


def main(argv: list[str]) -> int:
    """Write the frozen files into dsl/frozen/ (`--check`: only say which are not current)."""
    stale = [name for name, text in frozen_files().items()
             if not (FROZEN_DIR / name).is_file() or (FROZEN_DIR / name).read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for name in stale:
            print(f"{FROZEN_DIR / name} is not current; run `python -m cardc.frozen`", file=sys.stderr)
        return 1 if stale else 0
    from cardc.resources import source_checkout

    if stale and source_checkout() is None:
        print("cardc.frozen: the frozen files are rewritten only in a source checkout", file=sys.stderr)
        return 2
    for name, text in frozen_files().items():
        if name in stale:
            FROZEN_DIR.mkdir(exist_ok=True)
            Path(FROZEN_DIR / name).write_text(text, encoding="utf-8")
            print(f"wrote {FROZEN_DIR / name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
