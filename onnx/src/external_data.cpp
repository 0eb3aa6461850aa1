// external_data.cpp: tensors whose bytes an ONNX model keeps in files beside it (models over
// protobuf's 2 GiB limit; torch.onnx.export writes them so), read into the model before the
// checker and the importer see it.
#include "external_data.h"

#include "importer.h"

#include <fmt/format.h>
#include <fstream>
#include <onnx/onnx_pb.h>
#include <optional>

namespace tilesat::onnx {

namespace {

using TP = ::onnx::TensorProto;

// `text` as a non-negative byte count, else an error naming the key.
uint64_t byte_count(const std::string& text, std::string_view key, const std::string& what) {
  bool digits = !text.empty() && text.size() <= 19 &&
                text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits)
    throw Error(fmt::format("{}: expected external data '{}' to be a byte count, got '{}'", what,
                            key, text));
  return std::stoull(text);
}

// Reads one tensor's bytes into raw_data.
void internalize(TP& t, const std::string& dir, const std::string& what) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const ::onnx::StringStringEntryProto& e : t.external_data()) {
    if (e.key() == "location") location = e.value();
    if (e.key() == "offset") offset = byte_count(e.value(), "offset", what);
    if (e.key() == "length") length = byte_count(e.value(), "length", what);
  }
  if (location.empty())
    throw Error(fmt::format("{}: expected external data with a 'location', got none", what));
  // A model names files beside it: a path out of its directory is refused, as ONNX does.
  bool escapes = location.starts_with('/') || location == ".." || location.starts_with("../") ||
                 location.find("/../") != std::string::npos || location.ends_with("/..");
  if (escapes)
    throw Error(fmt::format("{}: expected external data in the model's directory, got location "
                            "'{}'",
                            what, location));
  std::string path = dir.empty() ? location : dir + "/" + location;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::streamoff end = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  if (end < 0) throw Error(fmt::format("{}: cannot open its external data file '{}'", what, path));
  auto size = static_cast<uint64_t>(end);
  if (offset > size || (length && *length > size - offset))
    throw Error(fmt::format("{}: expected {} bytes at offset {} of '{}', which has {}", what,
                            length ? *length : 0, offset, path, size));
  uint64_t n = length ? *length : size - offset;
  if (n > static_cast<uint64_t>(kMaxHostElements) * 8)
    throw Error(fmt::format("{}: expected at most {} bytes of external data, got {}", what,
                            static_cast<uint64_t>(kMaxHostElements) * 8, n));
  std::string bytes(static_cast<size_t>(n), '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  if (!in.read(bytes.data(), static_cast<std::streamsize>(n)))
    throw Error(
        fmt::format("{}: cannot read {} bytes at offset {} of '{}'", what, n, offset, path));
  t.clear_external_data();
  t.set_data_location(TP::DEFAULT);
  t.set_raw_data(std::move(bytes));
}

void internalize_graph(::onnx::GraphProto& g, const std::string& dir, const std::string& name);

void internalize_node(::onnx::NodeProto& n, const std::string& dir, const std::string& name) {
  for (::onnx::AttributeProto& a : *n.mutable_attribute()) {
    if (a.has_t() && a.t().data_location() == TP::EXTERNAL)
      internalize(*a.mutable_t(), dir,
                  fmt::format("{}: node '{}' attribute '{}'", name, n.name(), a.name()));
    if (a.has_g()) internalize_graph(*a.mutable_g(), dir, name);
    for (::onnx::GraphProto& g : *a.mutable_graphs()) internalize_graph(g, dir, name);
  }
}

void internalize_graph(::onnx::GraphProto& g, const std::string& dir, const std::string& name) {
  for (TP& t : *g.mutable_initializer())
    if (t.data_location() == TP::EXTERNAL)
      internalize(t, dir, fmt::format("{}: initializer '{}'", name, t.name()));
  for (::onnx::NodeProto& n : *g.mutable_node()) internalize_node(n, dir, name);
}

} // namespace

void load_external_data(::onnx::ModelProto& model, const std::string& dir,
                        const std::string& name) {
  internalize_graph(*model.mutable_graph(), dir, name);
}

} // namespace tilesat::onnx
