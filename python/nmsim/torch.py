"""PyTorch front end of BrainScaleS-2's hagen mode (analog vector-matrix multiplication;
docs/torch.md).

    import nmsim.torch as hx
    y = hx.matmul(x, w, num_sends=1, mode="mock")        # x: (..., in) in 0..31, w: (in, out)
    layer = hx.Linear(128, 10, mode="simulate")            # a torch.nn.Linear in hardware units
    hx.configure(params=hx.IDEAL_PARAMS)                   # the simulated chips' setting
    hx.stats()                                             # simulated time of the simulate calls

Values are in hardware units: float tensors holding integers, inputs 0..31, weights -63..63,
results -128..127 (floats). The forward pass runs in the compiled module nmsim._hagen in one
of three modes:

    "mock"      hxtorch's formula: per 128-row chunk floor(num_sends * gain * x.w + noise),
                clamped, summed, clamped; fast, no time;
    "ideal"     the ideal chip's integer reference: gain 1/512, no noise, no mismatch;
    "simulate"  the whole chip simulation (FPGA, links, synapse drivers, synapses, integrating
                neurons, CADC): values with the chips' mismatch and noise, and simulated time.

The backward pass is in software with straight-through estimation: grad_input = grad @ W^T,
grad_weight = x^T @ grad (hxtorch's mac_backward), optionally scaled by gain * num_sends.
"""

import dataclasses

import numpy as np
import torch
import torch.nn.functional as F

from nmsim import _native

INPUT_MAX = 31          # 5-bit activations 0..31
WEIGHT_MAX = 63         # 6-bit weights with sign: -63..63
OUT_MIN, OUT_MAX = -128, 127
IDEAL_GAIN = 1 / 512    # nmsim's chip: 1/512 CADC LSB per unit of x * w (docs/bss2_hagen.md)
MODES = ("mock", "ideal", "simulate")

# The simulated chips without fixed-pattern mismatch and noise: bit-exact with mode "ideal".
IDEAL_PARAMS = {"neuron.mismatch_tau_rel": 0, "neuron.mismatch_c_rel": 0,
                "neuron.mismatch_w_rel": 0, "neuron.mismatch_v_mV": 0, "neuron.noise_mV": 0,
                "cadc.noise_lsb": 0}


@dataclasses.dataclass
class Config:
    """Module-wide settings (``configure()``); the layers' and functions' ``mode=None`` means
    ``mode`` here."""
    mode: str = "mock"
    # simulate: chips simulated, chip parameters (dotted names as in a scenario's
    # platform.params: "neuron.mismatch_w_rel", "cadc.noise_lsb", "host.decode_hz"; values as
    # numbers or texts with units) and the chips' seed (their fixed pattern and noise).
    chips: int = 1
    params: dict = dataclasses.field(default_factory=dict)
    seed: int = 0
    # mock: hxtorch's default gain (LSB per unit of x * w) and noise (LSB). The noise is drawn
    # from a seed taken from torch's generator, so torch.manual_seed makes mock runs repeatable.
    mock_gain: float = 0.002
    mock_noise_std: float = 2.0
    # simulate: the CADC's noise seed drawn per call from torch's generator (trial-to-trial
    # noise that differs between calls, repeatable under torch.manual_seed) unless the
    # params give "cadc.seed"; False: every call with the same operands gets the same noise.
    fresh_noise: bool = True
    # Straight-through estimation: False = hxtorch's code (unscaled), True = the gradients
    # times gain * num_sends, the forward pass's slope (seed 004 sec. 4.2.1).
    ste_gain: bool = False


config = Config()
_STAT_KEYS = ("transfer", "config", "realtime", "other", "host_graph", "host_preprocess",
              "host_encode", "host_decode", "host_postprocess", "total", "wall")
_COUNT_KEYS = ("calls", "executions", "vectors", "macs")
_stats = {}
_last_times = {}


def configure(**settings):
    """Changes module-wide settings (fields of ``Config``); returns the new ``config``."""
    names = {f.name for f in dataclasses.fields(Config)}
    for key, value in settings.items():
        if key not in names:
            raise ValueError(f"nmsim.torch.configure: unknown setting {key!r} "
                             f"(settings: {', '.join(sorted(names))})")
        if key == "mode":
            _mode(value)
        if key == "params":
            value = dict(value)
        setattr(config, key, value)
    return config


def reset_stats():
    """Sets the accumulated simulated time of the simulate calls to zero."""
    _stats.clear()
    _stats.update({k: 0.0 for k in _STAT_KEYS})
    _stats.update({k: 0 for k in _COUNT_KEYS})


def stats():
    """The simulate calls since the last ``reset_stats()``: simulated microseconds per category
    (transfer, config, realtime, other, host_graph, host_preprocess, host_encode, host_decode,
    host_postprocess; total = the chips' executions, wall = the products' duration with the
    chips overlapping) and counts (calls, executions, vectors, macs)."""
    return dict(_stats)


def last_times():
    """The times of the last simulate call (same keys as ``stats()``, without calls)."""
    return dict(_last_times)


reset_stats()


def _mode(mode):
    mode = config.mode if mode is None else mode
    if mode not in MODES:
        raise ValueError(f"nmsim.torch: mode {mode!r} is not one of {', '.join(MODES)}")
    return mode


def _ints(t, op, what):
    t = t.detach()
    if not torch.isfinite(t).all():
        raise ValueError(f"{op}: {what} has non-finite values")
    return torch.round(t).to(device="cpu", dtype=torch.int64).numpy()


def gain(mode=None):
    """The forward pass's LSB per unit of x * w in ``mode`` (the chip's nominal gain for
    simulate)."""
    return config.mock_gain if _mode(mode) == "mock" else IDEAL_GAIN


def _forward(x, w, num_sends, wait_between_events, mode, op):
    """The product of 2-D integer arrays in ``mode``: a numpy int32 array."""
    hagen = _native.load()
    if mode == "ideal":
        return hagen.reference(x, w, num_sends, op)
    if mode == "mock":
        seed = int(torch.randint(0, 2**62, (1,)).item())
        return hagen.mock(x, w, num_sends, config.mock_gain, config.mock_noise_std, seed, op)
    params = dict(config.params)
    if config.fresh_noise and "cadc.seed" not in params:
        params["cadc.seed"] = int(torch.randint(0, 2**62, (1,)).item())
    y, times = hagen.simulate(x, w, num_sends, wait_between_events, config.chips, params,
                              config.seed, op)
    _last_times.clear()
    _last_times.update(times)
    for k, v in times.items():
        _stats[k] += v
    _stats["calls"] += 1
    return y


class _HagenMatmul(torch.autograd.Function):
    """x (batch x in) @ w (in x out) on the hardware; straight-through backward."""

    @staticmethod
    def forward(ctx, x, w, num_sends, wait_between_events, mode, op):
        ctx.save_for_backward(x, w)
        ctx.scale = gain(mode) * num_sends if config.ste_gain else 1.0
        y = _forward(_ints(x, op, "input"), _ints(w, op, "weight"), num_sends,
                     wait_between_events, mode, op)
        return torch.from_numpy(np.asarray(y, dtype=np.float32)).to(device=x.device,
                                                                      dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            grad_x = grad.matmul(w.t()) * ctx.scale
        if ctx.needs_input_grad[1]:
            grad_w = x.t().matmul(grad) * ctx.scale
        return grad_x, grad_w, None, None, None, None


def matmul(input, other, num_sends=1, wait_between_events=8, mode=None, op="matmul"):
    """``input`` (..., in) times ``other`` (in, out) on the hardware: (..., out), floats in
    -128..127. Inputs and weights are rounded to integers and must lie in 0..31 and -63..63
    (ValueError naming ``op`` otherwise). ``wait_between_events`` (FPGA cycles of 8 ns) matters
    for simulate only."""
    mode = _mode(mode)
    if other.dim() != 2:
        raise ValueError(f"{op}: the weight must be 2-D (in x out), got shape "
                         f"{tuple(other.shape)}")
    if input.dim() == 0 or input.shape[-1] != other.shape[0]:
        raise ValueError(f"{op}: input shape {tuple(input.shape)} does not match the weight "
                         f"{tuple(other.shape)} (in = {other.shape[0]})")
    lead = input.shape[:-1]
    x = input.reshape(-1, other.shape[0])
    y = _HagenMatmul.apply(x, other, int(num_sends), int(wait_between_events), mode, op)
    return y.reshape(*lead, other.shape[1])


def _check_conv(op, stride, padding, dilation, groups):
    if padding not in (0, (0,), (0, 0), "valid"):
        raise ValueError(f"{op}: padding {padding!r} is not supported (the unrolled hagen "
                         "convolution has none; pad the input with zeros instead)")
    if dilation not in (1, (1,), (1, 1)) or groups != 1:
        raise ValueError(f"{op}: only dilation 1 and groups 1 are supported")
    s = stride if isinstance(stride, int) else tuple(stride)
    if isinstance(s, tuple) and len(set(s)) != 1:
        raise ValueError(f"{op}: stride {stride!r}: only equal strides are supported")
    s = s if isinstance(s, int) else s[0]
    if s < 1:
        raise ValueError(f"{op}: stride must be >= 1")
    return s


def conv1d(input, weight, stride=1, num_sends=1, wait_between_events=8, mode=None,
           op="conv1d"):
    """1-D convolution (no padding) as one product: every output position is an input vector,
    the kernel's (channel, tap) are the rows, the output channels the columns (seed 002 Fig. 3).
    ``input`` (N, C, L) or (C, L), ``weight`` (O, C, K): (N, O, L_out)."""
    stride = _check_conv(op, stride, 0, 1, 1)
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    if x.dim() != 3 or weight.dim() != 3 or x.shape[1] != weight.shape[1]:
        raise ValueError(f"{op}: input {tuple(input.shape)} and kernel {tuple(weight.shape)} "
                         "do not fit (N, C, L) and (O, C, K)")
    n, c, length = x.shape
    o, _, k = weight.shape
    if k > length:
        raise ValueError(f"{op}: kernel {k} is longer than the input ({length})")
    cols = x.unfold(2, k, stride)                                   # N, C, L_out, K
    l_out = cols.shape[2]
    rows = cols.permute(0, 2, 1, 3).reshape(n * l_out, c * k)
    y = matmul(rows, weight.reshape(o, c * k).t(), num_sends, wait_between_events, mode, op)
    y = y.reshape(n, l_out, o).permute(0, 2, 1)
    return y[0] if unbatched else y


def conv2d(input, weight, stride=1, num_sends=1, wait_between_events=8, mode=None,
           op="conv2d"):
    """2-D convolution (no padding) unrolled like ``conv1d``: ``input`` (N, C, H, W) or
    (C, H, W), ``weight`` (O, C, KH, KW): (N, O, H_out, W_out)."""
    stride = _check_conv(op, stride, 0, 1, 1)
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    if x.dim() != 4 or weight.dim() != 4 or x.shape[1] != weight.shape[1]:
        raise ValueError(f"{op}: input {tuple(input.shape)} and kernel {tuple(weight.shape)} "
                         "do not fit (N, C, H, W) and (O, C, KH, KW)")
    n, c, h, w = x.shape
    o, _, kh, kw = weight.shape
    if kh > h or kw > w:
        raise ValueError(f"{op}: kernel {kh}x{kw} is larger than the input ({h}x{w})")
    h_out, w_out = (h - kh) // stride + 1, (w - kw) // stride + 1
    cols = F.unfold(x, (kh, kw), stride=stride)                     # N, C*KH*KW, positions
    rows = cols.transpose(1, 2).reshape(n * h_out * w_out, c * kh * kw)
    y = matmul(rows, weight.reshape(o, c * kh * kw).t(), num_sends, wait_between_events, mode,
               op)
    y = y.reshape(n, h_out, w_out, o).permute(0, 3, 1, 2)
    return y[0] if unbatched else y


def clamp_input(x):
    """The default input transform: clamp to the 5-bit activation range 0..31."""
    return x.clamp(0, INPUT_MAX)


def clamp_weight(w):
    """The default weight transform: clamp to the 6-bit signed range -63..63."""
    return w.clamp(-WEIGHT_MAX, WEIGHT_MAX)


class _HardwareLayer:
    """The hardware keywords and transforms shared by the layers."""

    def _hardware(self, num_sends, wait_between_events, mode, input_transform, weight_transform):
        if mode is not None:
            _mode(mode)
        self.num_sends = num_sends
        self.wait_between_events = wait_between_events
        self.mode = mode
        self.input_transform = input_transform
        self.weight_transform = weight_transform

    def _operands(self, input):
        x = self.input_transform(input) if self.input_transform else input
        w = self.weight_transform(self.weight) if self.weight_transform else self.weight
        return x, w

    def reset_parameters(self):
        # Called by torch's layer constructors (this class comes first in the bases). Weights
        # uniform over the whole range: torch's default bound 1/sqrt(in) would round to zero in
        # hardware units.
        super().reset_parameters()
        with torch.no_grad():
            self.weight.uniform_(-WEIGHT_MAX, WEIGHT_MAX)

    def extra_repr(self):
        return (super().extra_repr() + f", num_sends={self.num_sends}, wait_between_events="
                f"{self.wait_between_events}, mode={self.mode!r}")


class Linear(_HardwareLayer, torch.nn.Linear):
    """torch.nn.Linear on the hardware: y = matmul(input_transform(x), weight_transform(W)^T)
    + bias, the bias added in software. Weights are initialised uniform in -63..63."""

    def __init__(self, in_features, out_features, bias=True, num_sends=1,
                 wait_between_events=8, mode=None, input_transform=clamp_input,
                 weight_transform=clamp_weight, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self._hardware(num_sends, wait_between_events, mode, input_transform, weight_transform)

    def forward(self, input):
        x, w = self._operands(input)
        y = matmul(x, w.t(), self.num_sends, self.wait_between_events, self.mode, "Linear")
        return y + self.bias if self.bias is not None else y


class _HardwareConv(_HardwareLayer):
    """The constructor and forward pass shared by Conv1d and Conv2d: `_op` names the layer in
    messages, `_conv` is the unrolled convolution, `_bias_shape` spreads the bias over the output
    positions of a channel."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", num_sends=1,
                 wait_between_events=8, mode=None, input_transform=clamp_input,
                 weight_transform=clamp_weight, device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        _check_conv(self._op, self.stride, self.padding, self.dilation, self.groups)
        self._hardware(num_sends, wait_between_events, mode, input_transform, weight_transform)

    def forward(self, input):
        x, w = self._operands(input)
        y = self._conv(x, w, self.stride[0], self.num_sends, self.wait_between_events, self.mode,
                       self._op)
        if self.bias is None:
            return y
        return y + self.bias.reshape(self._bias_shape)


class Conv1d(_HardwareConv, torch.nn.Conv1d):
    """torch.nn.Conv1d on the hardware (no padding, dilation 1, groups 1)."""

    _op = "Conv1d"
    _conv = staticmethod(conv1d)
    _bias_shape = (-1, 1)


class Conv2d(_HardwareConv, torch.nn.Conv2d):
    """torch.nn.Conv2d on the hardware (no padding, equal strides, dilation 1, groups 1)."""

    _op = "Conv2d"
    _conv = staticmethod(conv2d)
    _bias_shape = (-1, 1, 1)


__all__ = ["matmul", "conv1d", "conv2d", "Linear", "Conv1d", "Conv2d", "configure", "config",
           "Config", "stats", "reset_stats", "last_times", "gain", "clamp_input", "clamp_weight",
           "IDEAL_PARAMS", "IDEAL_GAIN", "MODES", "INPUT_MAX", "WEIGHT_MAX", "OUT_MIN", "OUT_MAX"]
