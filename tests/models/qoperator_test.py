#!/usr/bin/env python3
"""An int8 CNN in ONNX Runtime's QOperator form, planned, run and checked against integer math.

usage: qoperator_test.py TILESAT WORK_DIR

The model is built with onnx.helper as ONNX Runtime's quantizer writes such models (uint8
activations with per-tensor scales, int8 weights with per-output-channel scales, int32
biases):
  QuantizeLinear -> QLinearConv 3x3 (per-channel int8 weights, int32 bias)
  -> QLinearLeakyRelu -> QLinearConv 3x3 stride 2 (nonzero per-channel weight zero points)
  -> QLinearAdd with a QLinearAveragePool 2x2 of the same input (a residual branch)
  -> QLinearGlobalAveragePool -> Reshape -> QLinearMatMul (per-column int8 weights)
  -> DequantizeLinear, and from QLinearMatMul's result also
  -> QGemm (B read transposed, per-column scales, int32 bias) -> QLinearSoftmax
and goes through
  tilesat opt M.onnx --device wormhole_b0 -o M.tsprog
  tilesat run M.tsprog --input x=X.npy --output-dir OUT
Every quantized tensor is also a graph output (OUT/<name>.npy), so each layer is checked on
its own: a numpy reference written here computes it from tilesat's values of the layer's
inputs, as the specs define it, exactly (int32 accumulation; the requantization in rational
arithmetic, rounding half to even; saturation). The scales are calibrated on the
input's own range, somewhat tight, so some values saturate. Exits 77 when numpy or onnx is
missing, 1 on any mismatch. Needs only numpy and python3-onnx (1.12: no onnx.reference);
run with /usr/bin/python3.
"""
import os
from cli_run import run
import sys
from fractions import Fraction

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    print("qoperator_test.py: numpy and onnx are needed (apt-get install python3-onnx)")
    sys.exit(77)

U8 = (0, 255)


def F(v):
    """The exact value of a float (an f32 value is exact in a double) as a rational."""
    return Fraction(float(v))


def frac(a):
    """An array of floats as exact rationals (an object array)."""
    return np.vectorize(F, otypes=[object])(np.asarray(a))


def exact(a):
    """An integer array as exact Python integers (an object array)."""
    return np.asarray(a, dtype=np.int64).astype(object)


def quantize(real, zp, bounds=U8):
    """saturate(round half to even(real) + zero point), `real` in exact rational arithmetic (an
    object array: Fraction's round takes halves to even)."""
    return np.clip(np.frompyfunc(round, 1, 1)(real).astype(np.int64) + zp, *bounds)


def conv_acc(xq, xzp, wq, wzp, bias, stride, pad):
    """The int32 accumulator of QLinearConv: sum((x - x_zp) * (w - w_zp)) + bias, the padding
    being x's zero point (0 once shifted)."""
    x = np.pad(xq.astype(np.int64) - xzp, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    w = wq.astype(np.int64) - wzp.reshape(-1, 1, 1, 1)
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    acc = np.zeros((n, o, oh, ow), dtype=np.int64)
    for i in range(kh):
        for j in range(kw):
            window = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            acc += np.einsum("nchw,oc->nohw", window, w[:, :, i, j])
    acc += bias.reshape(1, -1, 1, 1)
    assert np.abs(acc).max() < 2 ** 31
    return acc


def qconv(xq, p, stride):
    acc = conv_acc(xq, p["xzp"], p["w"], p["wzp"], p["b"], stride, 1)
    m = F(p["xs"]) * frac(p["ws"]) / F(p["ys"])
    return quantize(exact(acc) * m.reshape(1, -1, 1, 1), p["yzp"])


def dequant(q, s, zp):
    return (q.astype(np.float64) - zp) * np.float64(s)


def leaky(xq, xs, xzp, ys, yzp, alpha):
    v = exact(xq.astype(np.int64) - xzp)
    return quantize(np.where(v < 0, v * F(alpha), v) * (F(xs) / F(ys)), yzp)


def avgpool2(xq, xs, xzp, ys, yzp):
    v = xq.astype(np.int64) - xzp
    n, c, h, w = v.shape
    sums = v.reshape(n, c, h // 2, 2, w // 2, 2).sum((3, 5))
    return quantize(exact(sums) * (F(xs) / 4 / F(ys)), yzp)


def qadd(aq, a, bq, b, cs, czp):
    (as_, azp), (bs, bzp) = a, b
    real = (exact(aq.astype(np.int64) - azp) * F(as_) + exact(bq.astype(np.int64) - bzp) * F(bs))
    return quantize(real / F(cs), czp)


def gap(xq, xs, xzp, ys, yzp):
    sums = (xq.astype(np.int64) - xzp).sum((2, 3), keepdims=True)
    return quantize(exact(sums) * (F(xs) / (xq.shape[2] * xq.shape[3]) / F(ys)), yzp)


def qmatmul(aq, azp, as_, bq, bzp, bs, ys, yzp):
    acc = (aq.astype(np.int64) - azp) @ (bq.astype(np.int64) - bzp.reshape(1, -1))
    m = F(as_) * frac(bs) / F(ys)
    return quantize(exact(acc) * m.reshape(1, -1), yzp)


def qgemm_t(aq, azp, as_, bq, bs, bias, ys, yzp):
    """QGemm with B [N, K] read transposed, B's zero point 0, alpha 1."""
    acc = (aq.astype(np.int64) - azp) @ bq.astype(np.int64).T + bias.reshape(1, -1)
    return quantize(exact(acc) * (F(as_) * frac(bs) / F(ys)).reshape(1, -1), yzp)


def qsoftmax(xq, xs, xzp, ys, yzp):
    """QLinearSoftmax over the last axis; the softmax in float64 (not exact: a value within
    rounding of a half may land one step off, as the check allows)."""
    v = (xq.astype(np.float64) - xzp) * np.float64(xs)
    e = np.exp(v - v.max(-1, keepdims=True))
    real = e / e.sum(-1, keepdims=True) / np.float64(ys)
    return np.clip(np.rint(real).astype(np.int64) + yzp, *U8)


def calibrated(real, tight=0.9):
    """uint8 scale and zero point over the real values' range (widened to hold 0), narrowed
    by `tight` so the extremes saturate."""
    lo, hi = min(real.min(), 0.0) * tight, max(real.max(), 0.0) * tight
    s = np.float32((hi - lo) / 255)
    return s, int(np.clip(np.rint(-lo / s), 0, 255))


def weights(rng, shape, zp_range=0):
    """int8 weights with per-output-channel scales (axis 0), as symmetric quantizers write them,
    and zero points in [-zp_range, zp_range]."""
    w = rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))
    scale = (np.abs(w).reshape(shape[0], -1).max(1) / 127).astype(np.float32)
    zp = rng.integers(-zp_range, zp_range + 1, shape[0]).astype(np.int8)
    q = np.clip(np.rint(w / scale.reshape(-1, *([1] * (len(shape) - 1)))) + zp.reshape(
        -1, *([1] * (len(shape) - 1))), -128, 127).astype(np.int8)
    return q, scale, zp


def build(x):
    """The model, and the layers' parameters (a dict), calibrated on input x."""
    rng = np.random.default_rng(7)
    P = {}
    xs, xzp = calibrated(x)
    xq = quantize(frac(x) / F(xs), xzp)
    # conv1: 3 -> 8 channels, 3x3, int32 bias quantized with scale xs * ws.
    w1, ws1, wzp1 = weights(rng, (8, 3, 3, 3))
    b1 = np.rint(rng.standard_normal(8) * 0.3 / (xs * ws1)).astype(np.int32)
    acc = conv_acc(xq, xzp, w1, wzp1, b1, 1, 1)
    ys1, yzp1 = calibrated(acc * (xs * ws1).reshape(1, -1, 1, 1))
    P["c1"] = dict(xs=xs, xzp=xzp, w=w1, ws=ws1, wzp=wzp1, b=b1, ys=ys1, yzp=yzp1)
    c1 = qconv(xq, P["c1"], 1)
    # Leaky ReLU (alpha 0.125).
    v = dequant(c1, ys1, yzp1)
    rs, rzp = calibrated(np.where(v < 0, 0.125 * v, v))
    P["r1"] = (ys1, yzp1, rs, rzp)
    r1 = leaky(c1, *P["r1"], 0.125)
    # conv2: 8 -> 8 channels, 3x3 stride 2, weight zero points in [-3, 3].
    w2, ws2, wzp2 = weights(rng, (8, 8, 3, 3), zp_range=3)
    b2 = np.rint(rng.standard_normal(8) * 0.3 / (rs * ws2)).astype(np.int32)
    acc = conv_acc(r1, rzp, w2, wzp2, b2, 2, 1)
    ys2, yzp2 = calibrated(acc * (rs * ws2).reshape(1, -1, 1, 1))
    P["c2"] = dict(xs=rs, xzp=rzp, w=w2, ws=ws2, wzp=wzp2, b=b2, ys=ys2, yzp=yzp2)
    c2 = qconv(r1, P["c2"], 2)
    # The residual branch: a 2x2 average pool of r1, at r1's scale.
    P["p1"] = (rs, rzp, rs, rzp)
    p1 = avgpool2(r1, *P["p1"])
    ss, szp = calibrated(dequant(c2, ys2, yzp2) + dequant(p1, rs, rzp))
    P["s"] = ((ys2, yzp2), (rs, rzp), ss, szp)
    s = qadd(c2, P["s"][0], p1, P["s"][1], ss, szp)
    gs, gzp = calibrated(dequant(s, ss, szp).mean((2, 3)), tight=1.0)
    P["g"] = (ss, szp, gs, gzp)
    g = gap(s, *P["g"])
    # The classifier: 8 -> 10, int8 weights per column (axis 1 of [8, 10]).
    wt, wst, _ = weights(rng, (10, 8))
    wfc, wsfc = np.ascontiguousarray(wt.T), wst
    wzpfc = np.zeros(10, dtype=np.int8)
    acc = (g.reshape(-1, 8).astype(np.int64) - gzp) @ wfc.astype(np.int64)
    qs, qzp = calibrated(acc * gs * wsfc.reshape(1, -1), tight=1.0)
    P["q"] = (gzp, gs, wfc, wzpfc, wsfc, qs, qzp)
    q = qmatmul(g.reshape(-1, 8), *P["q"])
    # A QGemm head 10 -> 6 (weights [6, 10] read transposed, bias at scale qs * ws), then a
    # QLinearSoftmax at scale 1/256.
    wh, wsh, _ = weights(rng, (6, 10))
    bh = np.rint(rng.standard_normal(6) * 0.2 / (qs * wsh)).astype(np.int32)
    acc = (q.astype(np.int64) - qzp) @ wh.astype(np.int64).T + bh
    hs, hzp = calibrated(acc * qs * wsh.reshape(1, -1), tight=1.0)
    P["h"] = (qzp, qs, wh, wsh, bh, hs, hzp)
    P["sm"] = (hs, hzp, np.float32(1 / 256), 0)

    def t(name, v, dtype=None):
        a = np.asarray(v, dtype=dtype)
        return numpy_helper.from_array(a, name)

    inits = [
        t("xs", xs, np.float32), t("xzp", xzp, np.uint8),
        t("w1", w1), t("ws1", ws1), t("wzp1", wzp1), t("b1", b1),
        t("ys1", ys1, np.float32), t("yzp1", yzp1, np.uint8),
        t("rs", rs, np.float32), t("rzp", rzp, np.uint8),
        t("w2", w2), t("ws2", ws2), t("wzp2", wzp2), t("b2", b2),
        t("ys2", ys2, np.float32), t("yzp2", yzp2, np.uint8),
        t("ss", ss, np.float32), t("szp", szp, np.uint8),
        t("gs", gs, np.float32), t("gzp", gzp, np.uint8),
        t("flat", [x.shape[0], 8], np.int64),
        t("wfc", wfc), t("wsfc", wsfc), t("wzpfc", wzpfc),
        t("qs", qs, np.float32), t("qzp", qzp, np.uint8),
        t("wh", wh), t("wsh", wsh), t("wzph", np.zeros(6, dtype=np.int8)), t("bh", bh),
        t("hs", hs, np.float32), t("hzp", hzp, np.uint8),
        t("sms", 1 / 256, np.float32), t("smzp", 0, np.uint8),
    ]
    ms = "com.microsoft"
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xzp"], ["xq"]),
        helper.make_node("QLinearConv", ["xq", "xs", "xzp", "w1", "ws1", "wzp1", "ys1", "yzp1",
                                         "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("QLinearLeakyRelu", ["c1", "ys1", "yzp1", "rs", "rzp"], ["r1"],
                         domain=ms, alpha=0.125),
        helper.make_node("QLinearConv", ["r1", "rs", "rzp", "w2", "ws2", "wzp2", "ys2", "yzp2",
                                         "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("QLinearAveragePool", ["r1", "rs", "rzp", "rs", "rzp"], ["p1"],
                         domain=ms, kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("QLinearAdd", ["c2", "ys2", "yzp2", "p1", "rs", "rzp", "ss", "szp"],
                         ["s"], domain=ms),
        helper.make_node("QLinearGlobalAveragePool", ["s", "ss", "szp", "gs", "gzp"], ["g"],
                         domain=ms, channels_last=0),
        helper.make_node("Reshape", ["g", "flat"], ["f"]),
        helper.make_node("QLinearMatMul", ["f", "gs", "gzp", "wfc", "wsfc", "wzpfc", "qs", "qzp"],
                         ["q"]),
        helper.make_node("DequantizeLinear", ["q", "qs", "qzp"], ["y"]),
        helper.make_node("QGemm", ["q", "qs", "qzp", "wh", "wsh", "wzph", "bh", "hs", "hzp"],
                         ["h"], domain=ms, transB=1),
        helper.make_node("QLinearSoftmax", ["h", "hs", "hzp", "sms", "smzp"], ["sm"], domain=ms,
                         axis=-1, opset=13),
    ]
    n, _, h, w = x.shape
    u8 = TensorProto.UINT8
    outs = [("xq", u8, [n, 3, h, w]), ("c1", u8, [n, 8, h, w]), ("r1", u8, [n, 8, h, w]),
            ("c2", u8, [n, 8, h // 2, w // 2]), ("p1", u8, [n, 8, h // 2, w // 2]),
            ("s", u8, [n, 8, h // 2, w // 2]), ("g", u8, [n, 8, 1, 1]), ("q", u8, [n, 10]),
            ("y", TensorProto.FLOAT, [n, 10]), ("h", u8, [n, 6]), ("sm", u8, [n, 6])]
    graph = helper.make_graph(
        nodes, "qoperator_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                               list(x.shape))],
        [helper.make_tensor_value_info(*o) for o in outs], inits)
    model = helper.make_model(graph, producer_name="qoperator_test",
                              opset_imports=[helper.make_opsetid("", 13),
                                             helper.make_opsetid(ms, 1)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, P


def references(x, got, P):
    """Each quantized output computed from tilesat's values of its inputs."""
    xs, xzp = P["c1"]["xs"], P["c1"]["xzp"]
    return {
        "xq": quantize(frac(x) / F(xs), xzp),
        "c1": qconv(got["xq"], P["c1"], 1),
        "r1": leaky(got["c1"], *P["r1"], 0.125),
        "c2": qconv(got["r1"], P["c2"], 2),
        "p1": avgpool2(got["r1"], *P["p1"]),
        "s": qadd(got["c2"], P["s"][0], got["p1"], P["s"][1], P["s"][2], P["s"][3]),
        "g": gap(got["s"], *P["g"]),
        "q": qmatmul(got["g"].reshape(x.shape[0], 8), *P["q"]),
        "h": qgemm_t(got["q"], *P["h"]),
        "sm": qsoftmax(got["h"], *P["sm"]),
    }


def main():
    tilesat, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    x = np.random.default_rng(0).standard_normal((2, 3, 16, 16)).astype(np.float32)
    model, P = build(x)
    path = os.path.join(work, "qoperator_cnn.onnx")
    onnx.save(model, path)
    xin = os.path.join(work, "x.npy")
    np.save(xin, x)
    prog = os.path.join(work, "qoperator_cnn.tsprog")
    out = os.path.join(work, "out")
    summary = run([tilesat, "opt", path, "--device", "wormhole_b0", "-o", prog])
    if summary is None or run([tilesat, "run", prog, "--input", "x=" + xin,
                                "--output-dir", out]) is None:
        return 1
    print(f"qoperator_cnn: {summary.strip()}")
    got = {k: np.load(os.path.join(out, k + ".npy")).astype(np.int64)
           for k in ("xq", "c1", "r1", "c2", "p1", "s", "g", "q", "h", "sm")}
    want = references(x, got, P)
    failures = 0
    for name, w in want.items():
        g = got[name]
        if g.shape != w.shape:
            print(f"{name}: shape {g.shape}, expected {w.shape} MISMATCH")
            failures += 1
            continue
        diff = np.abs(g - w)
        off = int((diff > 0).sum())
        # tilesat requantizes in f32 (the integer accumulator, exact in f32, times a multiplier
        # such as x_scale * w_scale / y_scale rounded to f32, the product rounded again), the
        # reference exactly: where the exact value lies within those roundings of a half
        # (x.5), the two may round to neighbouring integers. So a value may be one step off,
        # on a small fraction of a layer (at most 0.5%); never more.
        ok = diff.max() <= 1 and off <= max(1, w.size // 200)
        failures += not ok
        saturated = int(((w == 0) | (w == 255)).sum())
        print(f"{name}: {w.size} values ({saturated} at 0 or 255), {off} one step off "
              f"{'ok' if ok else 'MISMATCH'}")
    # The dequantized output: (q - zero point) * scale of tilesat's q.
    y = np.load(os.path.join(out, "y.npy")).astype(np.float64)
    want_y = dequant(got["q"], P["q"][5], P["q"][6])
    ok = y.shape == want_y.shape and np.allclose(y, want_y, rtol=1e-6, atol=1e-7)
    failures += not ok
    print(f"y: dequantized {'ok' if ok else 'MISMATCH'}")
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
