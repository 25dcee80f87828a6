"""Card lists in spreadsheets: `import "x.csv" as KIND`, bad cells at ROW:COL, XLSX, and the CSV round trip."""

from __future__ import annotations

import csv
import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from cardc import cli
from cardc.frontend import compile_paths
from cardc.irjson import iter_project_json

GAME = """module g
game g {
  name: { cs "Hra" en "Game" }
  languages: [cs, en]
}
kind item {
  attr slot { type: enum(weapon, spell, key)  required: true }
}
kind monster {
  physical: true
  attr strength { type: int  required: true }
  attr power { type: modifier }
  attr loot { type: list(ref(item)) }
  attr motto { type: text }
  attr flavour { type: string }
}
item sword {
  name: { cs "Meč" en "Sword" }
  slot: weapon
}
item key {
  name: { cs "Klíč" en "Key" }
  slot: key
}
"""

MONSTERS = """module g
import "game.cardc"
monster goblin {
  name: { cs "Skřet" en "Goblin" }
  strength: 5
  power: +1
  loot: [sword, key]
  copies: 3
  source: "rulebook, p. 4"
  flavour: "He says \\"boo\\", twice"
}
monster troll {
  name: provisional { cs "Trol" en "Troll" } "name from a photo"
  text: { cs "Velký." en "Big." }
  strength: provisional 9 "guessed"
  motto: { cs "Hm." en "Hmm." }
  copies: unknown "not in the rulebook"
}
"""


def run(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(argv)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def _without(value: Any, keys: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def entities(folder: Path, kind: str) -> list[Any]:
    old = Path.cwd()
    os.chdir(folder)
    try:
        result = compile_paths([Path(".")])
    finally:
        os.chdir(old)
    assert result.ok, [d.render() for d in result.diagnostics if d.is_error]
    ir = json.loads("".join(iter_project_json(result.project, None)))
    out = [_without(e, {"span"}) for e in ir["entities"] if e["kind"] == kind]
    for e in out:  # the IR lists provisional values in source order; a sheet's columns have their own
        e["provisional"].sort(key=lambda p: p["attr"])
    return out


def project(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    (folder / "cardc.toml").write_text("")
    (folder / "game.cardc").write_text(GAME, encoding="utf-8")
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_export_then_import_gives_the_same_entities_and_the_same_sheet(tmp_path: Path) -> None:
    a = project(tmp_path / "a", {"monsters.cardc": MONSTERS})
    code, sheet, err = run(["export", ".", "--csv", "monster"], a)
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(sheet)))
    assert rows[0][:8] == ["id", "name.cs", "name.en", "name.provisional", "text.cs", "text.en", "copies", "source"]
    b = project(tmp_path / "b", {"monsters.csv": sheet, "list.cardc": 'module g\nimport "game.cardc"\n'
                                 'import "monsters.csv" as monster\n'})
    assert entities(b, "monster") == entities(a, "monster")
    code, again, _ = run(["export", ".", "--csv", "monster"], b)
    assert code == 0 and again == sheet


def test_bad_cells_are_reported_at_row_and_column(tmp_path: Path) -> None:
    sheet = ("id;name.cs;name.en;strength;loot\n"  # semicolons, as many spreadsheets write them
             "goblin;Skřet;Goblin;5x;[swrd]\n"
             ";Nic;Nothing;1;\n"
             "rat;Krysa;;abc;\n")
    p = project(tmp_path / "p", {"monsters.csv": sheet,
                                 "list.cardc": 'module g\nimport "game.cardc"\nimport "monsters.csv" as monster\n'})
    code, _, err = run(["check", "."], p)
    assert code == 1
    assert "monsters.csv:2:4: error[E103]: malformed number `5x`" in err
    assert "monsters.csv:2:4: error[E103]: malformed number `5x`\n 2 | D2: 5x\n   |     ^^\n" in err  # the cell, caret
    assert " 2 | E2: [swrd]\n   |     ^^^^^^\n" in err
    assert "monsters.csv:2:5: error[E206]: `loot` refers to unknown item `swrd`" in err
    assert "did you mean `sword`?" in err  # the same hints as in source
    assert "monsters.csv:3:1: error[E116]: the id in row 3 is empty" in err
    assert "monsters.csv:4:2: error[E400]: `name` is missing the en translation" in err
    assert "monsters.csv:4:4: error[E203]: `strength` expects a whole number" in err
    assert "missing required attribute `strength`" not in err  # a malformed cell is not a missing one


def test_a_sheet_needs_an_id_column_and_a_kind(tmp_path: Path) -> None:
    p = project(tmp_path / "p", {"monsters.csv": "name.en,strength\nGoblin,5\n",
                                 "list.cardc": 'module g\nimport "game.cardc"\nimport "monsters.csv" as monster\n'})
    code, _, err = run(["check", "."], p)
    assert code == 1 and "monsters.csv:1:1: error[E116]: the sheet has no `id` column" in err
    (p / "list.cardc").write_text('module g\nimport "game.cardc"\nimport "monsters.csv"\n')
    code, _, err = run(["check", "."], p)
    assert code == 1 and "list.cardc:3:8: error[E116]: the sheet `monsters.csv` is imported without its kind" in err


def test_xlsx_is_read_like_csv(tmp_path: Path) -> None:
    from openpyxl import Workbook

    p = project(tmp_path / "p", {"list.cardc": 'module g\nimport "game.cardc"\nimport "monsters.xlsx" as monster\n'})
    wb = Workbook()
    ws = wb.active
    for row in (["id", "name.cs", "name.en", "strength", "power", "copies"], ["goblin", "Skřet", "Goblin", 5, "+1", 3],
                ["ogre", "Zlobr", "Ogre", 7.0, None, None], ["bat", "Netopýr", "Bat", "many", None, None]):
        ws.append(row)
    wb.save(p / "monsters.xlsx")
    code, _, err = run(["check", "."], p)
    assert code == 1 and "monsters.xlsx:4:4: error[E203]: `strength` expects a whole number" in err
    ws.delete_rows(4)
    wb.save(p / "monsters.xlsx")
    got = {e["id"]: (e["attrs"]["strength"], e["copies"]) for e in entities(p, "monster")}
    assert got == {"goblin": (5, 3), "ogre": (7, 1)}
