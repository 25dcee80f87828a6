"""The string splitting of the Python backend (made linear for issue 11.7) still gives literals that read back
as the same text and fit the line, whatever the characters."""

from __future__ import annotations

import ast

from cardc.backends.python.literals import WIDTH, _split_string
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(text=st.text(min_size=1, max_size=600), indent=st.integers(0, 60))
def test_split_string_reads_back_and_fits(text: str, indent: int) -> None:
    source = _split_string(text, indent)
    assert ast.literal_eval(source) == text
    assert all(len(line) <= max(WIDTH, indent + 26) for line in source.split("\n"))


def test_split_string_of_a_megabyte() -> None:
    text = "a name 'with' \"quotes\" é " * 40_000
    assert ast.literal_eval(_split_string(text, 8)) == text
