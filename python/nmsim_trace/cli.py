"""The `nmsim-trace` command: subcommands over trace files.

To add a subcommand, write a module in nmsim_trace/commands/ with
``register(subparsers)`` (adds its parser and sets ``func=run``) and ``run(args) -> int``, and list
it in commands/__init__.py. Raise TraceError for problems with the input: main() prints it as one
line on stderr and exits with status 2.
"""

import argparse
import os
import sys

from . import commands
from .reader import TraceError

EXIT_USAGE = 2  # argparse uses 2 for usage errors too


def build_parser():
    parser = argparse.ArgumentParser(
        prog="nmsim-trace", description="Inspect nmsim HDF5 trace files.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in commands.ALL:
        module.register(sub)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except TraceError as e:
        print(f"nmsim-trace: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error. Keep Python from complaining
        # again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
