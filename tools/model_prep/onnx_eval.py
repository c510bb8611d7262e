"""A small float64 evaluator of ONNX graphs, for the operators the model preparation uses:
Gemm, Conv, Relu, MaxPool, Flatten, Softmax, QuantizeLinear, DequantizeLinear (opset 13
semantics).

Debian's python3-onnx 1.12 has no reference evaluator and there is no onnxruntime, so this one
runs the float graph (to check the PyTorch export and to calibrate) and the QDQ graph (ONNX
semantics: QuantizeLinear rounds half to even). It is written independently of the integer
reference (int_reference.py): float arithmetic on dequantised values, direct-loop convolution.
With power-of-two scales every product and sum of dequantised int8 values is exact in float64,
so evaluating the QDQ graph with rounding="half_up" must give bit-identical int8 tensors to the
integer reference; the tests use that as a cross-check.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _round(x, mode):
    if mode == "half_even":
        return np.rint(x)
    if mode == "half_up":
        return np.floor(x + 0.5)
    raise ValueError(f"unknown rounding mode {mode!r}")


def _gemm(node, a, b, c=None):
    at = _attrs(node)
    if at.get("transA", 0):
        a = a.T
    if at.get("transB", 0):
        b = b.T
    y = at.get("alpha", 1.0) * (a @ b)
    if c is not None:
        y = y + at.get("beta", 1.0) * c
    return y


def _conv(node, x, w, b=None):
    at = _attrs(node)
    if at.get("group", 1) != 1 or any(d != 1 for d in at.get("dilations", [1, 1])):
        raise NotImplementedError(f"{node.name}: only group=1, dilation=1 convolutions")
    if at.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise NotImplementedError(f"{node.name}: auto_pad")
    n, c, h, wd = x.shape
    oc, ic, kh, kw = w.shape
    if ic != c:
        raise ValueError(f"{node.name}: input has {c} channels, kernel expects {ic}")
    pt, pl, pb, pr = at.get("pads", [0, 0, 0, 0])
    sh, sw = at.get("strides", [1, 1])
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=np.float64)
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    oh = (h + pt + pb - kh) // sh + 1
    ow = (wd + pl + pr - kw) // sw + 1
    y = np.zeros((n, oc, oh, ow), dtype=np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]
            y += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    if b is not None:
        y += b.reshape(1, oc, 1, 1)
    return y


def _maxpool(node, x):
    at = _attrs(node)
    if at.get("ceil_mode", 0) or any(d != 1 for d in at.get("dilations", [1, 1])):
        raise NotImplementedError(f"{node.name}: only floor-mode, undilated MaxPool")
    kh, kw = at["kernel_shape"]
    sh, sw = at.get("strides", [1, 1])
    pt, pl, pb, pr = at.get("pads", [0, 0, 0, 0])
    n, c, h, w = x.shape
    xp = np.full((n, c, h + pt + pb, w + pl + pr), -np.inf)  # padding never wins the maximum
    xp[:, :, pt:pt + h, pl:pl + w] = x
    oh = (h + pt + pb - kh) // sh + 1
    ow = (w + pl + pr - kw) // sw + 1
    y = np.full((n, c, oh, ow), -np.inf)
    for i in range(kh):
        for j in range(kw):
            y = np.maximum(y, xp[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw])
    return y


_QTYPE = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255),
          np.dtype(np.int32): (-2**31, 2**31 - 1)}


def run(model, inputs, rounding="half_even", keep_all=False):
    """Evaluate `model` (onnx.ModelProto or path) on `inputs` {name: array}. Float tensors are
    float64; quantised tensors keep their integer dtype. Returns {output name: array}, or every
    tensor when keep_all."""
    if not isinstance(model, onnx.ModelProto):
        model = onnx.load(model)
    env = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for k, v in inputs.items():
        env[k] = np.asarray(v)
    for node in model.graph.node:
        args = [env[i] if i else None for i in node.input]
        op = node.op_type
        if op == "Gemm":
            out = _gemm(node, *[None if a is None else a.astype(np.float64) for a in args])
        elif op == "Conv":
            out = _conv(node, *[None if a is None else a.astype(np.float64) for a in args])
        elif op == "Relu":
            out = np.maximum(args[0], 0)
        elif op == "MaxPool":
            out = _maxpool(node, args[0])
        elif op == "Flatten":
            axis = _attrs(node).get("axis", 1)
            x = args[0]
            out = x.reshape(int(np.prod(x.shape[:axis])), -1)
        elif op == "Softmax":  # opset 13: over one axis, default the last
            x = args[0].astype(np.float64)
            e = np.exp(x - x.max(axis=_attrs(node).get("axis", -1), keepdims=True))
            out = e / e.sum(axis=_attrs(node).get("axis", -1), keepdims=True)
        elif op == "QuantizeLinear":
            x, scale = args[0].astype(np.float64), float(args[1])
            zp = args[2] if len(args) > 2 and args[2] is not None else np.uint8(0)
            lo, hi = _QTYPE[zp.dtype]
            q = _round(x / scale, rounding) + int(zp)
            out = np.clip(q, lo, hi).astype(zp.dtype)
        elif op == "DequantizeLinear":
            x, scale = args[0], float(args[1])
            zp = int(args[2]) if len(args) > 2 and args[2] is not None else 0
            out = (x.astype(np.float64) - zp) * scale
        else:
            raise NotImplementedError(f"operator {op} ({node.name}) is not supported")
        if len(node.output) != 1:
            raise NotImplementedError(f"{op} ({node.name}) with {len(node.output)} outputs")
        env[node.output[0]] = out
    if keep_all:
        return env
    return {o.name: env[o.name] for o in model.graph.output}
