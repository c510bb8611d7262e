"""Python reader for nmsim HDF5 traces.

    import nmsim_trace
    t = nmsim_trace.load("run.h5")
    t.attrs, t.run, t.config, t.params, t.components
    t.event_kinds(); t.events("mla_ops"); t.summary(); t.summary_wide()

The file layout (schema "nmsim-trace", version 1) is documented in traces/README.md.
"""

from .reader import INCOMPLETE, SCHEMA, SCHEMA_VERSION, Trace, TraceError, load

__all__ = ["INCOMPLETE", "SCHEMA", "SCHEMA_VERSION", "Trace", "TraceError", "load"]
