// dtype.cpp: names and storage sizes of element types.
#include "tilesat/graph/dtype.h"

#include "tilesat/graph/diagnostic.h"

namespace tilesat {

std::string_view dtype_name(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::BF16:
    return "bf16";
  case DType::BFP8_B:
    return "bfp_bf8";
  case DType::I32:
    return "i32";
  }
  throw InternalError("dtype_name: invalid DType");
}

std::optional<DType> parse_dtype(std::string_view name) {
  if (name == "f32") return DType::F32;
  if (name == "bf16") return DType::BF16;
  if (name == "bfp_bf8" || name == "bfp8_b") return DType::BFP8_B;
  if (name == "i32" || name == "si32") return DType::I32;
  return std::nullopt;
}

int64_t element_bytes(DType t) {
  switch (t) {
  case DType::F32:
    return 4;
  case DType::BF16:
    return 2;
  case DType::BFP8_B:
    return 1;
  case DType::I32:
    return 4;
  }
  throw InternalError("element_bytes: invalid DType");
}

int64_t tile_bytes(DType t) {
  // bfp8_b: one mantissa byte per element plus one shared exponent byte per 16 elements.
  if (t == DType::BFP8_B) return kTileElements + kTileElements / 16;
  return kTileElements * element_bytes(t);
}

bool is_float(DType t) {
  return t != DType::I32;
}

} // namespace tilesat
