"""`cardc new game NAME` and `cardc new expansion GAME NAME`: a folder that checks and builds at once.

The game scaffold has two kinds with a commented example of each; the expansion scaffold has the expansion
block and one example entity of every kind its game declares (values filled in from the attribute types, and
kept only if they check). Nothing is ever overwritten: an existing folder or file stops the command.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")

GAME_TEMPLATE = """\
// {title}: the game, its languages and the kinds of things it is made of.
// Check it with `cardc check {folder}`; build every output with `cardc build {content}`.
module {name}

game {name} {{
  name: {{ en "{title}" }}
  languages: [en]  // every text is written in each of these
  fallback: en
}}

// A kind is one sort of component. `physical: true` ones are printed, `copies` of each;
// `attr` declares what every entity of the kind has (types: int, text, enum(...), ref(kind), list(...), ...).
kind hero {{
  name: {{ en "Hero" }}
  physical: true
  copies: 1
  size: poker
  attr lives {{ type: int  default: 5  doc: "Lives at the start, also the maximum." }}
}}

kind monster {{
  name: {{ en "Monster" }}
  physical: true
  copies: 1
  size: poker
  attr strength {{ type: int  required: true  doc: "The total a hero must beat." }}
}}
"""

CARDS_TEMPLATE = """\
// The entities of {title}'s base game: one example of each kind. Copy one to add more.
module {name}
import "../game.cardc"

// A hero. `on TRIGGER {{ ... }}` gives it rules from the effect catalogue (dsl/README.md lists them).
hero scout {{
  name: {{ en "Scout" }}
  lives: 4
  on fight_total {{ attack(+1) }}
}}

// A monster. A value you are not sure of yet can be `provisional 6 "why"`; `cardc check --strict` lists them.
monster goblin {{
  name: {{ en "Goblin" }}
  strength: 5
  copies: 3
}}
"""

EXPANSION_TEMPLATE = """\
// {title}: an expansion of {game}. Its entities live in module {game}.{name}, so a build can
// include or leave out the expansion as a whole.
module {game}.{name}
{imports}
expansion {name} extends {game} {{
  name: {{ {names} }}
  languages: [{languages}]
}}
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="what", metavar="WHAT")
    sub.required = True
    g = sub.add_parser("game", help="a new game: its folder, its game block, two kinds and an example of each")
    g.add_argument("name", help="the game's id, like my_game")
    g.add_argument("--content", type=Path, default=Path("content"), help="content folder (default: content/)")
    e = sub.add_parser("expansion", help="a new expansion of a game, with an example of each of its kinds")
    e.add_argument("game", help="the id of the game it extends")
    e.add_argument("name", help="the expansion's id, like winter")
    e.add_argument("--content", type=Path, default=Path("content"), help="content folder (default: content/)")


def _fail(message: str) -> int:
    print(f"cardc new: {message}; nothing was written", file=sys.stderr)
    return 1


def _title(name: str) -> str:
    return name.replace("_", " ").strip().capitalize()


def run(args: argparse.Namespace) -> int:
    for ident in (args.name, getattr(args, "game", "x")):
        if not _NAME.match(ident):
            return _fail(f"`{ident}` is not a valid id: use lower-case letters, digits and `_`, starting with a letter")
    if args.what == "game":
        return new_game(args.content, args.name)
    return new_expansion(args.content, args.game, args.name)


def _write_new(files: dict[Path, str]) -> None:
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as f:  # "x": never replace a file
            f.write(text)
        print(f"wrote {path.as_posix()}", file=sys.stderr)


def new_game(content: Path, name: str) -> int:
    folder = content / name
    if folder.exists():
        return _fail(f"{folder.as_posix()} already exists")
    files: dict[Path, str] = {}
    if not (content / "cardc.toml").exists():
        files[content / "cardc.toml"] = "# Marks the content folder: image paths and imports must stay inside it.\n"
    values = {"name": name, "title": _title(name), "folder": folder.as_posix(), "content": content.as_posix()}
    files[folder / "game.cardc"] = GAME_TEMPLATE.format(**values)
    files[folder / "base" / "cards.cardc"] = CARDS_TEMPLATE.format(**values)
    _write_new(files)
    print(f"next: `cardc check {folder.as_posix()}`, then `cardc build {content.as_posix()}`", file=sys.stderr)
    return 0


def _game_file(content: Path, game: str) -> Path | None:
    """The file that declares `game GAME`: GAME/game.cardc by convention, else any file below the content folder."""
    pattern = re.compile(rf"^\s*game\s+{re.escape(game)}\s*\{{", re.MULTILINE)
    candidates = [content / game / "game.cardc", *sorted(content.rglob("*.cardc"))]
    for path in candidates:
        if path.is_file() and pattern.search(path.read_text(encoding="utf-8", errors="replace")):
            return path
    return None


def new_expansion(content: Path, game: str, name: str) -> int:
    from cardc.frontend import compile_paths

    game_file = _game_file(content, game)
    if game_file is None:
        return _fail(f"no file in {content.as_posix()} declares `game {game}`; create it with `cardc new game {game}`")
    folder = game_file.parent / name
    target = folder / f"{name}.cardc"
    if folder.exists():
        return _fail(f"{folder.as_posix()} already exists")
    base = compile_paths([game_file.parent])
    if not base.ok:
        return _fail(f"the game `{game}` does not check; run `cardc check {game_file.parent.as_posix()}`")
    g = base.project.games[game]
    imports = {_relative(game_file, folder)}
    head = EXPANSION_TEMPLATE.format(
        title=_title(name), game=game, name=name, languages=", ".join(g.languages),
        names=" ".join(f'{lang} "{_title(name)}"' for lang in g.languages), imports="{imports}")
    examples = _examples(base.project, game, name, g.languages, folder, imports)
    # Keep only the examples that check: compile in a scratch copy, drop the entities with errors.
    text = _assemble(head, imports, examples)
    for _ in range(3):
        bad = _failing_examples(text, folder, target, examples)
        if not bad:
            break
        examples = [x for x in examples if x[0] not in bad]
        text = _assemble(head, imports, examples)
    _write_new({target: text})
    print(f"next: `cardc check {folder.as_posix()}`, then `cardc build {content.as_posix()}`", file=sys.stderr)
    return 0


def _relative(path: Path, folder: Path) -> str:
    import os

    return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()


def _assemble(head: str, imports: set[str], examples: list[tuple[str, str]]) -> str:
    lines = "".join(f'import "{i}"\n' for i in sorted(imports))
    body = "\n".join(text for _, text in examples)
    return head.replace("{imports}", lines) + ("\n// One example of each kind of the game; edit or delete them.\n"
                                                + body if examples else "")


def _failing_examples(text: str, folder: Path, target: Path, examples: list[tuple[str, str]]) -> set[str]:
    """Ids of examples with errors, checked by writing the file for a moment in the real folder."""
    from cardc.frontend import compile_paths

    folder.mkdir(parents=True)
    try:
        target.write_text(text, encoding="utf-8")
        result = compile_paths([target])
    finally:
        target.unlink(missing_ok=True)
        folder.rmdir()
    lines = text.split("\n")
    bad: set[str] = set()
    for d in result.diagnostics:
        if not d.is_error:
            continue
        # the example whose declaration starts last at or above the error's line
        for n in range(min(d.span.line, len(lines)) - 1, -1, -1):
            m = re.match(r"(\w+) (\w+) \{", lines[n])
            if m and m.group(2) in {x for x, _ in examples}:
                bad.add(m.group(2))
                break
        else:
            bad.update(x for x, _ in examples)  # an error outside any example: drop them all
    return bad


def _examples(project: object, game: str, name: str, languages: tuple[str, ...], folder: Path,
              imports: set[str]) -> list[tuple[str, str]]:
    from cardc import model as m

    assert isinstance(project, m.Project)
    out: list[tuple[str, str]] = []
    for (g, kind_id), kind in sorted(project.kinds.items()):
        if g != game:
            continue
        ident = f"{name}_{kind_id}"
        what = "printed" if kind.physical else "not printed"
        lines = [f"// One {kind_id} ({what}); its required attributes hold placeholders to replace.",
                 f"{kind_id} {ident} {{",
                 "  name: { " + " ".join(f"{lang} {_quote(_title(ident))}" for lang in languages) + " }"]
        ok = True
        for attr in _all_attrs(project, game, kind_id):
            if not attr.required:
                continue
            value = _example_value(attr.type, project, game, languages, folder, imports)
            if value is None:
                ok = False
                break
            lines.append(f"  {attr.name}: {value}")
        if ok:
            out.append((ident, "\n".join([*lines, "}", ""])))
    return out


def _all_attrs(project: object, game: str, kind_id: str) -> list:  # type: ignore[type-arg]
    from cardc import model as m

    assert isinstance(project, m.Project)
    attrs: dict[str, m.AttrDef] = {}
    current: str | None = kind_id
    while current is not None and (game, current) in project.kinds:
        k = project.kinds[(game, current)]
        for a in k.attrs.values():
            attrs.setdefault(a.name, a)
        current = k.parent
    return list(attrs.values())


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _example_value(t: object, project: object, game: str, languages: tuple[str, ...], folder: Path,
                   imports: set[str]) -> str | None:
    """A value of type `t` that checks, or None when there is none to give (a file path, an icon...)."""
    from cardc import model as m

    assert isinstance(t, m.TypeExpr) and isinstance(project, m.Project)
    simple = {"int": "1", "number": "1", "modifier": "+1", "range": "1..2", "dice": "d6", "bool": "true",
              "string": '"..."', "ident": "example", "any": "1"}
    if t.name in simple:
        return simple[t.name]
    if t.name == "text":
        return "{ " + " ".join(f'{lang} "..."' for lang in languages) + " }"
    if t.name == "enum" and t.args:
        return str(t.args[0])
    if t.name == "list":
        return "[]"
    if t.name == "ref" and t.args:
        wanted = {str(a) for a in t.args}
        for e in project.entities:
            if e.game == game and not e.errata and wanted & set(e.kinds):
                src = project.root / e.span.file if not Path(e.span.file).is_absolute() else Path(e.span.file)
                real = Path(e.span.file) if Path(e.span.file).exists() else src
                imports.add(_relative(real, folder))
                return e.id
        return None
    return None
