"""NumPy reference values of the ONNX fixtures written by make_onnx_fixtures.cpp.

usage: reference.py MODEL OUTPUT_DIR
Reads the inputs `tilesat eval --random-inputs` drew (OUTPUT_DIR/<input>.npy), computes the
model's output independently of tilesat, and compares it with the output `tilesat eval` wrote
(OUTPUT_DIR/<output name>.npy).
"""
import math
import sys

import numpy as np


def ramp(n, scale, offset=0.0):
    return (np.arange(n, dtype=np.float32) * np.float32(scale) + np.float32(offset)).astype(np.float32)


def mlp(d):
    x = np.load(f"{d}/x.npy")
    w = ramp(12, 0.1).reshape(4, 3)
    b = np.array([-1, 0, 1], dtype=np.float32)
    return np.maximum(x @ w + b, 0)


def conv2d(x, w, stride, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.zeros((n, c, h + 2 * pad, wd + 2 * pad), dtype=np.float64)
    xp[:, :, pad:pad + h, pad:pad + wd] = x
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return y


def cnn(d):
    x = np.load(f"{d}/image.npy").astype(np.float64)
    w = ramp(108, 0.01, -0.5).reshape(4, 3, 3, 3).astype(np.float64)
    c = conv2d(x, w, stride=2, pad=1)
    scale = np.array([1, 2, 0.5, 1]).reshape(1, 4, 1, 1)
    bias = np.array([0, 0.1, 0.2, 0.3]).reshape(1, 4, 1, 1)
    mean = np.array([0, 0.5, -0.5, 0]).reshape(1, 4, 1, 1)
    var = np.array([1, 2, 3, 4]).reshape(1, 4, 1, 1)
    n = (c - mean) / np.sqrt(var + 1e-5) * scale + bias
    r = np.clip(n, 0, 6)
    p = r.reshape(1, 4, 2, 2, 2, 2).max(axis=(3, 5))
    g = p.mean(axis=(2, 3))
    fc = ramp(8, 0.25, -1).reshape(2, 4).astype(np.float64)
    return g @ fc.T + np.array([0.5, -0.5])


def attention(d):
    h = np.load(f"{d}/h.npy").astype(np.float64)
    mu = h.mean(axis=-1, keepdims=True)
    var = ((h - mu) ** 2).mean(axis=-1, keepdims=True)
    x = (h - mu) / np.sqrt(var + 1e-5)
    wq = ramp(64, 0.01, -0.3).reshape(8, 8)
    wk = ramp(64, -0.01, 0.3).reshape(8, 8)
    wv = ramp(64, 0.005).reshape(8, 8)
    split = lambda t: t.reshape(1, 4, 2, 4).transpose(0, 2, 1, 3)
    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    s = q @ k.transpose(0, 1, 3, 2) / 2
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    probs = e / e.sum(axis=-1, keepdims=True)
    ctx = probs @ v
    erf = np.vectorize(math.erf)
    return ctx * (1 + erf(ctx / 1.4142135)) * 0.5


def main():
    model, out_dir = sys.argv[1], sys.argv[2]
    expected = {"mlp": mlp, "cnn": cnn, "attention": attention}[model](out_dir)
    output = {"mlp": "y", "cnn": "logits", "attention": "y"}[model]
    got = np.load(f"{out_dir}/{output}.npy")
    if got.shape != expected.shape:
        sys.exit(f"{model}: shape {got.shape}, expected {expected.shape}")
    err = float(np.max(np.abs(got - expected)))
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-5):
        sys.exit(f"{model}: max abs error {err}")
    print(f"{model}: ok, shape {list(got.shape)}, max abs error below 1e-4")


main()
