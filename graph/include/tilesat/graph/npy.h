// NumPy .npy files: how tensors enter and leave tilesat (test inputs, reference outputs).
//
// Reads little-endian `<f4`, `<f8`, `<i4`, `<i8`, `|b1`, `|i1`, `|u1` arrays in C order, with
// format version 1.0, 2.0 or 3.0 headers. Floats become f32 tensors and integers and booleans
// i32 tensors. Writes f32, bf16 and bfp8_b tensors as `<f4` and i32 as `<i4` (version 1.0).
// A malformed or truncated file is a tilesat::Error naming the file and the problem.
//
//   write_npy("out.npy", t);
//   Tensor u = read_npy("out.npy");              // same shape and values as t
//   Tensor v = parse_npy(bytes, "in-memory.npy"); // the same, from bytes
#pragma once

#include "tilesat/graph/data_files.h"
#include "tilesat/graph/tensor.h"

#include <string>
#include <string_view>

namespace tilesat {

/// Reads a .npy file; one longer than `max_bytes` is an error (default: half the machine's
/// memory), so a caller that knows the tensor's type bounds the read by it.
Tensor read_npy(const std::string& path, uint64_t max_bytes = host_memory_bytes() / 2);
/// The most bytes a .npy file of a `type` tensor can take: 8 bytes per element (<f8, <i8) and
/// a 1 MiB header; a bound for read_npy when the expected type is known.
uint64_t npy_bytes_bound(const TensorType& type);
/// Parses the bytes of a .npy file; `name` is used in error messages.
Tensor parse_npy(std::string_view bytes, const std::string& name);
void write_npy(const std::string& path, const Tensor& t);
/// The bytes write_npy writes.
std::string to_npy_bytes(const Tensor& t);

} // namespace tilesat
