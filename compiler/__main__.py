"""`python -m cardc` runs the cardc command line."""

import sys

from cardc.cli import main

sys.exit(main())
