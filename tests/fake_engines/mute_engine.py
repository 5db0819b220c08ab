"""A fake engine that never completes the handshake (never answers tne)."""
import sys

from fakebot import main

sys.exit(main(sys.argv[1:], handshake='silent'))
