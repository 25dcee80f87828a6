"""Compiled card templates are shared: one compilation per process for every game's environment, and none in a
later process while the template and cardc are unchanged (the on-disk cache); an edited template is compiled
again, and a template loaded compiled still runs in the sandbox."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest
from cardc.backends.print import templates
from cardc.backends.print.templates import TemplateError, Templates
from cardc.jinjacache import CompiledTemplates

CONTEXT = {"card": {"name": "Žofie", "cost": 3}}


@pytest.fixture
def compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A fresh cache folder and an empty process cache; the names of the templates Jinja compiles from source."""
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    monkeypatch.setattr(templates, "_COMPILED", CompiledTemplates("print-card-templates"))
    names: list[str] = []
    real = jinja2.Environment.compile

    def compile_(self: jinja2.Environment, source: str, name: str | None = None, filename: str | None = None,
                 raw: bool = False, defer_init: bool = False) -> object:
        names.append(str(name))
        return real(self, source, name, filename, raw, defer_init)  # type: ignore[call-overload]

    monkeypatch.setattr(jinja2.Environment, "compile", compile_)
    return names


def _faces(project: object) -> list[dict[str, tuple[str, str | None]]]:
    from cardc.backends.print.settings import parse_settings
    from cardc.backends.print.sheets import PrintBuild

    b = PrintBuild(project, parse_settings({})[0])  # type: ignore[arg-type]
    return [sheet.faces for sheet in b.plan(Path("unused"))]


def test_a_template_is_compiled_once_for_every_game_and_process(compiled: list[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from cardc.frontend import compile_paths

    from tests.conftest import ROOT

    project = compile_paths([ROOT / "tests" / "fixtures" / "print" / "dungeon"]).project
    faces = _faces(project)
    assert compiled and len(compiled) == len(set(compiled)) and "card.j2" in compiled
    first = list(compiled)
    assert _faces(project) == faces  # new environments (as for a second game): nothing compiled again
    assert compiled == first
    monkeypatch.setattr(templates, "_COMPILED", CompiledTemplates("print-card-templates"))  # a new process
    assert _faces(project) == faces and compiled == first  # read from the disk, not compiled


def test_an_edited_template_is_compiled_again(tmp_path: Path, compiled: list[str]) -> None:
    user = tmp_path / "templates"
    user.mkdir()
    (user / "monster.j2").write_text('text name x=1 y=1 w=20 h=5 text={{ card.name ~ "!" }}\n', encoding="utf-8")
    assert Templates(user).render(("monster",), "front", CONTEXT)[0] == 'text name x=1 y=1 w=20 h=5 text="Žofie!"\n'
    assert Templates(user).render(("monster",), "front", CONTEXT)[0].endswith('text="Žofie!"\n')
    assert compiled == ["monster.j2"]
    (user / "monster.j2").write_text('text name x=1 y=1 w=20 h=5 text={{ card.name ~ "?" }}\n', encoding="utf-8")
    assert Templates(user).render(("monster",), "front", CONTEXT)[0].endswith('text="Žofie?"\n')
    assert compiled == ["monster.j2", "monster.j2"]


def test_a_compiled_template_still_runs_in_the_sandbox(tmp_path: Path, compiled: list[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "templates"
    user.mkdir()
    (user / "card.j2").write_text("text x=1 y=1 w=5 h=5 text={{ card.__class__.__mro__ }}\n", encoding="utf-8")
    for _process in range(2):
        monkeypatch.setattr(templates, "_COMPILED", CompiledTemplates("print-card-templates"))
        with pytest.raises(TemplateError, match="unsafe"):
            Templates(user).render(("monster",), "front", {"card": object()})
    assert compiled == ["card.j2"]  # the second time it came from the disk, and was refused all the same


def test_without_the_disk_cache_templates_compile_in_each_process(tmp_path: Path, compiled: list[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDC_CACHE", "off")
    user = tmp_path / "templates"
    user.mkdir()
    (user / "card.j2").write_text("text name x=1 y=1 w=20 h=5 text={{ card.name }}\n", encoding="utf-8")
    for _process in range(2):
        monkeypatch.setattr(templates, "_COMPILED", CompiledTemplates("print-card-templates"))
        for _game in range(2):
            Templates(user).render(("monster",), "front", CONTEXT)
    assert compiled == ["card.j2", "card.j2"]
    assert not (tmp_path / "cache").exists()
