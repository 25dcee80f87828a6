"""Values written into and read back from a template's output: the fast paths are JSON's own string literals.

Every `{{ value }}` a card template prints is a JSON string literal and every quoted value read back is parsed as
one (so card data never breaks out of its value); `_finalize` and `_value` call the C functions behind `json.dumps`
and `json.loads` directly, and must give exactly what those give, for any text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cardc.backends.print.templates import TemplateError, _finalize, _value, parse_elements
from hypothesis import given
from hypothesis import strategies as st

TEXTS = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40)


@given(TEXTS)
def test_a_printed_value_is_the_json_literal_and_reads_back_as_itself(text: str) -> None:
    literal = _finalize(text)
    assert literal == json.dumps(text, ensure_ascii=False)
    assert _value("text", literal, "t.j2", 1) == json.loads(literal) == text
    assert parse_elements(f"text t x=1 y=2 w=3 h=4 text={literal}\n", "t.j2")[0].props["text"] == text


@pytest.mark.parametrize("raw", ['"a\\qb"', '"tab\there"', '"\\u12"', '"a"b"'])
def test_a_malformed_string_is_a_template_error(raw: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    with pytest.raises(TemplateError, match="bad string for `text`"):
        _value("text", raw, "t.j2", 3)


NAMES = st.one_of(st.sampled_from(["name", "cost", "items", "keys", "get", "__class__", "__init__", "mro", "copy",
                                   "_private", "format", "missing"]),
                  st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8))


@given(st.dictionaries(NAMES, st.integers() | st.text(max_size=5), max_size=6), NAMES)
def test_a_card_value_reads_as_the_sandbox_reads_it(values: dict[str, object], attribute: str) -> None:
    """`card.name` on a context dict gives what Jinja's sandbox gives: the item, a dict's method, or undefined (an
    unsafe name refused)."""
    from cardc.backends.print.templates import _BudgetSandbox
    from jinja2.runtime import Undefined
    from jinja2.sandbox import SandboxedEnvironment

    ours, theirs = _BudgetSandbox().getattr(values, attribute), SandboxedEnvironment().getattr(values, attribute)
    if isinstance(theirs, Undefined):
        assert type(ours) is type(theirs) and ours._undefined_name == theirs._undefined_name  # noqa: SLF001
        assert ours._undefined_exception is theirs._undefined_exception  # noqa: SLF001
    else:
        assert ours == theirs and type(ours) is type(theirs)


def test_templates_read_card_values_as_attributes_and_items(tmp_path: Path) -> None:
    from cardc.backends.print.templates import Templates

    (tmp_path / "card.j2").write_text(
        'text a x=1 y=1 w=2 h=2 text={{ card.name ~ card["name"] ~ card.nothing ~ card.items()|list|length }}\n'
        "text b x=1 y=1 w=2 h=2 text={{ card.__class__ }}\n", encoding="utf-8")
    with pytest.raises(TemplateError, match="unsafe|__class__"):
        Templates(tmp_path).render(("x",), "front", {"card": {"name": "Ab", "cost": 2}})
    (tmp_path / "card.j2").write_text(
        'text a x=1 y=1 w=2 h=2 text={{ card.name ~ card["name"] ~ card.nothing ~ card.items()|list|length }}\n',
        encoding="utf-8")
    assert Templates(tmp_path).render(("x",), "front", {"card": {"name": "Ab", "cost": 2}})[0] == (
        'text a x=1 y=1 w=2 h=2 text="AbAb2"\n')


def test_lines_read_before_give_the_same_elements_and_errors_keep_their_place() -> None:
    """Output lines are read once and shared by the faces that print them: the elements are those of a fresh
    read, and a malformed line is reported with its own template and line number every time."""
    from cardc.backends.print import templates

    frame = "fill color=#112233\nrect x=1 y=2 w=30 h=40 radius=2 fill=#fefefe\n"
    first = parse_elements(frame + 'text name x=2 y=3 w=20 h=5 text="Aa"\n', "a.j2")
    templates._LINES.clear()
    fresh = parse_elements(frame + 'text name x=2 y=3 w=20 h=5 text="Bb"\n', "b.j2")
    assert first[:2] == fresh[:2] and first[2].props["text"] == "Aa" and fresh[2].props["text"] == "Bb"
    again = parse_elements("\n" + frame + 'text name x=2 y=3 w=20 h=5 text="Cc"\n', "c.j2")
    assert again[:2] == fresh[:2] and again[0] is fresh[0]  # shared, not read again
    for name, lineno in (("d.j2", 3), ("e.j2", 4)):
        bad = frame + "\n" * (lineno - 3) + "rect x=1 y=oops w=2 h=2\n"
        with pytest.raises(TemplateError, match=f"{name}: output line {lineno}: `y` must be a number"):
            parse_elements(bad, name)
