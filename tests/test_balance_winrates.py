"""Win rates from whole games in the balance backend and the reference: a grid of cells per setup and player
count, cached on the content's digest, drawn as SVG charts with the page's language."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from cardc.backends.python import winrates
from cardc.backends.reference.context import RefContext
from cardc.backends.reference.winrates import figures, sections
from cardc.frontend import FrontEndResult

CANDIDATES = winrates._candidates  # the real lookup (the fixtures below replace it with the cache only)


@pytest.fixture(scope="module")
def small(bundled: FrontEndResult, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two games per cell, two player counts, a private cache folder."""
    mp = pytest.MonkeyPatch()
    mp.setenv("CARDC_BALANCE_GAMES", "2")
    mp.setenv("CARDC_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    mp.setattr(winrates, "PLAYERS", range(2, 4))
    mp.setattr(winrates, "_candidates", lambda project, game, key, *_: [winrates.cache_dir() / f"{key}.json"])
    try:
        yield winrates.winrate_data(bundled.project, "karak", workers=1)
    finally:
        mp.undo()


def test_every_setup_and_player_count_is_a_cell(small: dict[str, Any]) -> None:
    ids = [s["id"] for s in small["setups"]]
    assert ids[0] == "base" and "regent" in ids and "critical_hits" in ids and "stronger_dragon" in ids
    assert "house_rules" not in ids  # an expansion that only holds variants adds nothing to play
    lord = next(s for s in small["setups"] if s["id"] == "lord_of_karak")
    assert lord["expansions"] == ["regent"]  # a variant brings the expansion it belongs to
    assert {(c["setup"], c["players"]) for c in small["cells"]} == {(s, n) for s in ids for n in (2, 3)}
    for cell in small["cells"]:
        assert sum(h["games"] for h in cell["heroes"]) == 2 * cell["players"]
        assert all(h["ci95"][0] <= h["win_rate"] <= h["ci95"][1] for h in cell["heroes"])


def test_a_rebuild_of_unchanged_content_does_not_replay(bundled: FrontEndResult, small: dict[str, Any],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import cardc.simulation.runner as runner

    monkeypatch.setenv("CARDC_BALANCE_GAMES", "2")
    monkeypatch.setattr(winrates, "PLAYERS", range(2, 4))
    monkeypatch.setattr(winrates, "_candidates", lambda project, game, key, *_: [winrates.cache_dir() / f"{key}.json"])

    def no_games(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the games were played again")

    monkeypatch.setattr(runner, "run", no_games)
    monkeypatch.setenv("CARDC_CACHE_DIR", str(winrates.cache_dir().parent))
    assert winrates.winrate_data(bundled.project, "karak") == json.loads(json.dumps(small))
    monkeypatch.setenv("CARDC_BALANCE_GAMES", "3")  # another game count is another key: it would replay
    with pytest.raises(AssertionError, match="played again"):
        winrates.winrate_data(bundled.project, "karak")


@pytest.mark.parametrize(("lang", "words"), [("en", ("players", "win rate (%)", "base game")),
                                             ("cs", ("hráči", "podíl výher (%)", "základní hra")),
                                             ("pl", ("graczy", "odsetek zwycięstw (%)", "gra podstawowa"))])
def test_reference_charts_in_every_language(bundled: FrontEndResult, small: dict[str, Any], tmp_path: Path,
                                            lang: str, words: tuple[str, ...]) -> None:
    (tmp_path / "balance").mkdir()
    (tmp_path / "balance" / "karak-games.json").write_text(json.dumps(small), encoding="utf-8")
    ctx = RefContext(bundled.project, bundled.project.games["karak"], lang, tmp_path)
    secs = sections(ctx)
    assert [s["id"] for s in secs] == ["winrates", "winrates-2p", "winrates-3p"]
    svgs = figures([{"sections": secs}])
    assert sorted(svgs) == ["winrates-2p.svg", "winrates-3p.svg"]
    root = ET.fromstring(svgs["winrates-2p.svg"])
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for word in words:
        assert word in texts
    heroes = {h["hero"] for c in small["cells"] if c["players"] == 2 for h in c["heroes"]}
    for hero in heroes:
        assert ctx.name(ctx.ref(hero)) in texts  # hero names as the page's language spells them
    table = secs[1]["blocks"][1]
    assert table["type"] == "table" and len(table["rows"]) == len(heroes)


def test_markdown_table_per_player_count(bundled: FrontEndResult, small: dict[str, Any]) -> None:
    names = {e.id: e.id.title() for e in bundled.project.entities}
    text = winrates.markdown(small, names)
    assert "## 2 players" in text and "## 3 players" in text and "| *turn cap hit* |" in text
    assert text.count("| hero | base game |") == 2


def test_the_figures_are_looked_up_in_this_builds_output_first(bundled: FrontEndResult, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The build's own previous output comes first; a folder beside the content only if a build wrote it
    (its marker), so a clean clone's committed `generated/` starts a build elsewhere warm; never the cwd."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "generated" / "balance").mkdir(parents=True)  # a cwd `generated/` is not looked at
    found = CANDIDATES(bundled.project, "karak", "k", tmp_path / "out")
    assert found[0] == tmp_path / "out" / "balance" / "karak-games.json"
    assert found[1] == winrates.cache_dir() / "k.json"
    beside = Path(bundled.project.root).resolve().parent / "generated"
    assert found[2:] == ([beside / "balance" / "karak-games.json"] if (beside / ".cardc-build.json").is_file()
                         else [])
    assert tmp_path / "generated" / "balance" / "karak-games.json" not in found
