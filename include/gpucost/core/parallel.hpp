// -j N: how many threads a stage may use, and a loop that spreads independent items over them.
// Each item writes only its own result slot and the caller combines the slots in item order,
// so what any -j prints is byte for byte what -j 1 prints (docs/performance.md, "Every core").
#pragma once

#include <cstddef>
#include <functional>

namespace gpucost {

/// The cores this process may run on (its CPU affinity mask, as `nproc` counts them), at least 1.
unsigned available_cores();

/// The default of -j: GPUCOST_JOBS when it holds a number from 1 to 1024, else available_cores().
unsigned default_jobs();

/// Calls item(i) for every i in [0, count), on up to `jobs` threads (this one included); items
/// are taken in order as threads come free. Returns when all are done. An exception an item
/// throws is thrown here once every thread has stopped (the items not yet started are skipped).
/// `jobs` < 2 or one item: a plain loop on this thread.
void parallel_for(unsigned jobs, std::size_t count, const std::function<void(std::size_t)>& item);

}  // namespace gpucost
