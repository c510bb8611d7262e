"""Python reader, analysis and plots of nmsim HDF5 traces.

    import nmsim_trace
    t = nmsim_trace.load("run.h5")
    t.attrs, t.run, t.config, t.params, t.components
    t.event_kinds(); t.events("mla_ops"); t.table("dnn/entries"); t.summary(); t.summary_wide()

    nmsim_trace.dnn_breakdown(t), nmsim_trace.dnn_inferences(t), nmsim_trace.dnn_outputs(t),
    nmsim_trace.bss2_rates(t), nmsim_trace.spikes(t, "output"), nmsim_trace.energy(t),
    nmsim_trace.chrome_trace(t), nmsim_trace.load_sweep("results.h5")   # more in .analysis

    from nmsim_trace import plots     # every plot takes ax= and returns the Axes
    plots.timeline(t, inference=0); plots.energy(t, log=True, exclude=["setup"])

The file layout (schema "nmsim-trace", version 1) and the API are documented in traces/README.md.
"""

from . import analysis, plots, units
from .analysis import (bss2_rates, bss2_runs, chrome_trace, core_activity, dnn_breakdown,
                       dnn_entries, dnn_inferences, dnn_layers, dnn_outputs, dnn_totals, energy,
                       energy_table, faults, load_sweep, membrane, populations, spike_rates,
                       spikes, worker_times)
from .reader import INCOMPLETE, SCHEMA, SCHEMA_VERSION, Trace, TraceError, load

__all__ = ["INCOMPLETE", "SCHEMA", "SCHEMA_VERSION", "Trace", "TraceError", "load",
           "analysis", "plots", "units",
           "bss2_rates", "bss2_runs", "chrome_trace", "core_activity", "dnn_breakdown",
           "dnn_entries", "dnn_inferences", "dnn_layers", "dnn_outputs", "dnn_totals", "energy",
           "energy_table", "faults", "load_sweep", "membrane", "populations", "spike_rates",
           "spikes", "worker_times"]
