"""Values written into and read back from a template's output: the fast paths are JSON's own string literals.

Every `{{ value }}` a card template prints is a JSON string literal and every quoted value read back is parsed as
one (so card data never breaks out of its value); `_finalize` and `_value` call the C functions behind `json.dumps`
and `json.loads` directly, and must give exactly what those give, for any text."""

from __future__ import annotations

import json

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
