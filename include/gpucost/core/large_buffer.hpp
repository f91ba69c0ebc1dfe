// Memory for large, long-lived buffers that are filled once from the start (extract's record
// stores, the trace reader's window): blocks of 2 MiB and more are mapped on their own, 2 MiB-aligned,
// and marked for transparent huge pages (madvise), so that filling them costs one page fault per
// 2 MiB and not one per 4 KiB; freeing one gives its pages back at once. Without transparent huge
// pages the advice does nothing. A huge page is filled whole on its first touch: reserve such a
// block only for what will be filled.
#pragma once

#include <cstddef>

namespace gpucost {

/// `bytes` of memory (at least; from operator new below 2 MiB). Throws std::bad_alloc.
void* allocate_large_buffer(std::size_t bytes);
/// Frees what allocate_large_buffer(bytes) gave, with the same `bytes`.
void free_large_buffer(void* p, std::size_t bytes) noexcept;

/// An allocator for std::vector over allocate_large_buffer.
template <typename T>
struct LargeBufferAllocator {
  using value_type = T;
  LargeBufferAllocator() = default;
  template <typename U>
  explicit LargeBufferAllocator(const LargeBufferAllocator<U>& /*other*/) {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_large_buffer(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { free_large_buffer(p, n * sizeof(T)); }
  friend bool operator==(const LargeBufferAllocator&, const LargeBufferAllocator&) { return true; }
};

}  // namespace gpucost
