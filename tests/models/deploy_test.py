#!/usr/bin/env python3
"""Deployable programs from torch models with their weights.

usage: deploy_test.py TILESAT WORK_DIR [DEPLOY_API]

For each model (an MLP, a small CNN with convolution, batch normalization and pooling, a 1-D
CNN over a waveform, a small transformer encoder layer, a decoder with a transposed
convolution, nearest and bilinear resizes and log-softmax, a bidirectional two-layer LSTM and a
GRU, each with a linear head, a quantization-aware CNN exported as
QuantizeLinear/DequantizeLinear pairs, a mixture of experts with a top-2 router, a 3-D CNN
over video frames, a spatial transformer resampling its input on a grid it computes, and
RAFT optical flow),
exports it from torch with its weights (ONNX initializers; opset 14, 16 for the spatial
transformer's GridSample), then
  tilesat opt M.onnx --device wormhole_b0 -o M.tsprog      (weights stored in the program)
  tilesat run M.tsprog --input NAME=X.npy --output-dir OUT  (only the model's real input)
and compares OUT/<output name>.npy with torch's output: normwise relative error at most 1e-5
(f32). The CNN is also written with a small --inline-weights-limit, so its weights go to the
side file, and read from an ONNX model that keeps its weights as external data. A detector (torchvision's SSDlite, 320x320) is planned up to its heads with
`--outputs`, its NonZero / NonMaxSuppression tail cut, and its class logits and box
regressions compared with torch's heads. A Llama-shaped language model (token ids in, rotary
positions, grouped-query attention, SwiGLU) is compared with torch's logits and next tokens,
and so is one decode step with its key/value cache as inputs of a dynamic length (`--dim`).
With DEPLOY_API (tests/models/deploy_api.cpp), each model also goes through the
same steps in the C++ API and is compared the same way. Exits 77 (ctest's skip) when torch is
not installed, 1 on any mismatch. Needs Debian's python3-torch and python3-onnx; run with
/usr/bin/python3.
"""
import os
from cli_run import normwise_error, run
import subprocess
import sys

try:
    import numpy as np
    import torch
    from torch import nn
except ImportError:
    print("deploy_test.py: torch is not installed (apt-get install python3-torch python3-onnx)")
    sys.exit(77)


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(y.flatten(1))


class Decoder(nn.Module):
    """Upsampling layers: a transposed convolution, a nearest and a bilinear resize, a
    concatenation, and per-pixel log-probabilities over the channels."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.conv = nn.Conv2d(8, 6, 3, padding=1)

    def forward(self, x):
        a = self.up(x)
        b = nn.functional.interpolate(x[:, :4], scale_factor=2.0, mode="nearest")
        y = self.conv(torch.cat([a, b], dim=1))
        y = nn.functional.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False)
        return torch.log_softmax(y, dim=1)


class AudioCnn(nn.Module):
    """1-D convolutions over a waveform (strided, dilated, depthwise), batch normalization, max
    and average pooling, and a linear head over the time-averaged channels."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(1, 16, 9, stride=2, padding=4)
        self.bn = nn.BatchNorm1d(16)
        self.conv2 = nn.Conv1d(16, 32, 5, padding=4, dilation=2)
        self.depthwise = nn.Conv1d(32, 32, 3, padding=1, groups=32)
        self.fc = nn.Linear(32, 6)

    def forward(self, x):
        x = nn.functional.max_pool1d(torch.relu(self.bn(self.conv1(x))), 2)
        x = nn.functional.avg_pool1d(torch.relu(self.conv2(x)), 3, stride=2)
        return self.fc(torch.relu(self.depthwise(x)).mean(2))


class VideoCnn(nn.Module):
    """3-D convolutions over frames (a (1, 3, 3) spatial and a (3, 1, 1) temporal one, as
    R(2+1)D factors them, a strided 3x3x3 and a transposed one back up, as a 3-D U-Net
    decodes), batch normalization, 3-D max and average pooling, and a linear head."""

    def __init__(self):
        super().__init__()
        self.spatial = nn.Conv3d(3, 8, (1, 3, 3), padding=(0, 1, 1))
        self.temporal = nn.Conv3d(8, 8, (3, 1, 1), padding=(1, 0, 0))
        self.bn = nn.BatchNorm3d(8)
        self.conv = nn.Conv3d(8, 16, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose3d(16, 4, 2, stride=2)
        self.fc = nn.Linear(4, 5)

    def forward(self, x):
        x = torch.relu(self.bn(self.temporal(torch.relu(self.spatial(x)))))
        x = nn.functional.max_pool3d(x, (1, 2, 2))
        x = nn.functional.avg_pool3d(self.up(torch.relu(self.conv(x))), 2, padding=1)
        return self.fc(x.mean((2, 3, 4)))


class MixtureOfExperts(nn.Module):
    """A router picking each token's top two of eight experts (TopK), their weights scattered
    by the picked indices (ScatterElements on runtime indices), and the experts as batched
    products (Einsum)."""

    def __init__(self, dim=32, experts=8, hidden=64):
        super().__init__()
        self.gate = nn.Linear(dim, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, dim, hidden) * 0.2)
        self.w2 = nn.Parameter(torch.randn(experts, hidden, dim) * 0.2)

    def forward(self, x):
        logits = self.gate(x)
        top, idx = torch.topk(logits, 2, dim=-1)
        weights = torch.zeros_like(logits).scatter(-1, idx, torch.softmax(top, -1))
        h = torch.einsum("td,edh->teh", x, self.w1).relu()
        y = torch.einsum("teh,ehd->ted", h, self.w2)
        return (y * weights.unsqueeze(-1)).sum(1)


class Recurrent(nn.Module):
    """A recurrence's full output sequence (ONNX LSTM / GRU, unrolled by the importer) and a
    linear head over it."""

    def __init__(self, cell, **kw):
        super().__init__()
        self.rnn = cell(**kw)
        self.head = nn.Linear(kw["hidden_size"] * (2 if kw.get("bidirectional") else 1), 5)

    def forward(self, x):
        return self.head(self.rnn(x)[0])


class QuantizedCnn(nn.Module):
    """A quantization-aware CNN as torch exports it (ONNX QDQ): int8 weights with per-channel
    scales, uint8 activations with fixed scales, each a QuantizeLinear/DequantizeLinear pair."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.fc = nn.Linear(32, 10)
        for m in (self.conv1, self.conv2, self.fc):
            w = m.weight.detach()
            m.register_buffer("scale", w.abs().amax(dim=tuple(range(1, w.dim()))) / 127)

    @staticmethod
    def weight(m):
        zero = torch.zeros(m.weight.shape[0], dtype=torch.int32)
        return torch.fake_quantize_per_channel_affine(m.weight, m.scale, zero, 0, -128, 127)

    @staticmethod
    def act(x, scale, zero_point):
        return torch.fake_quantize_per_tensor_affine(x, scale, zero_point, 0, 255)

    def forward(self, x):
        x = self.act(x, 0.02, 128)
        x = self.act(torch.relu(nn.functional.conv2d(x, self.weight(self.conv1), self.conv1.bias,
                                                     padding=1)), 0.05, 0)
        x = self.act(torch.relu(nn.functional.conv2d(x, self.weight(self.conv2), self.conv2.bias,
                                                     stride=2, padding=1)), 0.05, 0)
        return nn.functional.linear(x.mean((2, 3)), self.weight(self.fc), self.fc.bias)


class SpatialTransformer(nn.Module):
    """A spatial transformer: a localization net (convolution, pooling, linear) predicts each
    image's affine transform, the image is resampled on the grid it maps (GridSample, bilinear,
    zeros padding), and a convolution reads the result. The grid is F.affine_grid's; torch
    exports affine_grid only from opset 20, so the export writes it as the product it is: the
    output pixel centres (x, y, 1) times theta transposed."""

    def __init__(self, size=28):
        super().__init__()
        self.size = size
        self.loc = nn.Sequential(nn.Conv2d(1, 8, 5), nn.MaxPool2d(2), nn.ReLU())
        self.fc = nn.Linear(8 * ((size - 4) // 2) ** 2, 6)
        with torch.no_grad():  # a warp near the identity (scaled, sheared, moved), as trained
            self.fc.weight.mul_(0.1)
            self.fc.bias.copy_(torch.tensor([0.9, 0.2, 0.1, -0.15, 1.1, -0.05]))
        self.head = nn.Conv2d(1, 4, 3, padding=1)
        centres = (torch.arange(size) * 2 + 1) / size - 1  # align_corners=False
        xs, ys = torch.meshgrid(centres, centres, indexing="xy")
        base = torch.stack([xs, ys, torch.ones(size, size)], -1)
        self.register_buffer("base", base.reshape(1, size * size, 3))

    def forward(self, x):
        theta = self.fc(self.loc(x).flatten(1)).view(-1, 2, 3)
        if torch.onnx.is_in_onnx_export():
            grid = (self.base @ theta.transpose(1, 2)).view(-1, self.size, self.size, 2)
        else:
            grid = nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
        y = nn.functional.grid_sample(x, grid, mode="bilinear", padding_mode="zeros",
                                      align_corners=False)
        return self.head(y)


class OpticalFlow(nn.Module):
    """torchvision's RAFT (small, untrained) estimating the flow from frame 0 to frame 1 of its
    input [2, 3, H, W] in two refinement steps: correlation lookups are GridSamples on a
    runtime grid (the coordinates plus the flow so far), its encoders use instance norm.
    128x128 frames: at 64x64 the coarsest correlation level is 1x1 and torch's own grid
    normalization divides by zero (its output is NaN)."""

    def __init__(self):
        super().__init__()
        from torchvision.models.optical_flow import raft_small
        self.raft = raft_small(weights=None)

    def forward(self, x):
        return self.raft(x[0:1], x[1:2], num_flow_updates=2)[-1]


class LlamaLm(nn.Module):
    """A Llama-shaped language model at toy size: token embedding, RMSNorm, rotary positions,
    grouped-query attention with a causal mask, SwiGLU, and a head over the vocabulary; token
    ids (int64) in, logits out. bench/models/llm_scale.py runs it at real size."""

    def __init__(self, vocab=512, dim=128, layers=2, heads=4, kv_heads=2, hidden=352, seq=32):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, dim // heads
        self.emb = nn.Embedding(vocab, dim)
        lin = lambda i, o: nn.Linear(i, o, bias=False)
        self.layers = nn.ModuleList(nn.ModuleDict({
            "q": lin(dim, dim), "k": lin(dim, kv_heads * self.hd), "v": lin(dim, kv_heads * self.hd),
            "o": lin(dim, dim), "gate": lin(dim, hidden), "up": lin(dim, hidden),
            "down": lin(hidden, dim)}) for _ in range(layers))
        self.norms = nn.Parameter(1 + 0.1 * torch.randn(2 * layers + 1, dim))
        self.head = lin(dim, vocab)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        angles = torch.outer(torch.arange(seq).float(), inv).repeat(1, 2)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), -1e9), 1))

    def norm(self, x, i):
        return self.norms[i] * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5)

    def rope(self, x, pos):
        half = x.shape[-1] // 2
        turned = torch.cat((-x[..., half:], x[..., :half]), -1)
        return x * self.cos[pos] + turned * self.sin[pos]

    def layer(self, i, x, pos, mask, past=None):
        """Layer i on x at positions `pos`; with past = (keys, values) of earlier positions,
        the new ones are appended to them. Returns x and the layer's keys and values."""
        l, (b, t, d) = self.layers[i], x.shape
        h = self.norm(x, 2 * i)
        q = self.rope(l["q"](h).view(b, t, self.heads, self.hd).transpose(1, 2), pos)
        k = self.rope(l["k"](h).view(b, t, self.kv_heads, self.hd).transpose(1, 2), pos)
        v = l["v"](h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        if past is None:
            kk = k.repeat_interleave(self.heads // self.kv_heads, dim=1)
            vv = v.repeat_interleave(self.heads // self.kv_heads, dim=1)
        else:
            # Grouped heads as expand + reshape: torch 1.13 exports repeat_interleave over a
            # dynamic axis wrongly (a Reshape whose 0 copies the wrong dim).
            k, v = torch.cat([past[0], k], 2), torch.cat([past[1], v], 2)
            group = (b, self.kv_heads, self.heads // self.kv_heads, k.shape[2], self.hd)
            kk = k[:, :, None].expand(group).reshape(b, self.heads, k.shape[2], self.hd)
            vv = v[:, :, None].expand(group).reshape(b, self.heads, v.shape[2], self.hd)
        scores = q @ kk.transpose(2, 3) / self.hd ** 0.5
        a = torch.softmax(scores if mask is None else scores + mask, -1) @ vv
        x = x + l["o"](a.transpose(1, 2).reshape(b, t, d))
        h = self.norm(x, 2 * i + 1)
        return x + l["down"](nn.functional.silu(l["gate"](h)) * l["up"](h)), k, v

    def forward(self, ids):
        x = self.emb(ids)
        pos = slice(0, ids.shape[1])
        for i in range(len(self.layers)):
            x, _, _ = self.layer(i, x, pos, self.mask)
        return self.head(self.norm(x, -1))


class LlamaDecodeStep(nn.Module):
    """One decode step of LlamaLm at position `pos`: the new token's logits, and every layer's
    keys and values with its own appended to the cache of the `pos` before it (past_k and
    past_v: [layers, batch, kv_heads, past, head_dim], `past` a dynamic axis)."""

    def __init__(self, lm, pos):
        super().__init__()
        self.lm, self.pos = lm, pos

    def forward(self, ids, past_k, past_v):
        x = self.lm.emb(ids)
        keys, values = [], []
        for i in range(len(self.lm.layers)):
            x, k, v = self.lm.layer(i, x, slice(self.pos, self.pos + 1), None,
                                    (past_k[i], past_v[i]))
            keys.append(k)
            values.append(v)
        return self.lm.head(self.lm.norm(x, -1)), torch.stack(keys), torch.stack(values)


def models():
    torch.manual_seed(0)
    cnn = SmallCnn()
    with torch.no_grad():  # distinct statistics, so the folded BatchNorm is not the identity
        cnn.bn.running_mean.uniform_(-0.5, 0.5)
        cnn.bn.running_var.uniform_(0.5, 2.0)
    encoder = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
    return {
        "mlp": (nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)), [8, 64]),
        "cnn": (cnn, [2, 3, 16, 16]),
        "encoder": (encoder, [2, 32, 64]),
        "decoder": (Decoder(), [1, 8, 8, 8]),
        "lstm": (Recurrent(nn.LSTM, input_size=16, hidden_size=24, num_layers=2,
                           bidirectional=True, batch_first=True), [2, 12, 16]),
        "gru": (Recurrent(nn.GRU, input_size=16, hidden_size=24), [10, 2, 16]),
        "qdq": (QuantizedCnn(), [2, 3, 16, 16]),
        "audio": (AudioCnn(), [2, 1, 400]),
        "moe": (MixtureOfExperts(), [16, 32]),
        "video": (VideoCnn(), [2, 3, 6, 16, 16]),
        "stn": (SpatialTransformer(), [2, 1, 28, 28], 16),
        "raft": (OpticalFlow(), [2, 3, 128, 128], 16),
    }


def compared(label, summary, got_file, want):
    """Prints how the output saved in got_file compares with torch's `want` (normwise relative
    error at most 1e-5, f32); returns 1 on a mismatch, else 0."""
    got = np.load(got_file).astype(np.float64)
    err = normwise_error(got, want)
    ok = got.shape == want.shape and err <= 1e-5
    print(f"{label}: {summary.strip()}; normwise relative error {err:.2e} "
          f"{'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


def external_data(tilesat, work):
    """The CNN saved with its weights as external data (one file beside the model, as
    torch.onnx.export writes a model over 2 GiB): planned, run and compared with torch. Returns
    the number of failures."""
    import onnx
    torch.manual_seed(1)
    module = SmallCnn().eval()
    x = torch.randn(2, 3, 16, 16)
    path = os.path.join(work, "external", "cnn.onnx")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.onnx.export(module, (x,), path, input_names=["x"], output_names=["y"])
    onnx.save_model(onnx.load(path), path, save_as_external_data=True,
                    all_tensors_to_one_file=True, location="cnn.weights", size_threshold=0)
    np.save(os.path.join(work, "external", "x.npy"), x.numpy())
    prog = os.path.join(work, "external", "cnn.tsprog")
    out = os.path.join(work, "external", "out")
    summary = run([tilesat, "opt", path, "--device", "wormhole_b0", "-o", prog])
    if summary is None or run([tilesat, "run", prog, "--input",
                               "x=" + os.path.join(work, "external", "x.npy"),
                               "--output-dir", out]) is None:
        return 1
    with torch.no_grad():
        want = module(x).numpy().astype(np.float64)
    return compared("cnn (external data)", summary, os.path.join(out, "y.npy"), want)


def language_model(tilesat, work):
    """The Llama-shaped LM, token ids in: planned, run and compared with torch's logits (and
    its next-token choices). Returns the number of failures."""
    torch.manual_seed(2)
    module = LlamaLm().eval()
    ids = torch.randint(0, 512, (1, 32))
    path = os.path.join(work, "llama.onnx")
    torch.onnx.export(module, (ids,), path, input_names=["ids"], output_names=["logits"],
                      opset_version=17)
    np.save(os.path.join(work, "llama.ids.npy"), ids.numpy())
    prog = os.path.join(work, "llama.tsprog")
    out = os.path.join(work, "llama.out")
    summary = run([tilesat, "opt", path, "--device", "wormhole_b0", "-o", prog])
    if summary is None or run([tilesat, "run", prog, "--input",
                               "ids=" + os.path.join(work, "llama.ids.npy"),
                               "--output-dir", out]) is None:
        return 1
    with torch.no_grad():
        want = module(ids).numpy().astype(np.float64)
    got = np.load(os.path.join(out, "logits.npy")).astype(np.float64)
    err = normwise_error(got, want)
    same_tokens = got.shape == want.shape and (got.argmax(-1) == want.argmax(-1)).all()
    ok = got.shape == want.shape and err <= 1e-5 and same_tokens
    print(f"llama lm: {summary.strip()}; normwise relative error {err:.2e}, next tokens "
          f"{'the same' if same_tokens else 'DIFFERENT'} {'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


def decode_step(tilesat, work):
    """A decode step of the Llama-shaped LM with its key/value cache as inputs whose length is
    a dynamic axis, given with --dim: planned, run and compared with torch's logits and
    updated cache. Returns the number of failures."""
    torch.manual_seed(3)
    lm = LlamaLm().eval()
    past = 20
    step = LlamaDecodeStep(lm, past).eval()
    ids = torch.randint(0, 512, (1, 1))
    cache = [torch.randn(2, 1, 2, past, 32) for _ in range(2)]
    path = os.path.join(work, "llama_step.onnx")
    torch.onnx.export(step, (ids, *cache), path, opset_version=17,
                      input_names=["ids", "past_k", "past_v"], output_names=["logits", "k", "v"],
                      dynamic_axes={"past_k": {3: "past"}, "past_v": {3: "past"}})
    given = []
    for name, value in zip(["ids", "past_k", "past_v"], [ids, *cache]):
        np.save(os.path.join(work, f"llama_step.{name}.npy"), value.numpy())
        given += ["--input", f"{name}={os.path.join(work, f'llama_step.{name}.npy')}"]
    prog = os.path.join(work, "llama_step.tsprog")
    out = os.path.join(work, "llama_step.out")
    summary = run([tilesat, "opt", path, "--device", "wormhole_b0", "--dim", f"past={past}",
                   "-o", prog])
    if summary is None or run([tilesat, "run", prog, *given, "--output-dir", out]) is None:
        return 1
    with torch.no_grad():
        wants = [w.numpy().astype(np.float64) for w in step(ids, *cache)]
    return sum(compared(f"llama decode step {name}", summary,
                        os.path.join(out, name + ".npy"), want)
               for name, want in zip(["logits", "k", "v"], wants))


def detector(tilesat, work):
    """torchvision's SSDlite (MobileNet-V3, untrained) exported whole, its value-dependent
    post-processing included; `--outputs` plans the part up to its heads. Returns the number
    of failures."""
    import onnx
    from torchvision.models.detection import ssdlite320_mobilenet_v3_large
    torch.manual_seed(0)
    model = ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None).eval()
    x = torch.rand(1, 3, 320, 320)
    path = os.path.join(work, "ssdlite.onnx")
    torch.onnx.export(model, (x,), path, input_names=["image"], opset_version=17)
    np.save(os.path.join(work, "ssdlite.x.npy"), x.numpy())
    with torch.no_grad():
        images, _ = model.transform([x[0]])
        heads = model.head(list(model.backbone(images.tensors).values()))
    # The heads' outputs, as the exporter names them: the last Concat of each head.
    graph = onnx.load(path, load_external_data=False).graph
    def head_output(head):
        return [n.output[0] for n in graph.node
                if n.op_type == "Concat" and n.name.startswith(f"/head/{head}/")][-1]
    names = {"cls_logits": head_output("classification_head"),
             "bbox_regression": head_output("regression_head")}
    whole = subprocess.run([tilesat, "opt", path, "--device", "wormhole_b0"],
                           capture_output=True, text=True)
    if whole.returncode == 0 or "--outputs" not in whole.stderr:
        print(f"ssdlite: expected the whole detector rejected with a hint, got {whole.stderr}")
        return 1
    prog = os.path.join(work, "ssdlite.tsprog")
    out = os.path.join(work, "ssdlite.out")
    summary = run([tilesat, "opt", path, "--device", "wormhole_b0", "--outputs",
                   ",".join(names.values()), "-o", prog])
    if summary is None or run([tilesat, "run", prog, "--input",
                               "image=" + os.path.join(work, "ssdlite.x.npy"),
                               "--output-dir", out]) is None:
        return 1
    failures = 0
    for key, name in names.items():
        stem = "".join(c if c.isalnum() or c in "_.$-" else "_" for c in name)
        failures += compared(f"ssdlite {key} ({name})", summary,
                             os.path.join(out, stem + ".npy"),
                             heads[key].numpy().astype(np.float64))
    return failures


def main():
    tilesat, work = sys.argv[1], sys.argv[2]
    api = sys.argv[3] if len(sys.argv) > 3 else None
    os.makedirs(work, exist_ok=True)
    failures = 0
    for name, (module, shape, *opset) in models().items():
        module.eval()
        x = torch.randn(*shape)
        path = os.path.join(work, name + ".onnx")
        torch.onnx.export(module, (x,), path, input_names=["x"], output_names=["y.out"],
                          opset_version=opset[0] if opset else 14)
        with torch.no_grad():
            want = module(x).numpy().astype(np.float64)
        np.save(os.path.join(work, name + ".x.npy"), x.numpy())
        for limit in ([None, "64"] if name == "cnn" else [None]):
            prog = os.path.join(work, f"{name}{'' if limit is None else '.side'}.tsprog")
            cmd = [tilesat, "opt", path, "--device", "wormhole_b0", "-o", prog]
            if limit is not None:
                cmd += ["--inline-weights-limit", limit]
            summary = run(cmd)
            out = os.path.join(work, os.path.basename(prog) + ".out")
            ran = summary is not None and run(
                [tilesat, "run", prog, "--input", "x=" + os.path.join(work, name + ".x.npy"),
                 "--output-dir", out])
            if not ran:
                failures += 1
                continue
            if limit is not None and not os.path.exists(prog + ".weights"):
                print(f"{name}: expected the weights in {prog}.weights")
                failures += 1
            # The output is written under its name as a file name ("y.out" -> y.out.npy).
            got = np.load(os.path.join(out, "y.out.npy")).astype(np.float64)
            err = normwise_error(got, want)
            ok = got.shape == want.shape and err <= 1e-5
            failures += not ok
            print(f"{name}{'' if limit is None else ' (weights file)'}: {summary.strip()}; "
                  f"normwise relative error {err:.2e} {'ok' if ok else 'MISMATCH'}")
        if api is None:
            continue
        # The same through the C++ API.
        out = os.path.join(work, name + ".api.npy")
        said = run([api, path, os.path.join(work, name + ".x.npy"), out])
        if said is None:
            failures += 1
            continue
        got = np.load(out).astype(np.float64)
        err = normwise_error(got, want)
        ok = got.shape == want.shape and err <= 1e-5
        failures += not ok
        print(f"{name} (C++ API): {said.strip()}; normwise relative error {err:.2e} "
              f"{'ok' if ok else 'MISMATCH'}")
    failures += external_data(tilesat, work)
    failures += language_model(tilesat, work)
    failures += decode_step(tilesat, work)
    failures += detector(tilesat, work)
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
