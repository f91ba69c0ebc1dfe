// Large buffers on transparent huge pages (large_buffer.hpp).
#include <gpucost/core/large_buffer.hpp>

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace gpucost {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}  // namespace

void* allocate_large_buffer(std::size_t bytes) {
  if (bytes < kHugePage) return ::operator new(bytes);
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without huge pages it is plain memory
  return p;
}

void free_large_buffer(void* p, std::size_t bytes) noexcept {
  if (bytes < kHugePage)
    ::operator delete(p);
  else
    std::free(p);  // NOLINT(cppcoreguidelines-no-malloc): it came from aligned_alloc
}

}  // namespace gpucost
