"""W501: a hand-written text that no longer mentions the numbers its effects use."""

from __future__ import annotations

from pathlib import Path

from cardc.textcheck import text_numbers
from textutil import compile_source

HEAD = """module g
game g { name: { cs "Hra" en "Game" } languages: [cs, en] fallback: en }
kind rule { }
"""


def w501(tmp_path: Path, body: str) -> list[str]:
    result = compile_source(tmp_path, HEAD + body)
    assert result.ok, [d.render() for d in result.diagnostics]
    return [d.message for d in result.diagnostics if d.code == "W501"]


def test_a_stale_number_warns_per_language(tmp_path: Path) -> None:
    msgs = w501(tmp_path, """rule r {
  name: { cs "R" en "R" }
  text: { cs "Získáš +2 k útoku." en "You get +1 to your attack." }
  on fight_total { attack(+2) }
}
""")
    assert msgs == ["the en text of `r` does not mention 2, which its effects use"]


def test_texts_that_mention_every_number_pass(tmp_path: Path) -> None:
    assert w501(tmp_path, """rule r {
  name: { cs "R" en "R" }
  text: { cs "Máš-li tři nebo 4 životy, +2 k útoku." en "With 3 or four lives, +2 to your attack." }
  on fight_total if lives(3..4) { attack(+2) }
}
""") == []


def test_defaults_and_generated_texts_do_not_count(tmp_path: Path) -> None:
    assert w501(tmp_path, """rule r {
  name: { cs "R" en "R" }
  text: { cs "Ztrať život." en "Lose a life." }
  on turn_start { lose_life }
}
rule s {
  name: { cs "S" en "S" }
  on turn_start { lose_life(3) }
}
""") == []


def test_the_warning_points_at_the_text_and_check_still_passes(tmp_path: Path) -> None:
    result = compile_source(tmp_path, HEAD + """rule r {
  name: { cs "R" en "R" }
  text: { cs "Hoď 2 kostkami." en "Roll two dice." }
  on turn_start { roll(3d6) }
}
""")
    diags = [d for d in result.diagnostics if d.code == "W501"]
    assert len(diags) == 2 and not any(d.is_error for d in result.diagnostics)
    assert diags[0].span.line == 6 and "3" in diags[0].message


def test_number_words() -> None:
    assert {1, 5} <= text_numbers("Jednou za tah, padne-li pětka", "cs")
    assert 6 in text_numbers("Padla-li mu šestka", "cs")
    assert 2 in text_numbers("Rzuć dwiema kośćmi", "pl") or 2 in text_numbers("dwie kości", "pl")
    assert text_numbers("no numbers here", "en") == set()


def test_an_article_does_not_stand_for_a_stale_number(tmp_path: Path) -> None:
    """"a monster" is no count: the text says 2 lives where the effect costs 1, so W501 names the 1."""
    msgs = w501(tmp_path, """rule r {
  name: { cs "R" en "R" }
  text: { cs "Smí projít kolem nestvůry; stojí ji to 1 život."
          en "She may walk past a monster; this costs her 2 lives." }
  on turn_start { lose_life(1) }
}
""")
    assert msgs == ["the en text of `r` does not mention 1, which its effects use"]


def test_an_article_before_the_counted_noun_reads_one(tmp_path: Path) -> None:
    assert w501(tmp_path, """rule r {
  name: { cs "R" en "R" }
  text: { cs "Ztrať jeden život." en "Lose a life." }
  on turn_start { lose_life(1) }
}
""") == []


def _bundled_hand_texts() -> list[tuple[object, str, str]]:
    from cardc.frontend import compile_paths

    root = Path(__file__).resolve().parent.parent / "content"
    project = compile_paths(sorted(root.rglob("*.cardc"))).project
    return [(e, entry.text, entry.lang) for e in project.entities if e.text is not None and e.effects
            for entry in e.text.entries]


def test_missing_numbers_are_text_numbers_taken_from_the_wanted() -> None:
    """W501's lazy reading (digits first, then words, then the counted nouns, each only while a number is still
    missing) gives `wanted - text_numbers(...)` for every hand-written text of the bundled content, each language,
    against every set of small numbers and the entity's own, also with the words and digits of other texts."""
    from itertools import combinations

    from cardc.textcheck import _missing, counted_nouns, effect_numbers

    texts = _bundled_hand_texts()
    assert texts
    numbers = [1, 2, 3, 4, 5, 6, 7, 12]
    wanted_sets = [set(c) for k in (1, 2, 3) for c in combinations(numbers, k)]
    others = [t for _, t, _ in texts[::7]] + ["a life", "ein Leben, zwei", "une vie", "lose a life", "One life."]
    for i, (entity, text, lang) in enumerate(texts):
        for candidate in [text, others[i % len(others)]]:
            for wanted in [effect_numbers(entity) or {1}, *wanted_sets[i % 5::5]]:
                counted = counted_nouns(entity, lang) if 1 in wanted else frozenset()
                expected = sorted(wanted - text_numbers(candidate, lang, counted))
                assert _missing(entity, candidate, lang, wanted) == expected, (candidate, lang, wanted)
