"""The string splitting of the Python backend (made linear for issue 11.7) still gives literals that read back
as the same text and fit the line, whatever the characters."""

from __future__ import annotations

import ast

from cardc.backends.python.literals import WIDTH, _split_string
from hypothesis import example, given, settings
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


def _mentions_by_scanning(text: str, names: list[str]) -> list[tuple[int, int]]:
    """The reference's name linking as it was first written: every name, longest first, at every word."""
    import re

    ordered = sorted(names, key=lambda n: (-len(n), n))
    out, pos = [], 0
    for word in re.finditer(r"\w+", text):
        at = word.start()
        if at < pos or (at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")):
            continue
        for n in ordered:
            end = at + len(n)
            if re.match(r"\w", n) and n[:len(word.group())] == word.group() and text.startswith(n, at) \
                    and not (end < len(text) and (text[end].isalnum() or text[end] == "_")):
                out.append((at, end))
                pos = end
                break
    return out


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(names=st.lists(st.sampled_from(["Star", "Star 1", "Star 12", "Star of Night", "Stars", "Night", "Key",
                                       "Key 1", "Shadow 7", "Shadow 77", "-Odd"]), unique=True),
       words=st.lists(st.sampled_from(["Star", "1", "12", "of", "Night", "Stars", "Key", "Shadow", "7", "77",
                                       " ", " ", ",", "-", "Odd", "x"]), max_size=30))
@example(names=["Star", "Star 1"], words=["Star"])  # a longer name's slice at the text's end is the shorter name
def test_name_links_are_the_longest_whole_word_names(names: list[str], words: list[str]) -> None:
    """Names sharing a first word are found by their length (a linear lookup, issue 11.7), with the same
    result as trying every name longest first."""
    from cardc.backends.reference.context import mentions, name_index

    text = "".join(words)
    assert list(mentions(text, name_index(names))) == _mentions_by_scanning(text, names)
