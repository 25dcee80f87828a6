"""The bundled Karak content: counts per module, complete translations, provisional values, and
effects precise enough to recompute the rulebooks' own numbers (the house rules' worked duel)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cardc.frontend import FrontEndResult
from cardc.irjson import project_json
from cardc.lower import ODDS_KINDS

ROOT = Path(__file__).resolve().parent.parent
REGENT_LANGS = {"cs", "sk", "de", "pl", "en", "fr"}
BASE_LANGS = {"cs", "en"}


@pytest.fixture(scope="module")
def ir(bundled: FrontEndResult) -> dict[str, Any]:
    """The components and rules of Karak (the odds declarations for the tools are tested with them)."""
    data = project_json(bundled.project, "karak")
    return {**data, "entities": [e for e in data["entities"] if e["kind"] not in ODDS_KINDS]}


def _by_module(ir: dict[str, Any], module: str) -> list[dict[str, Any]]:
    return [e for e in ir["entities"] if e["module"] == module]


def _ent(ir: dict[str, Any], ident: str, module: str | None = None) -> dict[str, Any]:
    found = [e for e in ir["entities"] if e["id"] == ident and (module is None or e["module"] == module)]
    assert len(found) == 1, f"{ident}: {len(found)} entities"
    return found[0]


def _copies(entities: list[dict[str, Any]], kind: str) -> Counter[str]:
    return Counter({e["id"]: e["copies"] for e in entities if kind in e["kinds"]})


def _plain(v: Any) -> Any:
    """The value behind a provisional marker."""
    return v["value"] if isinstance(v, dict) and v.get("provisional") else v


# ---- counts -------------------------------------------------------------------


def test_regent_components(ir: dict[str, Any]) -> None:
    regent = _by_module(ir, "regent")
    tiles = _copies(regent, "tile")
    assert sum(tiles.values()) == 18
    by_sort = Counter()
    for e in regent:
        if "tile" in e["kinds"]:
            sort = "chamber" if "chamber" in e["kinds"] else ("room" if _plain(e["attrs"]["room"]) else "corridor")
            by_sort[e["id"] if sort == "chamber" else sort] += e["copies"]
    assert by_sort == {"battle_arena": 6, "cursed_chamber": 4, "room": 8}
    monsters = {e["id"]: e for e in regent if "monster" in e["kinds"]}
    assert sum(m["copies"] for m in monsters.values()) == 8
    assert {(m["id"], m["copies"], m["attrs"]["strength"], m["attrs"]["reward"]) for m in monsters.values()} == {
        ("giant_bat", 6, 6, "thorn_of_darkness"), ("ice_mage", 2, 11, "frost_fist")}
    heroes = [e for e in regent if e["kind"] == "hero"]
    assert sorted(h["id"] for h in heroes) == ["baron_markul", "hannah", "lady_lorraine", "valduk"]
    for h in heroes:
        abilities = [e for e in regent if e["parent"] == h["id"] and e["kind"] == "ability"]
        assert len(abilities) == 2, h["id"]
        assert all(a["effects"] for a in abilities), h["id"]
    sheets = [e for e in regent if e["kind"] == "sheet"]
    assert [(s["id"], s["copies"], s["attrs"]["pawn"], s["variant"]) for s in sheets] == [
        ("lord_of_karak_sheet", 1, True, "lord_of_karak")]
    assert [e["id"] for e in regent if e["kind"] == "variant"] == ["lord_of_karak"]
    assert [e["id"] for e in regent if e["errata"]] == ["magic_affinity"]


def test_base_components(ir: dict[str, Any]) -> None:
    base = _by_module(ir, "base")
    heroes = [e for e in base if e["kind"] == "hero"]
    assert sorted(h["id"] for h in heroes) == ["aderyn", "argentus", "horan", "taia", "victorius", "xanros"]
    for h in heroes:
        assert h["attrs"]["lives"] == 5
        abilities = [e for e in base if e["parent"] == h["id"]]
        assert len(abilities) == 2 and all(a["effects"] for a in abilities), h["id"]
    monsters = {e["id"]: (e["attrs"]["strength"], e["copies"], e["attrs"]["reward"])
                for e in base if "monster" in e["kinds"]}
    assert monsters == {
        "giant_rat": (5, 8, "daggers"), "giant_spider": (6, 4, "healing_portal"),
        "mummy": (7, 8, "magic_missile"), "skeleton_turnkey": (8, 12, "key"), "skeleton_warrior": (9, 5, "sword"),
        "skeleton_king": (10, 3, "battle_axe"), "fallen": (12, 2, "treasure"), "dragon": (15, 1, "dragon_treasure"),
    }
    assert "dragon" in _ent(ir, "dragon")["kinds"]
    assert sum(_copies(base, "tile").values()) == 80
    assert _ent(ir, "chest")["copies"] == 10
    weapons = {e["id"]: e["attrs"]["attack"] for e in base if "weapon" in e["kinds"]}
    assert weapons == {"daggers": 1, "sword": 2, "battle_axe": 3}
    spells = {e["id"]: (e["attrs"]["attack"], e["attrs"]["used_in"]) for e in base if "spell" in e["kinds"]}
    assert spells == {"magic_missile": (1, "fight"), "healing_portal": (0, "own_turn")}
    assert _ent(ir, "dragon_treasure")["attrs"]["value"] == 1.5
    assert _ent(ir, "treasure")["attrs"]["value"] == 1
    assert _ent(ir, "curse")["copies"] == 1


def test_inventory_limits_are_effects(ir: dict[str, Any]) -> None:
    (effect,) = _ent(ir, "inventory")["effects"]
    assert effect["trigger"]["verb"] == "always"
    limits = {st["do"]["args"]["slot"]: st["do"]["args"]["value"] for st in effect["body"]}
    assert limits == {"weapon": 2, "spell": 3, "key": 1}


def test_house_rules_are_variants(ir: dict[str, Any]) -> None:
    house = _by_module(ir, "house_rules")
    assert sorted(e["id"] for e in house) == ["critical_hits", "hero_duel", "stronger_dragon"]
    assert all(e["kind"] == "variant" and e["effects"] for e in house)


def test_every_karak_entity_has_a_source(ir: dict[str, Any]) -> None:
    missing = [e["id"] for e in ir["entities"] if not e["source"]]
    assert missing == []
    seeds = {"004_dc563c5159c76d25.txt": "regent", "002_cbefe6d082d470f6.txt": "house_rules",
             "base-game-facts.md": "base"}
    for e in ir["entities"]:
        file, _, section = e["source"].partition("#")
        assert file in seeds and section, e["id"]


# ---- languages ----------------------------------------------------------------


def _texts(e: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    out = [("name", e["name"])]
    if e["text"]:
        out.append(("text", e["text"]))
    for key, value in e["attrs"].items():
        value = _plain(value)
        if isinstance(value, dict) and value and set(value) <= REGENT_LANGS:
            out.append((key, value))
    return out


@pytest.mark.parametrize(("module", "langs"), [("regent", REGENT_LANGS), ("base", BASE_LANGS),
                                               ("house_rules", BASE_LANGS)])
def test_translations_complete(ir: dict[str, Any], module: str, langs: set[str]) -> None:
    entities = _by_module(ir, module)
    assert entities
    for e in entities:
        assert e["text"], f"{e['id']} has no text"
        for where, value in _texts(e):
            assert langs <= set(value), f"{e['id']}.{where} lacks {sorted(langs - set(value))}"
            assert all(s.strip() for s in value.values()), f"{e['id']}.{where} has an empty translation"
    (mod,) = [m for m in ir["modules"] if m["id"] == module]
    assert langs <= set(mod["name"]) and set(mod["languages"]) == langs


def test_regent_texts_differ_per_language(ir: dict[str, Any]) -> None:
    """Texts are written in each language, not copied from English."""
    for e in _by_module(ir, "regent"):
        if e["text"]:
            assert len(set(e["text"].values())) == len(REGENT_LANGS), e["id"]


# ---- check and check --strict ---------------------------------------------------


def _cardc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cardc", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_check_content_passes() -> None:
    result = _cardc("check", "content")
    assert result.returncode == 0, result.stderr[-2000:]


W500 = re.compile(r"^(content/karak/\S+):(\d+):\d+: \w+\[W500\]: `([^`]+)` is (?:provisional|unknown): (.*)$", re.M)

# Every value of the Karak content that is provisional or unknown: (entity, attribute or verb(param)).
EXPECTED_PROVISIONAL = {
    ("backstab", "name"), ("sneak", "name"),
    ("magic_affinity", "name"), ("spirit_walk", "name"), ("sacrifice", "lives(range)"), ("substitution", "name"),
    ("combat_training", "reroll(repeat)"), ("unstoppable", "name"), ("unstoppable", "die_shows(any_roll)"),
    ("fate_weaver", "name"), ("healing_portal", "teleport(who)"), ("healing_portal", "steps_taken(range)"),
    ("chest", "open_chest(ends_turn)"), ("mummy", "curse(who)"), ("skeleton_warrior", "name"),
    ("skeleton_king", "name"), ("unconsciousness", "gain_life(amount)"), ("winner", "declare_winner(ties)"),
    ("room_crossing", "copies"), ("room_t", "copies"), ("room_straight", "copies"), ("room_corner", "copies"),
    ("fountain_corner", "copies"), ("portal_straight", "copies"), ("corridor_t", "copies"),
    ("corridor_straight", "copies"), ("corridor_corner", "copies"),
    ("battle_arena", "shape"), ("battle_arena", "exits"), ("battle_arena", "room"),
    ("cursed_chamber", "shape"), ("cursed_chamber", "exits"), ("cursed_chamber", "room"),
    ("regent_room", "shape"), ("regent_room", "exits"),
    ("cursed_chamber", "curse(who)"), ("bear_attack", "die_counts_as(in_doubles)"),
}


def test_provisional_values_are_exactly_the_expected_ones(ir: dict[str, Any]) -> None:
    found = Counter((e["id"], p["attr"]) for e in ir["entities"] for p in e["provisional"])
    found.update(("winner" if "winner_by" in x else x.get("procedure", "end"), p["attr"])
                 for x in ir["procedures"] for p in x["provisional"])
    assert set(found) == EXPECTED_PROVISIONAL
    # the errata's name is provisional too, under the same id
    assert found[("magic_affinity", "name")] == 2
    assert all(p["note"].strip() for e in ir["entities"] for p in e["provisional"])


def test_strict_check_fails_listing_exactly_the_provisional_values(ir: dict[str, Any]) -> None:
    result = _cardc("check", "--strict", "content")
    assert result.returncode == 1
    listed = Counter((attr, note) for _f, _l, attr, note in W500.findall(result.stderr))
    expected = Counter((p["attr"], p["note"]) for e in [*ir["entities"], *ir["procedures"]] for p in e["provisional"])
    assert listed == expected
    failing = Counter(re.findall(r"error\[(\w\d{3})\]", result.stderr))
    assert set(failing) == {"W500"}, "strict mode fails only because of provisional values"
    summary = re.search(r"(\d+) errors?, \d+ warnings?\s*$", result.stderr)
    assert summary and int(summary.group(1)) == failing["W500"]


# ---- effects as executable data ---------------------------------------------------


def _holds(cond: dict[str, Any] | None, facts: dict[str, Any]) -> bool:
    """A tiny evaluator for the conditions the fight effects below use."""
    if cond is None:
        return True
    if "not" in cond:
        return not _holds(cond["not"], facts)
    if "and" in cond:
        return all(_holds(c, facts) for c in cond["and"])
    if "or" in cond:
        return any(_holds(c, facts) for c in cond["or"])
    verb, args = cond["verb"], cond["args"]

    def within(r: Any, x: int) -> bool:
        r = _plain(r)
        return r["min"] <= x <= r["max"] if isinstance(r, dict) else x == r

    if verb == "double":
        a, b = facts["dice"]
        return a == b and within(args["faces"], a)
    if verb == "lives":
        return within(args["range"], facts["lives"])
    if verb == "last_life":
        return bool(facts["lives"] == 1)
    if verb == "on_turn":
        return bool(facts.get("on_turn", False))
    if verb == "armed":
        return bool(facts["armed"])
    if verb == "margin":
        return within(args["range"], facts["margin"])
    if verb == "result":
        return args["outcome"] == facts["result"]
    if verb == "fight_by":
        return args["source"] == facts.get("fight_by")
    if verb == "against":
        return args["opponent"] in facts.get("against", ())
    raise AssertionError(f"condition {verb} is not modelled by this test")


def _attack_bonus(entity: dict[str, Any], facts: dict[str, Any]) -> int:
    total = 0
    for effect in entity["effects"]:
        if effect["trigger"]["verb"] == "fight_total" and _holds(effect["condition"], facts):
            total += sum(st["do"]["args"]["amount"] for st in effect["body"] if st["do"]["verb"] == "attack")
    return total


def _fired(entity: dict[str, Any], trigger: str, facts: dict[str, Any]) -> list[dict[str, Any]]:
    """The statements that run, with `if` statements inside a body resolved by the same facts."""

    def run(body: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for st in body:
            if "if" in st:
                out.extend(run(st["then"] if _holds(st["if"], facts) else st["else"]))
            else:
                out.append(st)
        return out

    return [st for eff in entity["effects"] if eff["trigger"]["verb"] == trigger and _holds(eff["condition"], facts)
            for st in run(eff["body"])]


def test_critical_hits_table(ir: dict[str, Any]) -> None:
    crit = _ent(ir, "critical_hits")
    table = {face: _attack_bonus(crit, {"dice": (face, face)}) for face in range(1, 7)}
    assert table == {1: -2, 2: -1, 3: -1, 4: 1, 5: 1, 6: 2}
    assert _attack_bonus(crit, {"dice": (1, 2)}) == 0


def test_house_rules_worked_duel(ir: dict[str, Any]) -> None:
    """Horan (4-4 after Double attack, sword, axe, two magic missiles) has 16; Victorius (3 and a re-rolled 4,
    two swords, one magic missile) has 12; Horan wins by 4, so Victorius picks the item he gives up."""
    crit = _ent(ir, "critical_hits")
    attack = {i: _ent(ir, i)["attrs"]["attack"] for i in ("sword", "battle_axe", "magic_missile")}
    horan = 4 + 4 + _attack_bonus(crit, {"dice": (4, 4)}) + attack["sword"] + attack["battle_axe"] \
        + 2 * attack["magic_missile"]
    victorius = 3 + 4 + _attack_bonus(crit, {"dice": (3, 4)}) + 2 * attack["sword"] + attack["magic_missile"]
    assert (horan, victorius) == (16, 12)
    duel = _ent(ir, "hero_duel")
    winner = _fired(duel, "fight_result", {"result": "win", "margin": horan - victorius, "fight_by": "hero_duel",
                                           "lives": 5})
    takes = [st["may"]["args"] for st in winner if "may" in st]
    assert takes == [{"from": "loser", "chosen_by": "owner", "refused": "on_tile"}]
    # Victorius, on turn, loses: he flees and his turn ends (the example's last sentence).
    loser = _fired(duel, "fight_result", {"result": "loss", "margin": 0, "fight_by": "hero_duel", "lives": 5,
                                          "on_turn": True})
    verbs = [st["do"]["verb"] for st in loser if "do" in st]
    assert "flee" in verbs and "end_turn" in verbs
    # A defender who is not on turn flees too, but has no turn to end.
    defender = _fired(duel, "fight_result", {"result": "loss", "margin": 0, "fight_by": "hero_duel", "lives": 5,
                                             "on_turn": False})
    verbs = [st["do"]["verb"] for st in defender if "do" in st]
    assert "flee" in verbs and "end_turn" not in verbs
    flee = next(st["do"]["args"] for st in loser if "do" in st and st["do"]["verb"] == "flee")
    assert flee == {"steps": 5}
    last_life = _fired(duel, "fight_result", {"result": "loss", "margin": 0, "fight_by": "hero_duel", "lives": 1})
    assert "flee" not in [st["do"]["verb"] for st in last_life if "do" in st]


def test_duel_only_between_heroes_on_the_same_tile(ir: dict[str, Any]) -> None:
    """The house-rule duel fights the hero met on the tile; only the arena calls a hero from elsewhere."""
    duel = _fired(_ent(ir, "hero_duel"), "heroes_meet", {"armed": True})
    assert [(st["may"]["verb"], st["may"]["args"]) for st in duel] == [("challenge", {"who": "other"})]
    assert _fired(_ent(ir, "hero_duel"), "heroes_meet", {"armed": False}) == []
    arena = [st for eff in _ent(ir, "battle_arena")["effects"] for st in eff["body"]
             if st.get("do", {}).get("verb") == "challenge"]
    assert [st["do"]["args"] for st in arena] == [{"who": "chosen"}]


def test_berserk_bonus_by_lives(ir: dict[str, Any]) -> None:
    berserk = _ent(ir, "berserk")
    assert [_attack_bonus(berserk, {"lives": n}) for n in range(1, 6)] == [2, 2, 1, 1, 0]


def test_stronger_dragon_costs(ir: dict[str, Any]) -> None:
    dragon = _ent(ir, "stronger_dragon")
    facts = {"against": ("dragon", "monster"), "result": "loss", "lives": 2, "dice": (1, 1)}
    body = _fired(dragon, "fight_result", facts)
    did = {st["do"]["verb"]: st["do"]["args"] for st in body}
    assert did["loss_costs"] == {"lives": 3} and did["tie_costs"] == {"lives": 1}
    assert did["drop_item"] == {"where": "came_from"} and "stake_treasure" in did
    rich = {st["do"]["verb"] for st in _fired(dragon, "fight_result", {**facts, "lives": 5, "dice": (2, 5)})}
    assert "drop_item" not in rich and "stake_treasure" not in rich


def test_lord_of_karak_chain_and_possession(ir: dict[str, Any]) -> None:
    lord = _ent(ir, "lord_of_karak")
    (enter,) = [e for e in lord["effects"] if e["trigger"]["verb"] == "chambers_revealed"]
    assert enter["trigger"]["args"] == {"count": 5}
    (pick,) = enter["body"]
    assert pick["do"]["args"]["order"] == ["fewest_treasures", "lowest_weapon_power", "fewest_other_items",
                                           "lowest_roll"]
    changes = [st["do"]["verb"] for e in lord["effects"] if e["trigger"]["verb"] == "becomes_lord"
               for st in e["body"]]
    assert set(changes) == {"swap_sheet", "heal_full", "remove_curse", "gain_abilities", "lose_abilities"}
    chambers = {e["id"] for e in ir["entities"] if "chamber" in e["kinds"]}
    assert chambers == {"battle_arena", "cursed_chamber"}


def _weakest(ir: dict[str, Any], order: list[str], heroes: dict[str, list[str]]) -> list[str]:
    """Apply the possession criteria in `order` to inventories; return the heroes still tied before any roll."""
    kinds = {e["id"]: e["kinds"] for e in ir["entities"]}
    attack = {e["id"]: e["attrs"].get("attack", 0) for e in ir["entities"]}
    measures = {
        "fewest_treasures": lambda inv: sum("treasure" in kinds[i] for i in inv),
        "lowest_weapon_power": lambda inv: sum(attack[i] for i in inv if "weapon" in kinds[i]),
        "fewest_other_items": lambda inv: sum(not ({"treasure", "weapon"} & set(kinds[i])) for i in inv),
    }
    tied = list(heroes)
    for criterion in order:
        if criterion == "lowest_roll":
            break
        low = min(measures[criterion](heroes[h]) for h in tied)
        tied = [h for h in tied if measures[criterion](heroes[h]) == low]
    return tied


def test_lord_of_karak_examples(ir: dict[str, Any]) -> None:
    """Example 1: the only hero without treasure is possessed. Example 2: thief (two daggers, key) and
    barbarian (sword, magic missile) tie on every criterion, so only the die roll decides."""
    lord = _ent(ir, "lord_of_karak")
    order = next(st["do"]["args"]["order"] for e in lord["effects"] for st in e["body"]
                 if st["do"]["verb"] == "possess_weakest")
    example1 = {"argentus": ["sword", "battle_axe", "key"], "horan": ["treasure"], "taia": ["treasure", "daggers"]}
    assert _weakest(ir, order, example1) == ["argentus"]
    example2 = {"aderyn": ["daggers", "daggers", "key"], "valduk": ["sword", "magic_missile"],
                "horan": ["treasure"], "taia": ["dragon_treasure"]}
    assert _weakest(ir, order, example2) == ["aderyn", "valduk"]
    assert order[-1] == "lowest_roll"


def test_regent_abilities_carry_their_numbers(ir: dict[str, Any]) -> None:
    def calls(ident: str) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for eff in _ent(ir, ident)["effects"]:
            for st in eff["body"]:
                for part in [st] + [s for o in st.get("choose", []) for s in o["body"]]:
                    call = part.get("do") or part.get("may")
                    if call:
                        out[call["verb"]] = call["args"]
        return out

    assert calls("sword_master")["weapon_value"] == {"item": "sword", "value": 3}
    counts = calls("bear_attack")["die_counts_as"]
    assert (counts["face"], counts["as"]) == (1, 6)
    assert counts["in_doubles"]["provisional"] and counts["in_doubles"]["value"] is True
    assert calls("throwing_daggers")["item_in_slot"] == {"item": "daggers", "slot": "spell"}
    assert calls("throwing_daggers")["keep_after_use"] == {"item": "daggers"}
    assert calls("sprint")["steps"] == {"count": 8} and "no_explore" in calls("sprint")
    assert calls("blitz_attack")["spend_steps"] == {"count": 4}
    assert calls("blitz_attack")["retreat_to"] == {"where": "adjacent_revealed"}
    assert calls("eavesdropping")["explore"] == {"enter": False}
    assert calls("thorn_of_darkness")["damage_opponent"] == {"amount": 1}
    assert _ent(ir, "frost_fist")["attrs"]["attack"] == 2 and "after_roll" in calls("frost_fist")
    kept = {st["do"]["args"]["item"] for eff in _ent(ir, "magic_affinity", "regent")["effects"]
            for st in eff["body"]}
    assert kept == {"magic_missile", "frost_fist"}


def test_chamber_effects(ir: dict[str, Any]) -> None:
    cursed = _ent(ir, "cursed_chamber")
    (enter,) = cursed["effects"]
    assert enter["trigger"]["verb"] == "enter_tile"
    assert enter["condition"] == {"not": {**enter["condition"]["not"], "verb": "cursed"}}
    roll, branch = enter["body"]
    assert roll["do"]["args"] == {"dice": {"dice": 1, "sides": 6}}
    assert branch["if"]["args"] == {"range": {"min": 1, "max": 3}} and branch["then"][0]["do"]["verb"] == "curse"
    arena = _ent(ir, "battle_arena")
    first = arena["effects"][0]
    assert first["condition"]["verb"] == "first_entry" and first["body"][0]["do"]["verb"] == "challenge"
    after = {st["do"]["verb"] for e in arena["effects"][1:] for st in e["body"] if "do" in st}
    assert {"no_retreat", "becomes_corridor", "loss_costs"} <= after


def test_provisional_name_keeps_its_value(ir: dict[str, Any]) -> None:
    """`name: provisional { ... } "note"` is flagged, and the name itself is still there for every language."""
    backstab = _ent(ir, "backstab")
    assert backstab["name"] == {"cs": "Útok zezadu", "en": "Attack from behind", "sk": "Útok zozadu",
                                "de": "Angriff von hinten", "pl": "Atak od tyłu", "fr": "Attaque par derrière"}
    assert [p["attr"] for p in backstab["provisional"]] == ["name"]
    # a value the research verifies (the wizard's Czech class, K3) is plain
    assert _ent(ir, "argentus")["attrs"]["class"]["cs"] == "Čaroděj"


# ---- against the seed rulebooks themselves -------------------------------------------------

SEEDS = ROOT.parent / "shared" / "seeds"
REGENT_SEED = SEEDS / "004_dc563c5159c76d25.txt"
HOUSE_SEED = SEEDS / "002_cbefe6d082d470f6.txt"
FACTS = ROOT.parent / "shared" / "research" / "base-game-facts.md"
needs_seeds = pytest.mark.skipif(not (REGENT_SEED.is_file() and HOUSE_SEED.is_file() and FACTS.is_file()),
                                 reason="the seed rulebooks are not next to the repository")

# Where each language's part of the Regent rulebook begins (it prints the same rulebook six times).
PART_STARTS = [("sk", "Karak : Regent je rozšírenie"), ("de", "Woher sind die zum leben"),
               ("pl", "Karak : Regent to rozszerzenie"), ("en", "Karak : Regent is an expansion pack"),
               ("fr", "Karak : Regent est une extension")]


def _squash(text: str) -> str:
    """Whitespace-free and case-folded: the seed is extracted from a PDF with broken spacing."""
    return re.sub(r"\s+", "", text).casefold()


def _regent_parts() -> dict[str, str]:
    seed = REGENT_SEED.read_text(encoding="utf-8")
    cuts = [0] + [seed.index(marker) for _lang, marker in PART_STARTS] + [len(seed)]
    assert cuts == sorted(cuts)
    langs = ["cs"] + [lang for lang, _ in PART_STARTS]
    return {lang: _squash(seed[a:b]) for lang, a, b in zip(langs, cuts[:-1], cuts[1:], strict=True)}


# (entity, attribute, language, the name as that language's part prints it). Only forms the rulebook
# prints in the nominative are listed (e.g. not the Czech giant bat, printed only as "obřího netopýra").
PRINTED_NAMES = [
    ("battle_arena", "name", {"cs": "Bojová aréna", "sk": "Bojová aréna", "de": "Kampfarena", "pl": "Arena walki",
                              "en": "Battle arena", "fr": "Arène de combat"}),
    ("cursed_chamber", "name", {"cs": "Prokletá komnata", "sk": "Prekliata komnata", "pl": "Przeklęta komnata",
                                "en": "Cursed chamber", "fr": "Chambre maudite"}),
    ("thorn_of_darkness", "name", {"cs": "Trn temnoty", "sk": "Tŕň temnoty", "de": "Dorn der Dunkelheit",
                                   "pl": "Kolec ciemności", "en": "Thorn of Darkness", "fr": "Épine des ténèbres"}),
    ("frost_fist", "name", {"cs": "Mrazivá pěst", "sk": "Mrazivá päsť", "de": "Frostige Faust",
                            "pl": "Mrożąca pięść", "en": "Frost Fist", "fr": "Poing glacial"}),
    ("giant_bat", "name", {"en": "Giant bat", "fr": "Chauve-souris géante"}),
    ("ice_mage", "name", {"de": "Knochenmagier", "en": "Skeletal mage"}),
    ("valduk", "class", {"cs": "Barbar", "sk": "Barbar", "de": "Barbar", "pl": "Barbarzyńca", "en": "Barbarian",
                         "fr": "Barbare"}),
    ("berserk", "name", {lang: "Berserk" for lang in REGENT_LANGS}),
    ("perseverance", "name", {"cs": "Neúnavnost", "sk": "Neúnavnosť", "de": "Unermüdlichkeit", "pl": "Wytrwałość",
                              "en": "Perseverance", "fr": "Infatigabilité"}),
    ("baron_markul", "name", {"cs": "Baron Markul", "sk": "Barón Markul", "de": "Baron Markul",
                              "pl": "Baron Markul", "en": "Baron Markul", "fr": "Baron Markul"}),
    ("baron_markul", "class", {"cs": "Bojový mág", "sk": "Bojový mág", "de": "Kampfmagier", "pl": "Waleczny mag",
                               "en": "Battle mage", "fr": "Mage combattant"}),
    ("sword_master", "name", {"cs": "Mistr meče", "sk": "Majster meča", "de": "Schwertmeister",
                              "pl": "Mistrz miecza", "en": "Sword Master", "fr": "Maître de l'épée"}),
    ("blitz_attack", "name", {"cs": "Bleskový útok", "sk": "Bleskový útok", "de": "Blitzangriff",
                              "pl": "Błyskawiczny atak", "en": "Blitz attack", "fr": "Attaque foudroyante"}),
    ("hannah", "class", {"cs": "Akrobatka", "sk": "Akrobatka", "de": "Akrobatin", "pl": "Akrobatka",
                         "en": "Acrobat", "fr": "Acrobate"}),
    ("throwing_daggers", "name", {"cs": "Vrhací dýky", "sk": "Vrhacie dýky", "de": "Wurfdolche",
                                  "pl": "Noże do rzucania", "en": "Throwing daggers", "fr": "Lanceuse de poignard"}),
    ("sprint", "name", {"cs": "Sprint", "sk": "Šprint", "de": "Sprint", "pl": "Sprint", "en": "Sprint",
                        "fr": "Sprint"}),
    ("lady_lorraine", "class", {"cs": "Hraničářka", "sk": "Hraničiarka", "de": "Grenzerin", "pl": "Pogranicznik",
                                "en": "Ranger", "fr": "Arpenteuse"}),
    ("bear_attack", "name", {"cs": "Medvědí útok", "sk": "Medvedí útok", "de": "Bärenangriff",
                             "pl": "Atak niedźwiedzia", "en": "Bear attack", "fr": "Attaque d'ours"}),
    ("eavesdropping", "name", {"cs": "Naslouchání", "sk": "Načúvanie", "de": "Zuhören", "pl": "Nasłuch",
                               "en": "Eavesdropping", "fr": "Écoute"}),
    ("lord_of_karak", "name", {"cs": "Pán Karaku", "sk": "Pán Karaku", "de": "Der Herr von Karak",
                               "pl": "Władca Karaku", "en": "The Lord of Karak", "fr": "Seigneur de Karak"}),
    # base-game components the Regent rulebook names in passing
    ("skeleton_turnkey", "name", {"cs": "Kostlivec s klíčem", "sk": "Kostra s kľúčom"}),
    ("magic_missile", "name", {"en": "Magic shot", "fr": "Tir magique"}),
    ("healing_portal", "name", {"cs": "Portál uzdravení", "sk": "Portál uzdravenia", "de": "Heilungsportal",
                                "pl": "Portal uzdrowienia", "fr": "Portail de guérison"}),
    ("horan", "class", {"cs": "Válečník", "sk": "Bojovník", "de": "Krieger", "pl": "Wojownik", "fr": "Guerrier"}),
    ("aderyn", "class", {"cs": "Lupička", "sk": "Lupička", "de": "Räuberin", "pl": "Złodziejka", "fr": "Voleuse"}),
    ("taia", "class", {"cs": "Vědma", "sk": "Čarodejnica", "de": "Seherin", "fr": "Prophétesse"}),
    ("argentus", "class", {"sk": "Kúzelník", "de": "Magier", "pl": "Czarodziej", "fr": "Magicien"}),
]


@needs_seeds
@pytest.mark.parametrize(("ident", "attr", "names"), PRINTED_NAMES, ids=[f"{i}.{a}" for i, a, _ in PRINTED_NAMES])
def test_names_are_printed_in_that_language_part(ir: dict[str, Any], ident: str, attr: str,
                                                 names: dict[str, str]) -> None:
    """Each name is the content's name in that language, and that language's part of the rulebook prints it."""
    parts = _regent_parts()
    e = _ent(ir, ident)
    value = _plain(e["name"] if attr == "name" else e["attrs"][attr])
    for lang, printed in names.items():
        assert value.get(lang) == printed, f"{ident}.{attr}[{lang}]"
        assert _squash(printed) in parts[lang], f"{printed!r} is not in the {lang} part"


@needs_seeds
def test_every_source_names_a_real_section(ir: dict[str, Any]) -> None:
    texts = {"004_dc563c5159c76d25.txt": _squash(REGENT_SEED.read_text(encoding="utf-8")),
             "002_cbefe6d082d470f6.txt": _squash(HOUSE_SEED.read_text(encoding="utf-8"))}
    headings = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", FACTS.read_text(encoding="utf-8"), re.M))
    for e in ir["entities"]:
        file, _, section = e["source"].partition("#")
        if file == "base-game-facts.md":
            assert section in headings, (e["id"], section)
        else:
            assert _squash(section) in texts[file], (e["id"], section)


def test_arena_found_by_eavesdropping_waits_face_down(ir: dict[str, Any]) -> None:
    arena = _ent(ir, "battle_arena")
    (reveal,) = [e for e in arena["effects"] if e["trigger"]["verb"] == "reveal_tile"]
    assert reveal["condition"] is None and [st["do"]["verb"] for st in reveal["body"]] == ["face_down_until_entered"]
    # the challenge itself waits for the first entry, not the reveal
    (enter,) = [e for e in arena["effects"] if e["trigger"]["verb"] == "enter_tile"]
    assert enter["condition"]["verb"] == "first_entry"


def test_thorn_has_no_per_turn_limit(ir: dict[str, Any]) -> None:
    thorn = _ent(ir, "thorn_of_darkness")
    assert thorn["attrs"]["used_in"] == "own_turn" and thorn["attrs"].get("attack", 0) == 0
    (use,) = thorn["effects"]
    assert use["trigger"]["verb"] == "use" and use["condition"] is None


def test_duel_spells_may_follow_the_own_roll(ir: dict[str, Any]) -> None:
    """The house-rules example has Victorius add his magic shot after seeing his dice (11 -> 12)."""
    from cardc.backends.python.runtime.cardc_runtime import Context, Scripted
    from cardc.backends.python.runtime.cardc_runtime.fight import duel, make_hero
    from test_rules_support import effect_index, rules, stripped

    duel_fx = _ent(ir, "hero_duel")
    (after,) = [e for e in duel_fx["effects"] if e["trigger"]["verb"] == "fight_roll"]
    assert after["condition"]["verb"] == "fight_by" and after["body"][0]["do"]["verb"] == "spells_after_roll"

    def victorius_total(r: Any) -> int:
        horan = make_hero(r, "horan", weapons=("sword", "battle_axe"), spells=("magic_missile", "magic_missile"))
        victorius = make_hero(r, "victorius", weapons=("sword", "sword"), spells=("magic_missile", "healing_portal"))
        script = Scripted(dice=[1, 2, 4, 4, 1, 3, 4], choices={
            "horan:double_attack#1": True, "horan:spell_after_roll:magic_missile": 2,
            "victorius:combat_training#1": True, "victorius:spell_after_roll:magic_missile": 1})
        ctx = Context(r, script, frozenset({"critical_hits", "hero_duel"}), {"fight_by": "hero_duel"})
        report = duel(ctx, horan, victorius)
        return report.defender.total

    assert victorius_total(rules()) == 12
    assert victorius_total(stripped("hero_duel", effect_index("hero_duel", "fight_roll"))) == 11
