"""A well-behaved fake engine: a random legal decision from its own seat's view."""
import sys

from fakebot import main

sys.exit(main(sys.argv[1:]))
