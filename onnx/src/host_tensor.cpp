// host_tensor.cpp: decoding TensorProto data into HostTensor values.
#include "host_tensor.h"

#include "tilesat/graph/diagnostic.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

namespace tilesat::onnx {

namespace {

using TP = ::onnx::TensorProto;

int64_t checked_numel(const std::vector<int64_t>& dims, const std::string& what,
                      int64_t max_elements) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) throw Error(fmt::format("{}: expected non-negative dims, got {}", what, d));
    if (d != 0 && n > max_elements / d) {
      throw Error(fmt::format("{}: expected at most {} elements, got more", what, max_elements));
    }
    n *= d;
  }
  return n;
}

// Element size in raw_data, or 0 when the type cannot be decoded.
size_t raw_size(int32_t t) {
  switch (t) {
  case TP::FLOAT:
  case TP::INT32:
  case TP::UINT32:
    return 4;
  case TP::DOUBLE:
  case TP::INT64:
  case TP::UINT64:
    return 8;
  case TP::INT16:
  case TP::UINT16:
  case TP::FLOAT16:
  case TP::BFLOAT16:
    return 2;
  case TP::INT8:
  case TP::UINT8:
  case TP::BOOL:
    return 1;
  default:
    return 0;
  }
}

float half_to_float(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  double v = 0;
  if (exp == 0) {
    v = std::ldexp(mant, -24);
  } else if (exp == 31) {
    v = mant != 0 ? std::nan("") : INFINITY;
  } else {
    v = std::ldexp(mant + 1024, exp - 25);
  }
  return static_cast<float>((h & 0x8000) != 0 ? -v : v);
}

// One little-endian element of raw data.
double raw_value(const unsigned char* p, int32_t t) {
  uint64_t u = 0;
  for (size_t i = raw_size(t); i-- > 0;) u = (u << 8) | p[i];
  switch (t) {
  case TP::FLOAT:
    return std::bit_cast<float>(static_cast<uint32_t>(u));
  case TP::DOUBLE:
    return std::bit_cast<double>(u);
  case TP::INT32:
    return static_cast<int32_t>(static_cast<uint32_t>(u));
  case TP::INT64:
    return static_cast<double>(static_cast<int64_t>(u));
  case TP::INT16:
    return static_cast<int16_t>(static_cast<uint16_t>(u));
  case TP::INT8:
    return static_cast<int8_t>(static_cast<uint8_t>(u));
  case TP::FLOAT16:
    return half_to_float(static_cast<uint16_t>(u));
  case TP::BFLOAT16:
    return std::bit_cast<float>(static_cast<uint32_t>(u << 16));
  default: // unsigned and bool
    return static_cast<double>(u);
  }
}

} // namespace

namespace {

bool is_integer_type(int32_t t) {
  return t != TP::FLOAT && t != TP::DOUBLE && t != TP::FLOAT16 && t != TP::BFLOAT16;
}

} // namespace

bool HostTensor::is_integer() const {
  return is_integer_type(elem_type);
}

std::vector<int64_t> HostTensor::ints() const {
  std::vector<int64_t> out;
  out.reserve(values.size());
  for (double v : values) {
    // Clamp first: int64 limits (INT64_MAX as a Slice end) do not survive double exactly.
    if (!(v == v)) v = 0;
    v = std::clamp(v, -9.2e18, 9.2e18);
    out.push_back(static_cast<int64_t>(v));
  }
  return out;
}

std::string elem_type_name(int32_t elem_type) {
  if (TP::DataType_IsValid(elem_type)) {
    return TP::DataType_Name(static_cast<TP::DataType>(elem_type));
  }
  return fmt::format("element type {}", elem_type);
}

std::optional<DType> dtype_of(int32_t elem_type) {
  switch (elem_type) {
  case TP::FLOAT:
  // The devices have no f64 or f16 arithmetic: double and float16 values compute in f32 (which
  // holds every float16 exactly).
  case TP::DOUBLE:
  case TP::FLOAT16:
    return DType::F32;
  case TP::BFLOAT16:
    return DType::BF16;
  case TP::INT64:
  case TP::INT32:
  case TP::BOOL:
  case TP::INT16:
  case TP::INT8:
  case TP::UINT32:
  case TP::UINT16:
  case TP::UINT8:
  case TP::UINT64:
    return DType::I32;
  default:
    return std::nullopt;
  }
}

namespace {

// Checks t's dims and data location; returns the element count.
int64_t checked_layout(const TP& t, const std::string& what, int64_t max_elements) {
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  int64_t n = checked_numel(dims, what, max_elements);
  if (t.data_location() == TP::EXTERNAL || t.external_data_size() > 0) {
    throw Error(fmt::format("{}: expected data inside the model, got external data", what));
  }
  if (raw_size(t.data_type()) == 0) {
    throw Error(
        fmt::format("{}: unsupported element type {}", what, elem_type_name(t.data_type())));
  }
  return n;
}

// The elements t stores in its typed field (its raw_data is counted in bytes instead).
size_t field_size(const TP& t) {
  switch (t.data_type()) {
  case TP::FLOAT:
    return static_cast<size_t>(t.float_data_size());
  case TP::DOUBLE:
    return static_cast<size_t>(t.double_data_size());
  case TP::INT64:
    return static_cast<size_t>(t.int64_data_size());
  case TP::UINT32:
  case TP::UINT64:
    return static_cast<size_t>(t.uint64_data_size());
  default: // float16 and bfloat16 bits, int32, int16, int8, uint16, uint8, bool
    return static_cast<size_t>(t.int32_data_size());
  }
}

// Throws unless t stores exactly n elements, before anything of n elements is allocated.
void check_stored(const TP& t, int64_t n, const std::string& what) {
  auto dims = [&] { return fmt::join(t.dims(), ", "); };
  if (t.has_raw_data()) {
    size_t want = static_cast<size_t>(n) * raw_size(t.data_type());
    if (t.raw_data().size() != want) {
      throw Error(fmt::format("{}: expected {} bytes of raw data for dims [{}], got {}", what, want,
                              dims(), t.raw_data().size()));
    }
  } else if (field_size(t) != static_cast<size_t>(n)) {
    throw Error(fmt::format("{}: expected {} elements for dims [{}], got {}", what, n, dims(),
                            field_size(t)));
  }
}

// Calls put(i, value) for each of t's n elements (raw_data or the typed field); check_stored
// has checked that there are n.
template <class Put>
void for_each_value(const TP& t, int64_t n, Put put) {
  int32_t type = t.data_type();
  if (t.has_raw_data()) {
    size_t esize = raw_size(type);
    const auto* p = reinterpret_cast<const unsigned char*>(t.raw_data().data());
    for (int64_t i = 0; i < n; ++i) put(i, raw_value(p + i * esize, type));
    return;
  }
  auto take = [&](const auto& field) {
    int64_t i = 0;
    for (auto v : field) put(i++, static_cast<double>(v));
  };
  switch (type) {
  case TP::FLOAT:
    take(t.float_data());
    break;
  case TP::DOUBLE:
    take(t.double_data());
    break;
  case TP::INT64:
    take(t.int64_data());
    break;
  case TP::UINT32:
  case TP::UINT64:
    take(t.uint64_data());
    break;
  case TP::FLOAT16:
  case TP::BFLOAT16: {
    int64_t i = 0;
    for (int32_t v : t.int32_data()) {
      auto bits = static_cast<uint16_t>(v);
      put(i++, type == TP::FLOAT16 ? half_to_float(bits)
                                   : std::bit_cast<float>(static_cast<uint32_t>(bits) << 16));
    }
    break;
  }
  default: // int32, int16, int8, uint16, uint8, bool
    take(t.int32_data());
    break;
  }
}

} // namespace

HostTensor decode(const TP& t, const std::string& what) {
  HostTensor h;
  int64_t n = checked_layout(t, what, kMaxHostElements);
  check_stored(t, n, what);
  h.elem_type = t.data_type();
  h.dims.assign(t.dims().begin(), t.dims().end());
  h.values.resize(static_cast<size_t>(n));
  for_each_value(t, n, [&](int64_t i, double v) { h.values[static_cast<size_t>(i)] = v; });
  return h;
}

bool exact_in_f32(int32_t elem_type) {
  switch (elem_type) {
  case TP::FLOAT:
  case TP::FLOAT16:
  case TP::BFLOAT16:
  case TP::INT16:
  case TP::INT8:
  case TP::UINT16:
  case TP::UINT8:
  case TP::BOOL:
    return true;
  default:
    return false;
  }
}

HostData decode_data(const TP& t, const std::string& what) {
  if (!exact_in_f32(t.data_type())) return decode(t, what);
  int64_t n = checked_layout(t, what, kMaxWeightElements);
  check_stored(t, n, what);
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  Tensor values(TensorType{*dtype_of(t.data_type()), Shape(dims), {}});
  float* out = values.data().data();
  if (t.data_type() == TP::FLOAT && t.has_raw_data() &&
      std::endian::native == std::endian::little &&
      t.raw_data().size() == static_cast<size_t>(n) * sizeof(float)) {
    std::memcpy(out, t.raw_data().data(), t.raw_data().size());
  } else {
    for_each_value(t, n, [&](int64_t i, double v) { out[i] = static_cast<float>(v); });
  }
  return HostData::compact(t.data_type(), std::move(values));
}

HostData HostData::compact(int32_t elem_type, Tensor values) {
  HostData d;
  d.compact_ = std::make_shared<Compact>();
  d.compact_->elem_type = elem_type;
  d.compact_->dims = values.shape().dims();
  d.compact_->owned = std::move(values);
  return d;
}

int32_t HostData::elem_type() const {
  return compact_ ? compact_->elem_type : full_->elem_type;
}

const std::vector<int64_t>& HostData::dims() const {
  return compact_ ? compact_->dims : full_->dims;
}

int64_t HostData::numel() const {
  return compact_ ? compact_->values().numel() : full_->numel();
}

bool HostData::is_integer() const {
  return is_integer_type(elem_type());
}

const HostTensor& HostData::operator*() const {
  if (!compact_) return *full_;
  Compact& c = *compact_;
  if (!c.decoded) {
    const Tensor& t = c.values();
    if (t.numel() > kMaxHostElements) {
      throw Error(fmt::format("expected at most {} elements in a tensor read at import time, got "
                              "{} (dims [{}])",
                              kMaxHostElements, t.numel(), fmt::join(c.dims, ", ")));
    }
    c.decoded =
        HostTensor{c.elem_type, c.dims, std::vector<double>(t.data().begin(), t.data().end())};
  }
  return *c.decoded;
}

const Tensor* HostData::compact_values() const {
  return compact_ ? &compact_->values() : nullptr;
}

void HostData::move_compact_to(Tensor& dest) {
  if (compact_->moved != nullptr) {
    dest = *compact_->moved;
    return;
  }
  dest = std::move(compact_->owned);
  compact_->owned = Tensor();
  compact_->moved = &dest;
}

void HostData::drop_decoded() const {
  if (compact_) compact_->decoded.reset();
}

namespace {

// Rounds t's values as to_tensor does for its dtype.
Tensor& round_as(Tensor& t) {
  if (t.dtype() == DType::I32) {
    for (float& v : t.data()) v = std::trunc(v);
  }
  t.round_to_dtype();
  return t;
}

} // namespace

Tensor to_tensor(const HostTensor& h, DType dtype) {
  Tensor t(TensorType{dtype, Shape(h.dims), {}});
  for (size_t i = 0; i < h.values.size(); ++i) t.data()[i] = static_cast<float>(h.values[i]);
  return std::move(round_as(t));
}

Tensor to_tensor(const HostData& h, DType dtype) {
  const Tensor* c = h.compact_values();
  if (c == nullptr) return to_tensor(*h, dtype);
  if (c->dtype() == dtype) return *c;
  Tensor t(TensorType{dtype, c->shape(), {}}, c->data());
  return std::move(round_as(t));
}

} // namespace tilesat::onnx
