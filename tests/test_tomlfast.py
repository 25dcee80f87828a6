"""`cardc.tomlfast`: the simplest cardc.toml files read without tomllib, to the same dict; every other text left
to tomllib."""

from __future__ import annotations

import tomllib
from pathlib import Path

from cardc.tomlfast import simple_loads
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent


def _same(text: str) -> None:
    """simple_loads gives tomllib's dict (types and order too), or None."""
    simple = simple_loads(text)
    if simple is None:
        return
    assert repr(simple) == repr(tomllib.loads(text))  # repr: True is not 1, the keys' order


def test_the_bundled_cardc_toml_is_read_without_tomllib() -> None:
    for path in ROOT.rglob("cardc.toml"):
        text = path.read_text(encoding="utf-8")
        if "[content]" in text:
            assert simple_loads(text) == tomllib.loads(text)


def test_edges() -> None:
    cases = {
        "": {},
        "# only a comment\n": {},
        "[content]\nname = \"x\" # c\n": {"content": {"name": "x"}},
        " [a] \n\tk=\"\"\n[b]\nn = 0\nm = 123456789012345678\nt = true\nf = false\n": {
            "a": {"k": ""}, "b": {"n": 0, "m": 123456789012345678, "t": True, "f": False}},
        "top = 1\n[t]\ntrue = \"é\u2028\"#\n": {"top": 1, "t": {"true": "é\u2028"}},
    }
    for text, want in cases.items():
        assert simple_loads(text) == want == tomllib.loads(text)
        _same(text)
    for text in ("[a]\n[a]\n", "a = 1\na = 2\n", "a = 1\n[a]\n", "a = \"x\\ty\"\n", "a = 01\n", "a = +1\n",
                 "a = 1_000\n", "a = 1.5\n", "[a.b]\n", "a.b = 1\n", "[ a ]\n", "a = \"x\"\r\n", "\ufeffa = 1\n",
                 "a = 'x'\n", "a = [1]\n", "a = \"tab\there\"\n", "# \x01\n", "a = 1234567890123456789\n",
                 "a = \"x\" y\n", "[a]]\n", "a = TRUE\n", "= 1\n", "a = \"\"\"x\"\"\"\n"):
        assert simple_loads(text) is None, text  # left to tomllib


_KEY = st.from_regex(r"[A-Za-z0-9_-]{1,6}", fullmatch=True) | st.sampled_from(["true", "false", "1", "a", "b"])
_VALUE = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=8).map(lambda s: '"' + s + '"'),
    st.integers(-5, 10**19).map(str), st.sampled_from(["true", "false", "1.5", "'x'", "[1]", "01", "1_0"]))
_LINE = st.one_of(
    st.builds(lambda k, v, sp, c: f"{k}{sp}={sp}{v}{c}", _KEY, _VALUE, st.sampled_from(["", " ", "\t"]),
              st.sampled_from(["", " # c", "#é", "  #\t"])),
    st.builds(lambda k, c: f"[{k}]{c}", _KEY, st.sampled_from(["", " # t"])),
    st.sampled_from(["", "# comment", "  ", "[a.b]", "x", "\ufeff"]))


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_simple_texts_read_as_tomllib_reads_them(lines: list[str], newline: str) -> None:
    text = newline.join(lines)
    simple = simple_loads(text)
    if simple is None:
        return
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise AssertionError(f"read a text tomllib refuses: {text!r}") from None
    assert repr(simple) == repr(expected)
