"""Property: however the bundled content is mangled, the checker never crashes.

Each example takes one bundled `.cardc` file, applies a few random mutations (drop, duplicate, swap
or insert a token or a character) and checks a temporary copy of the content in-process, with
`compile_paths` and with the CLI's `main()`. The only allowed outcomes are exit 0, or exit 1 with at
least one `file:line:col` diagnostic that points into a source file. Derandomized, so CI sees the
same 500 examples every run.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from cardc import cli
from cardc.frontend import compile_paths
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"

# Tokens of the language, roughly: strings, comments, numbers with their tails, names, punctuation.
TOKEN_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|[+-]?\d[\w.]*|[A-Za-z_]\w*|\s+|.', re.DOTALL)
INSERTABLE_TOKENS = [
    "{", "}", "(", ")", "[", "]", ":", ",", ".", "..", '"', '""', "/*", "*/", "//", "#", "\\",
    "on", "if", "else", "may", "choose", "and", "or", "not", "errata", "extends", "unknown",
    "provisional", "module", "import", "game", "expansion", "kind", "attr", "variant", "true", "false",
    "+1", "-2", "3..4", "4..3", "2d6", "d6", "0d0", "1.5", "99999999999999999999", ":icon:", "x", "name",
    "attack", "cs", "en", "\n", " ", '"../../etc/passwd"', '"missing.png"', "type", "ref(x)", "list(",
    # huge numbers, long tokens, deep nesting (issue 11): limits must report them, never crash on them
    "7" * 4301, "+" + "9" * 5000, "1" * 30 + ".." + "2" * 30, "12d6", "d0", "7d1000", "x" * 300,
    '"' + "s" * 20_000 + '"',
    "not " * 300 + "x", " and x" * 200, " or x" * 200, "[" * 300, "]" * 300, "(" * 300, "if x { " * 100,
    "provisional " * 50, '"a\u2028b"', '"\x1b[31m"', '"\x00"',
]
INSERTABLE_CHARS = list('{}()[]:,."\\/#*+-_0123456789azZ \n\t\r') + ["\x00", "\x0c", "é", "ř", "\u2028", "\ufeff", "🂡"]

MUTATIONS = ("drop_token", "dup_token", "swap_tokens", "insert_token",
             "drop_char", "dup_char", "swap_chars", "insert_char", "insert_bytes")
LOCATION = re.compile(r"^(?P<file>[^\s:][^:\n]*):(?P<line>\d+):(?P<col>\d+): (error|warning)\[[EW]\d{3}\]: ",
                      re.MULTILINE)

mutation = st.tuples(st.sampled_from(MUTATIONS), st.integers(0, 10**9), st.integers(0, 10**9),
                     st.sampled_from(INSERTABLE_TOKENS), st.sampled_from(INSERTABLE_CHARS))


def mutate(text: str, ops: list[tuple[str, int, int, str, str]]) -> str:
    for op, a, b, token, char in ops:
        if op == "insert_bytes":  # random bytes, most not UTF-8: lone surrogates written with surrogateescape
            i = a % (len(text) + 1)
            noise = "".join(chr(0xDC80 + (b >> k) % 128) for k in range(0, 24, 3))
            text = text[:i] + noise + text[i:]
        elif op.endswith("token") or op.endswith("tokens"):
            toks = TOKEN_RE.findall(text) or [""]
            i, j = a % len(toks), b % len(toks)
            if op == "drop_token":
                del toks[i]
            elif op == "dup_token":
                toks.insert(i, toks[i])
            elif op == "swap_tokens":
                toks[i], toks[j] = toks[j], toks[i]
            else:
                toks.insert(i, token)
            text = "".join(toks)
        else:
            n = max(len(text), 1)
            i, j = a % n, b % n
            chars = list(text) or [""]
            if op == "drop_char":
                del chars[i]
            elif op == "dup_char":
                chars.insert(i, chars[i])
            elif op == "swap_chars":
                chars[i], chars[j] = chars[j], chars[i]
            else:
                chars.insert(i, char)
            text = "".join(chars)
    return text


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A private copy of the content folder and the original text of each source in it.

    Each example rewrites one file of the copy and restores it afterwards.
    """
    base = tmp_path_factory.mktemp("mutation")
    shutil.copytree(CONTENT, base / "content")
    sources = {p.relative_to(base / "content").as_posix(): p.read_text(encoding="utf-8")
               for p in sorted((base / "content").rglob("*.cardc"))}
    if not sources:
        pytest.skip("no bundled content")
    return base, sources


def test_mutation_helper_changes_text() -> None:
    assert mutate("hero a { }", [("drop_token", 0, 0, "", "")]) == " a { }"
    assert mutate("ab", [("swap_chars", 0, 1, "", "")]) == "ba"
    assert mutate("ab", [("insert_token", 1, 0, "{", "")]) != "ab"


@settings(max_examples=500, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(pick=st.integers(0, 10**6), ops=st.lists(mutation, min_size=1, max_size=3))
def test_mutated_content_never_crashes(workdir: tuple[Path, dict[str, str]], pick: int,
                                       ops: list[tuple[str, int, int, str, str]]) -> None:
    base, sources = workdir
    source = sorted(sources)[pick % len(sources)]
    target = base / "content" / source
    original = sources[source]
    mutated = mutate(original, ops)
    target.write_bytes(mutated.encode("utf-8", "surrogateescape"))
    old = Path.cwd()
    os.chdir(base)
    try:
        result = compile_paths([Path("content") / source])  # the file and what it imports
        if not result.ok:
            errors = [d for d in result.diagnostics if d.is_error]
            assert any(d.span.file.endswith(".cardc") and d.span.line >= 1 and d.span.col >= 1 for d in errors), \
                [d.render() for d in errors]
        for d in result.diagnostics:  # every position lies inside its file
            text = result.sources.get(d.span.file)
            if text is not None:
                lines = text.split("\n")  # lines as the lexer counts them
                assert 1 <= d.span.line <= len(lines) + 1, d.render()
                assert 1 <= d.span.col <= len(lines[min(d.span.line, len(lines)) - 1]) + 2, d.render()
            rendered = d.render(result.sources)  # rendering never fails, and the source line is one line
            if text is not None and d.span.line <= len(text.split("\n")):
                assert len(rendered.split("\n")) == 3 + (d.hint is not None), rendered
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(["check", str(Path("content") / source)])
    finally:
        os.chdir(old)
        target.write_text(original, encoding="utf-8")
    stderr = err.getvalue()
    assert "Traceback" not in stderr
    assert code == (0 if result.ok else 1), stderr
    if code == 1:
        spots = [m for m in LOCATION.finditer(stderr) if m.group("file").endswith(".cardc")]
        assert spots, stderr
