"""nmsim.torch and the compiled module nmsim._hagen (docs/torch.md): the three modes against
independent computations, the simulated chips bit-exact in the ideal setting, the convolutions'
unrolling, the straight-through backward, operator errors as ValueError, training in mock mode.
The module is found through NMSIM_BUILD_DIR (set by ctest) like any user's session.
"""

import numpy as np
import pytest
import torch

from nmsim import _native
import nmsim.torch as hx


pytestmark = pytest.mark.usefixtures("torch_defaults")


def numpy_reference(x, w, num_sends):
    """The ideal chip written independently: per 128-row chunk floor(sends * x.w / 512) clamped
    to [-128, 127], the chunks summed and clamped again."""
    x = np.asarray(x, dtype=np.int64)
    w = np.asarray(w, dtype=np.int64)
    total = np.zeros((x.shape[0], w.shape[1]), dtype=np.int64)
    for r0 in range(0, w.shape[0], 128):
        part = x[:, r0:r0 + 128] @ w[r0:r0 + 128]
        total += np.clip(np.floor_divide(num_sends * part, 512), -128, 127)
    return np.clip(total, -128, 127)


def operands(rng, batch, n_in, n_out, w_max=63):
    return (rng.integers(0, 32, (batch, n_in)), rng.integers(-w_max, w_max + 1, (n_in, n_out)))


@pytest.mark.parametrize("num_sends", [1, 3])
def test_reference_equals_an_independent_integer_computation(hagen, num_sends):
    rng = np.random.default_rng(1)
    x, w = operands(rng, 9, 300, 70)  # three row chunks
    x[0] = 31
    w[:, 0], w[:, 1] = 63, -63  # sums far beyond the output range
    y = hagen.reference(x, w, num_sends)
    assert y.shape == (9, 70) and y.dtype == np.int32
    want = numpy_reference(x, w, num_sends)
    np.testing.assert_array_equal(y, want)
    assert want[0, 0] == 127 and want[0, 1] == -128  # saturation was exercised
    assert len(np.unique(want)) > 20


def test_simulate_ideal_equals_the_reference_over_several_tiles(hagen):
    # 200 x 300: 2 row splits x 2 column splits = 4 tiles on the 2 halves of one chip (2 passes).
    rng = np.random.default_rng(2)
    x, w = operands(rng, 3, 200, 300, w_max=30)
    x[1, ::3] = 0  # zero inputs send no event
    y, t = hagen.simulate(x, w, num_sends=2, wait_between_events=8, chips=1,
                          params=hx.IDEAL_PARAMS, seed=3)
    np.testing.assert_array_equal(y, numpy_reference(x, w, 2))
    assert t["vectors"] == 4 * 3 and t["macs"] == 3 * 200 * 300
    assert t["realtime"] > 0 and t["config"] > 0 and t["transfer"] > 0
    assert t["total"] == pytest.approx(t["transfer"] + t["config"] + t["realtime"] + t["other"])
    assert t["wall"] >= t["total"]  # one chip: nothing overlaps, the host's stages add


def test_simulate_through_the_torch_api_and_its_statistics(hagen):
    hx.configure(mode="simulate", params=hx.IDEAL_PARAMS, chips=2)
    rng = np.random.default_rng(4)
    x, w = operands(rng, 2, 130, 40)
    for _ in range(2):
        y = hx.matmul(torch.tensor(x, dtype=torch.float32), torch.tensor(w, dtype=torch.float32))
        np.testing.assert_array_equal(y.numpy(), numpy_reference(x, w, 1))
    s = hx.stats()
    assert s["calls"] == 2 and s["macs"] == 2 * 2 * 130 * 40
    assert s["wall"] == pytest.approx(2 * hx.last_times()["wall"])
    # Trial-to-trial noise: a new CADC noise seed per call unless fresh_noise is off.
    hx.configure(params={**hx.IDEAL_PARAMS, "cadc.noise_lsb": 2})
    xt, wt = torch.tensor(x, dtype=torch.float32), torch.tensor(w, dtype=torch.float32)
    assert not torch.equal(hx.matmul(xt, wt), hx.matmul(xt, wt))
    hx.configure(fresh_noise=False)
    assert torch.equal(hx.matmul(xt, wt), hx.matmul(xt, wt))


def test_simulate_with_default_parameters_deviates_but_correlates(hagen):
    rng = np.random.default_rng(5)
    x, w = operands(rng, 6, 100, 120, w_max=40)
    ideal = numpy_reference(x, w, 1)
    y, _ = hagen.simulate(x, w, seed=7)  # the platform defaults: neuron mismatch on
    assert not np.array_equal(y, ideal)
    assert np.corrcoef(y.ravel(), ideal.ravel())[0, 1] > 0.9
    assert np.abs(y - ideal).mean() < 10


def test_mock_statistics_follow_gain_and_noise(hagen):
    rng = np.random.default_rng(6)
    x = rng.integers(0, 32, (4000, 100))
    w = rng.integers(-20, 21, (100, 8))
    exact = 0.002 * (x @ w)  # one chunk; |exact| stays far below saturation
    assert np.abs(exact).max() < 100
    y = hagen.mock(x, w, num_sends=1, gain=0.002, noise_std=2.0, seed=9)
    d = y - exact
    # floor(a + N(0, 2)): mean a - 1/2, spread sqrt(4 + 1/12)
    assert d.mean() == pytest.approx(-0.5, abs=0.05)
    assert d.std() == pytest.approx(np.sqrt(4 + 1 / 12), rel=0.03)
    np.testing.assert_array_equal(y, hagen.mock(x, w, 1, 0.002, 2.0, 9))  # seeded
    quiet = hagen.mock(x, w, num_sends=2, gain=0.002, noise_std=0.0, seed=9)
    np.testing.assert_array_equal(quiet, np.floor(2 * exact))


def torch_conv_reference(y_float):
    return torch.clamp(torch.floor(y_float / 512), -128, 127)


def test_conv1d_equals_torch_conv_in_ideal_mode():
    g = torch.Generator().manual_seed(7)
    x = torch.randint(0, 32, (3, 4, 40), generator=g).float()
    k = torch.randint(-63, 64, (6, 4, 9), generator=g).float()  # 36 rows: one tile
    y = hx.conv1d(x, k, stride=3, mode="ideal")
    want = torch_conv_reference(F_conv(torch.nn.functional.conv1d, x, k, 3))
    assert y.shape == want.shape == (3, 6, 11)
    assert torch.equal(y, want)
    assert torch.equal(hx.conv1d(x[0], k, stride=3, mode="ideal"), want[0])  # unbatched


def test_conv2d_equals_torch_conv_in_ideal_mode():
    g = torch.Generator().manual_seed(8)
    x = torch.randint(0, 32, (2, 3, 11, 9), generator=g).float()
    k = torch.randint(-63, 64, (5, 3, 3, 4), generator=g).float()  # 36 rows: one tile
    y = hx.conv2d(x, k, stride=2, mode="ideal")
    want = torch_conv_reference(F_conv(torch.nn.functional.conv2d, x, k, 2))
    assert y.shape == want.shape == (2, 5, 5, 3)
    assert torch.equal(y, want)


def F_conv(fn, x, k, stride):
    """torch's convolution in float64: exact for these integer sums."""
    return fn(x.double(), k.double(), stride=stride).float()


def test_conv_layers_match_the_functions():
    torch.manual_seed(0)
    c1 = hx.Conv1d(2, 3, 5, stride=2, mode="ideal")
    x = torch.randint(0, 32, (4, 2, 20)).float()
    assert torch.equal(c1(x), hx.conv1d(x, c1.weight, 2, mode="ideal") + c1.bias.reshape(-1, 1))
    c2 = hx.Conv2d(2, 3, (2, 3), bias=False, mode="ideal")
    x = torch.randint(0, 32, (1, 2, 6, 7)).float()
    assert torch.equal(c2(x), hx.conv2d(x, c2.weight, 1, mode="ideal"))
    with pytest.raises(ValueError, match="Conv2d: padding"):
        hx.Conv2d(1, 1, 3, padding=1)


@pytest.mark.parametrize("ste_gain", [False, True])
def test_backward_is_the_straight_through_estimate(ste_gain):
    hx.configure(ste_gain=ste_gain)
    g = torch.Generator().manual_seed(9)
    x = torch.randint(0, 32, (2, 5, 150), generator=g).float().requires_grad_()
    w = torch.randint(-63, 64, (150, 7), generator=g).float().requires_grad_()
    upstream = torch.randn(2, 5, 7, generator=g)
    y = hx.matmul(x, w, num_sends=2, mode="ideal")
    assert y.shape == (2, 5, 7)
    (y * upstream).sum().backward()
    scale = 2 / 512 if ste_gain else 1.0
    torch.testing.assert_close(x.grad, upstream @ w.detach().t() * scale)
    torch.testing.assert_close(
        w.grad, x.detach().reshape(-1, 150).t() @ upstream.reshape(-1, 7) * scale)


def test_bad_operands_raise_value_errors_naming_the_operator(hagen):
    x = np.zeros((2, 10), dtype=np.int64)
    w = np.zeros((10, 3), dtype=np.int64)
    bad_x, bad_w = x.copy(), w.copy()
    bad_x[1, 4] = 32
    bad_w[2, 1] = -64
    with pytest.raises(ValueError, match=r"matmul: input \[1\]\[4\] = 32 outside .*0\.\.31"):
        hagen.reference(bad_x, w)
    with pytest.raises(ValueError, match=r"fc1: weight \[2\]\[1\] = -64 outside .*-63\.\.63"):
        hagen.simulate(x, bad_w, op="fc1")
    with pytest.raises(ValueError, match="matmul: input has 10 features"):
        hagen.mock(x, np.zeros((9, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="2-D"):
        hagen.reference(np.zeros(10, dtype=np.int64), w)
    with pytest.raises(ValueError, match="integers"):
        hagen.reference(x.astype(float), w)
    with pytest.raises(ValueError, match="num_sends = 0 outside 1"):
        hagen.reference(x, w, num_sends=0)
    with pytest.raises(ValueError, match="mock gain"):
        hagen.mock(x, w, gain=2.0)
    with pytest.raises(ValueError, match="unknown chip parameter 'neuron.mismatch_w'.*"
                                         "did you mean 'neuron.mismatch_w_rel'"):
        hagen.simulate(x, w, params={"neuron.mismatch_w": 0})
    with pytest.raises(ValueError, match="cadc.noise_lsb = 100"):
        hagen.simulate(x, w, params={"cadc.noise_lsb": 100})
    # Through torch: rounding first (31.4 is 31), then the range check names the layer.
    assert hx.matmul(torch.full((1, 10), 31.4), torch.ones(10, 3), mode="ideal").shape == (1, 3)
    layer = hx.Linear(10, 3, input_transform=None, mode="mock")
    with pytest.raises(ValueError, match=r"Linear: input \[0\]\[0\] = 40 outside"):
        layer(torch.full((1, 10), 40.0))
    with pytest.raises(ValueError, match="mode 'analog'"):
        hx.matmul(torch.ones(1, 10), torch.ones(10, 3), mode="analog")
    with pytest.raises(ValueError, match="non-finite"):
        hx.matmul(torch.full((1, 10), float("nan")), torch.ones(10, 3), mode="ideal")


def test_parameters_lists_chip_and_host_parameters(hagen):
    p = hagen.parameters()
    assert p["neuron.mismatch_w_rel"][0] == "0.05"
    assert "cadc.noise_lsb" in p and "host.decode_hz" in p
    y, _ = hagen.simulate(np.ones((1, 4), dtype=np.int64), np.full((4, 2), 63),
                          params={**hx.IDEAL_PARAMS, "host.decode_hz": "1e6", "cadc.seed": 3})
    np.testing.assert_array_equal(y, numpy_reference(np.ones((1, 4)), np.full((4, 2), 63), 1))


def test_linear_trains_in_mock_mode():
    torch.manual_seed(1)
    n_in, n_out = 40, 4
    target = hx.Linear(n_in, n_out, bias=False, mode="ideal")
    layer = hx.Linear(n_in, n_out, mode="mock")
    x = torch.randint(0, 32, (256, n_in)).float()
    with torch.no_grad():
        want = target(x)
    opt = torch.optim.SGD(layer.parameters(), lr=0.05)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(layer(x), want)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.3 * losses[0], losses


def test_a_missing_module_names_the_build_command(monkeypatch, tmp_path):
    monkeypatch.setattr(_native, "module_dirs", lambda: [("nowhere", tmp_path)])
    monkeypatch.delitem(__import__("sys").modules, "nmsim._hagen", raising=False)
    with pytest.raises(ImportError, match="ninja -C build nmsim_pyext_hagen"):
        _native.load()
