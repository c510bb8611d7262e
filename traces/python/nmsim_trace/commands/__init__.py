"""Subcommands of `nmsim-trace`, in the order `--help` lists them."""

from . import summary

ALL = [summary]
