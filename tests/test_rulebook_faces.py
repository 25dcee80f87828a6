"""The rulebook shows each component's faces next to its entry; a face shown again in one rulebook (a deck's shared
back beside every card) appends the operators its first drawing made instead of being drawn again: the same file."""

from __future__ import annotations

from pathlib import Path

import pytest
from cardc.backends.print import rulebook
from cardc.backends.print import sheets as print_sheets
from cardc.frontend import compile_paths

from tests.conftest import ROOT


def _rulebooks(out: Path) -> dict[str, bytes]:
    result = compile_paths([ROOT / "tests" / "fixtures" / "export" / "tavern"])
    assert result.ok
    settings = print_sheets.parse_settings({})[0]
    b = print_sheets.PrintBuild(result.project, settings)
    sheets = b.plan(out)
    rulebook.write_rulebooks(result.project, out, settings, b.faces_of(sheets), [])
    return {p.name: p.read_bytes() for p in sorted(out.glob("*-rules.pdf"))}


def test_a_face_shown_again_is_the_same_file_as_drawn_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    draws: list[bool] = []  # per face shown: whether it was drawn (True) or its operators appended again
    draw_face = rulebook.draw_face

    def counted(*args: object, **kwargs: object) -> object:
        draws.append(True)
        return draw_face(*args, **kwargs)

    monkeypatch.setattr(rulebook, "draw_face", counted)
    shown = rulebook.FaceImage.draw
    seen: list[int] = []

    def draw(self: rulebook.FaceImage) -> None:
        seen.append(1)
        shown(self)

    monkeypatch.setattr(rulebook.FaceImage, "draw", draw)
    kept = _rulebooks(tmp_path / "kept")
    assert kept and len(draws) < len(seen)  # some faces were shown again and not drawn again
    init = rulebook.FaceImage.__init__

    def fresh(self: rulebook.FaceImage, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)
        self.drawn = None  # every face drawn anew

    monkeypatch.setattr(rulebook.FaceImage, "__init__", fresh)
    draws.clear()
    seen.clear()
    again = _rulebooks(tmp_path / "again")
    assert len(draws) == len(seen)
    assert again == kept
