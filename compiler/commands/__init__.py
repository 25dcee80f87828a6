"""Subcommands of `cardc`, one module each: `add_arguments(parser)` and `run(args) -> int`."""
