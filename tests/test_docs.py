"""dsl/README.md: its generated tables are current, every diagnostic code and verb is documented,
and its examples are valid cardc."""

from __future__ import annotations

import re

from cardc import syntax as s
from cardc.catalogue import default_catalogue
from cardc.diagnostics import CODES, DiagnosticSink
from cardc.docgen import README, render
from cardc.parser import parse_text

TEXT = README.read_text(encoding="utf-8")
# The untagged fenced blocks are cardc examples; a block tagged with a language (```yaml) is not.
BLOCKS = [body for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", TEXT, re.DOTALL | re.MULTILINE) if not lang]


def test_generated_sections_are_current() -> None:
    assert render(TEXT) == TEXT, "dsl/README.md is out of date: run `cardc docs`"


def test_every_diagnostic_code_is_documented() -> None:
    for code, meaning in CODES.items():
        assert re.search(rf"^\| `{code}` \| [^|]+ \| {re.escape(meaning.split('`')[0])}", TEXT, re.MULTILINE), code


def test_every_catalogue_verb_is_in_the_table() -> None:
    for verb in default_catalogue().verbs.values():
        assert f"| `{verb.name}` |" in TEXT, verb.name


def _verbs(node: object) -> list[str]:
    """Every verb named in a parsed rule (triggers, conditions, calls)."""
    if isinstance(node, s.CallV):
        return [node.name]
    if isinstance(node, s.RuleS):
        return [*_verbs(node.trigger), *_verbs(node.cond), *(v for st in node.body for v in _verbs(st))]
    if isinstance(node, s.DoS | s.MayS):
        return _verbs(node.call)
    if isinstance(node, s.ChooseS):
        return [v for o in node.options for st in o.body for v in _verbs(st)]
    if isinstance(node, s.IfS):
        return [*_verbs(node.cond), *(v for st in (*node.then, *node.orelse) for v in _verbs(st))]
    if isinstance(node, s.NotC):
        return _verbs(node.cond)
    if isinstance(node, s.AndC | s.OrC):
        return [*_verbs(node.left), *_verbs(node.right)]
    return []


def _rules(decl: s.DeclS) -> list[s.RuleS]:
    return [*decl.rules, *(r for d in decl.decls for r in _rules(d))]


def test_examples_parse_and_use_catalogue_verbs() -> None:
    examples = [b for b in BLOCKS if not re.match(r"^\S+:\d+:\d+: ", b)]
    assert len(examples) >= 8
    verbs = default_catalogue().verbs
    for block in examples:
        sink = DiagnosticSink()
        parsed = parse_text(block, "README.md", sink)
        assert parsed is not None and not sink.items, (block, [d.render() for d in sink.items])
        for decl in parsed.decls:
            for rule in _rules(decl):
                unknown = [v for v in _verbs(rule) if v not in verbs and v not in ("monster", "hero")]
                assert not unknown, (block, unknown)
