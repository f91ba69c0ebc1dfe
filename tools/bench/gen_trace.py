#!/usr/bin/env python3
"""Generate large, realistic PyTorch profiler (Kineto) traces for benchmarking `gpucost prep`.

Standard library only, deterministic for a given --seed, written streaming (constant memory:
one training step is built at a time and flushed in 8 MiB writes).

  gen_trace.py --mb 100 -o trace-100mb.pt.trace.json [--gzip trace-100mb.pt.trace.json.gz]

The layout is Kineto's own (as written by torch.profiler's export_chrome_trace, 2.x): a header
with schemaVersion, deviceProperties and distributedInfo; `"traceEvents": [` and one record per
`{ ... }` block over several lines with 2/4/6-space indentation; `"ts"` relative to
baseTimeNanoseconds in µs with three decimals; process/thread metadata ("ph": "M"), the
"PyTorch Profiler" span and instant events at the end of the array; INFO, traceName,
displayTimeUnit and baseTimeNanoseconds after it.

The workload is a simulated data-parallel transformer training loop on one GPU of a rank
(--devices 2 spreads the layers over two GPUs of the process, like a pipeline split):
each ProfilerStep#N has an input copy (cudaMemcpyAsync -> Memcpy HtoD), a forward pass on the
main thread (cpu_op trees with record_shapes args: Input Dims/Input type/Concrete Inputs
arrays, cudaLaunchKernel + ac2g flows + kernel), a backward pass on the autograd thread
(evaluate_function trees, fwdbwd flows, 2 GEMMs per linear), gradient-bucket all-reduces
(nccl:all_reduce annotation, record_param_comms, cudaEventRecord/cudaStreamWaitEvent, an
ncclDevKernel on a second stream that overlaps the backward compute), zero_grad memsets, a
fused AdamW step (multi_tensor_apply kernels) and loss.item() (Memcpy DtoH +
cudaStreamSynchronize, which drains the GPU queue). GPU ops start no earlier than the end of
their launch call plus a small latency and no earlier than their stream is free, so launch
delays range from ~2 µs (GPU idle, waiting on the host) to milliseconds (queue full).

Sizes are decimal: --mb 100 means 100 * 10^6 bytes (the file stops at the first step boundary
at or after that size, then the metadata tail is written).
"""
from __future__ import annotations

import argparse
import gzip
import random
import sys

CHUNK = 8 << 20

BASE_TIME_NS = 1711964646000000000
T0_NS = 4458676388068751  # first ts (ns; printed as µs with 3 decimals), like the real traces

# ---- kernel names (long, templated: what CUPTI reports for PyTorch/cuBLAS/cuDNN/NCCL) ----------
K_GEMM = [
    "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_stage3_warpsize2x4x1_tensor16x8x16_kernel",
    "sm80_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize160x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
    "void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>"
    "(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8::Params)",
    "ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_tn",
    "void cutlass::Kernel<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_nt_align8>"
    "(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_nt_align8::Params)",
]
K_GEMM_SPLITK = ("void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, true, false, "
                 "false>(cublasLt::cublasSplitKParams<float>, float const*, __nv_bfloat16 const*, __nv_bfloat16*, float "
                 "const*, float const*, __nv_bfloat16 const*, float const*, __nv_bfloat16*, void*, long, float*, int*)")
K_LN_FWD = ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
            "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)")
K_LN_BWD = ("void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>("
            "c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, "
            "c10::BFloat16*, int)")
K_LN_GAMMA = ("void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, float>(long, "
              "long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16*, "
              "c10::BFloat16*)")
K_FLASH_FWD = ("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, "
               "false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, "
               "false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)")
K_FLASH_BWD = ("void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<"
               "128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, "
               "128, 8, cutlass::bfloat16_t> >, false, true, false, false, true, true, false>(pytorch_flash::Flash_bwd_params)")
K_ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
         "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)")
K_GELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
          "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::"
          "BFloat16)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
          "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::"
          "BFloat16)#1}, at::detail::Array<char*, 2>)")
K_GELU_BWD = ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl(at::"
              "TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() "
              "const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3> >(int, at::native::"
              "GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() "
              "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3>)")
K_DROPOUT = ("void at::native::(anonymous namespace)::fused_dropout_kernel_vec<c10::BFloat16, float, unsigned int, 1, 4, "
             "bool>(at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<c10::"
             "BFloat16, unsigned int>, at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::"
             "PhiloxCudaState)")
K_REDUCE = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::"
            "native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
            "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::"
            "sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
            "float, 4>)")
K_SOFTMAX = ("void (anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, (anonymous namespace)::"
             "LogSoftMaxForwardEpilogue>(float*, float const*, int)")
K_NLL = ("void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, "
         "float*, float const*, long const*, float const*, bool, long, long, long, long)")
K_ADAM = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
          "FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
          "(at::native::ADAM_MODE)1, false>, float*, float, float, float, float, float, bool, float*, float*>(at::native::"
          "(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::"
          "FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, float, float, float, float, float, "
          "bool, float*, float*)")
K_FILL = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
          ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)")
K_NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"

DEVICE_PROPS = (
    '    {{\n'
    '      "id": {id}, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912,\n'
    '      "computeMajor": 9, "computeMinor": 0,\n'
    '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
    '      "regsPerBlock": 65536, "warpSize": 32,\n'
    '      "sharedMemPerBlock": 49152, "numSms": 132\n'
    '    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472\n'
    '    }}')


def us(ns: int) -> str:
    """ns -> Kineto's µs text with three decimals (exact)."""
    return f"{ns // 1000}.{ns % 1000:03d}"


class Gen:
    def __init__(self, rng: random.Random, devices: int, layers: int, rank: int, world: int) -> None:
        self.rng = rng
        self.devices = devices
        self.layers = layers
        self.rank = rank
        self.world = world
        self.pid = 2910249 + 17 * rank
        self.tid_main = self.pid
        self.tid_bwd = self.pid + 9503
        self.ext = 2049     # External id
        self.corr = 57000   # CUPTI correlation id (one per runtime call)
        self.rfid = 1900    # Record function id
        self.seq = 1000     # autograd sequence number
        self.evidx = 0
        self.fwdbwd = 0
        self.cpu = {self.tid_main: T0_NS + 25_000, self.tid_bwd: T0_NS + 25_000}
        self.free = {}  # (device, stream) -> ns when the stream is free
        self.first_ts = T0_NS
        self.last_ts = T0_NS
        self.cpu_recs: list[str] = []
        self.gpu_recs: list[str] = []
        self.step_no = 0
        self.scale = 1.0

    # ---- records (Kineto's exact text layout) ------------------------------------------------
    def cpu_op(self, tid: int, name: str, ts: int, dur: int, shapes: bool = True, seq: bool = False,
               cat: str = "cpu_op") -> None:
        self.ext += 1
        self.rfid += 1
        self.evidx += 1
        r = self.rng
        extra = ""
        if seq:
            extra = f', "Sequence number": {self.seq}, "Fwd thread id": 1'
        if shapes and cat == "cpu_op":
            n = r.randint(1, 5)
            dims = ", ".join(r.choice(("[]", "[8, 2048, 4096]", "[4096, 4096]", "[16384, 4096]", "[4096]",
                                        "[8, 32, 2048, 128]", "[16384, 11008]")) for _ in range(n))
            types = ", ".join(r.choice(('"c10::BFloat16"', '"float"', '"Scalar"', '""', '"long int"')) for _ in range(n))
            conc = ", ".join(r.choice(('""', '""', '"1"', '"0"', '"False"', '"-1"')) for _ in range(n))
            extra += f', "Concrete Inputs": [{conc}], "Input type": [{types}], "Input Dims": [{dims}]'
        self.cpu_recs.append(
            f'  {{\n    "ph": "X", "cat": "{cat}", "name": "{name}", "pid": {self.pid}, "tid": {tid},\n'
            f'    "ts": {us(ts)}, "dur": {us(dur)},\n'
            f'    "args": {{\n      "External id": {self.ext},"Record function id": {self.rfid}{extra}, "Ev Idx": {self.evidx}\n'
            f'    }}\n  }}')

    def flow(self, ph: str, fid: int, pid, tid, ts: int, cat: str) -> str:
        bp = ', "bp": "e"' if ph == "f" else ""
        return (f'  {{\n    "ph": "{ph}", "id": {fid}, "pid": {pid}, "tid": {tid}, "ts": {us(ts)},\n'
                f'    "cat": "{cat}", "name": "{cat}"{bp}\n  }}')

    def runtime(self, tid: int, name: str, ts: int, dur: int, cbid: int) -> int:
        self.corr += 1
        self.gpu_recs.append(
            f'  {{\n    "ph": "X", "cat": "cuda_runtime", "name": "{name}", "pid": {self.pid}, "tid": {tid},\n'
            f'    "ts": {us(ts)}, "dur": {us(dur)},\n'
            f'    "args": {{\n      "External id": {self.ext},      "cbid": {cbid}, "correlation": {self.corr}\n'
            f'    }}\n  }}')
        return self.corr

    def launch_dur(self) -> int:
        r = self.rng.random()
        if r < 0.002:
            return self.rng.randint(200_000, 2_000_000)  # rare stalls inside the launch call
        if r < 0.03:
            return self.rng.randint(20_000, 120_000)
        return self.rng.randint(2_800, 9_500)

    def gpu_op(self, tid: int, t: int, kind: str, name: str, dur_ns: int, device: int, stream: int,
               nbytes: int = 0, api: str = "cudaLaunchKernel", extra_args: str = "") -> int:
        """A launch call at CPU time t on thread tid, and the GPU op it launches; returns the
        CPU time after the call."""
        r = self.rng
        ldur = self.launch_dur()
        cbid = {"cudaLaunchKernel": 211, "cudaMemcpyAsync": 41, "cudaMemsetAsync": 51, "cudaLaunchKernelExC": 430}[api]
        corr = self.runtime(tid, api, t, ldur, cbid)
        launch_end = t + ldur
        key = (device, stream)
        start = max(self.free.get(key, 0), launch_end + r.randint(900, 4_000))
        if stream == NCCL_STREAM:  # waits on the compute stream's event recorded before the launch
            start = max(start, self.free.get((device, COMPUTE_STREAM), 0))
        dur_ns = max(1_000, int(dur_ns))
        self.free[key] = start + dur_ns
        self.last_ts = max(self.last_ts, start + dur_ns)
        ext = self.ext
        if kind == "kernel":
            regs = r.choice((16, 20, 32, 40, 64, 96, 128, 168, 255))
            smem = r.choice((0, 0, 400, 16384, 49152, 87568, 166912))
            grid = r.choice((1, 8, 108, 132, 264, 512, 1024, 4096, 88497))
            block = r.choice((128, 256, 512, 544))
            bps = grid / 132.0
            args = (f'"External id": {ext},      "queued": 0, "device": {device}, "context": 1,      "stream": {stream}, '
                    f'"correlation": {corr},      "registers per thread": {regs},      "shared memory": {smem},      '
                    f'"blocks per SM": {bps:.6f},      "warps per SM": {bps * block / 32:.6f},      '
                    f'"grid": [{grid}, 1, 1],      "block": [{block}, 1, 1],      '
                    f'"est. achieved occupancy %": {r.choice((0, 9, 25, 50, 75, 100))}{extra_args}')
        else:
            gbps = nbytes / dur_ns if dur_ns else 0.0
            args = (f'"External id": {ext},      "device": {device}, "context": 1,      "stream": {stream}, '
                    f'"correlation": {corr},      "bytes": {nbytes}, "memory bandwidth (GB/s)": {gbps!r}')
        self.gpu_recs.append(
            f'  {{\n    "ph": "X", "cat": "{kind}", "name": "{name}", "pid": {device}, "tid": {stream},\n'
            f'    "ts": {us(start)}, "dur": {us(dur_ns)},\n    "args": {{\n      {args}\n    }}\n  }}')
        self.gpu_recs.append(self.flow("f", corr, device, stream, start, "ac2g"))
        self.gpu_recs.append(self.flow("s", corr, self.pid, tid, t, "ac2g"))
        return launch_end

    # ---- op trees ----------------------------------------------------------------------------
    def aten(self, tid: int, outer: str, children: list[str], kernels: list[tuple], device: int,
             seq: bool = False, stream: int = 0, shapes: bool = True) -> None:
        """An aten op: outer cpu_op, view-like children without kernels, then the launching leaf."""
        r = self.rng
        stream = stream or COMPUTE_STREAM
        t0 = self.cpu[tid]
        t = t0 + r.randint(1_500, 6_000)
        spans = []
        for c in children[:-1] if children else []:
            d = r.randint(1_200, 9_000)
            spans.append((c, t, d))
            t += d + r.randint(300, 1_500)
        leaf = children[-1] if children else None
        leaf_t0 = t
        t += r.randint(2_000, 8_000)
        if r.random() < 0.35:  # bookkeeping runtime calls that launch nothing
            d = r.randint(600, 2_000)
            self.runtime(tid, "cudaStreamIsCapturing", t, d, 317)
            t += d + r.randint(200, 900)
        for (kname, kdur, kind, nbytes, api) in kernels:
            t = self.gpu_op(tid, t, kind, kname, kdur, device, stream, nbytes, api)
            t += r.randint(1_500, 5_000)
        if leaf is not None:
            spans.append((leaf, leaf_t0, t - leaf_t0))
            t += r.randint(500, 2_000)
        end = t + r.randint(800, 3_000)
        self.cpu_op(tid, outer, t0, end - t0, shapes, seq)
        for (c, ts, d) in spans:
            self.cpu_op(tid, c, ts, d, shapes)
        self.cpu[tid] = end + r.randint(3_000, 25_000)  # Python between ops

    def k(self, name: str, us_mean: float, spread: float = 0.25) -> tuple:
        d = us_mean * 1000 * self.scale * (1 + self.rng.uniform(-spread, spread))
        return (name, d, "kernel", 0, "cudaLaunchKernel")

    def step(self, n: int) -> None:
        r = self.rng
        self.step_no = n
        self.scale = r.choice((0.12, 0.2, 0.3, 0.35, 0.5))  # host-bound to GPU-bound steps
        main, bwd = self.tid_main, self.tid_bwd
        dev0 = 0
        step_t0 = self.cpu[main]
        ext_step = self.ext + 1
        self.ext += 1
        self.cpu[main] += r.randint(20_000, 60_000)
        # input batch: HtoD copies
        self.cpu_op(main, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", self.cpu[main] - 15_000,
                    r.randint(8_000, 14_000), shapes=False, cat="user_annotation")
        for nb in (8 * 2048 * 8, 8 * 2048 * 8):
            self.aten(main, "aten::to", ["aten::_to_copy", "aten::empty_strided", "aten::copy_"],
                      [("Memcpy HtoD (Pinned -> Device)", nb / 22.0, "gpu_memcpy", nb, "cudaMemcpyAsync")], dev0)
        # forward
        fwd_ops = []
        for layer in range(self.layers):
            dev = layer * self.devices // self.layers
            for (outer, children, kern) in (
                    ("aten::layer_norm", ["aten::native_layer_norm"], [self.k(K_LN_FWD, 18)]),
                    ("aten::linear", ["aten::t", "aten::transpose", "aten::addmm"], [self.k(r.choice(K_GEMM), 160)]),
                    ("aten::scaled_dot_product_attention", ["aten::_scaled_dot_product_flash_attention",
                                                            "aten::_flash_attention_forward"], [self.k(K_FLASH_FWD, 210)]),
                    ("aten::linear", ["aten::t", "aten::transpose", "aten::addmm"], [self.k(r.choice(K_GEMM), 60)]),
                    ("aten::dropout", ["aten::native_dropout"], [self.k(K_DROPOUT, 14)]),
                    ("aten::add", [], [self.k(K_ADD, 11)]),
                    ("aten::layer_norm", ["aten::native_layer_norm"], [self.k(K_LN_FWD, 18)]),
                    ("aten::linear", ["aten::t", "aten::transpose", "aten::addmm"],
                     [self.k(r.choice(K_GEMM), 230)] + ([self.k(K_GEMM_SPLITK, 9)] if r.random() < 0.3 else [])),
                    ("aten::gelu", [], [self.k(K_GELU, 28)]),
                    ("aten::linear", ["aten::t", "aten::transpose", "aten::addmm"], [self.k(r.choice(K_GEMM), 225)]),
                    ("aten::add", [], [self.k(K_ADD, 11)]),
            ):
                self.aten(main, outer, children, kern, dev)
                fwd_ops.append((outer, dev, self.seq))
                self.fwdbwd += 1
                self.seq += 1
        last = self.devices - 1
        self.aten(main, "aten::cross_entropy_loss", ["aten::log_softmax", "aten::_log_softmax"],
                  [self.k(K_SOFTMAX, 120)], last)
        self.aten(main, "aten::nll_loss_nd", ["aten::nll_loss", "aten::nll_loss_forward"], [self.k(K_NLL, 6)], last)
        # backward on the autograd thread, which starts once the main thread calls backward()
        self.cpu[bwd] = max(self.cpu[bwd], self.cpu[main] + r.randint(20_000, 50_000))
        bwd_name = {"aten::layer_norm": ("NativeLayerNormBackward0", lambda: [self.k(K_LN_BWD, 30),
                                                                              self.k(K_LN_GAMMA, 22)]),
                    "aten::linear": ("AddmmBackward0", None),
                    "aten::scaled_dot_product_attention": ("ScaledDotProductFlashAttentionBackward0",
                                                           lambda: [self.k(K_FLASH_BWD, 520)]),
                    "aten::dropout": ("NativeDropoutBackward0", lambda: [self.k(K_DROPOUT, 14)]),
                    "aten::add": ("AddBackward0", lambda: []),
                    "aten::gelu": ("GeluBackward0", lambda: [self.k(K_GELU_BWD, 40)])}
        bucket = 0
        for i, (outer, dev, seq) in enumerate(reversed(fwd_ops)):
            name, kern = bwd_name[outer]
            if kern is None:
                kern = [self.k(r.choice(K_GEMM), 190), self.k(r.choice(K_GEMM), 190)]
                if r.random() < 0.5:
                    kern.append(self.k(K_REDUCE, 12))
            else:
                kern = kern()
            self.seq = seq
            if kern:
                self.aten(bwd, f"autograd::engine::evaluate_function: {name}", [name, "aten::mm" if "Addmm" in name
                          else "aten::" + name.replace("Backward0", "").lower() + "_backward"], kern, dev, seq=True)
            else:
                self.cpu_op(bwd, f"autograd::engine::evaluate_function: {name}", self.cpu[bwd], r.randint(4_000, 12_000),
                            seq=True)
                self.cpu[bwd] += r.randint(15_000, 30_000)
            bucket += 1
            if bucket == 22 and self.world > 1:  # a ~25 MB gradient bucket is ready: all-reduce it
                bucket = 0
                t = self.cpu[bwd]
                self.cpu_op(bwd, "nccl:all_reduce", t, r.randint(40_000, 90_000), shapes=True, cat="user_annotation")
                self.cpu[bwd] = t + 2_000
                self.runtime(bwd, "cudaEventRecord", self.cpu[bwd], 3_100, 135)
                self.runtime(bwd, "cudaStreamWaitEvent", self.cpu[bwd] + 4_000, 2_400, 147)
                self.cpu[bwd] += 8_000
                nbytes = 26_214_400
                self.aten(bwd, "record_param_comms", [],
                          [(K_NCCL, nbytes / 20.0 * (1 + r.uniform(0, 0.6)), "kernel", 0, "cudaLaunchKernel")],
                          dev, stream=NCCL_STREAM, shapes=False)
        # loss.item(): copy to the host and wait for the GPU
        self.aten(main, "aten::item", ["aten::_local_scalar_dense"],
                  [("Memcpy DtoH (Device -> Pageable)", 1_500, "gpu_memcpy", 4, "cudaMemcpyAsync")], last)
        t = max(self.cpu[main], self.cpu[bwd])
        drained = max([v for (d, s), v in self.free.items()] + [t])
        self.runtime(main, "cudaStreamSynchronize", t, drained - t + 3_000, 131)
        self.cpu[main] = drained + r.randint(15_000, 40_000)
        # optimizer: zero_grad (memsets) then a fused AdamW step
        zt = self.cpu[main]
        for _ in range(r.randint(2, 5)):
            nb = r.choice((4096, 16_777_216, 33_554_432, 90_177_536))
            self.aten(main, "aten::zero_", ["aten::fill_"],
                      [("Memset (Device)", nb / 900.0 + 1_500, "gpu_memset", nb, "cudaMemsetAsync")], dev0)
        self.cpu_op(main, "Optimizer.zero_grad#AdamW.zero_grad", zt - 2_000, self.cpu[main] - zt, shapes=False,
                    cat="user_annotation")
        ot = self.cpu[main]
        for _ in range(self.devices * 3):
            for dev in range(self.devices):
                self.aten(main, "aten::_fused_adamw_", [], [self.k(K_ADAM, 480)], dev)
        self.aten(main, "aten::fill_", [], [self.k(K_FILL, 2)], dev0)
        self.cpu_op(main, "Optimizer.step#AdamW.step", ot - 3_000, self.cpu[main] - ot, shapes=False,
                    cat="user_annotation")
        # ProfilerStep#N annotation around the step (user_annotation, main thread)
        self.cpu_recs.insert(0, (
            f'  {{\n    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{n}", "pid": {self.pid}, '
            f'"tid": {main},\n    "ts": {us(step_t0)}, "dur": {us(self.cpu[main] - step_t0)},\n'
            f'    "args": {{\n      "External id": {ext_step},"Record function id": 0, "Ev Idx": {self.evidx}\n'
            f'    }}\n  }}'))
        self.last_ts = max(self.last_ts, self.cpu[main], self.cpu[bwd])


COMPUTE_STREAM = 7
NCCL_STREAM = 40


def header(devices: int, rank: int, world: int) -> str:
    props = ",\n".join(DEVICE_PROPS.format(id=i) for i in range(8))
    dist = ""
    if world > 1:
        ranks = ", ".join(str(i) for i in range(world))
        dist = (f'  "distributedInfo": {{"backend": "nccl", "rank": {rank}, "world_size": {world}, "pg_count": 1, '
                f'"pg_config": [{{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": '
                f'{world}, "ranks": [{ranks}]}}], "nccl_version": "2.21.5"}},\n')
    return (f'\n{{\n  "schemaVersion": 1,\n  "deviceProperties": [\n{props}\n  ],\n{dist}  "cupti_version": 24,\n'
            f'  "cuda_runtime_version": 12040,\n  "cuda_driver_version": 12040,\n  "trace_id": "C8F0B2D1A6E24F0B9C1D'
            f'2E3F4A5B6C7D",\n  "traceEvents": [\n')


def tail(g: Gen, devices: int) -> str:
    recs = []
    meta = [("process_name", g.pid, 0, '"name": "python3"'),
            ("process_labels", g.pid, 0, '"labels": "CPU"'),
            ("process_sort_index", g.pid, 0, f'"sort_index": {g.pid}')]
    for d in range(devices):
        meta += [("process_name", d, 0, '"name": "python3"'),
                 ("process_labels", d, 0, f'"labels": "GPU {d}"'),
                 ("process_sort_index", d, 0, f'"sort_index": {16777216 + d}')]
        for s in (COMPUTE_STREAM, NCCL_STREAM):
            meta += [("thread_name", d, s, f'"name": "stream {s} "'),
                     ("thread_sort_index", d, s, f'"sort_index": {s}')]
    meta += [("thread_name", g.pid, g.tid_main, f'"name": "thread {g.tid_main} (python3)"'),
             ("thread_sort_index", g.pid, g.tid_main, f'"sort_index": {g.tid_main}'),
             ("thread_name", g.pid, g.tid_bwd, f'"name": "thread {g.tid_bwd} (pt_autograd_0)"'),
             ("thread_sort_index", g.pid, g.tid_bwd, f'"sort_index": {g.tid_bwd}')]
    for (name, pid, tid, args) in meta:
        recs.append(f'  {{\n    "name": "{name}", "ph": "M", "ts": {us(g.first_ts)}, "pid": {pid}, "tid": {tid},\n'
                    f'    "args": {{\n      {args}\n    }}\n  }}')
    recs.append(f'  {{\n    "ph": "X", "cat": "Trace", "ts": {us(g.first_ts)}, "dur": {us(g.last_ts - g.first_ts)},\n'
                f'    "pid": "Spans", "tid": "PyTorch Profiler",\n    "name": "PyTorch Profiler (0)",\n'
                f'    "args": {{\n      "Op count": 0\n    }}\n  }}')
    recs.append(f'  {{\n    "name": "process_sort_index", "ph": "M", "ts": {us(g.first_ts)},\n    "pid": "Spans", '
                f'"tid": 0,\n    "args": {{\n      "sort_index": 536870912\n    }}\n  }}')
    recs.append(f'  {{\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n    "pid": "Traces", '
                f'"tid": "Trace PyTorch Profiler", "ts": {us(g.first_ts)}\n  }}')
    recs.append(f'  {{\n    "name": "Record Window End", "ph": "i", "s": "g",\n    "pid": "", "tid": "", '
                f'"ts": {us(g.last_ts + 1_000_000)}\n  }}')
    info = ('"INFO:2026-11-29 17:15:22 2910249:2910249 CuptiActivityProfiler.cpp:976] Enabling GPU tracing",'
            '"INFO:2026-11-29 17:15:23 2910249:2910249 CuptiActivityProfiler.cpp:266] Processing 1 CPU buffers"')
    return (",\n".join(recs) + f'\n  ],\n  "INFO": [{info}],\n  "traceName": "/tmp/bench_rank{g.rank}.pt.trace.json",\n'
            f'  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": {BASE_TIME_NS}\n}}')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, required=True, help="size of the trace in MB (10^6 bytes)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layers", type=int, default=24, help="transformer layers (default 24)")
    ap.add_argument("--devices", type=int, default=1, help="GPUs driven by this process (default 1)")
    ap.add_argument("--rank", type=int, default=0)
    ap.add_argument("--world-size", type=int, default=8, help="1 = no distributedInfo, no all-reduce")
    ap.add_argument("-o", "--output", required=True, help="the .json trace")
    ap.add_argument("--gzip", help="also write a gzip copy (level 6) here, in the same pass")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    g = Gen(rng, a.devices, a.layers, a.rank, a.world_size)
    limit = int(a.mb * 1_000_000)
    out = open(a.output, "wb")
    gz = gzip.open(a.gzip, "wb", compresslevel=6) if a.gzip else None
    buf: list[str] = []
    pending = 0
    written = 0

    def write(s: str) -> None:
        nonlocal pending, written
        buf.append(s)
        pending += len(s)
        if pending >= CHUNK:
            flush()

    def flush() -> None:
        nonlocal pending, written
        data = "".join(buf).encode()
        buf.clear()
        pending = 0
        out.write(data)
        if gz:
            gz.write(data)
        written += len(data)

    write(header(a.devices, a.rank, a.world_size))
    first = True
    n = 100
    while written + pending < limit:
        g.cpu_recs.clear()
        g.gpu_recs.clear()
        g.step(n)
        n += 1
        for recs in (g.cpu_recs, g.gpu_recs):  # Kineto: host-side records, then the CUPTI ones
            text = ",\n".join(recs)
            write(text if first else ",\n" + text)
            first = False
    write(",\n" + tail(g, a.devices) + "\n")
    flush()
    out.close()
    if gz:
        gz.close()
    print(f"gen_trace.py: {a.output}: {written} bytes, {n - 100} steps", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
