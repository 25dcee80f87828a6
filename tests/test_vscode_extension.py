"""The VS Code extension in `editors/vscode/`: its manifest, grammar and client agree with the language."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

import pytest
from cardc.loader import SOURCE_SUFFIX

from tests.conftest import ROOT

EXT = ROOT / "editors" / "vscode"


def _json(name: str) -> Any:
    return json.loads((EXT / name).read_text(encoding="utf-8"))


def _patterns(node: Any) -> list[str]:
    """Every regular expression of a TextMate grammar."""
    out: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("match", "begin", "end") and isinstance(value, str):
                out.append(value)
            else:
                out.extend(_patterns(value))
    elif isinstance(node, list):
        for item in node:
            out.extend(_patterns(item))
    return out


def test_manifest_names_the_language_grammar_and_server() -> None:
    manifest = _json("package.json")
    [language] = manifest["contributes"]["languages"]
    assert language["extensions"] == [SOURCE_SUFFIX]
    [grammar] = manifest["contributes"]["grammars"]
    assert grammar["language"] == language["id"]
    assert _json(grammar["path"])["scopeName"] == grammar["scopeName"]
    assert (EXT / manifest["main"]).is_file() and (EXT / language["configuration"]).is_file()
    assert manifest["contributes"]["configuration"]["properties"]["cardc.server.args"]["default"] == ["lsp"]
    assert "vscode-languageclient" in manifest["dependencies"]
    assert _json("package-lock.json")["packages"][""]["dependencies"] == manifest["dependencies"]


def test_grammar_regexes_compile_and_every_keyword_is_highlighted() -> None:
    grammar = _json("syntaxes/cardc.tmLanguage.json")
    patterns = _patterns(grammar)
    for pattern in patterns:
        re.compile(pattern)  # Oniguruma reads a superset; these use only what both read
    keyword_rules = "\n".join(patterns)
    lark = (ROOT / "dsl" / "cardc.lark").read_text(encoding="utf-8")
    keywords = set(re.findall(r'"([a-z]+)"', lark))
    assert {"module", "import", "on", "if", "may", "choose"} <= keywords
    for word in sorted(keywords):
        assert re.search(rf"\b{word}\b", keyword_rules), f"keyword `{word}` of dsl/cardc.lark is not highlighted"


@pytest.mark.parametrize(("rule", "text", "groups"), [
    ("declaration", "hero horan {", (None, "hero", "horan", None, None)),
    ("declaration", "errata card glass {", ("errata", "card", "glass", None, None)),
    ("declaration", "expansion regent extends karak {", (None, "expansion", "regent", "extends", "karak")),
    ("rule", "on fight_roll if x", ("on", "fight_roll")),
    ("attribute", "opens_with: key", ("opens_with", ":")),
])
def test_grammar_rules_capture_what_they_name(rule: str, text: str, groups: tuple[str | None, ...]) -> None:
    pattern = _json("syntaxes/cardc.tmLanguage.json")["repository"][rule]["match"]
    match = re.search(pattern, text)
    assert match is not None and match.groups() == groups


def test_a_rule_header_is_not_a_declaration() -> None:
    pattern = _json("syntaxes/cardc.tmLanguage.json")["repository"]["declaration"]["match"]
    assert re.search(pattern, "on use {") is None and re.search(pattern, "if first {") is None


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_client_script_parses() -> None:
    subprocess.run(["node", "--check", str(EXT / "extension.js")], check=True)
