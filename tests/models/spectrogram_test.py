#!/usr/bin/env python3
"""Audio front ends as ONNX writes them (opset 17): a log-mel spectrogram and a classifier.

usage: spectrogram_test.py TILESAT WORK_DIR

Each model is built with onnx.helper (torch 1.13 cannot export torch.stft):
  HannWindow(n_fft) -> STFT(waveform, hop, window) -> |X|^2 (ReduceSumSquare over re/im)
  -> MatMul with MelWeightMatrix -> Log(x + 1e-6)
then, for the classifier, a 3x3 Conv over (frames, mels), Relu, a mean over time and
frequency and a Gemm. The sizes are a small one and Whisper's front end (16 kHz, 30 s:
480000 samples, n_fft 400, hop 160, 80 mel bands, 2998 frames without centring). Each goes
  tilesat opt M.onnx --device wormhole_b0 -o M.tsprog
  tilesat run M.tsprog --input x=X.npy --output-dir OUT
and OUT/y.npy is compared with numpy (np.fft.rfft; the mel matrix as ONNX's reference builds
it): normwise relative error at most 1e-4 (f32: the spectrum's sums run over n_fft samples
and the log amplifies relative error where the power is small). Exits 77 when numpy or onnx is
missing, 1 on any mismatch. Run with /usr/bin/python3.
"""
import os
from cli_run import normwise_error, run
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    print("spectrogram_test.py: numpy and onnx are needed (apt-get install python3-onnx)")
    sys.exit(77)


def mel_matrix(mels, n_fft, rate, lower, upper):
    """ONNX's MelWeightMatrix, as its reference computes it: [n_fft // 2 + 1, mels]."""
    def mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    step = (mel(upper) - mel(lower)) / (mels + 2)
    edges = np.arange(mels + 2) * step + mel(lower)
    edges = np.floor((n_fft + 1) * 700.0 * (10.0 ** (edges / 2595.0) - 1.0) / rate).astype(int)
    m = np.zeros((n_fft // 2 + 1, mels))
    for i in range(mels):
        left, centre, right = edges[i], edges[i + 1], edges[i + 2]
        if centre == left:
            m[centre, i] = 1
        else:
            for j in range(left, centre + 1):
                m[j, i] = (j - left) / (centre - left)
        for j in range(centre, right):
            m[j, i] = (right - j) / (right - centre)
    return m


def build(name, samples, n_fft, hop, mels, rate, classes):
    """The ONNX model and a numpy function computing what it should."""
    rng = np.random.default_rng(len(name))
    ints = lambda n, v: numpy_helper.from_array(np.array(v, dtype=np.int64), n)
    inits = [ints("n_fft", n_fft), ints("hop", hop), ints("mels", mels), ints("spectrum", n_fft),
             ints("rate", rate),
             numpy_helper.from_array(np.array(0.0, dtype=np.float32), "lower"),
             numpy_helper.from_array(np.array(rate / 2, dtype=np.float32), "upper"),
             numpy_helper.from_array(np.array([1e-6], dtype=np.float32), "eps"),
             ints("last", [-1]), ints("shape3", [1, samples, 1])]
    nodes = [
        helper.make_node("Reshape", ["x", "shape3"], ["signal"]),
        helper.make_node("HannWindow", ["n_fft"], ["window"]),
        helper.make_node("STFT", ["signal", "hop", "window"], ["spec"]),
        helper.make_node("ReduceSumSquare", ["spec"], ["power"], axes=[-1], keepdims=0),
        helper.make_node("MelWeightMatrix", ["mels", "spectrum", "rate", "lower", "upper"],
                         ["filters"]),
        helper.make_node("MatMul", ["power", "filters"], ["melpower"]),
        helper.make_node("Add", ["melpower", "eps"], ["floored"]),
        helper.make_node("Log", ["floored"], ["y" if classes == 0 else "logmel"]),
    ]
    frames = (samples - n_fft) // hop + 1
    w = conv_w = conv_b = fc_w = fc_b = None
    if classes:
        conv_w = (rng.standard_normal((4, 1, 3, 3)) / 3).astype(np.float32)
        conv_b = rng.standard_normal(4).astype(np.float32)
        fc_w = rng.standard_normal((classes, 4)).astype(np.float32)
        fc_b = rng.standard_normal(classes).astype(np.float32)
        for n, v in [("conv_w", conv_w), ("conv_b", conv_b), ("fc_w", fc_w), ("fc_b", fc_b)]:
            inits.append(numpy_helper.from_array(v, n))
        nodes += [
            helper.make_node("Unsqueeze", ["logmel", "axes1"], ["image"]),
            helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["conv"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["conv"], ["act"]),
            helper.make_node("GlobalAveragePool", ["act"], ["pooled"]),
            helper.make_node("Flatten", ["pooled"], ["flat"]),
            helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1),
        ]
        inits.append(ints("axes1", [1]))
    out = [1, classes] if classes else [1, frames, mels]
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [samples])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)

    def reference(x):
        n = np.arange(n_fft)
        window = 0.5 - 0.5 * np.cos(2 * np.pi * n / n_fft)
        idx = np.arange(frames)[:, None] * hop + n[None, :]
        power = np.abs(np.fft.rfft(x[idx] * window, axis=-1)) ** 2  # [frames, bins]
        logmel = np.log(power @ mel_matrix(mels, n_fft, rate, 0.0, rate / 2) + 1e-6)[None]
        if not classes:
            return logmel
        img = np.pad(logmel, ((0, 0), (1, 1), (1, 1)))
        conv = np.zeros((4, frames, mels))
        for o in range(4):
            for i in range(3):
                for j in range(3):
                    conv[o] += conv_w[o, 0, i, j] * img[0, i:i + frames, j:j + mels]
            conv[o] += conv_b[o]
        pooled = np.maximum(conv, 0).mean((1, 2))
        return (fc_w.astype(np.float64) @ pooled + fc_b)[None]

    return model, reference


def main():
    tilesat, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    cases = {
        "logmel_small": dict(samples=1000, n_fft=64, hop=16, mels=16, rate=8000, classes=0),
        "audio_classifier": dict(samples=4000, n_fft=128, hop=32, mels=24, rate=8000, classes=5),
        "whisper_frontend": dict(samples=480000, n_fft=400, hop=160, mels=80, rate=16000,
                                 classes=0),
    }
    failures = 0
    for name, case in cases.items():
        model, reference = build(name, **case)
        path = os.path.join(work, name + ".onnx")
        onnx.save(model, path)
        rng = np.random.default_rng(1)
        t = np.arange(case["samples"]) / case["rate"]
        x = (np.sin(2 * np.pi * 440 * t) + 0.1 * rng.standard_normal(t.size)).astype(np.float32)
        xpath = os.path.join(work, name + ".x.npy")
        np.save(xpath, x)
        prog = os.path.join(work, name + ".tsprog")
        out = os.path.join(work, name + ".out")
        summary = run([tilesat, "opt", path, "--device", "wormhole_b0", "-o", prog])
        if summary is None or run([tilesat, "run", prog, "--input", "x=" + xpath,
                                   "--output-dir", out]) is None:
            failures += 1
            continue
        got = np.load(os.path.join(out, "y.npy")).astype(np.float64)
        want = reference(x.astype(np.float64))
        err = normwise_error(got, want)
        ok = got.shape == want.shape and err <= 1e-4
        failures += not ok
        print(f"{name} {list(want.shape)}: {summary.strip()}; normwise relative error {err:.2e} "
              f"{'ok' if ok else 'MISMATCH'}")
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
