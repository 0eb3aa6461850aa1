// select.cpp: Equal, Less, Greater and Where. ONNX comparisons produce BOOL; in the graph they
// produce 1/0 in the operand dtype, which Where reads as its condition. Folded when every input
// is known at import time (causal masks built from Range/Shape arithmetic).
#include "converters.h"

#include <algorithm>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

namespace tilesat::onnx {

namespace {

using TP = ::onnx::TensorProto;

struct CompareOp {
  std::string_view onnx;
  OpKind kind;
  double (*fold)(double, double);
};

constexpr CompareOp kCompare[] = {
    {"Equal", OpKind::Equal, [](double a, double b) { return a == b ? 1.0 : 0.0; }},
    {"Less", OpKind::Less, [](double a, double b) { return a < b ? 1.0 : 0.0; }},
    {"Greater", OpKind::Greater, [](double a, double b) { return a > b ? 1.0 : 0.0; }},
};

// `t` repeated to the broadcast shape of `t`, `u` and `v`.
HostTensor spread(const HostTensor& t, const HostTensor& u, const HostTensor& v) {
  auto first = [](double x, double) { return x; };
  return host_binary(host_binary(t, u, first, t.elem_type), v, first, t.elem_type);
}

// The dtype the graph gives input i (its own, or its element type when it is static data).
DType dtype_of_input(NodeContext& c, size_t i) {
  return c.input_type(i).dtype;
}

} // namespace

void convert_compare(NodeContext& c) {
  const std::string& type = c.node().op_type();
  const CompareOp* op = nullptr;
  for (const CompareOp& k : kCompare) {
    if (k.onnx == type) op = &k;
  }
  if (op == nullptr) c.fail("no comparison mapping");
  if (c.input_static(0) && c.input_static(1)) {
    c.set_static_output(0, host_binary(*c.input(0).data, *c.input(1).data, op->fold, TP::BOOL));
    return;
  }
  set_binary_output(c, op->kind);
}

void convert_where(NodeContext& c) {
  if (c.input_static(0) && c.input_static(1) && c.input_static(2)) {
    const HostTensor& cond = *c.input(0).data;
    const HostTensor& a = *c.input(1).data;
    const HostTensor& b = *c.input(2).data;
    HostTensor cf = spread(cond, a, b), af = spread(a, cond, b), bf = spread(b, cond, a);
    HostTensor out = af;
    for (size_t i = 0; i < out.values.size(); ++i) {
      out.values[i] = cf.values[i] != 0 ? af.values[i] : bf.values[i];
    }
    c.set_static_output(0, std::move(out));
    return;
  }
  // The result dtype: a runtime value's among a and b, else a's element type.
  DType d = !c.input_static(1)   ? dtype_of_input(c, 1)
            : !c.input_static(2) ? dtype_of_input(c, 2)
                                 : dtype_of_input(c, 1);
  Builder& b = c.builder();
  // Static branches become scalars when they hold one element and their rank does not exceed
  // another input's (so the result keeps its rank).
  auto branch = [&](size_t i) {
    if (!c.input_static(i)) return c.operand(i);
    int64_t others = 0;
    for (size_t j = 0; j < 3; ++j) {
      if (j != i) others = std::max(others, c.input_shape(j).rank());
    }
    auto r = static_cast<int64_t>(c.input(i).data.dims().size());
    return operand_like(c, i, d, r <= others);
  };
  Value cond = c.input_static(0) ? operand_like(c, 0, d, false) : c.operand(0);
  Value x = branch(1), y = branch(2);
  c.set_output(0, b.where(cond, x, y));
}

} // namespace tilesat::onnx
