"""Errors the engine raises to its callers (a module of its own: a compiled runtime leaves it as Python, since
compiled classes cannot derive from `RuntimeError`)."""

from __future__ import annotations


class SetupError(RuntimeError):
    """The content's set-up cannot seat the players asked for (a deck deals too few characters)."""
