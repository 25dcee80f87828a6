"""`python -m cardc` runs the cardc command line."""

from cardc.cli import run

run()
