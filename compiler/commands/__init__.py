"""One module per `cardc` subcommand: `add_arguments(parser)` and `run(args) -> int`."""
