// The name rules of kernel_bound (docs/cost-model.md, "Speed projected from the trace", lists
// them for users). Taken from the kernel names PyTorch, cuBLAS, cuDNN, CUTLASS, rocBLAS/Tensile,
// Triton, FlashAttention and NCCL give their kernels in Kineto traces.
#include "kernel_bound.hpp"

#include <array>
#include <cctype>
#include <utility>

namespace gpucost::prep::trace {

namespace {

// A rule: the kernel's name (lower-cased) contains `part`. Order matters: the first match wins,
// so the layout transforms and split-K reductions cuDNN and cuBLAS run around a GEMM are claimed
// as memory-bound before "cudnn"/"gemm" claim their names for the tensor cores.
struct Rule {
  std::string_view part;
  KernelBound bound;
};

// clang-format off
constexpr std::array kRules{
    // Collectives: NCCL/RCCL kernels (ncclKernel_*, ncclDevKernel_*), as the trace's own
    // communication class counts them.
    Rule{"nccl", KernelBound::communication}, Rule{"rccl", KernelBound::communication},
    // Data movement that library names wrap: layout transforms, split-K reductions, epilogues.
    Rule{"nchwtonhwc", KernelBound::memory}, Rule{"nhwctonchw", KernelBound::memory},
    Rule{"splitkreduce", KernelBound::memory}, Rule{"epilogue", KernelBound::memory},
    Rule{"computeoffsets", KernelBound::memory}, Rule{"convert", KernelBound::memory},
    // Matrix-vector products (cuBLAS gemv2N/gemv2T, gemmk1 over gemv tensors) read each weight
    // once: bandwidth-bound, though "gemm" may be in the name.
    Rule{"gemv", KernelBound::memory},
    // Triton: pointwise, reduction and persistent-reduction kernels move memory; templates are GEMMs.
    Rule{"triton_poi", KernelBound::memory}, Rule{"triton_red", KernelBound::memory},
    Rule{"triton_per", KernelBound::memory}, Rule{"triton_tem", KernelBound::tensor},
    // Dense tensor throughput: GEMM and batched GEMM (cuBLAS sgemm/hgemm, cublasLt, CUTLASS, xmma,
    // rocBLAS/Tensile's Cijk_*), convolutions (cuDNN, implicit GEMM, FFT and Winograd), attention.
    Rule{"gemm", KernelBound::tensor}, Rule{"cutlass", KernelBound::tensor}, Rule{"xmma", KernelBound::tensor},
    Rule{"cijk_", KernelBound::tensor}, Rule{"matmul", KernelBound::tensor}, Rule{"wmma", KernelBound::tensor},
    Rule{"cudnn", KernelBound::tensor}, Rule{"conv", KernelBound::tensor}, Rule{"winograd", KernelBound::tensor},
    Rule{"fft", KernelBound::tensor}, Rule{"fprop", KernelBound::tensor}, Rule{"dgrad", KernelBound::tensor},
    Rule{"wgrad", KernelBound::tensor}, Rule{"flash", KernelBound::tensor}, Rule{"fmha", KernelBound::tensor},
    Rule{"attention", KernelBound::tensor}, Rule{"attn", KernelBound::tensor}, Rule{"sdpa", KernelBound::tensor},
    // Memory bandwidth: PyTorch's elementwise and reduction templates, normalisation, softmax,
    // optimizer steps (foreach / multi-tensor apply), copies, indexing, embeddings, pooling, sorts.
    Rule{"elementwise", KernelBound::memory}, Rule{"reduce", KernelBound::memory},
    Rule{"welford", KernelBound::memory}, Rule{"softmax", KernelBound::memory}, Rule{"norm", KernelBound::memory},
    Rule{"gammabeta", KernelBound::memory}, Rule{"multi_tensor_apply", KernelBound::memory},
    Rule{"foreach", KernelBound::memory}, Rule{"adam", KernelBound::memory}, Rule{"copy", KernelBound::memory},
    Rule{"catarray", KernelBound::memory}, Rule{"fill", KernelBound::memory}, Rule{"memcpy", KernelBound::memory},
    Rule{"memset", KernelBound::memory}, Rule{"transpose", KernelBound::memory}, Rule{"permute", KernelBound::memory},
    Rule{"gather", KernelBound::memory}, Rule{"scatter", KernelBound::memory}, Rule{"index", KernelBound::memory},
    Rule{"indices", KernelBound::memory},
    Rule{"embedding", KernelBound::memory}, Rule{"embs", KernelBound::memory}, Rule{"pool", KernelBound::memory},
    Rule{"dropout", KernelBound::memory}, Rule{"radixsort", KernelBound::memory},
    Rule{"quantize", KernelBound::memory}, Rule{"cross_entropy", KernelBound::memory},
};
// clang-format on

bool contains_lower(std::string_view name, std::string_view part) {
  if (part.size() > name.size()) return false;
  for (std::size_t i = 0; i + part.size() <= name.size(); ++i) {
    std::size_t k = 0;
    while (k < part.size() && static_cast<char>(std::tolower(static_cast<unsigned char>(name[i + k]))) == part[k]) ++k;
    if (k == part.size()) return true;
  }
  return false;
}

}  // namespace

std::string_view to_string(KernelBound b) {
  switch (b) {
    case KernelBound::tensor: return "tensor";
    case KernelBound::memory: return "memory";
    case KernelBound::communication: return "communication";
    case KernelBound::other: return "other";
  }
  return "other";
}

KernelBound kernel_bound(std::string_view name) {
  for (const Rule& r : kRules)
    if (contains_lower(name, r.part)) return r.bound;
  return KernelBound::other;
}

}  // namespace gpucost::prep::trace
