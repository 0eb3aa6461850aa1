// load.cpp: reading a ModelProto, running the ONNX checker and shape inference, and handing
// the graph to the importer.
#include "external_data.h"
#include "extract.h"
#include "importer.h"
#include "tilesat/graph/data_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <unordered_map>

namespace tilesat::onnx {

namespace {

constexpr int64_t kMinOpset = 11;
// The newest opset libonnx 1.12 knows; models up to kMaxOpset are checked against it except
// for the ops that changed after it (checked_after_library_opset).
constexpr int64_t kLibraryOpset = 17;
constexpr int64_t kMaxOpset = 21;
// Older models are converted to kMinOpset by the ONNX library's version converter first.
constexpr int64_t kOldestOpset = 1;

int64_t default_opset(const ::onnx::ModelProto& model, const std::string& name) {
  int64_t opset = -1;
  for (const ::onnx::OperatorSetIdProto& id : model.opset_import()) {
    if (id.domain().empty() || id.domain() == "ai.onnx") opset = id.version();
  }
  if (opset < 0) fail_in(name, "expected an import of the ai.onnx opset");
  if (opset < kOldestOpset || opset > kMaxOpset) {
    fail_in(name,
            fmt::format("expected ai.onnx opset {} to {}, got {}", kOldestOpset, kMaxOpset, opset));
  }
  return opset;
}

// `model` converted to kMinOpset by the ONNX library's version converter. The converter has
// crashed on malformed models (a SIGSEGV found by fuzz_onnx_import), so it runs in a child
// process: a crash there is an error naming the model, not the end of this process.
::onnx::ModelProto converted(const ::onnx::ModelProto& model, int64_t opset,
                             const std::string& name) {
  std::string what =
      fmt::format("converting ai.onnx opset {} to {} (ONNX version converter)", opset, kMinOpset);
  int fds[2];
  if (pipe(fds) != 0) fail_in(name, fmt::format("{}: pipe: {}", what, std::strerror(errno)));
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    fail_in(name, fmt::format("{}: fork: {}", what, std::strerror(errno)));
  }
  if (pid == 0) {
    // The child writes 'O' and the converted model, or 'E' and the converter's message.
    close(fds[0]);
    std::string out;
    try {
      out = "O" + ::onnx::version_conversion::ConvertVersion(model, static_cast<int>(kMinOpset))
                      .SerializeAsString();
    } catch (const std::exception& e) {
      out = std::string("E") + e.what();
    }
    for (size_t done = 0; done < out.size();) {
      ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) _exit(2);
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    fail_in(name, fmt::format("{}: the converter stopped with signal {} ({}); convert the model "
                              "to opset {} or later with another tool",
                              what, WTERMSIG(status), strsignal(WTERMSIG(status)), kMinOpset));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got.empty())
    fail_in(name, fmt::format("{}: the converter did not finish", what));
  if (got[0] == 'E') fail_in(name, fmt::format("{}: {}", what, got.substr(1)));
  ::onnx::ModelProto out;
  if (!out.ParseFromArray(got.data() + 1, static_cast<int>(got.size() - 1)))
    fail_in(name, fmt::format("{}: the converted model does not parse", what));
  return out;
}

// Window attributes ONNX's own shape inference divides by without checking (a zero stride
// stops the process with SIGFPE in libonnx 1.12), checked before it runs.
void check_window_attributes(const ::onnx::GraphProto& graph, const std::string& name) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& n = graph.node(i);
    if (n.op_type() != "Conv" && n.op_type() != "MaxPool" && n.op_type() != "AveragePool") continue;
    for (const ::onnx::AttributeProto& a : n.attribute()) {
      bool positive =
          a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape";
      if (!positive && a.name() != "pads") continue;
      int64_t lo = positive ? 1 : 0, hi = int64_t{1} << 20;
      bool ok = a.type() == ::onnx::AttributeProto::INTS;
      for (int64_t v : a.ints()) ok = ok && v >= lo && v <= hi;
      if (!ok) {
        fail_in(name,
                fmt::format("node {} '{}' ({}): expected '{}' to be a list of ints in [{}, "
                            "2^20], got [{}]",
                            i, n.name(), n.op_type(), a.name(), lo, fmt::join(a.ints(), ", ")));
      }
    }
  }
}

// ONNX's checker wants a shape on every graph input and output and says only "Field 'shape' of
// 'type' is required but missing"; this names the value.
void check_declared_shapes(const ::onnx::GraphProto& graph, const std::string& name) {
  for (const auto& [infos, what] :
       {std::pair{&graph.input(), "input"}, std::pair{&graph.output(), "output"}})
    for (const ::onnx::ValueInfoProto& v : *infos)
      if (v.type().has_tensor_type() && !v.type().tensor_type().has_shape())
        fail_in(name, fmt::format("graph {} '{}' declares no shape (ONNX's checker wants one on "
                                  "every graph input and output; "
                                  "onnx.shape_inference.infer_shapes writes them)",
                                  what, v.name()));
}

// libonnx 1.12's shape inference gets STFT wrong: it reads 'onesided' as 0 when the attribute
// is absent (the op's default is 1) and miscounts frames (1000 samples, frame 64, step 16:
// 61, not 59), then fails on the ops after it. A model with one skips the cross-check;
// tilesat's own import has checked every operand's shape.
bool has_unreliable_inference(const ::onnx::GraphProto& graph) {
  for (const ::onnx::NodeProto& n : graph.node())
    if (n.op_type() == "STFT") return true;
  return false;
}

// ONNX's version converter knows only ai.onnx ops (libonnx 1.12 stops with
// "unordered_map::at" on a com.microsoft one), so an old model with ops of another domain is
// an error saying so; its unsupported ops are listed first.
void check_convertible_domains(const ::onnx::GraphProto& graph, int64_t opset,
                               const std::string& name) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& n = graph.node(i);
    if (n.domain().empty() || n.domain() == "ai.onnx") continue;
    check_supported(graph, name);
    fail_in(name, fmt::format("node {} '{}' ({}.{}): ONNX's version converter cannot take a "
                              "model with ops outside ai.onnx from opset {} to {}; export it "
                              "at ai.onnx opset {} or later",
                              i, n.name(), n.domain(), n.op_type(), opset, kMinOpset, kMinOpset));
  }
}

// The ai.onnx ops new or changed in opsets 18 to 21 (inputs, attributes or semantics; types
// alone are left to the importer's own checks), which libonnx 1.12 checks against an older
// schema or none: their converters check what they read.
bool changed_after_library_opset(const std::string& op) {
  static const char* const kChanged[] = {
      // 18
      "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
      "ReduceMin", "ReduceProd", "ReduceSumSquare", "Split", "Pad", "Resize", "ScatterElements",
      "ScatterND", "LpPool", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "CenterCropPad",
      "Col2Im", "GroupNormalization", "Mish", "OptionalGetElement", "OptionalHasElement",
      // 19
      "AveragePool", "Cast", "CastLike", "Constant", "DequantizeLinear", "QuantizeLinear", "Equal",
      "Identity", "If", "Loop", "Scan", "Reshape", "Shape", "Size", "DeformConv",
      // 20
      "AffineGrid", "ConstantOfShape", "DFT", "Gelu", "GridSample", "ImageDecoder", "IsInf",
      "IsNaN", "RegexFullMatch", "StringConcat", "StringSplit",
      // 21
      "Flatten", "QLinearMatMul", "Squeeze", "Unsqueeze", "Transpose"};
  for (const char* c : kChanged)
    if (op == c) return true;
  return false;
}

// A model of opset 18 to 21 checked by libonnx 1.12 against opset 17: each node (and its
// subgraphs) whose op did not change since, in order; the graph's structure (every input
// defined before use) is the importer's own check.
void check_after_library_opset(const ::onnx::ModelProto& model, const std::string& name) {
  ::onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const ::onnx::OperatorSetIdProto& id : model.opset_import())
    opsets[id.domain()] = static_cast<int>(id.version());
  opsets[""] = static_cast<int>(kLibraryOpset);
  if (opsets.count("ai.onnx") != 0) opsets["ai.onnx"] = static_cast<int>(kLibraryOpset);
  ctx.set_opset_imports(opsets);
  ::onnx::checker::LexicalScopeContext scope;
  const ::onnx::GraphProto& g = model.graph();
  for (const ::onnx::ValueInfoProto& v : g.input()) scope.add(v.name());
  for (const ::onnx::TensorProto& t : g.initializer()) scope.add(t.name());
  for (int i = 0; i < g.node_size(); ++i) {
    const ::onnx::NodeProto& n = g.node(i);
    bool ai_onnx = n.domain().empty() || n.domain() == "ai.onnx";
    if (ai_onnx && !changed_after_library_opset(n.op_type())) {
      try {
        ::onnx::checker::check_node(n, ctx, scope);
      } catch (const std::exception& e) {
        fail_in(name, fmt::format("ONNX checker (node {} '{}', {}): {}", i, n.name(), n.op_type(),
                                  e.what()));
      }
    }
    for (const std::string& o : n.output()) scope.add(o);
  }
}

void require_below_protobuf_limit(uint64_t bytes, const std::string& name) {
  if (bytes > static_cast<uint64_t>(INT32_MAX)) {
    fail_in(name, "expected an ONNX model below 2 GiB (protobuf's limit; a larger model keeps "
                  "its weights as external data), got a larger file");
  }
}

constexpr const char* kDoesNotParse =
    "expected a serialized ONNX ModelProto, got bytes that do not parse";

::onnx::ModelProto parse(std::string_view bytes, const std::string& name) {
  ::onnx::ModelProto model;
  require_below_protobuf_limit(bytes.size(), name);
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    fail_in(name, kDoesNotParse);
  return model;
}

// Parses the file as it is read, so a large model's bytes are not held beside its parsed form.
::onnx::ModelProto parse_file(const std::string& path) {
  constexpr std::string_view what = "ONNX model";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("{}: expected a {}, got a directory", path, what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the {}: {}", path, what, std::strerror(errno)));
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec) require_below_protobuf_limit(size, path);
  ::onnx::ModelProto model;
  google::protobuf::io::IstreamInputStream stream(&in);
  if (!model.ParseFromZeroCopyStream(&stream)) {
    if (in.bad()) throw Error(fmt::format("{}: cannot read the {}", path, what));
    fail_in(path, kDoesNotParse);
  }
  return model;
}

// ONNX Runtime registers its RMSNorm, SimplifiedLayerNormalization, in the ONNX domain, and
// Llama-style exports (optimum, the ORT transformer optimizer) write it there; ONNX's checker
// knows no such op. Such nodes move to com.microsoft, where the importer reads the op.
void adopt_runtime_ops(::onnx::ModelProto& model) {
  bool moved = false;
  for (::onnx::NodeProto& n : *model.mutable_graph()->mutable_node()) {
    if ((n.domain().empty() || n.domain() == "ai.onnx") &&
        n.op_type() == "SimplifiedLayerNormalization") {
      n.set_domain("com.microsoft");
      moved = true;
    }
  }
  if (!moved) return;
  for (const ::onnx::OperatorSetIdProto& id : model.opset_import())
    if (id.domain() == "com.microsoft") return;
  ::onnx::OperatorSetIdProto* id = model.add_opset_import();
  id->set_domain("com.microsoft");
  id->set_version(1);
}

// The import of a parsed model (which it changes: cut to ImportOptions::outputs, external
// data read in, converted to a newer opset, float initializers cleared once decoded,
// ONNX Runtime's ops in the ONNX domain moved to com.microsoft).
ImportedModel import_model(::onnx::ModelProto& model, const std::string& name,
                           const ImportOptions& options) {
  if (!model.has_graph()) fail_in(name, "expected a model with a graph, got none");
  adopt_runtime_ops(model);
  const std::vector<std::string> untyped = select_outputs(model, options, name);
  size_t slash = name.rfind('/');
  load_external_data(model, slash == std::string::npos ? "" : name.substr(0, slash), name);
  int64_t opset = default_opset(model, name);
  if (opset < kMinOpset) {
    // The converter runs the library's shape inference, so the model is checked first as the
    // rest of the import checks it.
    check_declared_shapes(model.graph(), name);
    try {
      CheckerPlaceholders placeholders(model, untyped);
      ::onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      fail_in(name, fmt::format("ONNX checker: {}", e.what()));
    }
    check_window_attributes(model.graph(), name);
    check_convertible_domains(model.graph(), opset, name);
    model = converted(model, opset, name);
    opset = kMinOpset;
  }
  // Before the checker, which would name only the first op it does not know.
  check_supported(model.graph(), name);
  check_declared_shapes(model.graph(), name);
  const bool after_library = opset > kLibraryOpset;
  try {
    CheckerPlaceholders placeholders(model, untyped);
    if (!after_library) ::onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    fail_in(name, fmt::format("ONNX checker: {}", e.what()));
  }
  if (after_library) check_after_library_opset(model, name);
  check_window_attributes(model.graph(), name);
  // tilesat's own import checks every operand first: libonnx 1.12's shape inference reads out
  // of bounds on some malformed Conv and pooling nodes (found by fuzz_onnx_import), so it
  // runs only on models tilesat has accepted, as a cross-check.
  Importer importer(name, options);
  ImportedModel imported = importer.run(*model.mutable_graph(), opset, model.producer_name());
  // libonnx 1.12 would infer the ops of later opsets by their older schemas.
  if (after_library || has_unreliable_inference(model.graph())) return imported;
  try {
    ::onnx::ShapeInferenceOptions strict(/*check_type_val=*/true, /*strict_mode_val=*/1,
                                         /*data_prop_val=*/false);
    ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const std::exception& e) {
    fail_in(name, fmt::format("ONNX shape inference: {}", e.what()));
  }
  return imported;
}

} // namespace

ImportedModel import_bytes(std::string_view bytes, const std::string& name,
                           const ImportOptions& options) {
  ::onnx::ModelProto model = parse(bytes, name);
  return import_model(model, name, options);
}

ImportedModel import_file(const std::string& path, const ImportOptions& options) {
  ::onnx::ModelProto model = parse_file(path);
  return import_model(model, path, options);
}

} // namespace tilesat::onnx
