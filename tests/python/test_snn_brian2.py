"""The SpiNNaker2 serial-paradigm SNN references (tools/reference/snn_ref.h, driven through the
nmsim-snn-ref tool) against Brian2, on a small recurrent network with Poisson inputs.

nmsim-snn-ref is found through the environment variable NMSIM_SNN_REF (build/bin/nmsim-snn-ref).
Brian2 runs with the numpy code generation target, dt = one tick, the same spike trains (from
`--print sources`) and the same synapses (`--print synapses`, the expanded seeded connectors).

The Brian2 model integrates the difference equation of docs/snn_compiler.md ("Per-tick order"),
eq. 1 of seed 001 with i_offset, refractoriness and the reset modes, written as Brian2 code:
- a `run_regularly` operation in the 'groups' slot updates every neuron with the input summed
  for this tick (v = alpha v + I + i_offset - z v_th, or hold v while refractory);
- the threshold (v >= v_th, not while refractory) and reset (z = 1 for subtract, v = v_reset
  for to_v_reset; r = t_ref) follow in their slots;
- a spike at tick s with delay d adds its weight to the target's input sum in the 'synapses'
  slot of tick s + d - 1 (Brian2 delay (d - 1) dt), after that tick's update, so the update of
  tick s + d uses it, as on the chip.

Tolerances:
- float reference vs Brian2: the same spikes (tick, population, neuron) and membrane traces
  within 1e-9 weight LSB. Both evaluate alpha v + I + i_offset - R in doubles in this order, with
  I an exact integer sum, so they agree exactly; a difference means different semantics.
- integer reference vs float reference: the integer one quantises alpha to Q0.16 (an error of at
  most 2^-17) and rounds the membrane to Q16.16 every tick, so a threshold crossing eventually
  moves by a tick and the recurrent network's spikes diverge from there (here after 1118 ticks):
  the spikes of the first 500 ticks are identical, per-population rates agree within 3 %, and
  every neuron's spike count n within 2 sqrt(n) + 2 (about the spread of a count of n).
- Poisson sources: the spike count of every source population within 4 standard deviations of
  rate x ticks x size (Bernoulli per tick with p = 1 - exp(-rate dt)).
"""

import csv
import io
import math
import os
import subprocess

import numpy as np
import pytest

import brian2  # a missing brian2 fails the tests (never a silent skip)
from brian2 import (Network, NeuronGroup, SpikeGeneratorGroup, SpikeMonitor, StateMonitor, Synapses, defaultclock,
                    ms, prefs)

prefs.codegen.target = "numpy"

TICKS = 2000
NETWORK = """
timestep: 1
seed: 11
sources:
  - {name: in, size: 100, rate: 20}
populations:
  - {name: exc, size: 50, tau_m: 20, v_th: 20, refractory: 2, i_offset: 0.1, record_v: [0, 7]}
  - {name: inh, size: 20, tau_m: 10, v_th: 15, reset: to_v_reset, v_reset: -1, record_v: [3]}
projections:
  - {name: in_exc, pre: in, post: exc, connector: fixed_probability, p: 0.2, weight: 4, delay: 1}
  - {name: in_inh, pre: in, post: inh, connector: fixed_probability, p: 0.2, weight: 3, delay: 2}
  - {name: exc_inh, pre: exc, post: inh, connector: fixed_probability, p: 0.3, weight: 5, delay: 1}
  - {name: inh_exc, pre: inh, post: exc, connector: fixed_probability, p: 0.3, weight: -6, delay: 3}
  - {name: exc_exc, pre: exc, post: exc, connector: fixed_probability, p: 0.1, weight: 2, delay: 16,
     allow_self: false}
"""
# The populations' parameters as Brian2 constants (the same values as NETWORK).
POPS = {
    "exc": dict(size=50, alpha=math.exp(-1 / 20), v_th=20.0, i_offset=0.1, t_ref=2, subtract=1.0, v_reset=0.0),
    "inh": dict(size=20, alpha=math.exp(-1 / 10), v_th=15.0, i_offset=0.0, t_ref=0, subtract=0.0, v_reset=-1.0),
}
RECORD_V = {"exc": [0, 7], "inh": [3]}


def snn_ref_path():
    path = os.environ.get("NMSIM_SNN_REF")
    if not path:
        pytest.fail("environment variable NMSIM_SNN_REF is not set (the built nmsim-snn-ref tool)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"NMSIM_SNN_REF={path} is not an executable file (build it first)")
    return path


def snn_ref(net_file, *args):
    out = subprocess.run([snn_ref_path(), str(net_file), "--ticks", str(TICKS), *args], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    return list(csv.DictReader(io.StringIO(out)))


@pytest.fixture(scope="module")
def net_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("snn") / "net.yaml"
    path.write_text(NETWORK)
    return path


def spike_set(rows):
    return sorted((int(r["tick"]), r["population"], int(r["neuron"])) for r in rows)


def run_brian2(sources, synapses):
    brian2.start_scope()
    defaultclock.dt = 1 * ms
    eqs = """
    v : 1
    ie : 1
    r : 1
    z : 1
    q : 1
    rt : 1
    alpha : 1 (shared, constant)
    v_th : 1 (shared, constant)
    i_offset : 1 (shared, constant)
    t_ref : 1 (shared, constant)
    subtract : 1 (shared, constant)
    v_reset : 1 (shared, constant)
    """
    update = """
    q = int(r < 0.5)
    rt = z * v_th * subtract
    v = q * (alpha * v + ie + i_offset - rt) + (1 - q) * (v - rt)
    r = r - (1 - q)
    z = 0
    ie = 0
    """
    groups, objs = {}, []
    for name, p in POPS.items():
        g = NeuronGroup(p["size"], eqs, threshold="q > 0.5 and v >= v_th",
                        reset="z = 1\nr = t_ref\nv = subtract * v + (1 - subtract) * v_reset", name=name)
        for k in ("alpha", "v_th", "i_offset", "t_ref", "subtract", "v_reset"):
            setattr(g, k, p[k])
        g.run_regularly(update, when="groups")
        groups[name] = g
        objs.append(g)
    idx = np.array([int(r["neuron"]) for r in sources])
    times = np.array([int(r["tick"]) for r in sources])
    gen = SpikeGeneratorGroup(100, idx, times * ms, name="source_in")
    groups["in"] = gen
    objs.append(gen)
    by_pair = {}
    for r in synapses:
        by_pair.setdefault((r["pre"], r["post"]), []).append(r)
    for (pre, post), rows in by_pair.items():
        s = Synapses(groups[pre], groups[post], "w : 1", on_pre="ie_post += w")
        s.connect(i=np.array([int(r["pre_index"]) for r in rows]), j=np.array([int(r["post_index"]) for r in rows]))
        s.w = np.array([int(r["weight"]) * (-1 if r["type"] == "inhibitory" else 1) for r in rows], dtype=float)
        s.delay = np.array([int(r["delay"]) - 1 for r in rows]) * ms
        objs.append(s)
    mons = {name: SpikeMonitor(groups[name]) for name in POPS}
    vmons = {name: StateMonitor(groups[name], "v", record=RECORD_V[name], when="end") for name in POPS}
    Network(objs + list(mons.values()) + list(vmons.values())).run(TICKS * ms)
    spikes = sorted((int(round(t / ms)), name, int(i)) for name, m in mons.items() for i, t in zip(m.i, m.t))
    volts = {(name, n): np.asarray(vmons[name].v[k]) for name in POPS for k, n in enumerate(RECORD_V[name])}
    return spikes, volts


def rates(spikes):
    out = {}
    for _, pop, _ in spikes:
        out[pop] = out.get(pop, 0) + 1
    return {p: out.get(p, 0) / (POPS[p]["size"] * TICKS * 1e-3) for p in POPS}


def test_poisson_sources_have_their_rate(net_file):
    sources = snn_ref(net_file, "--print", "sources")
    p = 1 - math.exp(-20 * 1e-3)
    mean, sd = 100 * TICKS * p, math.sqrt(100 * TICKS * p * (1 - p))
    assert abs(len(sources) - mean) < 4 * sd, f"{len(sources)} source spikes, expected {mean:.0f} +- {4 * sd:.0f}"
    # Reproducible: the same file gives the same trains.
    assert snn_ref(net_file, "--print", "sources") == sources


def test_float_reference_matches_brian2(net_file):
    sources = snn_ref(net_file, "--print", "sources")
    synapses = snn_ref(net_file, "--print", "synapses")
    ref = spike_set(snn_ref(net_file, "--float"))
    br, volts = run_brian2(sources, synapses)
    print(f"\nfloat reference {len(ref)} spikes, Brian2 {len(br)} spikes; rates {rates(ref)}")
    assert len(ref) > 500, "too few spikes to compare"
    assert ref == br, f"first difference: {next((a, b) for a, b in zip(ref, br) if a != b)}"
    ref_v = {}
    for r in snn_ref(net_file, "--float", "--print", "voltages"):
        ref_v.setdefault((r["population"], int(r["neuron"])), []).append(float(r["v"]))
    for key, v in volts.items():
        assert np.max(np.abs(np.array(ref_v[key]) - v)) < 1e-9, f"membrane of {key} differs"


def test_integer_reference_follows_the_float_one(net_file):
    ints = spike_set(snn_ref(net_file))
    floats = spike_set(snn_ref(net_file, "--float"))
    ri, rf = rates(ints), rates(floats)
    first = next((a[0] for a, b in zip(ints, floats) if a != b), TICKS)
    print(f"\ninteger rates {ri}, float rates {rf}, first differing spike at tick {first}")
    assert [s for s in ints if s[0] < 500] == [s for s in floats if s[0] < 500], "spikes differ before tick 500"
    for pop in POPS:
        assert abs(ri[pop] - rf[pop]) <= 0.03 * rf[pop], f"{pop}: integer {ri[pop]} Hz vs float {rf[pop]} Hz"
    count_i, count_f = {}, {}
    for counts, spikes in ((count_i, ints), (count_f, floats)):
        for _, pop, n in spikes:
            counts[(pop, n)] = counts.get((pop, n), 0) + 1
    for key in set(count_i) | set(count_f):
        ci, cf = count_i.get(key, 0), count_f.get(key, 0)
        assert abs(ci - cf) <= 2 * math.sqrt(max(ci, cf)) + 2, f"{key}: {ci} spikes (integer) vs {cf} (float)"
