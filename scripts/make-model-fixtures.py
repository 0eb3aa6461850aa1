#!/usr/bin/env python3
"""Writes the structure-only ONNX model fixtures of tests/models/.

usage: /usr/bin/python3 scripts/make-model-fixtures.py [OUTPUT_DIR]   (default: tests/models)
       /usr/bin/python3 scripts/make-model-fixtures.py --compare MODEL DIR
The second form checks tilesat's import and reference interpreter against PyTorch: it loads
the inputs and parameters `tilesat eval tests/models/MODEL.onnx --random-inputs SEED
--output-dir DIR` drew into the PyTorch model and compares its output with DIR/output.npy.

Needs Debian's python3-torch, python3-torchvision and python3-onnx (apt-get install -y
python3-torch python3-torchvision python3-onnx); they are needed only to regenerate the
fixtures, not to build or test tilesat. Four models are written:

  resnet18.onnx      torchvision resnet18 (weights=None), eval mode, 1x3x224x224, opset 13
  mobilenet_v2.onnx  torchvision mobilenet_v2 (weights=None), eval mode, 1x3x224x224, opset 13
  bert_layer.onnx    one BERT-base encoder layer (hidden 768, 12 heads, FFN 3072, erf GELU,
                     post-LayerNorm, eps 1e-12), batch 1, sequence 128, additive attention mask
                     [1, 1, 1, 128] as an input; opset 14, so LayerNorm is exported decomposed
                     (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add)
  gpt2_block.onnx    one GPT-2-small block (768, 12 heads, pre-LayerNorm, causal mask as a
                     boolean constant, erf GELU, FFN 3072), batch 1, sequence 128; opset 17
                     (LayerNormalization op)

"Structure-only": each model is exported in eval mode with its (seeded random) parameters and
constant folding, so the exporter folds every BatchNormalization into the preceding Conv and
pre-transposes Linear weights; then every float initializer with more than one element that
is not a registered buffer (the causal mask) is moved to a graph input of the same name, type
and shape, and its data is dropped. Scalars (sqrt(2), 0.5, epsilons), integer shape constants
and the boolean causal mask stay initializers. The files are a few tens of KB, and
`tilesat check --random-inputs` / `tilesat eval --random-inputs` draw the parameters
(`--random-init fan-in`, the default, scales each weight by its fan-in; docs/cli.md).

Reproducible: fixed seeds, fixed export options, doc strings and the producer version
stripped, so rerunning with the same Debian packages gives the same bytes.
"""
import math
import os
import sys

import onnx
import torch
import torchvision
from torch import nn

SEQ = 128
HIDDEN = 768
HEADS = 12
FFN = 3072


def split_heads(x):
    b, t, _ = x.shape
    return x.view(b, t, HEADS, HIDDEN // HEADS).permute(0, 2, 1, 3)


def merge_heads(x):
    b, _, t, _ = x.shape
    return x.permute(0, 2, 1, 3).reshape(b, t, HIDDEN)


class BertLayer(nn.Module):
    """A BERT-base encoder layer as Hugging Face's BertLayer computes it (post-LayerNorm)."""

    def __init__(self):
        super().__init__()
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = nn.Linear(HIDDEN, HIDDEN)
        self.attn_out = nn.Linear(HIDDEN, HIDDEN)
        self.attn_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.intermediate = nn.Linear(HIDDEN, FFN)
        self.act = nn.GELU()  # the erf form
        self.output = nn.Linear(FFN, HIDDEN)
        self.out_norm = nn.LayerNorm(HIDDEN, eps=1e-12)

    def forward(self, hidden_states, attention_mask):
        q = split_heads(self.query(hidden_states))
        k = split_heads(self.key(hidden_states))
        v = split_heads(self.value(hidden_states))
        scores = q @ k.transpose(-1, -2) / math.sqrt(HIDDEN // HEADS) + attention_mask
        context = merge_heads(scores.softmax(dim=-1) @ v)
        a = self.attn_norm(self.attn_out(context) + hidden_states)
        return self.out_norm(self.output(self.act(self.intermediate(a))) + a)


class Gpt2Block(nn.Module):
    """A GPT-2-small block (pre-LayerNorm, causal self-attention, MLP)."""

    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(HIDDEN, eps=1e-5)
        self.c_attn = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.attn_proj = nn.Linear(HIDDEN, HIDDEN)
        self.ln_2 = nn.LayerNorm(HIDDEN, eps=1e-5)
        self.c_fc = nn.Linear(HIDDEN, FFN)
        self.act = nn.GELU()
        self.mlp_proj = nn.Linear(FFN, HIDDEN)
        mask = torch.tril(torch.ones(SEQ, SEQ, dtype=torch.bool)).view(1, 1, SEQ, SEQ)
        self.register_buffer("causal_mask", mask)

    def attention(self, x):
        q, k, v = self.c_attn(x).split(HIDDEN, dim=2)
        q, k, v = split_heads(q), split_heads(k), split_heads(v)
        scores = q @ k.transpose(-1, -2) / math.sqrt(HIDDEN // HEADS)
        scores = torch.where(self.causal_mask, scores, torch.tensor(-1e4))
        return self.attn_proj(merge_heads(scores.softmax(dim=-1) @ v))

    def forward(self, hidden_states):
        x = hidden_states + self.attention(self.ln_1(hidden_states))
        return x + self.mlp_proj(self.act(self.c_fc(self.ln_2(x))))


FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE,
               onnx.TensorProto.BFLOAT16}


def module_path(node_name):
    """'/layer1/layer1.0/conv1/Conv' -> 'layer1.0.conv1' (the exporter's scopes, each child
    scope repeating its parent's name)."""
    path, last = "", ""
    for piece in node_name.strip("/").split("/")[:-1]:
        if last and piece.startswith(last + "."):
            path += piece[len(last):]
        else:
            path = f"{path}.{piece}" if path else piece
        last = piece
    return path


def readable_names(graph):
    """Renames exporter-made parameter names ('onnx::Conv_193', folded Conv+BN and transposed
    Linear weights) after the module that reads them: 'layer1.0.conv1.weight'."""
    initializers = {i.name for i in graph.initializer}
    taken = initializers | {i.name for i in graph.input}
    renames = {}
    for node in graph.node:
        for index, name in enumerate(node.input):
            if (not name.startswith("onnx::") or name not in initializers or name in renames
                    or index not in (1, 2)):
                continue
            new = f"{module_path(node.name)}.{'weight' if index == 1 else 'bias'}"
            if new.startswith(".") or new in taken:
                continue
            renames[name] = new
            taken.add(new)
    for init in graph.initializer:
        init.name = renames.get(init.name, init.name)
    for node in graph.node:
        for i, name in enumerate(node.input):
            node.input[i] = renames.get(name, name)


def structure_only(model, keep):
    """Moves parameter initializers to graph inputs (no data); `keep` names buffers to keep."""
    g = model.graph
    readable_names(g)
    kept, moved = [], []
    for init in g.initializer:
        numel = math.prod(init.dims)
        if init.data_type in FLOAT_TYPES and numel > 1 and init.name not in keep:
            moved.append(onnx.helper.make_tensor_value_info(init.name, init.data_type,
                                                            list(init.dims)))
        else:
            kept.append(init)
    names = {v.name for v in moved}
    inputs = [i for i in g.input if i.name not in names]
    del g.initializer[:]
    g.initializer.extend(kept)
    del g.input[:]
    g.input.extend(inputs + moved)
    for n in g.node:
        n.doc_string = ""
    model.producer_version = ""
    return len(moved)


def randomize(module):
    """Distinct random values for every parameter and BatchNorm statistic, so the exporter
    does not merge equal initializers (default-initialized BatchNorm biases are all zero and
    would become one shared tensor behind Identity nodes)."""
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-1, 1)
        for name, b in module.named_buffers():
            if name.endswith("running_mean"):
                b.uniform_(-1, 1)
            elif name.endswith("running_var"):
                b.uniform_(0.5, 2)


def export(module, args, names, path, opset):
    torch.manual_seed(0)
    randomize(module)
    module.eval()
    torch.onnx.export(module, args, path, opset_version=opset, do_constant_folding=True,
                      input_names=names, output_names=["output"],
                      training=torch.onnx.TrainingMode.EVAL)
    model = onnx.load(path)
    buffers = {n for n, _ in module.named_buffers() if "running_" not in n}
    params = structure_only(model, buffers)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    ops = {}
    for n in model.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    print(f"{path}: opset {opset}, {len(model.graph.node)} nodes, {params} parameter inputs, "
          f"{os.path.getsize(path)} bytes; ops: "
          + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))


def example_image():
    torch.manual_seed(0)
    return (torch.randn(1, 3, 224, 224),)


def example_hidden(with_mask):
    torch.manual_seed(0)
    hidden = torch.randn(1, SEQ, HIDDEN)
    return (hidden, torch.zeros(1, 1, 1, SEQ)) if with_mask else (hidden,)


# name: (module factory, example inputs, input names, opset, Linear weights stored [in, out])
MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), example_image, ["input"],
                 13, False),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), example_image,
                     ["input"], 13, False),
    "bert_layer": (BertLayer, lambda: example_hidden(True), ["hidden_states", "attention_mask"],
                   14, True),
    "gpt2_block": (Gpt2Block, lambda: example_hidden(False), ["hidden_states"], 17, True),
}


def load_drawn(module, directory, linear_transposed):
    """Sets the module's parameters from `tilesat eval --random-inputs` files (DIR/<name>.npy):
    a Conv followed by BatchNorm gets the folded weight, and the BatchNorm becomes the
    identity plus the folded bias."""
    import numpy as np

    def drawn(name):
        return torch.from_numpy(np.load(os.path.join(directory, name + ".npy")))

    modules = list(module.named_modules())
    with torch.no_grad():
        for i, (name, m) in enumerate(modules):
            if isinstance(m, nn.Conv2d):
                m.weight.copy_(drawn(name + ".weight"))
                bn = modules[i + 1][1] if i + 1 < len(modules) else None
                if isinstance(bn, nn.BatchNorm2d):
                    bn.weight.fill_(1)
                    bn.bias.copy_(drawn(name + ".bias"))
                    bn.running_mean.zero_()
                    bn.running_var.fill_(1 - bn.eps)
                elif m.bias is not None:
                    m.bias.copy_(drawn(name + ".bias"))
            elif isinstance(m, nn.Linear):
                w = drawn(name + ".weight")
                m.weight.copy_(w.T if linear_transposed else w)
                m.bias.copy_(drawn(name + ".bias"))
            elif isinstance(m, nn.LayerNorm):
                m.weight.copy_(drawn(name + ".weight"))
                m.bias.copy_(drawn(name + ".bias"))


def compare(name, directory):
    """Runs MODEL in PyTorch on the inputs and parameters `tilesat eval MODEL.onnx
    --random-inputs SEED --output-dir DIR` drew and compares with its DIR/output.npy."""
    import numpy as np
    factory, _, names, _, transposed = MODELS[name]
    module = factory().eval()
    load_drawn(module, directory, transposed)
    inputs = [torch.from_numpy(np.load(os.path.join(directory, n + ".npy"))) for n in names]
    with torch.no_grad():
        want = module(*inputs).numpy().astype(np.float64)
    got = np.load(os.path.join(directory, "output.npy")).astype(np.float64)
    err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
    print(f"{name}: shape {list(got.shape)}, normwise relative error {err:.3g} "
          f"({'ok' if err < 1e-4 else 'MISMATCH'})")
    return err < 1e-4


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        sys.exit(0 if compare(sys.argv[2], sys.argv[3]) else 1)
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "models")
    os.makedirs(out, exist_ok=True)
    for name, (factory, example, names, opset, _) in MODELS.items():
        torch.manual_seed(0)
        module = factory()
        export(module, example(), names, os.path.join(out, name + ".onnx"), opset)


if __name__ == "__main__":
    main()
