"""Sub-commands of `cardc` that live in their own module: `add_arguments(parser)` and `run(args) -> int`."""
