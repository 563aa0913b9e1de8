// One way to spread independent work over threads: parallel_for(n, jobs, body) runs body(i) for
// every i in [0, n) on up to `jobs` threads, the calling thread one of them, each index exactly
// once (threads claim the next unclaimed index), and returns when every thread is done. Results go
// where the body puts them (by index), so the outcome does not depend on the thread count. A body
// that throws stops further indices from being claimed; the first exception is rethrown once every
// thread has joined. jobs < 1 counts as 1; no more threads than indices are started.
#pragma once

#include <cstddef>
#include <functional>

namespace engramsim {

void parallel_for(std::size_t n, int jobs, const std::function<void(std::size_t)>& body);

}  // namespace engramsim
