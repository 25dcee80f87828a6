"""cardc: a declarative card-and-rules compiler for board-game designers."""

__version__ = "0.1.0"
