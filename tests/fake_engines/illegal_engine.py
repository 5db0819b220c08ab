"""A fake engine that answers a well-formed but illegal move at its 2nd go."""
import sys

from fakebot import main

sys.exit(main(sys.argv[1:], illegal_at=2))
