"""The Python backend: importable without the compiler, ruff-clean, deterministic, driven by the catalogue,
user data kept as data, and a golden copy of a small generated module."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
import yaml
from cardc.backends import BuildOptions
from cardc.backends.python import python_files, write_python
from cardc.backends.python.generate import game_package
from cardc.backends.python.loader import load_games
from cardc.backends.python.runtime.cardc_runtime import Context, Scripted
from cardc.backends.python.runtime.cardc_runtime.fight_odds import monster_odds
from cardc.backends.python.vocabulary import runtime_functions
from cardc.catalogue import load_catalogue
from cardc.model import AndCond, Invocation, NotCond, OrCond
from hypothesis import given
from hypothesis import strategies as st
from test_rules_support import FIXTURES, ROOT, bundled_project, compile_fixture

GOLDEN = FIXTURES / "golden" / "mini_base.py"
FIGHT = ("fight_start", "fight_roll", "fight_total", "fight_result", "always")


def _mini():  # type: ignore[no-untyped-def]
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        return compile_fixture("mini")
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen")
    write_python(bundled_project(), out, BuildOptions())
    write_python(_mini(), out / "mini", BuildOptions())
    return out / "python"


def test_packages_import_in_a_clean_interpreter_without_the_compiler(built: Path) -> None:
    shutil.copytree(built.parent / "mini" / "python" / "mini", built / "mini")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "try:\n    import cardc\nexcept ImportError:\n    pass\nelse:\n    raise SystemExit('cardc found')\n"
        "import karak, prophecy, mini\n"
        "from cardc_runtime import Context, Scripted\n"
        "from cardc_runtime.fight import make_hero, fight_monster\n"
        "rules = karak.ruleset()\n"
        "ctx = Context(rules, Scripted(dice=[6, 6]), frozenset({'critical_hits'}))\n"
        "report = fight_monster(ctx, make_hero(rules, 'aderyn', weapons=('sword',)), 'skeleton_king')\n"
        "print(report.outcome, report.total, len(prophecy.ruleset().entities) > 0, mini.NAME['en'])\n"
    )
    venv = built.parent / "venv"  # a fresh venv: nothing installed, the compiler included
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run([str(venv / "bin" / "python"), "-I", "-c", code, str(built)], capture_output=True,
                          text=True, cwd=built, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:3] == ["win", "16", "True"]  # 6+6, +2 sword, +2 double six
    assert "pwned" not in done.stdout.splitlines()  # the hostile game name was printed as data, not run
    assert 'import os; os.system("echo pwned")' in done.stdout


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_generated_code_is_ruff_clean(built: Path) -> None:
    done = subprocess.run(["ruff", "check", "--isolated", "--no-cache", "--select", "E,F,W,I,UP,B",
                           "--line-length", "120", "--target-version", "py311", str(built),
                           str(built.parent / "mini")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_generation_is_deterministic() -> None:
    assert python_files(bundled_project()) == python_files(bundled_project())


def test_golden_mini_module() -> None:
    """The generated module, except the rules-text sentence in docstrings (compiler/textgen.py's output)."""
    text = re.sub(r"\n    Rule: .*?\n\n", "\n", python_files(_mini())["mini/base.py"], flags=re.S)
    if os.environ.get("CARDC_UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8"), "regenerate with CARDC_UPDATE_GOLDEN=1 if intended"


def test_hostile_names_stay_data() -> None:
    project = _mini()
    rules = load_games(project)["mini"].ruleset()
    for e in project.entities:
        assert rules.entity(e.id).name == e.name.as_dict()
    assert rules.entity("club").provisional("attack") == "a \"\"\" note \\ with quotes'''"
    assert rules.entity("import").parent == "lambda"


def test_mini_fight_matches_a_direct_count() -> None:
    """Lambda (4 lives: +1) against the ogre (7), re-rolling when it helps; counted here by brute force."""
    rules = load_games(_mini())["mini"].ruleset()
    from cardc.backends.python.runtime.cardc_runtime.fight import make_hero

    def first_try(a: int, b: int) -> str:
        t = a + b + 1
        return "win" if t > 7 else "tie" if t == 7 else "loss"

    second = {k: Fraction(sum(first_try(a, b) == k for a, b in product(range(1, 7), repeat=2)), 36)
              for k in ("win", "tie", "loss")}
    expected = {"win": Fraction(0), "tie": Fraction(0), "loss": Fraction(0)}
    for a, b in product(range(1, 7), repeat=2):
        keep = first_try(a, b)
        if keep == "win" or (keep == "tie" and second["win"] <= 0):
            expected[keep] += Fraction(1, 36)
        elif (second["win"], -second["loss"]) > ((keep == "win") * 1, -(keep == "loss") * 1):
            for k in expected:
                expected[k] += second[k] / 36
        else:
            expected[keep] += Fraction(1, 36)
    odds = monster_odds(rules, make_hero(rules, "lambda"), "ogre")
    assert (odds.win, odds.tie, odds.loss) == (expected["win"], expected["tie"], expected["loss"])
    raged = monster_odds(rules, make_hero(rules, "lambda"), "ogre", ("rage",))
    assert raged.win == odds.win  # a double six already wins: the variant changes nothing here
    ctx = Context(rules, Scripted(dice=[6, 6]), frozenset({"rage"}))
    from cardc.backends.python.runtime.cardc_runtime.fight import fight_monster

    assert fight_monster(ctx, make_hero(rules, "lambda"), "ogre").total == 16
    # `(a or b) and not c` must not be negated as `not (a or b) and not c`: at 4 lives the +100 never applies
    ctx = Context(rules, Scripted(dice=[1, 2]), frozenset({"rage"}))
    assert fight_monster(ctx, make_hero(rules, "lambda"), "ogre").total == 4
    ctx = Context(rules, Scripted(dice=[1, 2]), frozenset({"rage"}))
    assert fight_monster(ctx, make_hero(rules, "lambda", lives=3), "ogre").total == 104


def test_docstrings_state_the_rule_as_the_rules_text_does() -> None:
    text = python_files(_mini())["mini/base.py"]
    assert "Rule: " in text and text.count("Rule: ") == 2


def test_every_effect_is_a_documented_function() -> None:
    pkg = load_games(bundled_project())["karak"]
    catalogue = load_catalogue()
    count = 0
    for module in pkg.MODULES:
        for fx in module.EFFECTS:
            doc = fx.run.__doc__ or ""
            assert catalogue.verbs[fx.trigger].doc.split()[0] in doc and "Source: karak/" in doc
            count += 1
    assert count == sum(len(e.effects) for e in bundled_project().entities_of("karak"))


def test_catalogue_python_template_drives_the_generated_call(tmp_path: Path) -> None:
    data = yaml.safe_load((ROOT / "dsl" / "catalogue.yaml").read_text(encoding="utf-8"))
    data["modifiers"]["attack"]["python"] = "v.attack({ctx}, 10 * {amount})"
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    files = game_package(_mini(), load_catalogue(path), "mini")
    assert "v.attack(ctx, 10 * 1)" in files["mini/base.py"]
    assert "v.attack(ctx, 1)" in python_files(_mini())["mini/base.py"]


def test_verbs_take_their_arguments_by_position_in_the_catalogues_order() -> None:
    """By position (the compiled runtime parses keywords at every call), in the catalogue's order, which the
    catalogue check holds the runtime to; arguments in another order go by keyword."""
    from cardc import syntax as s
    from cardc.backends.python.generate import _Writer
    from cardc.catalogue import default_catalogue
    from cardc.diagnostics import Span

    at = Span("x.cardc", 1, 1)
    slot, value = ("slot", s.StrV("weapon", at)), ("value", s.IntV(2, at))
    writer = _Writer(default_catalogue(), "x", 1)
    assert writer.call(Invocation("set_limit", "modifier", (slot, value), at)) == "v.set_limit(ctx, 'weapon', 2)"
    assert (writer.call(Invocation("set_limit", "modifier", (value, slot), at))
            == "v.set_limit(ctx, value=2, slot='weapon')")


def _conditions(c):  # type: ignore[no-untyped-def]
    if isinstance(c, Invocation):
        return [c.verb]
    if isinstance(c, NotCond):
        return _conditions(c.cond)
    if isinstance(c, AndCond | OrCond):
        return _conditions(c.left) + _conditions(c.right)
    return []


def test_every_condition_of_a_fight_effect_is_computed_by_the_runtime() -> None:
    """A condition without a runtime function would be read from explicit facts: not exact odds."""
    used = {v for e in bundled_project().entities for fx in e.effects if fx.trigger.verb in FIGHT
            for v in _conditions(fx.condition)}
    runtime = set(runtime_functions())
    assert used and used <= runtime, sorted(used - runtime)


@given(st.text(alphabet=st.sampled_from(list("ab -\"\\\n\t\u00e9\u0007 ")), max_size=140))
def test_wrapping_and_docstrings_skip_their_work_only_where_it_changes_nothing(text: str) -> None:
    """`_wrap` returns a short plain line as textwrap would, and `docstring` an unescaped text as its escaping
    loop would, without running them."""
    import textwrap

    from cardc.backends.python import literals
    from cardc.backends.python.generate import TEXT_WIDTH, _wrap

    for line in text.split("\n"):
        lead = len(line) - len(line.lstrip(" -"))
        want = textwrap.wrap(line, TEXT_WIDTH, subsequent_indent=" " * (lead + 2), break_long_words=True,
                             break_on_hyphens=False) or [""]
        assert _wrap(line) == want
    escaped = "".join("\\\\" if c == "\\" else '\\"' if c == '"' else c if c == "\n" or c.isprintable()
                      else c.encode("unicode_escape").decode("ascii") for c in text).strip("\n")
    assert literals.docstring(text, 4) == literals._docstring_lines(escaped, 4)
