"""A fake engine that stops answering at its 1st go and starts a child process first."""
import sys

from fakebot import main

sys.exit(main(sys.argv[1:], hang_at=1, child=True))
