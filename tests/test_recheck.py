"""`cardc check` after an edit inside entity declarations (issue 16.3): only the edited entities are lowered and
checked again (`cardc.recheck`), and the run reports, byte for byte, what a run with the cache off reports; an
edit that could change what other declarations see (an id, a kind, a module line, an import, a game, a line
shared with another declaration) is left to the full front end."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from cardc import checkcache, cli, recheck

from tests.test_check_after_edit import _cold, _project, _run, _same_as_cold, cache  # noqa: F401 - the fixture
from tests.test_literal_edit import _literals, _project_with_art

ROOT = Path(__file__).resolve().parent.parent
CHECK = ("check", "--show-provisional", ".")


def _count_rechecks(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """A list that gets, for each `recheck.recheck` call, whether it answered."""
    answered: list[bool] = []
    real = recheck.recheck

    def counted(state: Any) -> Any:
        out = real(state)
        answered.append(out[0] is not None)
        return out

    monkeypatch.setattr(recheck, "recheck", counted)
    return answered


def _no_front_end(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> Any:
        raise AssertionError("the whole front end ran: this edit should be checked again entity by entity")

    monkeypatch.setattr(cli, "_front", refuse)
    monkeypatch.setattr(checkcache, "lookup_trees", refuse)


def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return _project_with_art(tmp_path, monkeypatch)[0]


# (file, old, new, an error?): edits inside entity bodies, made again entity by entity
BODY_EDITS = {
    "a changed text": ("heroes.cardc", 'unknown "four or five?"', 'unknown "five"', False),
    "a changed number": ("items.cardc", "bonus: 1 }", "bonus: 7 }", False),
    "a provisional value made plain": ("heroes.cardc", 'provisional 3 "playtest"', "3", False),
    "a value made unknown": ("items.cardc", "bonus: 1 }", 'bonus: unknown "ask" }', False),
    "a missing image named": ("items.cardc", 'art: "cup.png"', 'art: "cupp.png"', True),
    "a reference changed": ("items.cardc", "owner: ann", "owner: bob", False),
    "a reference to nothing": ("items.cardc", "owner: ann", "owner: nobody", True),
    "a reference to the wrong kind": ("items.cardc", "owner: ann", "owner: hat", True),
    "an unknown attribute": ("items.cardc", "owner: bob", "ownr: bob", True),
    "an attribute given twice": ("items.cardc", "owner: bob", "owner: bob owner: ann", True),
    "a line added to the file's last entity (parsed)": ("heroes.cardc", "tags_of: [tall, quick]",
                                                        "tags_of: [tall, quick]\n  lives: 2", True),
    "two entities' values in two files": ("items.cardc", "bonus: 1 }", "bonus: 2 }", False),
    "an id renamed, referenced from another file": ("heroes.cardc", "hero ann", "hero anna", True),
    "an id renamed, referenced from nowhere": ("items.cardc", "item hat", "item cap", False),
}


@pytest.mark.parametrize("edit", sorted(BODY_EDITS))
def test_an_edit_inside_entities_is_checked_again_entity_by_entity(tmp_path: Path, cache: Path,  # noqa: F811
                                                                  monkeypatch: pytest.MonkeyPatch, edit: str) -> None:
    folder = _setup(tmp_path, monkeypatch)
    name, old, new, error = BODY_EDITS[edit]
    path = folder / name
    before = path.read_text(encoding="utf-8")
    assert before.count(old) == 1
    path.write_text(before.replace(old, new), encoding="utf-8")
    if edit == "two entities' values in two files":
        heroes = (folder / "heroes.cardc").read_text(encoding="utf-8")
        (folder / "heroes.cardc").write_text(heroes.replace("provisional 3", "provisional 4"), encoding="utf-8")
    with monkeypatch.context() as m:
        answered = _count_rechecks(m)
        _no_front_end(m)
        warm = [_run(folder, *argv) for argv in (CHECK, ("check", "--format", "json", "."))]
    assert warm == [_cold(folder, monkeypatch, *argv) for argv in (CHECK, ("check", "--format", "json", "."))]
    assert answered[0]
    assert (warm[0][0] == 1) == error, warm[0][2]
    if not error:  # stored with its trace: a second edit of the same value is checked from this one
        path.write_text(path.read_text(encoding="utf-8").replace(new, new.replace("7", "8").replace('"five"', '"six"')
                                                                 .replace("bob", "ann")), encoding="utf-8")
        with monkeypatch.context() as m:
            answered = _count_rechecks(m)
            warm = [_run(folder, *CHECK)]
        assert warm == [_cold(folder, monkeypatch, *CHECK)]
    _same_as_cold(folder, monkeypatch)
    path.write_text(before, encoding="utf-8")  # and back
    _same_as_cold(folder, monkeypatch)


# Edits that change what other declarations see, or move them: never answered entity by entity.
OTHER_EDITS = {
    "an id renamed to one that is taken": ("heroes.cardc", "hero ann", "hero bob"),
    "an entity moved to another game": ("items.cardc", "module duel\nimport", "module duet\nimport"),
    "an import changed": ("items.cardc", 'import "heroes.cardc"', 'import "heroez.cardc"'),
    "a kind's default changed": ("game.cardc", "default: 5", "default: 6"),
    "a game's name changed": ("game.cardc", '{ en "Duel" }', '{ en "Duels" }'),
    "a kind of an entity changed": ("items.cardc", "item hat", "hero hat"),
    "errata of an entity": ("items.cardc", "item hat", "errata item hat"),
    "a line added to an entity above another": ("heroes.cardc", 'lives: unknown "four or five?" }',
                                                'lives: unknown "four or five?"\n  tags_of: [x] }'),
}


@pytest.mark.parametrize("edit", sorted(OTHER_EDITS))
def test_an_edit_other_declarations_see_is_left_to_the_front_end(tmp_path: Path, cache: Path,  # noqa: F811
                                                                  monkeypatch: pytest.MonkeyPatch, edit: str) -> None:
    folder = _setup(tmp_path, monkeypatch)
    name, old, new = OTHER_EDITS[edit]
    path = folder / name
    before = path.read_text(encoding="utf-8")
    assert before.count(old) == 1
    path.write_text(before.replace(old, new), encoding="utf-8")
    with monkeypatch.context() as m:
        answered = _count_rechecks(m)
        warm = _run(folder, *CHECK)
    assert warm == _cold(folder, monkeypatch, *CHECK)
    assert answered == [False]
    _same_as_cold(folder, monkeypatch)


def test_a_declaration_sharing_the_edited_line_is_left_to_the_front_end(tmp_path: Path, cache: Path,  # noqa: F811
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Lengthening a value moves what follows it on its line: an entity declared after it there has moved."""
    folder = _setup(tmp_path, monkeypatch)
    path = folder / "items.cardc"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('item hat { name: { en "Hat" } owner: bob  bonus: 1 }',
                                 'item hat { name: { en "Hat" } owner: bob  bonus: 1 } item cap { name: { en "Cap" } '
                                 'owner: bob  bonus: unknown "?" }'), encoding="utf-8")
    assert _same_as_cold(folder, monkeypatch)[0][0] == 0
    path.write_text(path.read_text(encoding="utf-8").replace('{ en "Hat" }', '{ en "Hat with a feather" }'),
                    encoding="utf-8")
    with monkeypatch.context() as m:
        answered = _count_rechecks(m)
        warm = _run(folder, *CHECK)
    assert warm == _cold(folder, monkeypatch, *CHECK)
    assert answered == [False]


def test_hand_written_texts_are_checked_again_with_their_effects(tmp_path: Path, cache: Path,  # noqa: F811
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """W501 (a hand-written text against its effects' numbers) comes and goes with an edit of the effect."""
    folder = tmp_path / "content"
    shutil.copytree(ROOT / "content", folder)
    _run(folder, "check", ".")
    path = folder / "karak" / "base" / "heroes.cardc"
    before = path.read_text(encoding="utf-8")
    assert before.count("defending() { attack(+1) }") == 1
    for new in ("defending() { attack(+3) }", "defending() { attack(+1) }"):
        path.write_text(before.replace("defending() { attack(+1) }", new), encoding="utf-8")
        with monkeypatch.context() as m:
            answered = _count_rechecks(m)
            _no_front_end(m)
            warm = _run(folder, "check", ".")
        assert answered == [True]
        assert warm == _cold(folder, monkeypatch, "check", ".")
        assert ("W501" in warm[2]) == (new != "defending() { attack(+1) }")


def test_random_literal_edits_of_the_bundled_content(tmp_path: Path, cache: Path,  # noqa: F811
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Strings, numbers and names anywhere in the content replaced, one after another, each check compared
    with a cold one; most are answered entity by entity, the rest by the front end."""
    folder = tmp_path / "content"
    shutil.copytree(ROOT / "content", folder)
    _run(folder, "check", ".")
    rng = random.Random(16_3)
    files = sorted(folder.rglob("*.cardc"))
    answered: list[bool] = []
    for _ in range(12):
        path = rng.choice(files)
        text = path.read_text(encoding="utf-8")
        start, end, kind = rng.choice(_literals(text))
        if kind == "STRING":
            new = '"' + rng.choice(["2 lives", "x", "+1 and 3", "Über"]) + '"'
        elif kind == "INT":
            new = str(rng.randint(0, 9))
        else:
            new = rng.choice(["horan", "sword", "fight", "zzz", text[start:end] + "_2"])
        path.write_text(text[:start] + new + text[end:], encoding="utf-8")
        with monkeypatch.context() as m:
            calls = _count_rechecks(m)
            warm = _run(folder, "check", "--show-provisional", ".")
        answered += calls
        assert warm == _cold(folder, monkeypatch, "check", "--show-provisional", "."), (path, text[start:end], new)
        if warm[0] != 0:
            path.write_text(text, encoding="utf-8")  # an error is not stored: go back to the last clean text
    assert answered.count(True) >= 4, answered


def test_the_span_map_reads_until_the_first_difference_and_tells_the_same_runs() -> None:
    """`SpanMap` stops at the first run that differs (a value edited near the top: a few lines read), and
    `same_tokens` is still whether the two texts have the same runs."""
    from cardc.spanmap import runs, same_runs

    rng = random.Random(7)
    text = (ROOT / "content" / "karak" / "base" / "heroes.cardc").read_text(encoding="utf-8")
    pieces = [" ", "\n", "// c\n", "/* b */", '"', "x", "#", "", "\\"]
    for _ in range(300):
        at = rng.randrange(len(text))
        cut = rng.randrange(3)
        new = text[:at] + rng.choice(pieces) + text[at + cut:]
        assert same_runs(text, new) == (runs(text)[1] == runs(new)[1]), (at, new[at - 5:at + 5])
    for old, new in (('x "a b"', 'x  "a b" // c'), ('x "a b"', 'x "a  b"'), ("x y", "xy"), ("x // y", "x y"),
                     ("x y", "x y z"), ("x y z", "x y")):
        assert same_runs(old, new) == (runs(old)[1] == runs(new)[1])


EXPANSION = """module duel.more
import "game.cardc"
import "items.cardc"

expansion more extends duel { name: { en "More" } }
errata item hat { name: { en "Hat, again" } owner: ann  bonus: 2 }
"""


@pytest.mark.parametrize(("old", "new", "answered"), [
    ("item hat", "item cap", False),  # an errata names it: the errata check is the front end's
    ("item cup", "item hat", False),  # taken
    ("item cup", "item mug", True),
    ("hero ann", "hero anne", True),  # errata `hat` looks `ann` up: it is checked again, and reports it
])
def test_a_renamed_entity_that_errata_name_is_left_to_the_front_end(tmp_path: Path, cache: Path,  # noqa: F811
                                                                    monkeypatch: pytest.MonkeyPatch, old: str,
                                                                    new: str, answered: bool) -> None:
    folder = _setup(tmp_path, monkeypatch)
    (folder / "more.cardc").write_text(EXPANSION, encoding="utf-8")
    assert _same_as_cold(folder, monkeypatch)[0][0] == 0
    path = folder / ("items.cardc" if old.startswith("item") else "heroes.cardc")
    text = path.read_text(encoding="utf-8")
    assert text.count(old + " ") == 1
    path.write_text(text.replace(old + " ", new + " "), encoding="utf-8")
    with monkeypatch.context() as m:
        calls = _count_rechecks(m)
        warm = _run(folder, *CHECK)
    assert warm == _cold(folder, monkeypatch, *CHECK)
    assert calls == [answered]
    _same_as_cold(folder, monkeypatch)


def test_an_environment_of_another_run_is_not_used(tmp_path: Path, cache: Path,  # noqa: F811
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment is one entry per check, overwritten: one that is not the trace's (a store cut short
    between the two) sends the check to the front end."""
    from cardc import diskcache

    folder = _setup(tmp_path, monkeypatch)
    entries = list((cache / recheck.ENV_NAMESPACE).glob("*.pickle"))
    assert len(entries) == 1
    monkeypatch.chdir(folder)
    key = entries[0].stem
    stored = diskcache.load(recheck.ENV_NAMESPACE, key)
    assert isinstance(stored, tuple)
    diskcache.store(recheck.ENV_NAMESPACE, key, ("another run", stored[1]))
    path = folder / "items.cardc"
    path.write_text(path.read_text(encoding="utf-8").replace("bonus: 1 }", "bonus: 7 }"), encoding="utf-8")
    with monkeypatch.context() as m:
        calls = _count_rechecks(m)
        warm = _run(folder, *CHECK)
    assert calls == [False]
    assert warm == _cold(folder, monkeypatch, *CHECK)
