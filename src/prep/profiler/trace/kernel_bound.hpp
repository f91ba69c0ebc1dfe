// What bounds a GPU kernel's time, guessed from its name: dense tensor throughput (GEMM,
// convolution, attention), memory bandwidth (elementwise, reductions, normalisation, optimizer
// steps, copies), the interconnect (collectives), or unknown. The speed projection
// (docs/cost-model.md, "Speed projected from the trace") scales each part of a step by the ratio of
// the resource that bounds it; the name is only a proxy for the bound, so the rules are one
// table here, and the share of kernel time no rule claims is reported beside the projection.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpucost::prep::trace {

enum class KernelBound : std::uint8_t { tensor, memory, communication, other };
inline constexpr int kKernelBounds = 4;
std::string_view to_string(KernelBound b);

/// The bound of a kernel named `name` (memcpy and memset operations are memory-bound by their
/// type, not their name). Case-insensitive; the first rule of the table that matches wins.
KernelBound kernel_bound(std::string_view name);

}  // namespace gpucost::prep::trace
