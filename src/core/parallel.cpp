// -j N (core/parallel.hpp): the thread count and the loop over independent items.
#include <gpucost/core/parallel.hpp>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gpucost {

unsigned available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  return std::max(1U, std::thread::hardware_concurrency());
}

unsigned default_jobs() {
  if (const char* env = std::getenv("GPUCOST_JOBS"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (*end == '\0' && n >= 1 && n <= 1024) return static_cast<unsigned>(n);
  }
  return available_cores();
}

void parallel_for(unsigned jobs, std::size_t count, const std::function<void(std::size_t)>& item) {
  const std::size_t threads = std::min<std::size_t>(jobs, count);
  if (threads < 2) {
    for (std::size_t i = 0; i < count; ++i) item(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto work = [&] {
    for (std::size_t i = next++; i < count && !stop; i = next++) {
      try {
        item(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
      }
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (std::thread& h : helpers) h.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace gpucost
