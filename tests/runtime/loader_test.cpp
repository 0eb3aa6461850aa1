// Loading: corrupt, truncated and mismatched programs are rejected with an error naming the
// problem, never a crash.
#include "test_plans.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/run.h"

#include <gmock/gmock.h>
#include <random>

namespace tilesat::runtime {
namespace {

using ::testing::HasSubstr;
using tilesat::testing::plan_for;
using tilesat::testing::seed_mlp;

std::vector<uint8_t> mlp_bytes() {
  return lowering::lower_plan(plan_for(seed_mlp(), {{2, 2}}), tilesat::testing::test_device(2, 2));
}

std::vector<uint8_t> pack(const fb::ProgramT& p) {
  flatbuffers::FlatBufferBuilder b;
  b.Finish(fb::Program::Pack(b, &p), fb::ProgramIdentifier());
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

std::string error_of(std::vector<uint8_t> bytes) {
  try {
    Program::parse(std::move(bytes), "p.tsprog");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Loader, TruncatedProgramsAreRejected) {
  std::vector<uint8_t> good = mlp_bytes();
  for (size_t n = 0; n < good.size(); n += 7) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_NE(error_of(cut), "") << "prefix of " << n << " bytes";
  }
}

TEST(Loader, BitFlipsAreRejectedOrHarmless) {
  std::vector<uint8_t> good = mlp_bytes();
  Graph g = seed_mlp();
  std::vector<Tensor> args = random_arguments(g, 5);
  std::mt19937 rng(11);
  int accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bad = good;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f)
      bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    try {
      Program p = Program::parse(std::move(bad), "p.tsprog");
      // A flip the checks cannot see (a value, a name): the program must still run safely.
      Runner r(p, 1);
      (void)r.run(args);
      ++accepted;
    } catch (const Error&) {
    }
  }
  EXPECT_LT(accepted, 3000);
}

TEST(Loader, WrongIdentifierAndVersion) {
  std::vector<uint8_t> bytes = mlp_bytes();
  bytes[4] = 'X';
  EXPECT_THAT(error_of(bytes), HasSubstr("file identifier"));
  fb::ProgramT p;
  fb::GetProgram(mlp_bytes().data())->UnPackTo(&p);
  p.version_major = 2;
  EXPECT_THAT(error_of(pack(p)), HasSubstr("p.tsprog: version: expected major version 1, got 2.0"));
}

fb::ProgramT unpacked() {
  fb::ProgramT p;
  std::vector<uint8_t> bytes = mlp_bytes();
  fb::GetProgram(bytes.data())->UnPackTo(&p);
  return p;
}

TEST(Loader, BufferOutsideL1) {
  fb::ProgramT p = unpacked();
  for (auto& b : p.buffers)
    if (b->buffer_type == fb::BufferType::L1) {
      b->address = p.device->l1_bytes_per_core - 64;
      break;
    }
  EXPECT_THAT(error_of(pack(p)), HasSubstr("inside the 1048576 bytes of L1 per core"));
}

TEST(Loader, OverlappingLiveBuffers) {
  fb::ProgramT p = unpacked();
  std::vector<fb::BufferT*> l1;
  for (auto& b : p.buffers)
    if (b->buffer_type == fb::BufferType::L1) l1.push_back(b.get());
  ASSERT_GE(l1.size(), 2u);
  // The two converted matmul operands are live together (ops 0..2).
  l1[1]->address = l1[0]->address;
  EXPECT_THAT(error_of(pack(p)), HasSubstr("expected live L1 buffers not to overlap"));
}

TEST(Loader, WorkMustCoverEveryTileOnce) {
  fb::ProgramT p = unpacked();
  auto& items = p.ops[2]->work[0]->items;
  ASSERT_FALSE(items.empty());
  items.push_back(items[0]);
  EXPECT_THAT(error_of(pack(p)), HasSubstr("expected each output tile once"));
  p = unpacked();
  p.ops[2]->work.clear();
  EXPECT_THAT(error_of(pack(p)), HasSubstr("ops[2].work: expected all"));
}

TEST(Loader, WorkItemsInsideTheOutput) {
  fb::ProgramT p = unpacked();
  fb::WorkItem& w = p.ops[2]->work[0]->items[0];
  w = fb::WorkItem(0, 1, 0, 9, w.col_begin(), w.col_end(), w.k_begin(), w.k_end());
  EXPECT_THAT(error_of(pack(p)), HasSubstr("inside the output's"));
}

TEST(Loader, DeviceAndShapeMismatches) {
  fb::ProgramT p = unpacked();
  p.device->grid_rows = 1; // buffers use a 2x2 grid
  EXPECT_THAT(error_of(pack(p)), HasSubstr("inside the 1x2 grid"));
  p = unpacked();
  p.tensors[7]->shape = {32, 255};
  EXPECT_NE(error_of(pack(p)), "");
  p = unpacked();
  p.ops[2]->inputs = {7, 6}; // an input defined later
  EXPECT_THAT(error_of(pack(p)), HasSubstr("expected a tensor defined before the op runs"));
}

TEST(Loader, LoadNamesTheMissingFile) {
  try {
    Program::load("/nonexistent/p.tsprog");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/p.tsprog"));
  }
}

} // namespace
} // namespace tilesat::runtime
