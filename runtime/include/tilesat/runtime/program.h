// A loaded device program: the bytes of a program file, checked before anything runs it.
//
// Loading runs the FlatBuffers verifier, then checks what the format cannot: the version, the
// device summary, every buffer inside the L1 or DRAM it names, every tensor inside its
// buffer, each op's inputs and parameters consistent with its tensors, every work item
// inside the op's output, every output tile computed exactly once, inputs produced before
// use, and no two live L1 buffers overlapping. Any problem is a tilesat::Error naming the
// file and the field ("mlp.tsprog: ops[3].work[0].items[2]: ...").
//
//   Program p = Program::load("mlp.tsprog");
//   p.fb().ops()->size();                 // the flatbuffers view, safe to walk
//   Program q = Program::parse(bytes, "in-memory");
//   p.stored_value(1);                    // a weight stored with the program, if any
//
// A program may carry the values of some inputs (a model's weights): inline, or in a weights
// file beside the program that load() reads and checks against the size and CRC-32 the
// program records.
#pragma once

#include "program_generated.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilesat::runtime {

class Program {
public:
  /// Whether load() reads the weights file a program names, or leaves it to read_weights()
  /// (a caller that checks its inputs first, before a large model's weights are read).
  enum class Weights { Read, Later };
  /// Reads and verifies a program file.
  static Program load(const std::string& path, Weights weights = Weights::Read);
  /// Reads the weights file the program loaded from `path` names (beside it) and checks its
  /// size and CRC-32; nothing when it names none.
  void read_weights(const std::string& path);
  /// Verifies `bytes`; `name` is used in error messages.
  static Program parse(std::vector<uint8_t> bytes, std::string name);

  const fb::Program& fb() const { return *fb::GetProgram(bytes_.data()); }
  const std::string& name() const { return name_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

  /// The value stored with the program for input `input` (an index into fb().inputs()), in
  /// row-major order, or nullopt when it has none (it is given when the program runs). A value
  /// in the weights file is read from the file load() checked (size and CRC-32).
  std::optional<std::vector<float>> stored_value(uint32_t input) const;
  /// Whether the program stores a value for input `input` (without reading it).
  bool stores_value(uint32_t input) const;
  /// Frees the weights file's bytes once every stored value has been read (a large model's
  /// weights are then not held twice while it runs); stored_value of a value in the weights
  /// file fails afterwards.
  void release_weights() { std::vector<uint8_t>().swap(weights_); }

private:
  Program(std::vector<uint8_t> bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}
  static void require_name(const fb::WeightsFile* wf, const std::string& path);
  std::vector<uint8_t> bytes_;
  std::string name_;
  std::vector<uint8_t> weights_; // the weights file, when the program names one
};

/// Limits the runtime's CPU model accepts (programs beyond them are rejected when loaded).
inline constexpr uint32_t kMaxGridSide = 64;
inline constexpr uint64_t kMaxL1BytesPerCore = 64ull << 20;
inline constexpr uint64_t kMaxDramBytes = 1ull << 36;
/// DRAM the model backs with host memory: a program's highest DRAM address, allocated as it
/// loads and touched only where written. 32 GiB covers a Blackhole p150's 32 GB (and an
/// n150's 12 GiB); a host that cannot allocate what a program uses gets an error naming it.
inline constexpr uint64_t kMaxHostDramBytes = 32ull << 30;
inline constexpr uint64_t kMaxHostL1Bytes = 4ull << 30; // L1 of all cores together
/// Chips of a program's mesh (a Galaxy has 32), each modelled with its own memory.
inline constexpr uint32_t kMaxMeshChips = 64;
inline constexpr int64_t kMaxElements = int64_t{1} << 31;
inline constexpr size_t kMaxRank = 8;
/// Operands of one concat (an unrolled recurrence joins one per time step).
inline constexpr size_t kMaxConcatInputs = 65536;

} // namespace tilesat::runtime
