"""What the command line does with an exception nobody expected: one line, a report file, exit code 3.

Content errors are diagnostics (exit 1) and command-line errors exit 2; anything else is a bug in cardc, and
the user gets a line saying so and where the details went, never a raw traceback.
"""

from __future__ import annotations

import errno
import os
import platform
import sys
import tempfile
import traceback
from collections.abc import Sequence

from cardc.diagnostics import printable

# Failures of the machine rather than of cardc: reported as plain errors (exit 1), without a report.
_ENVIRONMENT = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EMFILE, errno.ENFILE,
                errno.EIO}

INTERNAL_ERROR = 3
ENVIRONMENT_ERROR = 1


def handle(exc: BaseException, argv: Sequence[str] | None) -> int:
    """Print one line about `exc` on stderr and return the exit code."""
    if isinstance(exc, OSError) and exc.errno in _ENVIRONMENT:
        where = f" {printable(os.fsdecode(exc.filename))}:" if exc.filename is not None else ""
        print(f"cardc: error:{where} {exc.strerror or exc}", file=sys.stderr)
        return ENVIRONMENT_ERROR
    report = write_report(exc, argv)
    detail = printable(str(exc).strip().split("\n", 1)[0])
    if len(detail) > 200:
        detail = detail[:200] + "..."
    where = f"report written to {report}" if report else "no report could be written"
    print(f"cardc: internal error: {type(exc).__name__}{': ' + detail if detail else ''} ({where}); "
          "this is a bug in cardc, please report it with that file", file=sys.stderr)
    return INTERNAL_ERROR


def write_report(exc: BaseException, argv: Sequence[str] | None) -> str | None:
    from cardc import __version__

    try:
        fd, path = tempfile.mkstemp(prefix="cardc-internal-error-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(f"cardc {__version__} on Python {platform.python_version()} ({platform.platform()})\n")
            f.write(f"command: {list(sys.argv[:1]) + list(argv if argv is not None else sys.argv[1:])!r}\n")
            f.write(f"cwd: {os.getcwd()}\n\n")
            f.write("".join(traceback.format_exception(exc)))
            trace = getattr(exc, "trace", None)  # where a child process raised (a backend run in parallel)
            if isinstance(trace, str) and trace:
                f.write(f"\nin the child process:\n{trace}")
        return path
    except (OSError, ValueError, MemoryError, RecursionError):  # a courtesy: failing must not hide the error line
        return None
