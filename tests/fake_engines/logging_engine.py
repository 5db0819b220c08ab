"""A well-behaved fake engine that logs every line it receives (--log-dir, required)."""
import sys

from fakebot import main

if "--log-dir" not in sys.argv:
    sys.exit("logging_engine.py: --log-dir DIR is required")
sys.exit(main(sys.argv[1:]))
