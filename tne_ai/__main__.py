"""Run the `tne-ai` command as `python -m tne_ai`."""
from tne_ai.cli import main

if __name__ == "__main__":
    main()
