"""Commands of the `cardc` command line, one module each."""
