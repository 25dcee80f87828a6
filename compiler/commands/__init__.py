"""Command-line commands that live in their own module (`add_arguments(parser)`, `run(args) -> int`)."""
