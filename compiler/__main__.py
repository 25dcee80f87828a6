"""`python -m compiler` runs the cardc command line."""

import sys

from compiler.cli import main

sys.exit(main())
