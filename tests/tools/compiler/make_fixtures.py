#!/usr/bin/python3
"""Writes the tiny ONNX fixtures of test_onnx_frontend.cpp into data/ (checked in).

Regenerate: /usr/bin/python3 tests/tools/compiler/make_fixtures.py
Every model is int8 power-of-two QDQ in the form of tools/model_prep/README.md unless its name
says what is broken. Weights are fixed small integer patterns so the test can recompute them.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


class Builder:
    def __init__(self):
        self.nodes = []
        self.inits = []

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def scale(self, name, k, zp_type=np.int8, scale=None):
        s = self.const(name + "_scale", np.array(2.0**-k if scale is None else scale, np.float32))
        z = self.const(name + "_zero_point", np.array(0, zp_type))
        return s, z

    def q_dq(self, x, k, zp=0):
        """QuantizeLinear + DequantizeLinear of activation x with scale 2^-k; returns dq name."""
        s = self.const(x + "_scale", np.array(2.0**-k, np.float32))
        z = self.const(x + "_zero_point", np.array(zp, np.int8))
        self.nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [x + "_q"], name=x + "_Q"))
        self.nodes.append(
            helper.make_node("DequantizeLinear", [x + "_q", s, z], [x + "_dq"], name=x + "_DQ"))
        return x + "_dq"

    def weight(self, name, array, k, scale=None):
        q = self.const(name + "_q", np.asarray(array, np.int8))
        s, z = self.scale(name, k, scale=scale)
        self.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [name + "_dq"],
                                           name=name + "_DQ"))
        return name + "_dq"

    def bias(self, name, array, k):
        q = self.const(name + "_q", np.asarray(array, np.int32))
        s, z = self.scale(name, k, zp_type=np.int32)
        self.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [name + "_dq"],
                                           name=name + "_DQ"))
        return name + "_dq"

    def node(self, op, inputs, output, name, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], name=name, **attrs))
        return output

    def model(self, inputs, outputs, check=True):
        g = helper.make_graph(self.nodes, "fixture", inputs, outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="nmsim make_fixtures.py")
        if check:
            onnx.checker.check_model(m, full_check=True)
        return m


def pattern(shape, mod=7, offset=3):
    """Deterministic int8 pattern: value of flat index i is (i * 5) % mod - offset."""
    n = int(np.prod(shape))
    return ((np.arange(n) * 5) % mod - offset).reshape(shape)


def fvi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def linear_relu(scale=None, zp=0, drop=None, k_out=4):
    """input [1,4] k=7 -> Gemm(transB=1) 4->3, w k=6, bias k=13 -> Relu -> y k=k_out (shift 9)."""
    b = Builder()
    x = b.q_dq("input", 7, zp=zp)
    w = b.weight("fc.weight", pattern((3, 4)), 6, scale=scale)
    c = b.bias("fc.bias", [100, -200, 300], 13)
    h = b.node("Gemm", [x, w, c], "fc_out", "fc", transB=1)
    r = b.node("Relu", [h], "relu_out", "relu")
    b.q_dq(r, k_out)
    b.nodes[-1].output[0] = "y"  # the last DequantizeLinear writes the graph output
    if drop:
        b.inits = [t for t in b.inits if t.name != drop]
    return b.model([fvi("input", [1, 4])], [fvi("y", [1, 3])], check=drop is None)


def mlp3():
    """[1,8] k=7 -> Gemm transB=1 8->6 +ReLU (w k=5, out k=3) -> Gemm transB=0 6->5 +ReLU
    (w k=6, out k=4) -> MatMul 5->4 + Add bias (w k=7, out k=5); one node unnamed."""
    b = Builder()
    x = b.q_dq("input", 7)
    w1 = b.weight("l1.weight", pattern((6, 8)), 5)
    b1 = b.bias("l1.bias", np.arange(6) * 10 - 25, 12)
    h1 = b.node("Gemm", [x, w1, b1], "l1_out", "l1", transB=1)
    r1 = b.q_dq(b.node("Relu", [h1], "r1_out", "r1"), 3)
    w2 = b.weight("l2.weight", pattern((6, 5), mod=9, offset=4), 6)  # [in, out]
    b2 = b.bias("l2.bias", np.arange(5) * -7 + 11, 9)
    h2 = b.node("Gemm", [r1, w2, b2], "l2_out", "l2")
    r2 = b.q_dq(b.node("Relu", [h2], "r2_out", ""), 4)
    w3 = b.weight("l3.weight", pattern((5, 4), mod=11, offset=5), 7)  # [in, out]
    b3 = b.bias("l3.bias", [1, -2, 3, -4], 11)
    m3 = b.node("MatMul", [r2, w3], "l3_mm", "l3")
    a3 = b.node("Add", [m3, b3], "l3_out", "l3_bias")
    b.q_dq(a3, 5)
    b.nodes[-1].output[0] = "logits"
    return b.model([fvi("input", [1, 8])], [fvi("logits", [1, 4])])


def conv_tiny():
    """[1,1,6,6] k=7 -> Conv 1->2 3x3 pad 1 (w k=6, b k=13) +ReLU, out k=5 -> MaxPool 2x2 s2
    (k=5) -> Add(x, x) out k=4 -> AveragePool 2x2 s1 out k=4 -> Reshape [1,-1] -> Gemm 8->4
    transB=1 (w k=6, out k=3) -> Softmax out k=7."""
    b = Builder()
    x = b.q_dq("input", 7)
    w = b.weight("conv.weight", pattern((2, 1, 3, 3)), 6)
    c = b.bias("conv.bias", [5, -5], 13)
    h = b.node("Conv", [x, w, c], "conv_out", "conv", pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    r = b.q_dq(b.node("Relu", [h], "conv_relu", "conv_relu"), 5)
    p = b.q_dq(b.node("MaxPool", [r], "pool_out", "pool", kernel_shape=[2, 2], strides=[2, 2]), 5)
    a = b.q_dq(b.node("Add", [p, p], "add_out", "add"), 4)
    v = b.q_dq(b.node("AveragePool", [a], "avg_out", "avg", kernel_shape=[2, 2]), 4)
    shape = b.const("flat_shape", np.array([1, -1], np.int64))
    f = b.q_dq(b.node("Reshape", [v, shape], "flat_out", "flat"), 4)
    w2 = b.weight("fc.weight", pattern((4, 8)), 6)
    b2 = b.bias("fc.bias", [0, 1, 2, 3], 10)
    g = b.q_dq(b.node("Gemm", [f, w2, b2], "fc_out", "fc", transB=1), 3)
    b.q_dq(b.node("Softmax", [g], "prob", "softmax", axis=1), 7)
    b.nodes[-1].output[0] = "prob_out"
    return b.model([fvi("input", [1, 1, 6, 6])], [fvi("prob_out", [1, 4])])


def unsupported_op():
    m = linear_relu()
    for n in m.graph.node:
        if n.op_type == "Relu":
            n.op_type = "Sigmoid"
            n.name = "act"
    return m


def cycle():
    """Two Relu nodes feeding each other (not a DAG; onnx.checker is not run)."""
    m = linear_relu()
    m.graph.node.append(helper.make_node("Relu", ["loop_b"], ["loop_a"], name="loop_a"))
    m.graph.node.append(helper.make_node("Relu", ["loop_a"], ["loop_b"], name="loop_b"))
    return m


def shuffled(m):
    """Same model with the nodes in reverse file order (the front end sorts them)."""
    nodes = list(m.graph.node)[::-1]
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    return m


def main():
    os.makedirs(OUT, exist_ok=True)
    fixtures = {
        "linear_relu.onnx": linear_relu(),
        "mlp3.onnx": mlp3(),
        "mlp3_shuffled.onnx": shuffled(mlp3()),
        "conv_tiny.onnx": conv_tiny(),
        "bad_scale.onnx": linear_relu(scale=0.3),
        "nonzero_zero_point.onnx": linear_relu(zp=3),
        "missing_initializer.onnx": linear_relu(drop="fc.weight_scale"),
        "bad_shift.onnx": linear_relu(k_out=20),
        "unsupported_op.onnx": unsupported_op(),
        "cycle.onnx": cycle(),
    }
    for name, m in fixtures.items():
        onnx.save(m, os.path.join(OUT, name))
    print(f"wrote {len(fixtures)} fixtures to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
