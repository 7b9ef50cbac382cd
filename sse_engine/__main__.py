"""``python -m sse_engine``: the command-line tool."""

import sys

from sse_engine.cli import main

if __name__ == "__main__":
    sys.exit(main())
