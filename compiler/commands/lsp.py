"""`cardc lsp`: the language server for editors, over stdin and stdout."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdio", action="store_true",
                        help="talk over stdin/stdout (the only transport; accepted for editors that pass it)")


def run(args: argparse.Namespace) -> int:
    from cardc.editor.server import serve_stdio  # pygls is imported only when the server runs

    return serve_stdio()
