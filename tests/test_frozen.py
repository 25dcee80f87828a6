"""The bundled YAML read ahead of time (`cardc.frozen`): current, the same data as the YAML, used only for its text."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cardc import catalogue as cat
from cardc import frozen
from cardc.lexicon import LEXICON_PATH, _lexicon_from_data, load_lexicon
from cardc.yamlload import load_yaml


def _shape(value: Any) -> Any:
    """`value` with the order of every mapping and the class of every object spelled out (== ignores order)."""
    if isinstance(value, dict):
        return [(k, _shape(v)) for k, v in value.items()]
    if isinstance(value, list | tuple):
        return [type(value).__name__, *(_shape(v) for v in value)]
    if hasattr(value, "__slots__"):
        return [type(value).__name__, *(_shape(getattr(value, name)) for name in value.__slots__)]
    return [type(value).__name__, repr(value)]


def test_the_frozen_files_are_current() -> None:
    assert frozen.main(["--check"]) == 0, "run `python -m cardc.frozen`"


def test_the_frozen_parser_is_the_same_file_whatever_process_builds_lark_s_tables(tmp_path: Path) -> None:
    """Lark numbers its LALR states in an order that follows the process's string hashes and caches its tables in
    the temp folder: two fresh processes with other hash seeds and empty temp folders must write the same file."""
    digests = set()
    for seed in ("1", "2"):
        temp = tmp_path / seed
        temp.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": seed, "TMPDIR": str(temp)}
        code = "from cardc.fastparse import freeze_parser; import sys; sys.stdout.write(freeze_parser())"
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        assert any(temp.iterdir()), "Lark cached its tables in this process's temp folder"
        digests.add(hashlib.sha256(out.encode()).hexdigest())
    assert len(digests) == 1


def test_the_shipped_catalogue_comes_from_its_frozen_form_as_the_yaml_gives_it() -> None:
    text = cat.CATALOGUE_PATH.read_text(encoding="utf-8")
    ahead = cat._frozen(text, "dsl/catalogue.yaml")
    assert ahead is not None
    read = cat._read_yaml(text, "dsl/catalogue.yaml")[1]
    assert _shape(ahead) == _shape(read)  # the verbs, their order, spans, parameters, texts and extras


def test_the_shipped_words_come_from_their_frozen_form_as_the_yaml_gives_them() -> None:
    text = LEXICON_PATH.read_text(encoding="utf-8")
    assert frozen.load("words", text) is not None
    assert _shape(load_lexicon()) == _shape(_lexicon_from_data(load_yaml(text)))


def test_frozen_data_is_used_only_for_the_texts_it_was_made_from(tmp_path: Path) -> None:
    text = cat.CATALOGUE_PATH.read_text(encoding="utf-8")
    assert cat._frozen(text + "\n# edited\n", "x.yaml") is None
    assert frozen.load("words", LEXICON_PATH.read_text(encoding="utf-8") + " ") is None
    assert frozen.load("no-such-file", text) is None
    edited = tmp_path / "catalogue.yaml"  # an edited catalogue is read from its YAML, problems and all
    edited.write_text(text.replace("  heal:\n", "  heal:\n    bogus: 1\n", 1), encoding="utf-8")
    with pytest.raises(cat.CatalogueError):
        cat.load_catalogue(edited)


def test_only_plain_data_is_frozen() -> None:
    with pytest.raises(ValueError, match="plain"):
        frozen.dumps(("x",), {1: "a"})
    assert frozen.dumps(("x",), {"a": [1, 1.5, True, None, "é"]}).startswith("{")


def test_a_check_reads_the_runtime_s_signatures_from_the_frozen_table(tmp_path: Path) -> None:
    """The runtime check (every verb runs as the catalogue declares it) reads the frozen table of the runtime's
    verb functions: a first check imports no runtime module. An edited verb module makes the table stale, and
    the signatures are then read from the runtime itself."""
    from cardc.backends.python import vocabulary

    code = ("import sys\nfrom cardc.cli import main\nmain(['check', 'content', '-q'])\n"
            "print(sorted(m for m in sys.modules if '.runtime' in m))")
    env = {**os.environ, "CARDC_CACHE": "off"}
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    texts = vocabulary._verb_module_texts()
    assert texts is not None and frozen.load("runtime", *texts) == vocabulary._signatures()
    texts[-1] += "\ndef added(ctx, n): ...\n"
    assert frozen.load("runtime", *texts) is None


def test_frozen_data_is_kept_marshalled_beside_the_bytecode_for_its_texts(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from cardc import pycache

    monkeypatch.setattr(pycache, "path", lambda name: str(tmp_path / "pyc" / f"{name}.tag"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    text = LEXICON_PATH.read_text(encoding="utf-8")
    from_json = frozen.load("words", text)
    kept = tmp_path / "pyc" / "frozen-words.tag"
    assert from_json is not None and kept.is_file()
    with monkeypatch.context() as m:
        m.setattr(json, "loads", lambda *_: pytest.fail("read from the JSON again"))
        again = frozen.load("words", text)
    assert _shape(again) == _shape(from_json)  # the same data, order and types
    assert frozen.load("words", text + " ") is None  # another text: neither the kept data nor the JSON
    assert _shape(frozen.load("words", text)) == _shape(from_json)
    kept.write_bytes(kept.read_bytes()[:-40])  # cut off: read from the JSON again, and kept again
    assert _shape(frozen.load("words", text)) == _shape(from_json)
    with monkeypatch.context() as m:
        m.setattr(json, "loads", lambda *_: pytest.fail("read from the JSON again"))
        assert _shape(frozen.load("words", text)) == _shape(from_json)
    monkeypatch.setattr(pycache, "path", lambda name: str(tmp_path / "file" / f"{name}.tag"))
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")  # cannot be kept: read from the JSON
    assert _shape(frozen.load("words", text)) == _shape(from_json)
