"""A fake engine that exits with status 3 at its 3rd go (see fakebot.py for the flags)."""
import sys

from fakebot import main

sys.exit(main(sys.argv[1:], crash_at=3))
