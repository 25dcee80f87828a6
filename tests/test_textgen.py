"""Text from effects: every catalogue verb has a sentence in every language in use, every effect of the
bundled content renders in each of its game's languages, and the lexicon is well formed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cardc.catalogue import default_catalogue
from cardc.frontend import FrontEndResult
from cardc.lexicon import default_lexicon, load_lexicon
from cardc.plurals import categories
from cardc.textgen import TextGen, entity_rules_text, guess_gender, split_template
from textutil import compile_source

SPEC = re.compile(r"^(?P<name>[A-Za-z_]\w*)(?::(?P<word>=?[A-Za-z_][\w.]*))?(?:@(?P<key>[A-Za-z_]+))?$")


def languages_in_use(bundled: FrontEndResult) -> set[str]:
    p = bundled.project
    langs = {lang for g in p.games.values() for lang in (*g.languages, *g.publish)}
    return langs | {lang for m in p.modules.values() for lang in m.languages}


def test_bundled_games_use_six_languages(bundled: FrontEndResult) -> None:
    assert {"cs", "sk", "de", "pl", "en", "fr"} <= languages_in_use(bundled)


def test_every_verb_has_a_template_in_every_language_in_use(bundled: FrontEndResult) -> None:
    missing = [f"{v.name} ({lang})" for v in default_catalogue().verbs.values()
               for lang in sorted(languages_in_use(bundled)) if not TextGen.template(v, lang)]
    assert missing == [], "catalogue entries without a sentence template: " + ", ".join(missing)


def test_the_grammar_covers_every_language_in_use(bundled: FrontEndResult) -> None:
    lex = default_lexicon()
    parts = set(lex.grammar["en"]) - {"capitalize_body", "fixups", "range_many"}
    for lang in languages_in_use(bundled):
        assert lang in lex.grammar, lang
        assert parts <= set(lex.grammar[lang]), (lang, parts - set(lex.grammar[lang]))


def _placeholders(template: str) -> list[str]:
    out = []
    for _, spec in split_template(template):
        if spec is None:
            continue
        if "?" in spec:
            name, _, choices = spec.partition("?")
            out.append(name)
            for option in choices.split("|"):
                out.extend(_placeholders(option.partition("=")[2]))
        else:
            out.append(spec)
    return out


def test_templates_name_only_their_parameters_and_known_words() -> None:
    lex = default_lexicon()
    problems = []
    for verb in default_catalogue().verbs.values():
        params = {p.name for p in verb.params}
        for lang, text in verb.text.items():
            forms = text.values() if isinstance(text, dict) else [text]
            for template in forms:
                assert template.count("{") == template.count("}"), (verb.name, lang)
                for spec in _placeholders(template):
                    m = SPEC.match(spec.strip())
                    if m is None:
                        problems.append(f"{verb.name}/{lang}: bad placeholder {{{spec}}}")
                        continue
                    name, word = m.group("name"), m.group("word")
                    if name not in params | {"self", "you"}:
                        problems.append(f"{verb.name}/{lang}: unknown parameter {name}")
                    if word and word.startswith("=") and word[1:] not in params:
                        problems.append(f"{verb.name}/{lang}: unknown parameter {word}")
                    elif word and not word.startswith("=") and lex.forms(word, lang) is None:
                        problems.append(f"{verb.name}/{lang}: word {word} has no {lang} forms")
    assert problems == []


def test_counted_words_give_every_plural_category() -> None:
    lex = default_lexicon()
    for word, langs in lex.words.items():
        for lang, forms in langs.items():
            counted = [k for k in forms if k in ("one", "few", "many", "other")]
            if len(counted) > 1:  # a noun that is counted: it needs every category of its language
                assert set(categories(lang)) <= set(counted), (word, lang, counted)


def test_lexicon_rejects_non_text_forms(tmp_path: Path) -> None:
    bad = tmp_path / "words.yaml"
    bad.write_text("words:\n  x:\n    cs: {ins: a, b}\ngrammar: {}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="quote"):
        load_lexicon(bad)


def test_every_effect_renders_in_every_language_of_its_game(bundled: FrontEndResult) -> None:
    p = bundled.project
    gen = TextGen(p)
    count = 0
    for e in p.entities:
        for lang in p.games[e.game].publish:
            for sentence in gen.generated(e, lang):
                text = sentence.plain
                count += 1
                assert text and text[0].isupper() and text.endswith("."), (e.id, lang, text)
                assert "{" not in text and "}" not in text, (e.id, lang, text)
    assert count > 300
    assert sorted(set(gen.gaps)) == []


def test_sentences_differ_between_languages(bundled: FrontEndResult) -> None:
    p = bundled.project
    e = next(x for x in p.entities if x.id == "berserk")
    texts = {lang: TextGen(p).generated(e, lang)[0].plain for lang in ("cs", "sk", "de", "pl", "en", "fr")}
    assert len(set(texts.values())) == 6


def test_hand_written_text_wins_only_in_its_own_languages(tmp_path: Path) -> None:
    result = compile_source(tmp_path, """module g
game g { name: { cs "Hra" en "Game" } languages: [cs, en] publish: [cs, en, de] fallback: en }
kind rule { }
rule r {
  name: { cs "Pravidlo" en "Rule" }
  text: { cs "Ruční text." en "Hand text." }
  on turn_start { lose_life(2) }
}
""")
    assert result.ok, [d.render() for d in result.diagnostics]
    e = result.project.entity("g", "r")
    assert e is not None
    assert entity_rules_text(result.project, e, "cs") == ["Ruční text."]
    assert entity_rules_text(result.project, e, "de") == ["Zu Beginn deines Zuges: Verliere 2 Leben."]


def test_choices_conditions_and_references_compose(tmp_path: Path) -> None:
    result = compile_source(tmp_path, """module g
game g { name: { cs "Hra" en "Game" } languages: [cs, en] fallback: en }
kind item { attr slot { type: enum(weapon, spell, key) required: true } }
kind hero { attr gender { type: enum(m, f, n) default: m } }
item sword { name: { cs "Meč" en "Sword" } slot: weapon }
hero ann {
  name: { cs "Anna" en "Ann" }
  gender: f
  on fight_total if lives(3..4) and not holds(sword) { attack(+1) may reroll(all) }
  on turn_start { choose { a { lose_life(1) } b { } } if cursed { remove_curse } else { heal_full } }
}
""")
    assert result.ok, [d.render() for d in result.diagnostics]
    p = result.project
    ann = p.entity("g", "ann")
    assert ann is not None
    en = [r.plain for r in TextGen(p).generated(ann, "en")]
    assert en[0] == ("When your attack total is counted in a fight, if you have 3 or 4 lives and you do not hold "
                     "Sword: +1 to your attack and you may reroll all dice.")
    assert en[1] == ("At the start of your turn: choose one: lose 1 life; or do nothing and if you are cursed, "
                     "remove your curse; otherwise, heal all your lives.")
    cs = [r.plain for r in TextGen(p).generated(ann, "cs")]
    assert "jsi prokletá" in cs[1]  # the hero's gender attribute
    assert "a není Meč v tvém vybavení" in cs[0]  # the verb's own negative sentence
    parts = TextGen(p).generated(ann, "en")[0].parts
    assert any(getattr(x, "key", None) == "sword" for x in parts)  # the reference links the mention


@pytest.mark.parametrize(("name", "lang", "gender"), [
    ("Ledová pěst", "cs", "f"), ("Kouzlo", "cs", "n"), ("Meč", "cs", "m"), ("Taia", "cs", "f"),
    ("Mroźna pięść", "pl", "f"), ("Sword", "en", "m"), ("Vrhací dýky", "cs", "p"), ("Noże", "pl", "p"),
    ("Zaklęcie", "pl", "n"), ("Magický štít", "cs", "m"),
])
def test_gender_guess(name: str, lang: str, gender: str) -> None:
    assert guess_gender(name, lang) == gender


def _said(bundled: FrontEndResult, ident: str, lang: str, module: str | None = None) -> str:
    p = bundled.project
    e = next(x for x in p.entities if x.id == ident and (module is None or x.module == module))
    return " ".join(r.plain for r in TextGen(p).generated(e, lang))


def test_czech_and_slovak_word_order_and_words(bundled: FrontEndResult) -> None:
    """Clitics stand second in their clause; the seeds' own words (místnost, prokletí, závěrečný boj, netvor)."""
    arena = _said(bundled, "battle_arena", "cs")
    assert "pokud se na tento dílek vstupuje poprvé" in arena and "pokud na tento dílek se" not in arena
    assert "sa na tento dielik vstupuje" in _said(bundled, "battle_arena", "sk")
    dragon = _said(bundled, "stronger_dragon", "cs")
    assert "a padne ti dvojice" in dragon and "a ti padne" not in dragon
    lord = _said(bundled, "lord_of_karak", "cs")
    assert "za kartu a figurku „Pán Karaku“" in lord and "zbav se prokletí" in lord and "kletb" not in lord
    assert "místnost" in _said(bundled, "fate_weaver", "cs") and "komnat" not in _said(bundled, "fate_weaver", "cs")
    assert "miestnosť" in _said(bundled, "fate_weaver", "sk")
    lord_de = _said(bundled, "lord_of_karak", "de")
    assert "Gemächer" in lord_de and "Kammern" not in lord_de and "besetzt" not in lord_de
    unstoppable = _said(bundled, "unstoppable", "cs")
    assert "na které 6 padla, než byla v tomto souboji přehozena" in unstoppable


def test_a_list_of_alternatives_reads_or(bundled: FrontEndResult) -> None:
    text = _said(bundled, "realm_final_battle", "en")
    assert "Legends of Dragons or Clairvoyant Dream is drawn" in text, text
    assert "Legendy o dracích nebo" in _said(bundled, "realm_final_battle", "cs")


def test_prevent_names_what_does_not_happen(bundled: FrontEndResult) -> None:
    """`prevent` reads as a card would: it names the event of its trigger, never "this does not happen"."""
    sneak = _said(bundled, "sneak", "en")
    assert "you do not fight the monster and walk on past it" in sneak and "this does not happen" not in sneak
    assert "you do not fall unconscious" in _said(bundled, "reincarnation", "en")
    p = bundled.project
    gen = TextGen(p)
    for e in p.entities:
        for lang in p.games[e.game].publish:
            for r in gen.generated(e, lang):
                assert "this does not happen" not in r.plain and "to se nestane" not in r.plain, (e.id, lang)


def test_the_duel_speaks_of_the_last_life(bundled: FrontEndResult) -> None:
    duel = _said(bundled, "hero_duel", "en")
    assert "this is not your last life" in duel and "you do not have 1 life" not in duel


def test_a_build_renders_each_sentence_once_for_every_backend(bundled: FrontEndResult, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A parallel build renders the effects' sentences before it forks its backends (`textgen.warm`): what
    print, reference, export and python then ask for is all there, and is what rendering afresh gives."""
    from cardc import textgen
    from cardc.backends import BACKENDS, BuildOptions

    project = bundled.project
    monkeypatch.setattr(textgen, "_RENDERED", {})
    asked = [(e, lang) for g in project.games.values() for e in project.entities_of(g.id) if e.effects
             for lang in g.publish or g.languages]
    other = load_lexicon()  # another lexicon object: rendered afresh, never remembered
    fresh = [TextGen(project, lexicon=other).generated(e, lang) for e, lang in asked]
    assert not textgen._RENDERED
    assert textgen.warm(project) == sum(len(r) for r in fresh) > 0
    assert [TextGen(project).generated(e, lang) for e, lang in asked] == fresh

    def rendered_again(*_: object) -> None:
        raise AssertionError("a sentence was rendered again")

    monkeypatch.setattr(TextGen, "_effect", rendered_again)
    for name, write in BACKENDS:
        if name in ("print", "reference", "export", "python"):
            write(project, tmp_path / name, BuildOptions(only=frozenset({name}), destination=tmp_path / name))
