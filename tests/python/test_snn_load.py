"""A loaded spiking network on all 152 PEs (the `nmsim bench` network: 76 Poisson source PEs, 76
LIF PEs, about 37,000 synaptic events per tick) must still match the integer reference spike for
spike. It caught a lost wake-up in the communication controller: when the unit's delivery process
ran at a time with nothing due, it did not re-arm for the packets still in flight, which then
waited for the next packet, often a tick later (docs/router.md, "Comms"). 180 ticks failed with
12 differing spikes before the fix.

NMSIM_BINARY comes from ctest; a missing variable fails the tests.
"""

import subprocess


def bench_network(blocks=76):
    lines = ["timestep: 1.0", "seed: 5", "sources:"]
    lines += [f"  - {{name: s{b}, size: 255, rate: 50}}" for b in range(blocks)]
    lines.append("populations:")
    lines += [f"  - {{name: n{b}, size: 255, tau_m: 20, v_th: 150}}" for b in range(blocks)]
    lines.append("projections:")
    for b in range(blocks):
        lines.append(f"  - {{name: f{b}, pre: s{b}, post: n{b}, connector: fixed_probability, "
                     "p: 0.15, weight: 4, delay: 1}")
        lines.append(f"  - {{name: r{b}, pre: n{b}, post: n{(b + 1) % blocks}, "
                     "connector: fixed_probability, p: 0.02, weight: -3, delay: 2}")
    return "\n".join(lines) + "\n"


def test_full_chip_network_matches_the_reference(nmsim_binary, tmp_path):
    net = tmp_path / "net.yaml"
    net.write_text(bench_network())
    sc = tmp_path / "s.yaml"
    sc.write_text("platform: {kind: spinnaker2_chip, params: {sim.max_time: 5s}}\n"
                  f"workload:\n  snn: {{network: {net}, ticks: 180}}\n")
    p = subprocess.run([nmsim_binary, "run", str(sc), "-o", str(tmp_path / "r.h5")],
                       capture_output=True, text=True, timeout=280)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "PASS" in p.stdout and "overruns 0;" in p.stdout and " 0 dropped" in p.stdout
