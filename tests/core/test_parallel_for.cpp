// parallel_for (core/parallel_for.hpp): every index once, on any thread count, and the first
// exception rethrown with no index claimed after it.
#include <atomic>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "core/parallel_for.hpp"

namespace engramsim {
namespace {

TEST(ParallelFor, RunsEveryIndexOnceWhateverTheThreadCount) {
  for (int jobs : {-3, 0, 1, 2, 7, 64}) {
    std::vector<int> hits(100, 0);
    parallel_for(hits.size(), jobs, [&](std::size_t i) { ++hits[i]; });
    for (std::size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i], 1) << "index " << i << " jobs " << jobs;
  }
  int calls = 0;
  parallel_for(0, 4, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, TheFirstExceptionStopsFurtherIndicesAndIsRethrown) {
  std::atomic<int> ran{0};
  try {
    parallel_for(1000, 1, [&](std::size_t i) {
      ++ran;
      if (i == 10) throw std::runtime_error("index 10");
    });
    FAIL() << "nothing was thrown";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 10");
  }
  EXPECT_EQ(ran.load(), 11);  // one thread: indices 0..10, then nothing more is claimed
  // On several threads the exception still reaches the caller, after every thread has joined.
  EXPECT_THROW(parallel_for(1000, 4,
                            [&](std::size_t i) {
                              if (i == 0) throw std::logic_error("first");
                            }),
               std::logic_error);
}

}  // namespace
}  // namespace engramsim
