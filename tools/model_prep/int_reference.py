"""Integer reference of an int8 power-of-two QDQ ONNX model, computed the way an int8 accelerator
with power-of-two requantisation (nmsim's MLA, firmware/include/nmsim/hw/spinnaker2/mla_regs.h)
computes it:

    acc = sum_k x_q * w_q + b_q                     (exact integer; int32 bias at scale s_x*s_w)
    y   = (acc + 2^(shift-1)) >> shift              arithmetic shift = round half up (shift > 0)
    y   = max(y, 0)                                 if a Relu follows the Gemm/Conv
    y_q = saturate_int8(y)                          shift = k_x + k_w - k_y, scale 2^-k

MaxPool runs on the int8 values (exact, the scale is unchanged), Flatten reshapes NCHW -> [N, C*H*W]
(channel-major, as ONNX). A final Softmax head (logits DQ -> Softmax -> Q -> DQ -> graph output,
qdq.add_softmax_head) becomes a "Softmax" layer; run() computes it in double precision,
min(127, floor(2^k_y * softmax + 1/2)), which is within 1 LSB of, but not bit-exact with, the
chip's integer softmax on the PE's EXP unit (firmware/include/nmsim/hw/spinnaker2/dnn_image.h;
the bit-exact host reference is tools/compiler/graph_reference.h). without_softmax_head() gives
the layers up to the logits, which are bit-exact. The accumulator must fit the accelerator's width: `lower()` records the
largest |acc| seen so callers can check it against pe.mla.acc_bits.

lower() reads the QDQ graph back from the ONNX file (it does not use the quantiser's data), so it
also checks the conventions documented in tools/model_prep/README.md.
"""

import math

import numpy as np
import onnx
from onnx import helper, numpy_helper


def scale_exponent(scale, what):
    """k with scale == 2^-k exactly, or ValueError."""
    s = float(scale)
    if s <= 0:
        raise ValueError(f"{what}: scale {s} is not positive")
    m, e = math.frexp(s)  # s = m * 2^e, m in [0.5, 1)
    if m != 0.5:
        raise ValueError(f"{what}: scale {s} is not a power of two")
    return -(e - 1)


class Layer:
    def __init__(self, op, **kw):
        self.op = op
        self.__dict__.update(kw)

    def __repr__(self):
        return f"Layer({self.op}, {self.name})"


def lower(model):
    """Pattern-match the QDQ graph into a list of integer Layers. Returns (k_in, layers)."""
    if not isinstance(model, onnx.ModelProto):
        model = onnx.load(model)
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)

    def only_consumer(t, op):
        c = consumers.get(t, [])
        if len(c) != 1 or c[0].op_type != op:
            raise ValueError(f"tensor {t}: expected a single {op} consumer, got "
                             f"{[n.op_type for n in c]}")
        return c[0]

    def qparams(node, dtype):
        scale = inits[node.input[1]]
        zp = inits[node.input[2]] if len(node.input) > 2 else None
        if zp is None or zp.dtype != dtype or int(zp) != 0:
            raise ValueError(f"{node.name}: zero point must be a {np.dtype(dtype).name} 0")
        if scale.shape != ():
            raise ValueError(f"{node.name}: scale must be a per-tensor scalar")
        return scale_exponent(scale, node.name)

    def dq_init(t, dtype):
        """(int array, exponent) of an initializer behind DequantizeLinear output t."""
        n = producer[t]
        if n.op_type != "DequantizeLinear" or n.input[0] not in inits:
            raise ValueError(f"{t}: expected DequantizeLinear of an initializer")
        v = inits[n.input[0]]
        if v.dtype != dtype:
            raise ValueError(f"{n.input[0]}: expected {np.dtype(dtype).name}, got {v.dtype}")
        return v, qparams(n, dtype)

    q_in = only_consumer(g.input[0].name, "QuantizeLinear")
    k_in = qparams(q_in, np.int8)
    k_cur = k_in
    t = q_in.output[0]  # current int8 tensor
    layers = []
    while True:
        dq = only_consumer(t, "DequantizeLinear")
        if qparams(dq, np.int8) != k_cur:
            raise ValueError(f"{dq.name}: scale differs from its QuantizeLinear")
        if dq.output[0] == g.output[0].name:
            break
        c = consumers.get(dq.output[0], [])
        if len(c) != 1:
            raise ValueError(f"{dq.output[0]}: expected one consumer")
        node = c[0]
        at = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type in ("Gemm", "Conv"):
            if node.input[0] != dq.output[0]:
                raise ValueError(f"{node.name}: the activation must be input 0")
            w, k_w = dq_init(node.input[1], np.int8)
            b, k_b = dq_init(node.input[2], np.int32)
            if k_b != k_cur + k_w:
                raise ValueError(f"{node.name}: bias exponent {k_b} != k_x + k_w = "
                                 f"{k_cur} + {k_w}")
            nxt = consumers[node.output[0]]
            relu = len(nxt) == 1 and nxt[0].op_type == "Relu"
            out = nxt[0].output[0] if relu else node.output[0]
            q = only_consumer(out, "QuantizeLinear")
            k_y = qparams(q, np.int8)
            if node.op_type == "Gemm":
                if at.get("transA", 0) or at.get("alpha", 1.0) != 1.0 or at.get("beta", 1.0) != 1.0:
                    raise ValueError(f"{node.name}: only Gemm with transA=0, alpha=beta=1")
                wmat = w.T if at.get("transB", 0) else w  # [K, N]
                kw = dict(w=wmat.astype(np.int64))
            else:
                if at.get("group", 1) != 1 or any(d != 1 for d in at.get("dilations", [1, 1])):
                    raise ValueError(f"{node.name}: only group=1, dilation=1 convolutions")
                kw = dict(w=w.astype(np.int64), pads=list(at.get("pads", [0, 0, 0, 0])),
                          strides=list(at.get("strides", [1, 1])))
            layers.append(Layer(node.op_type, name=node.name, b=b.astype(np.int64), relu=relu,
                                k_x=k_cur, k_w=k_w, k_y=k_y, shift=k_cur + k_w - k_y,
                                max_abs_acc=0, **kw))
        elif node.op_type == "Softmax":
            if at.get("axis", -1) not in (-1, len(g.output[0].type.tensor_type.shape.dim) - 1):
                raise ValueError(f"{node.name}: only softmax over the last axis")
            q = only_consumer(node.output[0], "QuantizeLinear")
            k_y = qparams(q, np.int8)
            layers.append(Layer("Softmax", name=node.name, k_x=k_cur, k_y=k_y))
        elif node.op_type in ("MaxPool", "Flatten"):
            q = only_consumer(node.output[0], "QuantizeLinear")
            k_y = qparams(q, np.int8)
            if k_y != k_cur:
                raise ValueError(f"{node.name}: output scale differs from input scale")
            layers.append(Layer(node.op_type, name=node.name, attrs=at, k_x=k_cur, k_y=k_y))
        else:
            raise ValueError(f"unsupported operator {node.op_type} ({node.name})")
        k_cur = k_y
        t = q.output[0]
    return k_in, layers


def requantise(acc, shift, relu):
    if shift < 0 or shift > 31:
        raise ValueError(f"shift {shift} outside 0..31")
    y = (acc + (1 << (shift - 1))) >> shift if shift > 0 else acc
    if relu:
        y = np.maximum(y, 0)
    return np.clip(y, -128, 127).astype(np.int8)


def _im2col(x, kh, kw, pads, strides):
    """x int64 [N, C, H, W] -> patches [N, OH, OW, C*kh*kw] (order c, i, j) and (OH, OW)."""
    n, c, h, w = x.shape
    pt, pl, pb, pr = pads
    sh, sw = strides
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh = (h + pt + pb - kh) // sh + 1
    ow = (w + pl + pr - kw) // sw + 1
    cols = np.empty((n, oh, ow, c, kh, kw), dtype=np.int64)
    for r in range(oh):
        for s in range(ow):
            cols[:, r, s] = xp[:, :, r * sh:r * sh + kh, s * sw:s * sw + kw]
    return cols.reshape(n, oh, ow, c * kh * kw), (oh, ow)


def run(layers, x_q):
    """Run the lowered layers on int8 input x_q (shape of the ONNX input, batch first).
    Returns the int8 output; updates each layer's max_abs_acc."""
    x = np.asarray(x_q)
    if x.dtype != np.int8:
        raise TypeError("input must be int8")
    for L in layers:
        if L.op == "Gemm":
            acc = x.astype(np.int64) @ L.w + L.b
        elif L.op == "Conv":
            oc, ic, kh, kw = L.w.shape
            cols, (oh, ow) = _im2col(x.astype(np.int64), kh, kw, L.pads, L.strides)
            acc = cols @ L.w.reshape(oc, -1).T + L.b  # [N, OH, OW, OC]
            acc = acc.transpose(0, 3, 1, 2)
        elif L.op == "MaxPool":
            kh, kw = L.attrs["kernel_shape"]
            sh, sw = L.attrs.get("strides", [1, 1])
            n, c, h, w = x.shape
            oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
            win = np.stack([x[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw]
                            for i in range(kh) for j in range(kw)])
            x = win.max(axis=0)
            continue
        elif L.op == "Flatten":
            axis = L.attrs.get("axis", 1)
            x = x.reshape(int(np.prod(x.shape[:axis])), -1)
            continue
        elif L.op == "Softmax":
            x = softmax_q(x, L.k_x, L.k_y)
            continue
        else:
            raise ValueError(L.op)
        L.max_abs_acc = max(L.max_abs_acc, int(np.abs(acc).max()))
        x = requantise(acc, L.shift, L.relu)
    return x


def softmax_q(x_q, k_x, k_y):
    """Double-precision int8 softmax over the last axis: min(127, floor(2^k_y * p + 1/2)) of
    p = softmax(x_q * 2^-k_x). Within 1 LSB of the chip's integer softmax, not bit-exact."""
    x = np.asarray(x_q, np.float64) * 2.0**-k_x
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return np.minimum(np.floor(p * 2.0**k_y + 0.5), 127).astype(np.int8)


def without_softmax_head(layers):
    """The layers up to the logits: `layers` without a final Softmax layer."""
    return layers[:-1] if layers and layers[-1].op == "Softmax" else layers


def predict(logits_q):
    """Class = argmax over all 16 int8 logits, the lowest index on ties (numpy argmax)."""
    return np.argmax(logits_q.reshape(logits_q.shape[0], -1), axis=1)
