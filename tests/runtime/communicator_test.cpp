// Tests of communicator.cpp: every chip's thread receives every chip's tensor, exchanges can
// follow each other, and abort() wakes a chip waiting for one that failed.
#include "../../runtime/src/communicator.h"
#include "tilesat/graph/diagnostic.h"

#include <gtest/gtest.h>
#include <thread>

namespace tilesat::runtime::detail {
namespace {

Tensor scalar(float v) {
  return Tensor(TensorType{DType::F32, Shape({1})}, {v});
}

TEST(Communicator, EveryChipGetsEveryTensorInChipOrder) {
  Communicator comm(4);
  std::vector<std::vector<float>> seen(4);
  {
    std::vector<std::jthread> chips;
    for (int64_t c = 0; c < 4; ++c) {
      chips.emplace_back([&, c] {
        for (int round = 0; round < 3; ++round) {
          std::vector<Tensor> all = comm.exchange(c, scalar(static_cast<float>(10 * round + c)));
          if (round == 2)
            for (const Tensor& t : all) seen[static_cast<size_t>(c)].push_back(t[0]);
        }
      });
    }
  }
  for (const auto& s : seen) EXPECT_EQ(s, (std::vector<float>{20, 21, 22, 23}));
}

TEST(Communicator, AbortWakesAWaitingChip) {
  Communicator comm(2);
  std::string error;
  std::jthread waiting([&] {
    try {
      comm.exchange(0, scalar(1));
    } catch (const Error& e) {
      error = e.diagnostic().message;
    }
  });
  comm.abort(); // chip 1 failed before its exchange
  waiting.join();
  EXPECT_EQ(error, "another chip of the mesh failed");
}

} // namespace
} // namespace tilesat::runtime::detail
