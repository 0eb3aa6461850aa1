// npy.cpp: reading and writing NumPy .npy files (format versions 1.0 to 3.0).
#include "tilesat/graph/npy.h"

#include "tilesat/graph/data_files.h"
#include "tilesat/graph/diagnostic.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <sstream>

namespace tilesat {

namespace {

static_assert(std::endian::native == std::endian::little, "npy I/O assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";

// Reads the Python dict literal of a .npy header, for example
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string& file) : s_(text), file_(file) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    std::vector<int64_t> shape;
    bool has_descr = false, has_order = false, has_shape = false;
  };

  Header parse() {
    Header h;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      std::string key = string_literal();
      expect(':');
      skip_space();
      if (key == "descr") {
        h.descr = string_literal();
        h.has_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        h.has_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        h.has_shape = true;
      } else {
        fail(fmt::format("expected a header key 'descr', 'fortran_order' or 'shape', got '{}'",
                         key));
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail(fmt::format("expected ',' or '}}' in the header, got {}", got()));
    }
    if (!h.has_descr || !h.has_order || !h.has_shape) {
      fail("expected header keys 'descr', 'fortran_order' and 'shape'");
    }
    return h;
  }

private:
  [[noreturn]] void fail(const std::string& message) const {
    throw Error(SourceLoc{file_, 0, 0}, message);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  std::string got() const {
    return pos_ < s_.size() ? fmt::format("'{}'", s_[pos_]) : "the end of the header";
  }
  void skip_space() {
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (pos_ < s_.size() && space(s_[pos_])) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(fmt::format("expected '{}' in the header, got {}", c, got()));
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    char q = peek();
    if (q != '\'' && q != '"')
      fail(fmt::format("expected a quoted string in the header, got {}", got()));
    size_t end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos) fail("expected a closing quote in the header, got the end");
    std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail(fmt::format("expected True or False for 'fortran_order', got {}", got()));
  }
  std::vector<int64_t> tuple() {
    expect('(');
    std::vector<int64_t> out;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9')
        fail(fmt::format("expected an extent in 'shape', got {}", got()));
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (int64_t{1} << 48)) fail("expected extents below 2^48 in 'shape'");
        v = v * 10 + (peek() - '0');
        ++pos_;
      }
      out.push_back(v);
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail(fmt::format("expected ',' or ')' in 'shape', got {}", got()));
    }
    ++pos_;
    return out;
  }

  std::string_view s_;
  const std::string& file_;
  size_t pos_ = 0;
};

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

} // namespace

Tensor parse_npy(std::string_view bytes, const std::string& name) {
  auto fail = [&](const std::string& message) -> Error {
    return Error(SourceLoc{name, 0, 0}, message);
  };
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) {
    throw fail("expected a .npy file (magic \\x93NUMPY), got other bytes");
  }
  auto major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = load<uint16_t>(bytes.data() + 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw fail("expected a 12-byte preamble, got a truncated file");
    header_len = load<uint32_t>(bytes.data() + 8);
    offset = 12;
  } else {
    throw fail(fmt::format("expected format version 1, 2 or 3, got {}", major));
  }
  if (bytes.size() - offset < header_len) {
    throw fail(
        fmt::format("expected a {}-byte header, got {} bytes", header_len, bytes.size() - offset));
  }
  std::string_view header_text = bytes.substr(offset, header_len);
  HeaderParser::Header h = HeaderParser(header_text, name).parse();
  if (h.fortran_order) throw fail("expected C order (fortran_order False), got True");

  struct Format {
    std::string_view descr;
    size_t size;
    DType dtype;
  };
  static constexpr Format kFormats[] = {{"<f4", 4, DType::F32}, {"<f8", 8, DType::F32},
                                        {"<i4", 4, DType::I32}, {"<i8", 8, DType::I32},
                                        {"|b1", 1, DType::I32}, {"|i1", 1, DType::I32},
                                        {"|u1", 1, DType::I32}};
  const Format* fmt_ = nullptr;
  for (const Format& f : kFormats) {
    if (f.descr == h.descr) fmt_ = &f;
  }
  if (fmt_ == nullptr) {
    throw fail(
        fmt::format("expected dtype <f4, <f8, <i4, <i8, |b1, |i1 or |u1, got '{}'", h.descr));
  }
  Shape shape(h.shape);
  int64_t numel = 1;
  for (int64_t d : h.shape) {
    if (d != 0 && numel > (int64_t{1} << 48) / d) throw fail("expected at most 2^48 elements");
    numel *= d;
  }
  std::string_view data = bytes.substr(offset + header_len);
  auto need = static_cast<uint64_t>(numel) * fmt_->size;
  if (data.size() < need) {
    throw fail(
        fmt::format("expected {} bytes of data, got {} (truncated file)", need, data.size()));
  }
  Tensor t(TensorType{fmt_->dtype, shape, {}});
  const char* p = data.data();
  for (int64_t i = 0; i < numel; ++i, p += fmt_->size) {
    float& out = t.data()[static_cast<size_t>(i)];
    if (fmt_->descr == "<f4") {
      out = load<float>(p);
    } else if (fmt_->descr == "<f8") {
      out = static_cast<float>(load<double>(p));
    } else if (fmt_->descr == "<i4") {
      out = static_cast<float>(load<int32_t>(p));
    } else if (fmt_->descr == "<i8") {
      auto v = load<int64_t>(p);
      if (v < INT32_MIN || v > INT32_MAX) {
        throw fail(
            fmt::format("expected int64 values within int32 range, got {} at element {}", v, i));
      }
      out = static_cast<float>(v);
    } else if (fmt_->descr == "|i1") {
      out = static_cast<float>(load<int8_t>(p));
    } else if (fmt_->descr == "|b1") {
      out = *p != 0 ? 1.0f : 0.0f;
    } else {
      out = static_cast<float>(load<uint8_t>(p));
    }
  }
  return t;
}

uint64_t npy_bytes_bound(const TensorType& type) {
  return static_cast<uint64_t>(type.shape.numel()) * 8 + (uint64_t{1} << 20);
}

Tensor read_npy(const std::string& path, uint64_t max_bytes) {
  return parse_npy(read_user_file(path, ".npy file", max_bytes), path);
}

std::string to_npy_bytes(const Tensor& t) {
  bool is_int = t.dtype() == DType::I32;
  std::string shape;
  for (int64_t d : t.shape()) shape += fmt::format("{}, ", d);
  if (t.shape().rank() > 1) shape.resize(shape.size() - 2); // (3,) but (2, 3)
  if (t.shape().rank() == 1) shape.pop_back();
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                   is_int ? "<i4" : "<f4", shape);
  // Pad with spaces so the data starts at a multiple of 64 bytes; the header ends in '\n'.
  // Format 1.0 has a 2-byte header length; a longer header (a rank in the thousands) needs 2.0.
  const bool v2 = kMagic.size() + 4 + header.size() + 1 + 64 > 65535;
  const size_t len_bytes = v2 ? 4 : 2;
  size_t total = kMagic.size() + 2 + len_bytes + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += v2 ? '\x02' : '\x01';
  out += '\x00';
  const auto len = static_cast<uint32_t>(header.size());
  out.append(reinterpret_cast<const char*>(&len), len_bytes); // little-endian host
  out += header;
  Tensor rounded = t;
  rounded.round_to_dtype();
  for (float x : rounded.data()) {
    if (is_int) {
      // int32 values are held as floats: saturate what a float can hold beyond int32's range.
      double d = x;
      int32_t v = std::isnan(d)        ? 0
                  : d >= 2147483647.0  ? std::numeric_limits<int32_t>::max()
                  : d <= -2147483648.0 ? std::numeric_limits<int32_t>::min()
                                       : static_cast<int32_t>(d);
      out.append(reinterpret_cast<const char*>(&v), 4);
    } else {
      out.append(reinterpret_cast<const char*>(&x), 4);
    }
  }
  return out;
}

void write_npy(const std::string& path, const Tensor& t) {
  write_file_atomically(path, {to_npy_bytes(t)}, ".npy file");
}

} // namespace tilesat
