"""`cardc import FILE.json --out DIR`: `.cardc` source from an engine-neutral export."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="an engine-neutral export (`generated/export/<game>.json`)")
    p.add_argument("--out", type=Path, required=True,
                   help="folder for the source (created if missing; existing files are never overwritten)")


def run(args: argparse.Namespace) -> int:
    from cardc.importer import ImportFailed, import_export, write_files

    try:
        files = import_export(args.file)
    except ImportFailed as failed:
        for d in failed.diagnostics:
            print(d.render(None), file=sys.stderr)
        print(f"{len(failed.diagnostics)} error{'s' if len(failed.diagnostics) != 1 else ''}: nothing was written",
              file=sys.stderr)
        return 1
    files = _formatted(files)
    try:
        written = write_files(files, args.out)
    except FileExistsError as clash:
        print(f"cardc import: {clash} already exists; choose an empty --out folder (nothing was written)",
              file=sys.stderr)
        return 2
    except OSError as err:
        print(f"cardc import: cannot write into {args.out}: {err.strerror or err}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} file{'s' if len(written) != 1 else ''} into {args.out}; "
          f"check them with `cardc check {args.out}`", file=sys.stderr)
    return 0


def _formatted(files: dict[str, str]) -> dict[str, str]:
    """Laid out as `cardc fmt` would, where the formatter is available."""
    try:
        from cardc.fmt import format_source  # type: ignore[attr-defined]
    except ImportError:
        return files
    return {rel: (format_source(text) if rel.endswith(".cardc") else text) for rel, text in files.items()}
