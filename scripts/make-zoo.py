#!/usr/bin/env python3
"""Exports tilesat's model zoo: real architectures at the sizes people run them, as
structure-only ONNX (parameters become graph inputs without data), into a directory outside
git.

usage: /usr/bin/python3 scripts/make-zoo.py OUTPUT_DIR [--only NAME[,NAME...]] [--list]

Needs Debian's python3-torch, python3-torchvision and python3-onnx (apt-get install -y
python3-torch python3-torchvision python3-onnx); the build of tilesat does not. Each model is
written as OUTPUT_DIR/<name>.onnx, and OUTPUT_DIR/zoo.tsv lists name, nodes, parameter inputs,
family, input shape, opset and exporter. Models already present with the same export settings
are kept (the settings are recorded in zoo.tsv), so a second run is quick.

The zoo (names say model, batch and sequence):
  torchvision CNNs at batch 1 and 16: resnet50, vgg16, densenet121, efficientnet_b0,
    convnext_tiny, regnet_y_400mf, shufflenet_v2_x1_0 (224x224, opset 14); resnet50 at batch 2
    for end-to-end checks
  vit_b_16 at batch 1 and 8, swin_t, maxvit_t and efficientnet_v2_s at batch 1 (opset 14)
  BERT-base (768, 12 heads, FFN 3072) and BERT-Large (1024, 16 heads, FFN 4096) stacks built
    from torch.nn.TransformerEncoderLayer (batch_first=False, as torch 1.13 exports them: the
    linears see sequence x batch x hidden), at sequence 128 and 384, batch 1 and 8, and one
    BERT-base layer (sequence 128, batch 1) for end-to-end checks; BERT-Large
    at 1, 6, 12 and 24 layers (batch 8, sequence 384) for plan time against depth
  gpt2_small: 12 pre-LayerNorm layers (768, 12 heads), causal mask, batch 1, sequence 128
  llama_1b_layer, llama_8b_layer: one Llama-style decoder layer (RMSNorm, rotary embeddings,
    grouped-query attention, SiLU-gated MLP) at Llama-3.2-1B (2048, 32 heads, 8 KV heads,
    FFN 8192) and Llama-3-8B (4096, 32 heads, 8 KV heads, FFN 14336) widths, sequence 128;
    llama_small_layer (256, 8 heads, 2 KV heads, FFN 512) for end-to-end checks
  matmul_8192x8192x8192, matmul_16384x4096x16384, matmul_8192x1024x8192: bf16 MatMul only

Transformer stacks are traced at a small batch and sequence with those axes dynamic, and the
image models exported at several batches with a dynamic batch traced at 1; the graph inputs are
then given their real extents. The trace is cheap, the models that differ only in those extents
share one trace, and tilesat's importer folds the exported shape arithmetic to constants at the
real sizes.
"""
import argparse
import math
import os
import re
import sys

import onnx
import torch
import torchvision
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
FIXTURES = __import__("make-model-fixtures")

OPSET = 14


# ---- transformer stacks -------------------------------------------------------------------

class EncoderStack(nn.Module):
    """torch.nn's encoder (post-LayerNorm BERT style, or pre-LayerNorm GPT style with a causal
    mask), input sequence x batch x hidden as torch.nn's default batch_first=False."""

    def __init__(self, hidden, heads, ffn, layers, causal=False):
        super().__init__()
        layer = nn.TransformerEncoderLayer(hidden, heads, ffn, dropout=0.0, activation="gelu",
                                           norm_first=causal)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.causal = causal

    def forward(self, x):
        if not self.causal:
            return self.encoder(x)
        t = x.shape[0]
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        return self.encoder(x, mask=mask)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaLayer(nn.Module):
    """One Llama decoder layer: RMSNorm, rotary embeddings, grouped-query attention with a
    causal mask, SiLU-gated MLP; input batch x sequence x hidden."""

    def __init__(self, hidden, heads, kv_heads, ffn, seq):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, hidden // heads
        self.input_norm = RMSNorm(hidden)
        self.q_proj = nn.Linear(hidden, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, hidden, bias=False)
        self.post_norm = RMSNorm(hidden)
        self.gate_proj = nn.Linear(hidden, ffn, bias=False)
        self.up_proj = nn.Linear(hidden, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, hidden, bias=False)
        inv = 1.0 / (500000.0 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        angles = torch.outer(torch.arange(seq).float(), inv)
        emb = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", emb.cos()[None, None])
        self.register_buffer("sin", emb.sin()[None, None])
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), -1e9), diagonal=1))

    def forward(self, x):
        b, t, _ = x.shape
        h = self.input_norm(x)
        q = self.q_proj(h).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(h).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(h).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        rep = self.heads // self.kv_heads
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + self.mask
        attn = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, t, -1)
        x = x + self.o_proj(attn)
        h = self.post_norm(x)
        return x + self.down_proj(nn.functional.silu(self.gate_proj(h)) * self.up_proj(h))


# ---- the zoo ------------------------------------------------------------------------------

CNNS = ["resnet50", "vgg16", "densenet121", "efficientnet_b0", "convnext_tiny",
        "regnet_y_400mf", "shufflenet_v2_x1_0"]


def zoo():
    """name -> (family, factory, input shape, input name, dynamic: axes traced small)."""
    models = {}
    for cnn in CNNS:
        for batch in (1, 16):
            models[f"{cnn}_b{batch}"] = ("cnn", lambda cnn=cnn: getattr(torchvision.models, cnn)(
                weights=None), [batch, 3, 224, 224], "input", {0: 1})
    for batch in (1, 8):
        models[f"vit_b_16_b{batch}"] = ("vit", lambda: torchvision.models.vit_b_16(weights=None),
                                        [batch, 3, 224, 224], "input", {0: 1})
    models["swin_t_b1"] = ("vit", lambda: torchvision.models.swin_t(weights=None),
                           [1, 3, 224, 224], "input", None)
    # EfficientNet-V2-S (fused MBConv stages, squeeze-excite) and MaxViT-T (blocked and grid
    # attention over convolutions) at batch 1.
    models["efficientnet_v2_s_b1"] = (
        "cnn", lambda: torchvision.models.efficientnet_v2_s(weights=None), [1, 3, 224, 224],
        "input", None)
    models["maxvit_t_b1"] = ("vit", lambda: torchvision.models.maxvit_t(weights=None),
                             [1, 3, 224, 224], "input", None)
    for name, hidden, heads, ffn, depth in (("bert_base", 768, 12, 3072, 12),
                                            ("bert_large", 1024, 16, 4096, 24)):
        for seq in (128, 384):
            for batch in (1, 8):
                models[f"{name}_l{depth}_s{seq}_b{batch}"] = (
                    "bert", lambda h=hidden, n=heads, f=ffn, d=depth: EncoderStack(h, n, f, d),
                    [seq, batch, hidden], "hidden_states", {0: 16, 1: 1})
    for batch in (2, 128):
        models[f"resnet50_b{batch}"] = ("cnn", lambda: torchvision.models.resnet50(weights=None),
                                        [batch, 3, 224, 224], "input", {0: 1})
    models["bert_base_l1_s128_b1"] = ("bert", lambda: EncoderStack(768, 12, 3072, 1),
                                      [128, 1, 768], "hidden_states", {0: 16, 1: 1})
    for depth in (1, 6, 12):
        models[f"bert_large_l{depth}_s384_b8"] = (
            "bert", lambda d=depth: EncoderStack(1024, 16, 4096, d), [384, 8, 1024],
            "hidden_states", {0: 16, 1: 1})
    models["gpt2_small_l12_s128_b1"] = (
        "gpt", lambda: EncoderStack(768, 12, 3072, 12, causal=True), [128, 1, 768],
        "hidden_states", None)
    for name, hidden, heads, kv, ffn in (("llama_1b_layer", 2048, 32, 8, 8192),
                                         ("llama_8b_layer", 4096, 32, 8, 14336),
                                         ("llama_small_layer", 256, 8, 2, 512)):
        models[f"{name}_s128_b1"] = ("llama", lambda h=hidden, n=heads, k=kv, f=ffn: LlamaLayer(
            h, n, k, f, 128), [1, 128, hidden], "hidden_states", None)
    for m, k, n in ((8192, 8192, 8192), (16384, 4096, 16384), (8192, 1024, 8192)):
        models[f"matmul_{m}x{k}x{n}"] = ("matmul", None, [m, k, n], "a", None)
    return models


def matmul_model(m, k, n):
    """A bf16 MatMul of an m x k input by a k x n weight input."""
    bf16 = onnx.TensorProto.BFLOAT16
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("MatMul", ["a", "b"], ["output"])], "matmul",
        [onnx.helper.make_tensor_value_info("a", bf16, [m, k]),
         onnx.helper.make_tensor_value_info("b", bf16, [k, n])],
        [onnx.helper.make_tensor_value_info("output", bf16, [m, n])])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", OPSET)],
                                   producer_name="tilesat-zoo")
    return model, 0


def fix_dims(model, name, shape):
    """Gives graph input `name` its real extents (it was traced with dynamic axes) and drops
    the traced value_info and output shapes that name the dynamic axes."""
    for i in model.graph.input:
        if i.name == name:
            for d, extent in zip(i.type.tensor_type.shape.dim, shape):
                d.Clear()
                d.dim_value = extent
    del model.graph.value_info[:]
    for o in model.graph.output:
        for d in o.type.tensor_type.shape.dim:
            if d.HasField("dim_param"):
                d.Clear()


def trace_torch(factory, shape, input_name, dynamic, path):
    """Exports the module at `shape`, with each `dynamic` axis traced at its small extent and
    left symbolic, its parameters made graph inputs without data; returns (model, parameter
    inputs)."""
    torch.manual_seed(0)
    module = factory()
    FIXTURES.randomize(module)
    module.eval()
    trace_shape = list(shape)
    axes = None
    if dynamic:
        for axis, extent in dynamic.items():
            trace_shape[axis] = extent
        axes = {input_name: {a: f"d{a}" for a in dynamic}}
    example = torch.randn(*trace_shape)
    # Not under no_grad: torch's attention modules take their fused inference path (which
    # has no ONNX export) when gradients are off.
    torch.onnx.export(module, (example,), path, opset_version=OPSET, do_constant_folding=True,
                      input_names=[input_name], output_names=["output"], dynamic_axes=axes,
                      training=torch.onnx.TrainingMode.EVAL)
    model = onnx.load(path)
    buffers = {n for n, _ in module.named_buffers() if "running_" not in n}
    params = FIXTURES.structure_only(model, buffers)
    return model, params


def trace_key(name, shape, dynamic):
    """Models that differ only in the extents of their dynamic axes share one trace: the name
    without its sequence and batch, and the shape with those axes at their traced extents."""
    if not dynamic:
        return name
    traced = [dynamic.get(axis, extent) for axis, extent in enumerate(shape)]
    return (re.sub(r"(_s\d+)?_b\d+$", "", name), tuple(traced))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    models = zoo()
    if a.list:
        print("\n".join(models))
        return
    only = set(filter(None, a.only.split(",")))
    unknown = only - set(models)
    if unknown:
        sys.exit(f"make-zoo.py: unknown model(s): {', '.join(sorted(unknown))}")
    os.makedirs(a.out, exist_ok=True)
    index = os.path.join(a.out, "zoo.tsv")
    rows = {}
    if os.path.exists(index):
        with open(index) as f:
            for line in f.read().splitlines()[1:]:
                rows[line.split("\t")[0]] = line
    # Each trace, for the models that share it (serialized: without parameter data a model
    # is small).
    traces = {}
    for name, (family, factory, shape, input_name, dynamic) in models.items():
        if only and name not in only:
            continue
        path = os.path.join(a.out, name + ".onnx")
        key = trace_key(name, shape, dynamic)
        traced = f", traced at {key[1]}" if dynamic else ""
        settings = f"{family}\t{shape}\t{OPSET}\ttorch {torch.__version__}{traced}"
        if os.path.exists(path) and name in rows and rows[name].endswith(settings):
            continue
        tmp = path + ".tmp"
        if family == "matmul":
            model, params = matmul_model(*shape)
        else:
            if key not in traces:
                model, params = trace_torch(factory, shape, input_name, dynamic, tmp)
                traces[key] = (model.SerializeToString(), params)
            model, params = onnx.ModelProto.FromString(traces[key][0]), traces[key][1]
            if dynamic:
                fix_dims(model, input_name, shape)
        onnx.checker.check_model(model)
        onnx.save(model, tmp)
        os.replace(tmp, path)
        nodes = len(model.graph.node)
        rows[name] = f"{name}\t{nodes}\t{params}\t{settings}"
        print(f"{name}: {nodes} nodes, {params} parameter inputs, {os.path.getsize(path)} bytes",
              flush=True)
        with open(index, "w") as f:
            f.write("name\tnodes\tparameter_inputs\tfamily\tinput_shape\topset\texporter\n")
            f.write("".join(rows[n] + "\n" for n in models if n in rows))


if __name__ == "__main__":
    main()
