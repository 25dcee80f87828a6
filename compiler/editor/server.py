"""`cardc lsp`: the language server (pygls) over the editor analysis.

Diagnostics are the checker's own, recomputed for the whole content folder a little after the last
keystroke (in one worker thread: the parser is not re-entrant) with the open buffers read instead of
the disk. Hover, completion, definitions, references and the outline answer from the latest analysis
and the live text of the document asked about.
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cardc import __version__
from cardc.diagnostics import Diagnostic, Severity, Span
from cardc.editor.analysis import Analysis, Completion, Outline, Target, analyze, content_root, display_of
from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

DEBOUNCE_S = 0.25  # wait this long after a change before checking again: typing stays smooth
log = logging.getLogger(__name__)

_COMPLETION_KINDS = {
    "keyword": lsp.CompletionItemKind.Keyword,
    "verb": lsp.CompletionItemKind.Function,
    "kind": lsp.CompletionItemKind.Class,
    "attribute": lsp.CompletionItemKind.Field,
    "parameter": lsp.CompletionItemKind.Variable,
    "entity": lsp.CompletionItemKind.Reference,
    "value": lsp.CompletionItemKind.EnumMember,
    "language": lsp.CompletionItemKind.Text,
    "module": lsp.CompletionItemKind.Module,
}
_SYMBOL_KINDS = {
    "game": lsp.SymbolKind.Namespace,
    "expansion": lsp.SymbolKind.Package,
    "kind": lsp.SymbolKind.Class,
    "attr": lsp.SymbolKind.Field,
    "entity": lsp.SymbolKind.Object,
    "rule": lsp.SymbolKind.Event,
}


class CardcLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("cardc", __version__)
        self.analyses: dict[Path, Analysis] = {}  # content folder -> its latest analysis
        self.published: dict[Path, set[str]] = {}  # content folder -> URIs that got diagnostics
        self.generation: dict[Path, int] = {}
        self.outlines: dict[str, list[lsp.DocumentSymbol]] = {}  # last good outline per URI
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cardc-check")

    # ---- analysis ------------------------------------------------------------------

    def overlay(self, root: Path) -> dict[Path, str]:
        out: dict[Path, str] = {}
        for doc in list(self.workspace.text_documents.values()):
            path = Path(doc.path).resolve()
            if root == path or root in path.parents:
                out[path] = doc.source
        return out

    async def refresh(self, uri: str, delay: float = DEBOUNCE_S) -> None:
        """Check the content folder of `uri` again once changes have settled, and publish the diagnostics."""
        path = _path(uri)
        if path is None:
            return
        root = content_root(path)
        generation = self.generation.get(root, 0) + 1
        self.generation[root] = generation
        if delay:
            await asyncio.sleep(delay)
            if self.generation[root] != generation:
                return  # a newer change will check again
        analysis = await self.analyze(root)
        if analysis is not None and self.generation[root] == generation:
            self.publish(root, analysis)

    async def analyze(self, root: Path) -> Analysis | None:
        overlay = self.overlay(root)
        loop = asyncio.get_running_loop()
        try:
            analysis = await loop.run_in_executor(self.worker, analyze, root, overlay)
        except Exception as err:  # the server's top-level handler: a bug in cardc, reported as `cardc` reports one
            from cardc.crash import write_report

            log.exception("internal error while checking %s", root)
            report = write_report(err, ["lsp", str(root)])
            where = f"report written to {report}" if report else "no report could be written"
            self.window_show_message(lsp.ShowMessageParams(
                lsp.MessageType.Error, f"cardc: internal error while checking {root}: {err} ({where})"))
            return None
        self.analyses[root] = analysis
        return analysis

    async def analysis_for(self, uri: str) -> tuple[Analysis, TextDocument, str] | None:
        path = _path(uri)
        if path is None:
            return None
        root = content_root(path)
        analysis = self.analyses.get(root) or await self.analyze(root)
        if analysis is None:
            return None
        return analysis, self.workspace.get_text_document(uri), display_of(path)

    def publish(self, root: Path, analysis: Analysis) -> None:
        by_uri: dict[str, list[lsp.Diagnostic]] = {}
        for display in analysis.result.sources:
            by_uri[from_fs_path(str(analysis.path_of(display))) or display] = []
        for d in analysis.result.diagnostics:
            text = analysis.result.sources.get(d.span.file)
            if text is None:
                continue  # not in a file (e.g. a path given on the command line)
            uri = from_fs_path(str(analysis.path_of(d.span.file))) or d.span.file
            by_uri.setdefault(uri, []).append(to_lsp_diagnostic(d, text, self.codec))
        for uri in self.published.get(root, set()) - set(by_uri):
            by_uri[uri] = []  # a file that had diagnostics and is gone or clean now
        for uri, diags in sorted(by_uri.items()):
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags))
        self.published[root] = {uri for uri, diags in by_uri.items() if diags}

    @property
    def codec(self) -> PositionCodec:
        return self.workspace.position_codec


def _path(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs).resolve() if fs else None


# ---- conversions ---------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.split("\n")


def span_range(span: Span, text: str, codec: PositionCodec) -> lsp.Range:
    """A diagnostic or id span as an LSP range (code points -> the client's units)."""
    lines = _lines(text)
    line = max(0, span.line - 1)
    start = lsp.Position(line, max(0, span.col - 1))
    if span.end_line and (span.end_line, span.end_col) > (span.line, span.col):
        end = lsp.Position(span.end_line - 1, max(0, span.end_col - 1))
    else:  # a point: cover the word there, or one character
        src = lines[line] if line < len(lines) else ""
        col = start.character
        stop = col
        while stop < len(src) and (src[stop].isalnum() or src[stop] == "_"):
            stop += 1
        end = lsp.Position(line, max(stop, min(col + 1, len(src))))
    return lsp.Range(codec.position_to_client_units(lines, start), codec.position_to_client_units(lines, end))


def to_lsp_diagnostic(d: Diagnostic, text: str, codec: PositionCodec) -> lsp.Diagnostic:
    if d.code == "W500":
        severity = lsp.DiagnosticSeverity.Information  # provisional values are noted, not problems to fix now
    elif d.severity is Severity.ERROR:
        severity = lsp.DiagnosticSeverity.Error
    else:
        severity = lsp.DiagnosticSeverity.Warning
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    return lsp.Diagnostic(range=span_range(d.span, text, codec), message=message, severity=severity,
                          code=d.code, source="cardc")


def _offset(doc: TextDocument, pos: lsp.Position) -> tuple[int, int, int]:
    """Offset, line and code-point column of a client position (lines split at \\n only, as the lexer does)."""
    lines = _lines(doc.source)
    server_pos = doc.position_codec.position_from_client_units(lines, pos)
    offset = sum(len(line) + 1 for line in lines[:server_pos.line]) + server_pos.character
    return min(offset, len(doc.source)), server_pos.line, server_pos.character


def _token_range(doc: TextDocument, start: int, length: int) -> lsp.Range:
    text = doc.source
    line = text.count("\n", 0, start)
    col = start - (text.rfind("\n", 0, start) + 1)
    return span_range(Span("", line + 1, col + 1, line + 1, col + 1 + length), text, doc.position_codec)


def _location(analysis: Analysis, span: Span, codec: PositionCodec) -> lsp.Location:
    text = analysis.result.sources.get(span.file, "")
    return lsp.Location(uri=from_fs_path(str(analysis.path_of(span.file))) or span.file,
                        range=span_range(span, text, codec))


def _completion_item(c: Completion) -> lsp.CompletionItem:
    return lsp.CompletionItem(
        label=c.label, kind=_COMPLETION_KINDS.get(c.kind, lsp.CompletionItemKind.Text), detail=c.detail or None,
        documentation=lsp.MarkupContent(lsp.MarkupKind.Markdown, c.doc) if c.doc else None,
        insert_text=c.insert, sort_text=f"{'0' if c.kind in ('attribute', 'parameter') else '1'}{c.label}")


def _symbol(o: Outline, text: str, codec: PositionCodec) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(
        name=o.name, detail=o.detail or None, kind=_SYMBOL_KINDS.get(o.kind, lsp.SymbolKind.Object),
        range=span_range(o.span, text, codec), selection_range=span_range(o.selection, text, codec),
        children=[_symbol(c, text, codec) for c in o.children] or None)


# ---- the server ---------------------------------------------------------------------------------


def make_server() -> CardcLanguageServer:
    server = CardcLanguageServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: CardcLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        await ls.refresh(params.text_document.uri, delay=0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: CardcLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        await ls.refresh(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: CardcLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        await ls.refresh(params.text_document.uri, delay=0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: CardcLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.outlines.pop(params.text_document.uri, None)
        await ls.refresh(params.text_document.uri, delay=0)  # the file on disk counts again

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: CardcLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        found = await ls.analysis_for(params.text_document.uri)
        if found is None:
            return None
        analysis, doc, display = found
        offset, line, col = _offset(doc, params.position)
        answer = analysis.hover(display, doc.source, offset, line, col)
        if answer is None:
            return None
        markdown, tok = answer
        return lsp.Hover(contents=lsp.MarkupContent(lsp.MarkupKind.Markdown, markdown),
                         range=_token_range(doc, tok.start, len(tok.text)))

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=[":", "(", ",", "["]))
    async def completion(ls: CardcLanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        found = await ls.analysis_for(params.text_document.uri)
        if found is None:
            return lsp.CompletionList(is_incomplete=False, items=[])
        analysis, doc, _ = found
        offset, _, _ = _offset(doc, params.position)
        items, prefix = analysis.complete(doc.source, offset)
        seen: set[str] = set()
        out = []
        for c in items:
            if c.label not in seen and c.label.startswith(prefix):
                seen.add(c.label)
                out.append(_completion_item(c))
        return lsp.CompletionList(is_incomplete=False, items=out)

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: CardcLanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        found = await ls.analysis_for(params.text_document.uri)
        if found is None:
            return None
        analysis, doc, display = found
        offset, line, col = _offset(doc, params.position)
        target = analysis.target_at(display, doc.source, offset, line, col)
        occ = analysis.definition(target) if target is not None else None
        return _location(analysis, occ.span, ls.codec) if occ is not None else None

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    async def references(ls: CardcLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        found = await ls.analysis_for(params.text_document.uri)
        if found is None:
            return []
        analysis, doc, display = found
        offset, line, col = _offset(doc, params.position)
        target: Target | None = analysis.target_at(display, doc.source, offset, line, col)
        if target is None:
            return []
        return [_location(analysis, o.span, ls.codec)
                for o in analysis.references(target, params.context.include_declaration)]

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(ls: CardcLanguageServer,
                              params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        uri = params.text_document.uri
        found = await ls.analysis_for(uri)
        if found is None:
            return []
        analysis, _, display = found
        outline = analysis.outline(display)
        if outline is not None:
            text = analysis.result.sources.get(display, "")
            ls.outlines[uri] = [_symbol(o, text, ls.codec) for o in outline]
        return ls.outlines.get(uri, [])  # a file that does not parse keeps its last outline

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: CardcLanguageServer, params: None) -> None:
        ls.worker.shutdown(wait=False, cancel_futures=True)

    return server


def serve_stdio() -> int:
    logging.basicConfig(level=os.environ.get("CARDC_LSP_LOG", "WARNING"), format="cardc lsp: %(message)s")
    make_server().start_io()
    return 0
