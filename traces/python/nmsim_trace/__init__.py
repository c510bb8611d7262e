"""Python reader and analysis of nmsim HDF5 traces.

    import nmsim_trace
    t = nmsim_trace.load("run.h5")
    t.attrs, t.run, t.config, t.params, t.components
    t.event_kinds(); t.events("mla_ops"); t.table("dnn/entries"); t.summary(); t.summary_wide()

    nmsim_trace.dnn_entries(t), nmsim_trace.worker_times(t), nmsim_trace.spikes(t, "output"),
    nmsim_trace.membrane(t), nmsim_trace.energy(t), nmsim_trace.chrome_trace(t),
    nmsim_trace.load_sweep("results.h5")      # DataFrames (chrome_trace: a dict); more in .analysis

The file layout (schema "nmsim-trace", version 1) and the API are documented in traces/README.md.
"""

from .analysis import (chrome_trace, dnn_breakdown, dnn_entries, energy, energy_table,
                       load_sweep, membrane, populations, spike_rates, spikes, worker_times)
from .reader import INCOMPLETE, SCHEMA, SCHEMA_VERSION, Trace, TraceError, load

__all__ = ["INCOMPLETE", "SCHEMA", "SCHEMA_VERSION", "Trace", "TraceError", "load",
           "chrome_trace", "dnn_breakdown", "dnn_entries", "energy", "energy_table", "load_sweep",
           "membrane", "populations", "spike_rates", "spikes", "worker_times"]
