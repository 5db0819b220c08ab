"""A fake engine that answers a bestmove that is no move at its 2nd go."""
import sys

from fakebot import main

sys.exit(main(sys.argv[1:], garbage_at=2))
