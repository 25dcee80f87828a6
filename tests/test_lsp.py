"""`cardc lsp` end to end: a real client (pytest-lsp) talks JSON-RPC over stdio to `python -m cardc lsp`.

The content is a small game written here; what the server says is checked against the catalogue and the
checker, which it must agree with.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from cardc.catalogue import default_catalogue
from cardc.frontend import compile_paths
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

GAME = """\
module mini

game mini {
  name: { en "Mini" }
  languages: [en]
}

kind hero {
  name: { en "Hero" }
  attr lives { type: int  default: 5  doc: "Lives at the start of the game." }
  attr gender { type: enum(m, f)  default: m }
}

kind item {
  name: { en "Item" }
  doc: "Something a hero carries."
  attr owner { type: ref(hero)  doc: "The hero who holds it." }
}
"""

THINGS = """\
module mini
import "game.cardc"

hero ann {
  name: { en "Ann" }
  lives: 4
  gender: f
  on turn_start { heal_full() }
}

hero bob {
  name: { en "Bob" }
}

item cup {
  name: { en "Cup" }
  owner: ann
}
"""


pytestmark = pytest.mark.asyncio(loop_scope="module")  # one server for the module's tests


@pytest.fixture(scope="module")
def content(tmp_path_factory: Any) -> Path:
    tmp_path: Path = tmp_path_factory.mktemp("content")
    (tmp_path / "cardc.toml").write_text("", encoding="utf-8")
    (tmp_path / "game.cardc").write_text(GAME, encoding="utf-8")
    (tmp_path / "things.cardc").write_text(THINGS, encoding="utf-8")
    return tmp_path


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "cardc", "lsp"]), scope="module")
async def client(lsp_client: LanguageClient, content: Path):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=content.as_uri()))
    yield
    await lsp_client.shutdown_session()


def _pos(text: str, needle: str, extra: int = 0) -> lsp.Position:
    offset = text.index(needle) + extra
    line = text.count("\n", 0, offset)
    return lsp.Position(line, offset - (text.rfind("\n", 0, offset) + 1))


async def _open(client: LanguageClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="cardc", version=1, text=text)))
    while uri not in client.diagnostics:
        await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


async def _labels(client: LanguageClient, uri: str, pos: lsp.Position) -> list[str]:
    result = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), pos))
    assert isinstance(result, lsp.CompletionList)
    return [item.label for item in result.items]


async def test_diagnostics_follow_typing(client: LanguageClient, content: Path, tmp_path_factory: Any) -> None:
    tmp_path = tmp_path_factory.mktemp("check")
    path = content / "things.cardc"
    uri = await _open(client, path, THINGS)
    assert list(client.diagnostics[uri]) == []

    broken = THINGS.replace("heal_full()", "heal_fulll()")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(broken)]))
    while not client.diagnostics[uri]:
        await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [diag] = client.diagnostics[uri]
    # the same diagnostic as `cardc check` on the same text saved in a copy of the folder
    copy = tmp_path / "copy"
    shutil.copytree(content, copy)
    (copy / "things.cardc").write_text(broken, encoding="utf-8")
    [checked] = compile_paths([copy]).diagnostics
    assert diag.code == checked.code == "E300"
    assert diag.severity == lsp.DiagnosticSeverity.Error
    assert diag.message == f"{checked.message}\nhint: {checked.hint}"
    assert "did you mean `heal_full`?" in diag.message
    assert diag.range.start == _pos(broken, "heal_fulll")
    assert diag.range.end == _pos(broken, "heal_fulll", len("heal_fulll"))

    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
        [lsp.TextDocumentContentChangeWholeDocument(THINGS)]))
    while client.diagnostics[uri]:
        await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


async def test_hover_shows_catalogue_and_content_docs(client: LanguageClient, content: Path) -> None:
    uri = await _open(client, content / "things.cardc", THINGS)

    async def hover(needle: str, extra: int = 1) -> str:
        result = await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), _pos(THINGS, needle, extra)))
        assert result is not None and isinstance(result.contents, lsp.MarkupContent)
        return result.contents.value

    catalogue = default_catalogue()
    trigger = await hover("turn_start")
    assert "**turn_start** — trigger" in trigger and catalogue.verbs["turn_start"].doc in trigger
    action = await hover("heal_full")
    assert "action" in action and catalogue.verbs["heal_full"].doc in action
    assert "Lives at the start of the game." in await hover("lives:")
    assert "The hero who holds it." in await hover("owner:")
    kind = await hover("item cup")
    assert "Something a hero carries." in kind and "`owner`: `ref(hero)`" in kind
    entity = await hover("owner: ann", len("owner: a"))
    assert "**ann** — hero “Ann”" in entity


async def test_completion_offers_what_fits(client: LanguageClient, content: Path) -> None:
    uri = await _open(client, content / "things.cardc", THINGS)
    catalogue = default_catalogue()

    triggers = await _labels(client, uri, _pos(THINGS, "on turn_start", 3))
    assert set(triggers) == set(catalogue.names("trigger"))
    statements = await _labels(client, uri, _pos(THINGS, "heal_full()"))
    assert set(catalogue.names("action", "modifier")) <= set(statements) and "may" in statements
    assert await _labels(client, uri, _pos(THINGS, "owner: ann", len("owner: "))) == ["ann", "bob"]
    assert await _labels(client, uri, _pos(THINGS, "gender: f", len("gender: "))) == ["m", "f"]
    members = await _labels(client, uri, _pos(THINGS, "  lives: 4", 2))
    assert {"lives:", "gender:", "name:", "copies:", "on"} <= set(members) and "owner:" not in members
    assert {"hero", "item", "kind", "errata"} <= set(await _labels(client, uri, _pos(THINGS, "hero bob")))


async def test_definition_references_and_outline(client: LanguageClient, content: Path) -> None:
    uri = await _open(client, content / "things.cardc", THINGS)
    use = _pos(THINGS, "owner: ann", len("owner: a"))

    found = await client.text_document_definition_async(lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri), use))
    assert isinstance(found, lsp.Location) and found.uri == uri
    assert found.range.start == _pos(THINGS, "ann {")

    kind = await client.text_document_definition_async(
        lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri), _pos(THINGS, "item cup", 1)))
    assert isinstance(kind, lsp.Location) and kind.uri == (content / "game.cardc").as_uri()
    assert kind.range.start == _pos(GAME, "item {")

    refs = await client.text_document_references_async(lsp.ReferenceParams(
        context=lsp.ReferenceContext(include_declaration=True), text_document=lsp.TextDocumentIdentifier(uri),
        position=use))
    assert refs is not None
    assert sorted((r.range.start.line, r.range.start.character) for r in refs) == [
        (p.line, p.character) for p in (_pos(THINGS, "ann {"), _pos(THINGS, "ann\n}"))]

    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))
    assert symbols is not None
    assert [(s.name, s.detail) for s in symbols] == [("ann", "hero"), ("bob", "hero"), ("cup", "item")]
    ann = symbols[0]
    assert isinstance(ann, lsp.DocumentSymbol) and ann.children is not None
    assert [c.name for c in ann.children] == ["on turn_start"]
    assert ann.range.start == _pos(THINGS, "hero ann") and ann.range.end == _pos(THINGS, "}\n\nhero bob", 1)
