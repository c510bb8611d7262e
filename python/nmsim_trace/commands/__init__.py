"""Subcommands of `nmsim-trace`, in the order `--help` lists them."""

from . import (breakdown, energy, export_chrome, membrane, raster, summary, sweep, timeline)

ALL = [summary, breakdown, timeline, raster, membrane, energy, export_chrome, sweep]
