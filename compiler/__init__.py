"""cardc: a declarative card-and-rules compiler for board-game designers."""

__version__ = "0.1.0"

from cardc import dataclass_code, regex_code  # noqa: E402 - after the version, which the cache's key reads

regex_code.install()  # before any module that compiles regular expressions is imported
dataclass_code.install()  # before any module that defines dataclasses is imported
