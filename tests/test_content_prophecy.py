"""The Prophecy content (content/prophecy): the counts, translations, errata and worked example of the seed.

The seed is the first Prophecy expansion's rulebook (../shared/seeds/000_3675fda29ad0c57f.txt). These
tests read the checked IR, never the source text, so they hold whatever way the content is written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from cardc import model as m
from cardc import syntax as s
from cardc.frontend import FrontEndResult, compile_paths
from cardc.lower import ODDS_KINDS

ROOT = Path(__file__).resolve().parent.parent
PROPHECY = ROOT / "content" / "prophecy"
SEED = "000_3675fda29ad0c57f.txt"
SEED_PATH = ROOT.parent / "shared" / "seeds" / SEED
LANGS = ("cs", "en")


@pytest.fixture(scope="module")
def compiled() -> FrontEndResult:
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        return compile_paths([Path("content/prophecy")])
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def project(compiled: FrontEndResult) -> m.Project:
    assert compiled.ok, "\n".join(str(d) for d in compiled.errors())
    return compiled.project


# ---- helpers ----------------------------------------------------------------------


def entities(project: m.Project, kind: str | None = None, module: str | None = None) -> list[m.Entity]:
    return [e for e in project.entities_of("prophecy") if e.kind not in ODDS_KINDS
            and (kind is None or e.is_a(kind)) and (module is None or e.module == module)]


def get(project: m.Project, ident: str, module: str | None = None) -> m.Entity:
    found = [e for e in entities(project) if e.id == ident and (module is None or e.module == module)
             and (module is not None or not e.errata)]
    assert len(found) == 1, f"expected one `{ident}`, found {len(found)}"
    return found[0]


def number(value: s.Value | None) -> int:
    """The number a value stands for, looking through `provisional` (an `unknown` has none)."""
    if isinstance(value, s.ProvisionalV):
        return number(value.value)
    assert isinstance(value, s.IntV | s.SignedV), f"not a number: {value!r}"
    return value.value


def statements(body: tuple[m.Statement, ...]) -> Iterator[m.Invocation]:
    for st in body:
        if isinstance(st, m.Do | m.May):
            yield st.call
        elif isinstance(st, m.Choose):
            for o in st.options:
                yield from statements(o.body)
        else:
            yield from statements(st.then)
            yield from statements(st.orelse)


def conditions(c: m.Condition | None) -> Iterator[m.Invocation]:
    if c is None:
        return
    if isinstance(c, m.Invocation):
        yield c
    elif isinstance(c, m.NotCond):
        yield from conditions(c.cond)
    else:
        yield from conditions(c.left)
        yield from conditions(c.right)


def calls(e: m.Entity, verb: str, trigger: str | None = None) -> list[m.Invocation]:
    return [inv for eff in e.effects if trigger is None or eff.trigger.verb == trigger
            for inv in statements(eff.body) if inv.verb == verb]


def arg_name(inv: m.Invocation, param: str) -> str:
    v = inv.arg(param)
    assert isinstance(v, s.CallV)
    return v.name


def localized(value: s.Value) -> Iterator[s.LocalizedV]:
    if isinstance(value, s.LocalizedV):
        yield value
    elif isinstance(value, s.ProvisionalV):
        yield from localized(value.value)
    elif isinstance(value, s.ListV):
        for item in value.items:
            yield from localized(item)


# ---- counts -------------------------------------------------------------------------


def test_modules(project: m.Project) -> None:
    keys = {mod.key for mod in project.modules_of("prophecy")}
    assert keys == {"prophecy", "prophecy.ancient_races", "prophecy.dragon_realm", "prophecy.base_additions"}


def test_race_cards_ten_over_six_races(project: m.Project) -> None:
    races = entities(project, "race")
    ancient = [r for r in races if isinstance(r.attrs["ancient"], s.BoolV) and r.attrs["ancient"].value]
    assert len(races) == 6 and len(ancient) == 5
    cards = entities(project, "race_card")
    assert {arg.name for arg in (c.attrs["race"] for c in cards) if isinstance(arg, s.CallV)} == {r.id for r in races}
    assert sum(c.copies or 0 for c in cards) == 10
    assert number(get(project, "race_cards").attrs["size"]) == 10
    # humans are the most common; some new races are on several cards and others on one
    per_race = {c.attrs["race"].name: c.copies for c in cards if isinstance(c.attrs["race"], s.CallV)}
    assert per_race["human"] == max(per_race.values())
    new = [n for r, n in per_race.items() if r != "human"]
    assert max(new) > 1 and min(new) == 1


def test_twenty_figures_four_per_new_race(project: m.Project) -> None:
    figures = entities(project, "figure")
    assert sum(f.copies or 0 for f in figures) == 20
    combos = {(f.attrs["race"].name, f.attrs["sex"].name, f.attrs["style"].name)  # type: ignore[union-attr]
              for f in figures}
    ancient = {r.id for r in entities(project, "race") if r.id != "human"}
    assert combos == {(r, sx, st) for r in ancient for sx in ("male", "female") for st in ("martial", "magical")}


def test_dragon_realm_counts(project: m.Project) -> None:
    hearts = entities(project, "dragon_heart")
    assert sum(h.copies or 0 for h in hearts) == 5
    assert number(get(project, "dragon_hearts").attrs["size"]) == 5
    slayers = entities(project, "dragon_slayer_ability")
    assert len(slayers) == 5 and sum(x.copies or 0 for x in slayers) == 5
    assert all(x.is_a("ability") for x in slayers)
    assert number(get(project, "dragon_slayer_abilities").attrs["size"]) == 5
    for deck in ("positive_dragon_cards", "negative_dragon_cards"):
        assert number(get(project, deck).attrs["spare"]) == 3
    paths = {p.attrs["position"].name: p for p in entities(project, "path")  # type: ignore[union-attr]
             if p.attrs["board"].name == "dragon_realm_board"}  # type: ignore[union-attr]
    assert set(paths) == {"left", "middle", "right"}
    length = {k: number(p.attrs["length_rank"]) for k, p in paths.items()}
    riches = {k: number(p.attrs["treasure_rank"]) for k, p in paths.items()}
    assert min(length, key=length.__getitem__) == "middle" and max(length, key=length.__getitem__) == "right"
    assert min(riches, key=riches.__getitem__) == "middle" and max(riches, key=riches.__getitem__) == "right"
    assert {f.attrs["shade"].name for f in entities(project, "field")} == {"light", "dark", "split"}  # type: ignore[union-attr]
    gate = get(project, "dragon_realm_gate")
    assert gate.is_a("guardian") and gate.attrs["rank"].name == "lesser"  # type: ignore[union-attr]
    assert get(project, "legends_of_dragons").is_a("chance_card")


# ---- the elf paladin ------------------------------------------------------------------------


def race_modifier(card: m.Entity, stat: str) -> int:
    mods = [inv for eff in card.effects if eff.trigger.verb == "always"
            for inv in statements(eff.body) if inv.verb == "stat_mod" and arg_name(inv, "stat") == stat]
    return sum(number(inv.arg("amount")) for inv in mods)


def test_elf_paladin_example_from_the_ir(project: m.Project) -> None:
    """Seed, section 2.vlastnosti: an elf paladin starts with 4 strength and 5 will, at most 8 red, 11 blue."""
    paladin = get(project, "paladin")
    elf = next(c for c in entities(project, "race_card") if c.attrs["race"].name == "elf")  # type: ignore[union-attr]
    start = {stat: number(paladin.attrs[stat]) + race_modifier(elf, stat) for stat in ("strength", "will")}
    most = {stat: number(paladin.attrs[f"max_{stat}"]) + race_modifier(elf, stat) for stat in ("strength", "will")}
    assert start == {"strength": 4, "will": 5}
    assert most == {"strength": 8, "will": 11}


def test_stat_mod_moves_start_and_maximum() -> None:
    from cardc.catalogue import default_catalogue

    doc = default_catalogue().verbs["stat_mod"].doc.lower()
    assert "start" in doc and "maximum" in doc


# ---- errata -------------------------------------------------------------------------------

CARD_ERRATA = {"glass_mountain", "time_loop", "training", "sneaking", "hospitality", "flaming_weapon",
               "disguises", "mirror_shield", "banner_of_doom"}
RULE_ERRATA = {("base_additions", "stat_increase"), ("base_additions", "character_draft"),
               ("base_additions", "guardians_in_spheres"), ("dragon_realm", "guardians_in_spheres")}


def test_errata_keep_both_versions(project: m.Project) -> None:
    errata = [e for e in entities(project) if e.errata]
    assert {e.id for e in errata if not e.is_a("rule")} == CARD_ERRATA
    assert {(e.module, e.id) for e in errata if e.is_a("rule")} == RULE_ERRATA
    for e in errata:
        assert e.is_a("rule") or e.module == "base_additions"
        original = get(project, e.id)
        assert original.module == "base" and original.kind == e.kind
        assert e.key != original.key
    for ident in CARD_ERRATA:
        revision = get(project, ident, module="base_additions").attrs.get("revision")
        assert isinstance(revision, s.LocalizedV)


def test_time_loop_not_two_rounds_in_a_row(project: m.Project) -> None:
    new = get(project, "time_loop", module="base_additions")
    [eff] = [e for e in new.effects if e.trigger.verb == "use"]
    assert [c.verb for c in conditions(eff.condition)] == ["used_last_round"]
    assert [inv.verb for inv in statements(eff.body)] == ["prevent"]
    assert not get(project, "time_loop").effects


def test_stat_at_maximum_heals_instead(project: m.Project) -> None:
    old = get(project, "stat_increase")
    new = get(project, "stat_increase", module="base_additions")
    assert {inv.verb for inv in calls(old, "raise_stat")} == {"raise_stat"}
    for eff in new.effects:
        assert eff.trigger.verb == "stat_gain"
        stat = arg_name(eff.trigger, "stat")
        [branch] = eff.body
        assert isinstance(branch, m.If)
        assert [(c.verb, arg_name(c, "variant") if c.verb == "variant_on" else arg_name(c, "stat"))
                for c in conditions(branch.cond)] == [("variant_on", "stones_at_maximum"), ("at_maximum", stat)]
        assert [i.verb for i in statements(branch.then)] == ["prevent", "restore"]
        assert [i.verb for i in statements(branch.orelse)] == ["raise_stat"]


def dealt(e: m.Entity, players: int, variants: frozenset[str] = frozenset()) -> tuple[int, int]:
    """(cards dealt, passes) of the draft a rule runs for that many players with those variants on."""

    def holds(c: m.Condition) -> bool:
        if isinstance(c, m.AndCond):
            return holds(c.left) and holds(c.right)
        if isinstance(c, m.NotCond):
            return not holds(c.cond)
        assert isinstance(c, m.Invocation), c
        if c.verb == "players":
            rng = c.arg("range")
            assert isinstance(rng, s.RangeV)
            return rng.lo <= players <= rng.hi
        assert c.verb == "variant_on", c.verb
        return arg_name(c, "variant") in variants

    def run(body: tuple[m.Statement, ...]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for st in body:
            if isinstance(st, m.If):
                out += run(st.then if holds(st.cond) else st.orelse)
            elif isinstance(st, m.Do) and st.call.verb == "draft":
                out.append((number(st.call.arg("deal")), number(st.call.arg("passes"))))
        return out

    [deal] = [d for eff in e.effects for d in run(eff.body)]
    return deal


def test_draft_for_two_or_three_players_is_a_recommended_variant(project: m.Project) -> None:
    base, errata = get(project, "character_draft"), get(project, "character_draft", module="base_additions")
    on = frozenset({"draft_for_two_or_three"})
    for n in range(2, 6):  # two each of the ten profession cards, for up to five players
        assert dealt(base, n) == (2, 2)
        assert dealt(errata, n) == (2, 2), "the seed only recommends the change: off unless switched on"
    assert [dealt(errata, n, on) for n in range(2, 6)] == [(4, 1), (3, 1), (2, 2), (2, 2)]
    assert get(project, "draft_for_two_or_three").is_a("variant")
    assert get(project, "stones_at_maximum").is_a("variant")


def test_race_cards_are_dealt_like_the_profession_cards(project: m.Project) -> None:
    """The seed deals races together with professions and the same way, so no race deal of its own."""
    race = get(project, "race_draft")
    assert not calls(race, "draft")
    [along] = calls(race, "draft_alongside")
    assert (arg_name(along, "cards"), arg_name(along, "like")) == ("race_cards", "profession_cards")


# ---- the Dragon Realm's rules as effects ------------------------------------------------------


def test_limits(project: m.Project) -> None:
    base = get(project, "ability_and_item_limits")
    [eff] = base.effects
    [branch] = eff.body
    assert isinstance(branch, m.If)
    limits = {(arg_name(i, "slot"), number(i.arg("value"))) for i in statements(branch.then)}
    assert limits == {("ability", 9), ("item", 9)}
    limits = {(arg_name(i, "slot"), number(i.arg("value"))) for i in statements(branch.orelse)}
    assert limits == {("ability", 7), ("item", 7)}
    raised = {(arg_name(i, "slot"), number(i.arg("amount"))) for i in calls(get(project, "dragon_realm_limits"),
                                                                            "slot_limit")}
    assert raised == {("ability", 1), ("item", 1)}


def test_entering_costs_three_gold(project: m.Project) -> None:
    pays = calls(get(project, "dragon_realm_gate"), "pay", trigger="sphere_attacked")
    assert [(arg_name(p, "resource"), number(p.arg("amount"))) for p in pays] == [("gold", 3)]


def test_dragon_heart(project: m.Project) -> None:
    heart = get(project, "dragon_heart")
    [bonus] = [e for e in heart.effects if e.trigger.verb == "fight_total"]
    assert isinstance(bonus.condition, m.AndCond) and isinstance(bonus.condition.right, m.NotCond)
    assert [(c.verb, c.arg("card").name) for c in conditions(bonus.condition.right)] == [  # type: ignore[union-attr]
        ("opponent_owns", "dragon_heart")]
    assert [number(i.arg("amount")) for i in statements(bonus.body)] == [1]
    assert calls(heart, "restore_all", trigger="acquire")
    assert [number(i.arg("amount")) for i in calls(heart, "max_owned")] == [1]
    assert calls(heart, "cannot_lose_card")
    victory = calls(get(project, "dragon_heart_victory"), "win_needs_artefacts_of", trigger="win_check")
    assert [i.arg("card").name for i in victory] == ["dragon_heart"]  # type: ignore[union-attr]


def test_fire_lake_strengthens_the_dragonslayer_monster(project: m.Project) -> None:
    lake = get(project, "fire_lake")
    assert lake.is_a("sphere")
    [eff] = [e for e in lake.effects if e.trigger.verb == "fight_total"]
    assert ("variant_on", "dragonslayer") in {(c.verb, c.args[0][1].name) for c in conditions(eff.condition)
                                              if c.args}  # type: ignore[union-attr]
    assert {(arg_name(i, "stat"), number(i.arg("amount"))) for i in statements(eff.body)} == {
        ("strength", 1), ("will", 1)}
    assert calls(get(project, "dragonslayer"), "place", trigger="setup")[0].arg("cards").name == "dragon_queen"  # type: ignore[union-attr]


def test_realm_death_and_final_battle(project: m.Project) -> None:
    death = get(project, "realm_death")
    assert calls(death, "leave_artefacts", trigger="last_life_lost")
    assert calls(death, "blocks_final_battle", trigger="always")
    final = get(project, "realm_final_battle")
    assert calls(final, "remove_board", trigger="final_battle_start")
    [redraw] = calls(final, "redraw_instead")
    cards = redraw.arg("cards")
    assert isinstance(cards, s.ListV)
    assert {c.name for c in cards.items if isinstance(c, s.CallV)} == {"legends_of_dragons", "clairvoyant_dream"}


# ---- languages, sources, coverage ------------------------------------------------------------


def test_czech_and_english_complete(compiled: FrontEndResult, project: m.Project) -> None:
    assert not [d for d in compiled.diagnostics if d.code == "E400"]
    for e in entities(project):
        for lang in LANGS:
            assert e.name.get(lang), f"{e.key} has no {lang} name"
            if e.text is not None:
                assert e.text.get(lang), f"{e.key} has no {lang} text"
        for value in e.attrs.values():
            for loc in localized(value):
                assert all(loc.get(lang) for lang in LANGS), f"{e.key}: an attribute lacks cs or en"
    for kind in project.kinds_of("prophecy"):
        assert kind.name is not None and all(kind.name.get(lang) for lang in LANGS), kind.id


def test_provisional_values_have_notes(project: m.Project) -> None:
    marked = [(e.key, path, note) for e in entities(project) for path, note in e.provisional]
    assert marked, "the content should mark what the seed does not say"
    assert all(note.strip() and note != "value not known yet" for _, _, note in marked)
    assert ("paladin", "strength") in {(k, p) for k, p, _ in marked}


def coverage_rows() -> list[tuple[str, str, list[str]]]:
    rows = []
    text = (PROPHECY.parent / "COVERAGE.md").read_text(encoding="utf-8")
    prophecy_part = text[text.index("## Prophecy"):]
    for line in prophecy_part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows.append((cells[0].strip("`"), cells[1], re.findall(r"`([^`]+)`", cells[3])))
    return rows


def test_every_source_is_a_covered_section(project: m.Project) -> None:
    sections = {sec for sec, _, _ in coverage_rows()}
    for e in entities(project):
        assert e.source and e.source.startswith(f"{SEED}#"), f"{e.key} has source {e.source!r}"
        assert e.source.split("#", 1)[1] in sections, f"{e.key} cites a section missing from COVERAGE.md"


def test_coverage_names_existing_ids(project: m.Project) -> None:
    known = {e.key for e in entities(project)} | {mod.key for mod in project.modules_of("prophecy")}
    rows = coverage_rows()
    assert len({sec for sec, _, _ in rows}) == len(rows), "a section is listed twice"
    for sec, _, ids in rows:
        for ident in ids:
            assert ident in known, f"COVERAGE.md section {sec} names unknown id `{ident}`"
    covered = {i for _, _, ids in rows for i in ids}
    assert {e.key for e in entities(project)} <= covered, "an entity is not mapped to any section"


@pytest.mark.skipif(not SEED_PATH.is_file(), reason="the seed rulebook is not next to the repository")
def test_coverage_follows_the_rulebook() -> None:
    """Each heading is found in the seed, in order, and every page of the seed has sections."""
    seed = SEED_PATH.read_text(encoding="utf-8")
    pos = 0
    for sec, heading, _ in coverage_rows():
        head = heading.split(" (")[0].split(" / ")[0]
        found = seed.find(head, pos)
        assert found >= 0, f"heading {head!r} of {sec} not found after position {pos}"
        pos = found
    pages = {sec.split(".")[0] for sec, _, _ in coverage_rows()}
    printed = set(re.findall(r" (\d)\s*$", seed, re.M))
    assert printed and printed <= pages


def test_rules_apply_to_declared_kinds(project: m.Project) -> None:
    kinds = {k.id for k in project.kinds_of("prophecy")}
    applied = [(e.key, v.name) for e in entities(project, "rule")
               for v in getattr(e.attrs.get("applies_to"), "items", ()) if isinstance(v, s.CallV)]
    assert applied, "some rules act for every card of a kind"
    assert all(kind in kinds for _, kind in applied), applied


def test_realm_monsters_are_tagged_for_dragon_slayers(project: m.Project) -> None:
    """Dragon-slayer bonuses count against realm monsters only, found by their `dragon_realm` tag."""
    monsters = entities(project, "dragon_monster")
    assert monsters and all("dragon_realm" in mon.tags for mon in monsters)
    assert "dragon_realm" not in get(project, "fire_dragon").tags
    [eff] = [e for e in get(project, "dragon_slayer_rules").effects if e.trigger.verb == "fight_total"]
    assert isinstance(eff.condition, m.NotCond)
    assert [(c.verb, c.arg("tag").name) for c in conditions(eff.condition)] == [  # type: ignore[union-attr]
        ("opponent_tagged", "dragon_realm")]


def _on_result(rule: m.Entity, outcome: str) -> m.Effect:
    [eff] = [e for e in rule.effects if e.trigger.verb == "fight_result"
             and ("result", outcome) in [(c.verb, arg_name(c, "outcome")) for c in conditions(e.condition)
                                         if c.verb == "result"]]
    return eff


def test_thrown_back_by_a_realm_monster(project: m.Project) -> None:
    """Seed 4.nestvury: a loss throws the character beside the Gate, the cards there leave it alone this
    round, and its turn ends."""
    loss = _on_result(get(project, "realm_monsters"), "loss")
    assert [st.call.verb for st in loss.body if isinstance(st, m.Do)] == [
        "leave_board", "space_cards_inactive", "end_turn"]


def test_realm_duel_loser_who_gives_a_life_leaves_as_if_beaten_by_a_monster(project: m.Project) -> None:
    """Seed 5.boj-mezi-postavami: giving a life means leaving as after a monster (4.nestvury), turn end
    included for a loser on turn; giving an item lets it stay."""
    loss = _on_result(get(project, "realm_character_fights"), "loss")
    [choose] = [st for st in loss.body if isinstance(st, m.Choose)]
    options = {o.name: o.body for o in choose.options}
    life = options["lose_a_life"]
    assert [st.call.verb for st in life if isinstance(st, m.Do)] == ["lose_life", "leave_board",
                                                                    "space_cards_inactive"]
    [turn] = [st for st in life if isinstance(st, m.If)]
    assert [c.verb for c in conditions(turn.cond)] == ["on_turn"] and verbs_in(turn.then) == ["end_turn"]
    assert "leave_board" not in verbs_in(options["give_an_item"])


# ---- setup order and the end of the paths ------------------------------------------------------


def verbs_in(body: tuple[m.Statement, ...]) -> list[str]:
    return [inv.verb for inv in statements(body)]


def test_gate_setup_keeps_four_lesser_guardians_and_the_gate(project: m.Project) -> None:
    """Seed 3.brana-draci-rise-priprava: the Gate aside, shuffle, four kept, Gate in, five shuffled, dealt on top."""
    rule = get(project, "guardians_in_spheres", module="dragon_realm")
    [eff] = rule.effects
    assert eff.trigger.verb == "setup"
    top = [st.call for st in eff.body if isinstance(st, m.Do)]
    assert [(i.verb, [v.name if isinstance(v, s.CallV) else number(v) for _, v in i.args]) for i in top] == [
        ("set_aside", ["dragon_realm_gate"]), ("shuffle", ["lesser_guardians"]), ("keep_top", ["lesser_guardians", 4]),
        ("shuffle_into", ["dragon_realm_gate", "lesser_guardians"]), ("deal_to_spheres", ["lesser_guardians"])]
    assert isinstance(eff.body[-1], m.Do) and eff.body[-1].call.verb == "deal_to_spheres"  # the Gate lies on top
    [branch] = [st for st in eff.body if isinstance(st, m.If)]
    assert [(c.verb, c.args[0][1].name) for c in conditions(branch.cond)] == [  # type: ignore[union-attr]
        ("variant_on", "dragonslayer")] and isinstance(branch.cond, m.NotCond)
    assert "deal_to_spheres" in verbs_in(branch.then) and "remove_rest" in verbs_in(branch.then)
    assert not get(project, "dragon_realm_gate").effects or all(
        e.trigger.verb != "setup" for e in get(project, "dragon_realm_gate").effects)  # dealt once, by the rule


def test_spare_new_guardians_are_removed_after_dealing(project: m.Project) -> None:
    body = get(project, "guardians_in_spheres", module="base_additions").effects[0].body
    seq = verbs_in(body)
    assert seq.index("remove_rest") > max(i for i, v in enumerate(seq) if v == "deal_to_spheres")
    for deck in ("lesser_guardians", "greater_guardians"):
        assert number(get(project, deck).attrs["size"]) == 5  # one per sphere in the base game (inferred)


def test_dragonslayer_setup_does_not_depend_on_order(project: m.Project) -> None:
    [hearts] = get(project, "dragon_heart_setup").effects
    assert [(c.verb, c.args[0][1].name) for c in conditions(hearts.condition)] == [  # type: ignore[union-attr]
        ("variant_on", "dragonslayer")] and isinstance(hearts.condition, m.NotCond)
    [layout] = get(project, "dragon_card_layout").effects
    first = layout.body[0]
    assert isinstance(first, m.If) and [i.verb for i in statements(first.then)] == ["set_aside"]
    seq = verbs_in(layout.body)
    assert seq.index("set_aside") < seq.index("lay_out")


def test_hearts_wait_behind_the_guardian(project: m.Project) -> None:
    """Seed 5.utok-na-strazce / 5.draci-srdce: the step past the last field attacks the guardian while it is there."""
    [eff] = [e for e in get(project, "fire_lake").effects if e.trigger.verb == "path_end_reached"]
    [branch] = eff.body
    assert isinstance(branch, m.If)
    assert [(c.verb, c.args[0][1].name) for c in conditions(branch.cond)] == [("guarded", "fire_lake")]  # type: ignore[union-attr]
    assert verbs_in(branch.then) == ["besiege"]
    assert "take_card" in verbs_in(branch.orelse) and "take_card" not in verbs_in(branch.then)


def test_team_game_for_four_or_six(project: m.Project) -> None:
    [setup] = [e for e in get(project, "team_game").effects if e.trigger.verb == "setup"]
    sizes: dict[int, set[int]] = {}

    def walk(body: tuple[m.Statement, ...], players: int | None) -> None:
        for st in body:
            if isinstance(st, m.If):
                [c] = list(conditions(st.cond))
                walk(st.then, c.arg("range").lo)  # type: ignore[union-attr]
                walk(st.orelse, None)
            elif isinstance(st, m.Choose):
                for o in st.options:
                    walk(o.body, players)
            elif isinstance(st, m.Do) and st.call.verb == "form_teams":
                sizes.setdefault(players or 0, set()).add(number(st.call.arg("size")))

    walk(setup.body, None)
    assert sizes == {4: {2}, 6: {2, 3}}
    switches = calls(get(project, "team_game"), "switch_on")
    assert ("switch_on", "trading") in {(i.verb, arg_name(i, "variant")) for i in switches}


def test_placeholder_names_are_provisional(project: m.Project) -> None:
    marked = {(e.key, path) for e in entities(project) for path, _ in e.provisional}
    for ident in ("dragon_slayer_ability_1", "dragon_slayer_ability_5", "new_lesser_guardian",
                  "new_greater_guardian_2"):
        assert (ident, "name") in marked
    assert ("flying_on_monitor_lizards" not in {e.key for e in entities(project) if e.effects}), \
        "the seed gives Flying on Monitor Lizards no effect beyond the boot exception"
