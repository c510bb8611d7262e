"""Int8 power-of-two QDQ quantisation of a float ONNX graph (Gemm/Conv [+Relu], MaxPool, Flatten).

Every scale is 2^-k (k an integer "exponent"), every zero point 0:
  * activations: int8, per tensor, k chosen on a calibration set (MSE-optimal, see choose_exp);
    the graph input has the fixed exponent given by the caller (7 for pixels in [0, 1));
  * weights: int8, symmetric, per tensor, k MSE-optimal over the weight values;
  * biases: int32 with scale s_x * s_w (exponent k_x + k_w), so the accelerator adds them to the
    int32 accumulator unchanged.
MaxPool and Flatten move data only: their output keeps the input's exponent.

The graph produced (names derived from the float graph's tensor names `t`):
  input -> QuantizeLinear -> t_q -> DequantizeLinear -> t_dq
  t_dq, DQ(W_q int8, s_w, 0), DQ(b_q int32, s_x*s_w, 0) -> Gemm|Conv [-> Relu] -> QuantizeLinear
        -> y_q (int8) -> DequantizeLinear -> y_dq -> ...
  t_dq -> MaxPool|Flatten -> QuantizeLinear (same scale) -> DequantizeLinear -> ...
The last DequantizeLinear writes the float graph output (same name and shape as the float model).

add_softmax_head() then appends the classifier's softmax (seed 000, Table II):
  logits (float, DequantizeLinear output) -> Softmax(axis=-1) -> QuantizeLinear(2^-k, int8 0)
        -> DequantizeLinear -> the new graph output
A compiler folds the Q/DQ pair into its softmax layer (input exponent = the logits', output
exponent k).
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

import onnx_eval

COMPUTE_OPS = ("Gemm", "Conv")
MOVE_OPS = ("MaxPool", "Flatten")
EXP_RANGE = range(-8, 25)  # candidate exponents k (scale 2^-k)


def quantise_int8(x, k, rounding=np.rint):
    return np.clip(rounding(np.asarray(x, np.float64) * 2.0**k), -128, 127)


def choose_exp(values):
    """Exponent k minimising the mean squared error of int8 quantisation with scale 2^-k
    (round half to even, saturate). Ties go to the larger range (smaller k)."""
    v = np.asarray(values, np.float64).ravel()
    best = None
    for k in EXP_RANGE:
        err = np.mean((quantise_int8(v, k) * 2.0**-k - v) ** 2)
        if best is None or err < best[1]:
            best = (k, err)
    return best[0]


def clip_fraction(values, k):
    v = np.asarray(values, np.float64).ravel() * 2.0**k
    return float(np.mean((v > 127.5) | (v < -128.5)))


def _consumers(graph, name):
    return [n for n in graph.node if name in n.input]


def _groups(graph):
    """Split the float graph into layers: (op node, fused Relu node or None, output tensor)."""
    nodes = list(graph.node)
    used = set()
    groups = []
    for node in nodes:
        if id(node) in used:
            continue
        if node.op_type in COMPUTE_OPS:
            cons = _consumers(graph, node.output[0])
            relu = cons[0] if len(cons) == 1 and cons[0].op_type == "Relu" else None
            if relu is not None:
                used.add(id(relu))
            groups.append((node, relu, (relu or node).output[0]))
        elif node.op_type in MOVE_OPS:
            groups.append((node, None, node.output[0]))
        else:
            raise NotImplementedError(f"cannot quantise {node.op_type} ({node.name}): only "
                                      f"{COMPUTE_OPS + MOVE_OPS} and a Relu after a compute op")
    return groups


def quantise(float_model, calib_input, input_exp):
    """Return (qdq ModelProto, info dict with the exponents per tensor and per layer).
    calib_input: float array for the single graph input (the calibration set)."""
    graph = float_model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    in_name = graph.input[0].name
    out_name = graph.output[0].name
    env = onnx_eval.run(float_model, {in_name: calib_input}, keep_all=True)

    exps = {in_name: int(input_exp)}
    new_nodes, new_inits = [], []
    layers = []

    def add_scale(name, k, zp_dtype):
        new_inits.append(numpy_helper.from_array(np.array(2.0**-k, np.float32), name + "_scale"))
        new_inits.append(numpy_helper.from_array(np.zeros((), zp_dtype), name + "_zero_point"))

    def q_dq(src, dst_base, k, dq_out=None):
        """QuantizeLinear(src) -> dst_base_q (int8) -> DequantizeLinear -> dq_out."""
        add_scale(dst_base, k, np.int8)
        q = dst_base + "_q"
        dq = dq_out or dst_base + "_dq"
        new_nodes.append(helper.make_node("QuantizeLinear", [src, dst_base + "_scale",
                                          dst_base + "_zero_point"], [q], name=dst_base + "_Q"))
        new_nodes.append(helper.make_node("DequantizeLinear", [q, dst_base + "_scale",
                                          dst_base + "_zero_point"], [dq], name=dst_base + "_DQ"))
        return dq

    def rename(t):  # the graph output name belongs to the final DequantizeLinear
        return t + "_float" if t == out_name else t

    cur = q_dq(in_name, in_name, exps[in_name])
    cur_float = in_name
    groups = _groups(graph)
    for gi, (node, relu, out) in enumerate(groups):
        if node.input[0] != cur_float:
            raise NotImplementedError(f"{node.name}: the graph is not a single chain")
        k_x = exps[cur_float]
        is_last = gi == len(groups) - 1
        if node.op_type in COMPUTE_OPS:
            w = inits[node.input[1]].astype(np.float64)
            b = inits[node.input[2]].astype(np.float64) if len(node.input) > 2 else \
                np.zeros(w.shape[0])
            k_w = choose_exp(w)
            w_q = quantise_int8(w, k_w).astype(np.int8)
            k_b = k_x + k_w
            b_q = np.rint(b * 2.0**k_b)
            if np.abs(b_q).max() >= 2**31:
                raise OverflowError(f"{node.name}: bias does not fit int32 at exponent {k_b}")
            b_q = b_q.astype(np.int32)
            wn, bn = node.input[1], node.input[2] if len(node.input) > 2 else node.name + ".bias"
            new_inits.append(numpy_helper.from_array(w_q, wn + "_q"))
            new_inits.append(numpy_helper.from_array(b_q, bn + "_q"))
            add_scale(wn, k_w, np.int8)
            add_scale(bn, k_b, np.int32)
            new_nodes.append(helper.make_node("DequantizeLinear", [wn + "_q", wn + "_scale",
                                              wn + "_zero_point"], [wn + "_dq"], name=wn + "_DQ"))
            new_nodes.append(helper.make_node("DequantizeLinear", [bn + "_q", bn + "_scale",
                                              bn + "_zero_point"], [bn + "_dq"], name=bn + "_DQ"))
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            new_nodes.append(helper.make_node(node.op_type, [cur, wn + "_dq", bn + "_dq"],
                                              [rename(node.output[0])], name=node.name, **attrs))
            if relu is not None:
                new_nodes.append(helper.make_node("Relu", [rename(node.output[0])],
                                                  [rename(relu.output[0])],
                                                  name=relu.name))
            k_y = choose_exp(env[out])
            shift = k_x + k_w - k_y
            if not 0 <= shift <= 31:
                raise ValueError(f"{node.name}: requantisation shift {shift} outside 0..31")
            layers.append({"name": node.name, "op": node.op_type, "relu": relu is not None,
                           "weight_shape": list(w.shape), "k_x": k_x, "k_w": k_w, "k_b": k_b,
                           "k_y": k_y, "shift": shift,
                           "weight_clip_fraction": clip_fraction(w, k_w),
                           "output_clip_fraction_calib": clip_fraction(env[out], k_y)})
        else:
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            new_nodes.append(helper.make_node(node.op_type, [cur], [rename(node.output[0])],
                                              name=node.name, **attrs))
            k_y = k_x
            layers.append({"name": node.name, "op": node.op_type, "k_x": k_x, "k_y": k_y})
        exps[out] = k_y
        cur = q_dq(rename(out), out, k_y, dq_out=out_name if is_last else None)
        cur_float = out
    if cur != out_name:
        raise NotImplementedError("the last layer does not produce the graph output")

    new_graph = helper.make_graph(new_nodes, graph.name + "_int8_qdq", list(graph.input),
                                  list(graph.output), new_inits)
    opset = [helper.make_opsetid("", 13)]
    model = helper.make_model(new_graph, opset_imports=opset,
                              producer_name="nmsim tools/model_prep",
                              doc_string="int8 power-of-two QDQ (scales 2^-k, zero points 0, "
                                         "int32 biases with scale s_x*s_w)")
    model.ir_version = float_model.ir_version
    onnx.checker.check_model(model, full_check=True)
    return model, {"tensor_exponents": exps, "layers": layers}




SOFTMAX_OUT_EXP = 7  # probabilities in [0, 1] at 2^-7: 1.0 saturates to 127/128


def add_softmax_head(model, out_name="probabilities", out_exp=SOFTMAX_OUT_EXP):
    """Return a copy of the QDQ `model` whose single output (a DequantizeLinear output, the
    logits) feeds Softmax(axis=-1) -> QuantizeLinear(2^-out_exp, int8 0) -> DequantizeLinear ->
    graph output `out_name` (same shape). Initializers, nodes and the old tensor names are kept,
    so the logits keep their name and values. The Softmax node is named like PyTorch's exporter
    would name a Softmax module appended to the nn.Sequential ("/<index>/Softmax").
    Returns (model, info) with the node and tensor names and exponents."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    if len(g.output) != 1:
        raise NotImplementedError("add_softmax_head: expected one graph output")
    logits = g.output[0].name
    producer = {o: n for n in g.node for o in n.output}
    if logits not in producer or producer[logits].op_type != "DequantizeLinear":
        raise NotImplementedError(f"add_softmax_head: {logits} is not a DequantizeLinear output")
    if any(n.op_type == "Softmax" for n in g.node):
        raise ValueError("add_softmax_head: the model already has a Softmax")
    # PyTorch names nodes /<module index>/<Op>; the head would be the next module.
    indices = [int(n.name.split("/")[1]) for n in g.node
               if n.name.startswith("/") and n.name.split("/")[1].isdigit()]
    name = f"/{max(indices, default=-1) + 1}/Softmax"
    sm_out = name + "_output_0"
    g.node.append(helper.make_node("Softmax", [logits], [sm_out], name=name, axis=-1))
    g.initializer.append(numpy_helper.from_array(np.array(2.0**-out_exp, np.float32),
                                                 sm_out + "_scale"))
    g.initializer.append(numpy_helper.from_array(np.zeros((), np.int8), sm_out + "_zero_point"))
    qparams = [sm_out + "_scale", sm_out + "_zero_point"]
    g.node.append(helper.make_node("QuantizeLinear", [sm_out] + qparams, [sm_out + "_q"],
                                   name=sm_out + "_Q"))
    g.node.append(helper.make_node("DequantizeLinear", [sm_out + "_q"] + qparams, [out_name],
                                   name=sm_out + "_DQ"))
    out = onnx.ValueInfoProto()
    out.CopyFrom(g.output[0])
    out.name = out_name
    del g.output[:]
    g.output.append(out)
    onnx.checker.check_model(m, full_check=True)
    k_x = -int(np.log2(numpy_helper.to_array(
        next(t for t in g.initializer if t.name == producer[logits].input[1]))))
    return m, {"name": name, "op": "Softmax", "axis": -1, "k_x": k_x, "k_y": out_exp,
               "input": logits, "output": out_name, "tensor": sm_out}
