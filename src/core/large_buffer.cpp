// Large buffers on transparent huge pages (large_buffer.hpp).
#include <gpucost/core/large_buffer.hpp>

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace gpucost {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t rounded_up(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
}  // namespace

// Straight from mmap, not malloc: freeing gives the pages back to the system at once. Through
// malloc, freeing a block this large raises glibc's mmap threshold, later blocks then come from
// the heap, and a store that frees and regrows its buffers grew its resident memory with the
// length of the input (extract of 1 GB: 176 MB instead of 70 MB).
void* allocate_large_buffer(std::size_t bytes) {
  if (bytes < kHugePage) return ::operator new(bytes);
  const std::size_t size = rounded_up(bytes);
  // Map a huge page more than needed and unmap the ends, so that the block starts on a 2 MiB boundary.
  void* raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto at = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (at + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > at) ::munmap(raw, aligned - at);
  if (const std::uintptr_t end = at + size + kHugePage; end > aligned + size)
    ::munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  void* p = reinterpret_cast<void*>(aligned);
  ::madvise(p, size, MADV_HUGEPAGE);  // advice only: without huge pages it is plain memory
  return p;
}

void free_large_buffer(void* p, std::size_t bytes) noexcept {
  if (bytes < kHugePage)
    ::operator delete(p);
  else
    ::munmap(p, rounded_up(bytes));
}

}  // namespace gpucost
