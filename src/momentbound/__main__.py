"""``python -m momentbound``: the same command-line interface as the ``momentbound`` script."""

from momentbound.cli import main

if __name__ == "__main__":
    main(prog_name="momentbound")
