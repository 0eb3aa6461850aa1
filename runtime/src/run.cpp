// run.cpp: staging inputs, running ops in the program's order, reading outputs back.
#include "tilesat/runtime/run.h"

#include "communicator.h"
#include "kernels/kernel.h"
#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <boost/crc.hpp>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <optional>

namespace tilesat::runtime {

using detail::DeviceMemory;
using detail::OpContext;
using detail::TensorRef;

namespace detail {

// What const-eval keeps of an input it read, to see on a later call whether it changed: its
// size and a 96-bit digest of its bits (CRC-32 and the standard library's 64-bit hash), not a
// copy (a large model's weights would be held once more).
struct InputDigest {
  size_t size = 0;
  uint32_t crc = 0;
  size_t hash = 0;
  friend bool operator==(const InputDigest&, const InputDigest&) = default;
};

InputDigest digest_of(const std::vector<float>& v) {
  boost::crc_32_type crc;
  crc.process_bytes(v.data(), v.size() * sizeof(float));
  std::string_view bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  return {v.size(), crc.checksum(), std::hash<std::string_view>{}(bytes)};
}

} // namespace detail

struct Runner::State {
  std::unique_ptr<DeviceMemory> memory;
  ThreadPool pool;
  /// Const-eval: how many ops at the start of the execution order are one-time, the inputs
  /// they read, and those inputs' values when they last ran (nullopt: not run yet).
  uint32_t one_time_ops = 0;
  std::vector<uint32_t> one_time_inputs;
  std::optional<std::vector<detail::InputDigest>> one_time_seen;
  /// The chip this runner is in its program's mesh, and how it reaches the others (a
  /// one-chip program exchanges with itself).
  int64_t chip = 0;
  detail::Communicator self{1};
  detail::Communicator* comm = &self;
  explicit State(unsigned threads) : pool(threads) {}
};

DType graph_dtype(fb::DType d) {
  switch (d) {
  case fb::DType::BF16:
    return DType::BF16;
  case fb::DType::BFP8_B:
    return DType::BFP8_B;
  case fb::DType::I32:
    return DType::I32;
  default:
    return DType::F32;
  }
}

Runner::Runner(const Program& program, unsigned threads)
    : program_(program), state_(std::make_unique<State>(threads)) {
  const fb::Program& p = program.fb();
  uint64_t dram = 0;
  for (const fb::Buffer* b : *p.buffers())
    if (b->buffer_type() == fb::BufferType::DRAM) dram = std::max(dram, b->address() + b->bytes());
  state_->memory = std::make_unique<DeviceMemory>(p.device()->grid_rows(), p.device()->grid_cols(),
                                                  p.device()->l1_bytes_per_core(), dram);
  // The one-time ops (the verifier checked they come first) and the inputs they read.
  std::vector<bool> read(detail::count(p.tensors()), false);
  while (state_->one_time_ops < detail::count(p.execution_order())) {
    const fb::Op& op = *p.ops()->Get(p.execution_order()->Get(state_->one_time_ops));
    if (!op.one_time()) break;
    if (op.inputs() != nullptr)
      for (uint32_t t : *op.inputs()) read[t] = true;
    ++state_->one_time_ops;
  }
  for (uint32_t i = 0; i < detail::count(p.inputs()); ++i)
    if (read[p.inputs()->Get(i)->tensor()]) state_->one_time_inputs.push_back(i);
}

Runner::~Runner() = default;

void Runner::attach(int64_t chip, detail::Communicator& comm) {
  state_->chip = chip;
  state_->comm = &comm;
}

namespace {

void dispatch(OpContext& ctx) {
  switch (ctx.op.params_type()) {
  case fb::OpParams::ToLayout:
  case fb::OpParams::Typecast:
    detail::run_copy(ctx);
    break;
  case fb::OpParams::Reshape:
    detail::run_reshape(ctx);
    break;
  case fb::OpParams::Matmul:
  case fb::OpParams::Linear:
    detail::run_matmul(ctx);
    break;
  case fb::OpParams::Unary:
    detail::run_unary(ctx);
    break;
  case fb::OpParams::Binary:
    detail::run_binary(ctx);
    break;
  case fb::OpParams::FusedEltwise:
    detail::run_fused(ctx);
    break;
  case fb::OpParams::Reduce:
    detail::run_reduce(ctx);
    break;
  case fb::OpParams::Softmax:
    detail::run_softmax(ctx);
    break;
  case fb::OpParams::Permute:
    detail::run_permute(ctx);
    break;
  case fb::OpParams::Attention:
    detail::run_attention(ctx);
    break;
  case fb::OpParams::RotaryEmbedding:
    detail::run_rotary_embedding(ctx);
    break;
  case fb::OpParams::StridedCopy:
    detail::run_strided_copy(ctx);
    break;
  case fb::OpParams::Broadcast:
    detail::run_broadcast(ctx);
    break;
  case fb::OpParams::Concat:
    detail::run_concat(ctx);
    break;
  case fb::OpParams::Slice:
    detail::run_slice(ctx);
    break;
  case fb::OpParams::Constant:
  case fb::OpParams::Full:
    detail::run_constant(ctx);
    break;
  case fb::OpParams::Conv2d:
    detail::run_conv2d(ctx);
    break;
  case fb::OpParams::Pool2d:
    detail::run_pool2d(ctx);
    break;
  case fb::OpParams::LayerNorm:
    detail::run_layer_norm(ctx);
    break;
  case fb::OpParams::RmsNorm:
    detail::run_rms_norm(ctx);
    break;
  case fb::OpParams::Take:
    detail::run_take(ctx);
    break;
  case fb::OpParams::Where:
    detail::run_where(ctx);
    break;
  default:
    throw InternalError("op without parameters (the verifier should have refused)");
  }
}

// The highest L1 byte in use on any core by buffers live at execution position `pos`.
uint64_t l1_in_use(const fb::Program& p, uint32_t pos) {
  uint64_t top = 0;
  for (const fb::Buffer* b : *p.buffers()) {
    if (b->buffer_type() != fb::BufferType::L1 || b->first_op() > pos || b->last_op() < pos)
      continue;
    top = std::max(top, b->address() + b->bytes());
  }
  return top;
}

} // namespace

RunResult Runner::run(std::span<const Tensor> inputs) {
  return run_inputs(inputs, nullptr);
}

RunResult Runner::run_consuming(std::vector<Tensor> inputs) {
  std::vector<Tensor> owned = std::move(inputs);
  return run_inputs(owned, &owned);
}

RunResult Runner::run_inputs(std::span<const Tensor> inputs, std::vector<Tensor>* owned) {
  using Clock = std::chrono::steady_clock;
  const fb::Program& p = program_.fb();
  const std::string& file = program_.name();
  if (inputs.size() != detail::count(p.inputs())) {
    throw Error(fmt::format("{}: expected {} inputs, got {}", file, detail::count(p.inputs()),
                            inputs.size()));
  }
  if (state_->comm->chips() != int64_t{p.mesh_rows()} * p.mesh_cols()) {
    throw Error(fmt::format("{}: the program runs on every chip of a {}x{} mesh; run it with "
                            "MeshRunner (mesh_run.h)",
                            file, p.mesh_rows(), p.mesh_cols()));
  }
  DeviceMemory& mem = *state_->memory;
  RunResult result;
  Profile& prof = result.profile;
  prof.threads = state_->pool.threads();
  prof.l1_bytes_per_core = p.device()->l1_bytes_per_core();
  auto start = Clock::now();
  // The one-time ops run on the first call, and again when an input they read has changed
  // (compared by a digest of their bits, so a NaN weight does not force const-eval every call).
  std::vector<detail::InputDigest> now;
  for (uint32_t i : state_->one_time_inputs) now.push_back(detail::digest_of(inputs[i].data()));
  for (uint32_t i = 0; i < detail::count(p.inputs()); ++i) {
    const fb::NamedTensor& nt = *p.inputs()->Get(i);
    TensorRef t = detail::tensor_ref(p, nt.tensor());
    if (inputs[i].shape().dims() != t.shape) {
      throw Error(fmt::format("{}: input '{}': expected shape [{}], got [{}]", file,
                              nt.name() != nullptr ? nt.name()->str() : std::to_string(i),
                              fmt::join(t.shape, ", "), fmt::join(inputs[i].shape().dims(), ", ")));
    }
    detail::write_logical(mem, t, inputs[i].data());
    if (owned != nullptr) (*owned)[i] = Tensor();
  }
#ifdef __GLIBC__
  // Inputs below glibc's mmap threshold (up to 32 MiB) were freed into the heap, which keeps
  // them: hand that memory back, as the larger ones already were.
  if (owned != nullptr) malloc_trim(0);
#endif
  std::optional<std::vector<detail::InputDigest>>& seen = state_->one_time_seen;
  prof.const_eval_ran = state_->one_time_ops > 0 && seen != now;
  if (prof.const_eval_ran) seen = std::move(now);
  for (uint32_t pos = prof.const_eval_ran ? 0 : state_->one_time_ops;
       pos < detail::count(p.execution_order()); ++pos) {
    const fb::Op& op = *p.ops()->Get(p.execution_order()->Get(pos));
    auto t0 = Clock::now();
    OpContext ctx{p, op, mem, state_->pool, {}, detail::tensor_ref(p, op.output())};
    if (op.inputs() != nullptr)
      for (uint32_t t : *op.inputs()) ctx.inputs.push_back(detail::tensor_ref(p, t));
    if (op.params_type() == fb::OpParams::MeshShard ||
        op.params_type() == fb::OpParams::Collective) {
      detail::run_mesh_op(ctx, state_->chip, *state_->comm);
    } else {
      dispatch(ctx);
    }
    auto t1 = Clock::now();
    OpProfile op_prof;
    op_prof.name = op.name() != nullptr ? op.name()->str() : "";
    op_prof.kind = op.kind() != nullptr ? op.kind()->str() : "";
    op_prof.host_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    op_prof.device_us = op.predicted_us();
    op_prof.cores = op.work() != nullptr ? op.work()->size() : 0;
    op_prof.l1_in_use = l1_in_use(p, pos);
    op_prof.one_time = op.one_time();
    prof.l1_high_water = std::max(prof.l1_high_water, op_prof.l1_in_use);
    if (op_prof.one_time) {
      prof.one_time_device_us += op_prof.device_us;
      prof.one_time_host_us += op_prof.host_us;
    } else {
      prof.device_total_us += op_prof.device_us;
    }
    prof.ops.push_back(std::move(op_prof));
  }
  for (const fb::NamedTensor* nt : *p.outputs()) {
    TensorRef t = detail::tensor_ref(p, nt->tensor());
    Tensor out(TensorType{graph_dtype(t.dtype()), Shape(t.shape), {}},
               detail::read_logical(mem, t));
    result.outputs.push_back(std::move(out));
  }
  prof.host_total_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  return result;
}

namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out;
}

} // namespace

std::string profile_json(const Profile& p) {
  std::string s = "{\n  \"ops\": [\n";
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const OpProfile& o = p.ops[i];
    s += fmt::format("    {{\"name\": \"{}\", \"kind\": \"{}\", \"host_us\": {:.3f}, "
                     "\"device_us\": {:.3f}, \"cores\": {}, \"l1_in_use_bytes\": {}, "
                     "\"one_time\": {}}}{}\n",
                     json_escape(o.name), json_escape(o.kind), o.host_us, o.device_us, o.cores,
                     o.l1_in_use, o.one_time, i + 1 < p.ops.size() ? "," : "");
  }
  s += fmt::format("  ],\n  \"const_eval_ran\": {},\n  \"one_time_host_us\": {:.3f},\n"
                   "  \"one_time_device_us\": {:.3f},\n",
                   p.const_eval_ran, p.one_time_host_us, p.one_time_device_us);
  s += fmt::format("  \"host_total_us\": {:.3f},\n  \"device_total_us\": {:.3f},\n"
                   "  \"l1_high_water_bytes\": {},\n  \"l1_bytes_per_core\": {},\n"
                   "  \"threads\": {}\n}}\n",
                   p.host_total_us, p.device_total_us, p.l1_high_water, p.l1_bytes_per_core,
                   p.threads);
  return s;
}

} // namespace tilesat::runtime
