#!/usr/bin/env python3
"""Writes coll_rank-0.pt.trace.json and coll_rank-1.pt.trace.json: ranks 0 and 1 of a 4-rank NCCL
job, in Kineto's layout (PyTorch 2.5+: the NCCL kernels carry record_param_comms' args, Seq
included), for golden case trace-collectives (docs/formats.md, "A job of ranks", issue 38).

Two ProfilerSteps of 1 ms. Times are µs after baseTimeNanoseconds; t0 = each step's start.
Per step, on each rank (stream 7: compute; stream 20: process-group collectives; stream 24: a
SendRecv without args, as an older PyTorch writes it):
  GEMM            rank 0 t0+1 .. t0+201      rank 1 t0+1 .. t0+301
  all-reduce      group "1" (ranks [0, 1], both here), Seq 1 and 2:
                  rank 0 t0+201 .. t0+500    rank 1 t0+301 .. t0+500  -> rank 0 waits 100 µs
  all-gather      group "0" (default_pg, ranks [0, 1, 2, 3]: 2 and 3 absent), Seq 5 and 6:
                  rank 0 t0+600 .. t0+700    rank 1 t0+650 .. t0+700  -> rank 0 waits 50 µs
  SendRecv        no args: paired by (step, lane, order), kept only if the kernels overlap
                  step 1: rank 0 t0+800 .. t0+900, rank 1 t0+850 .. t0+900 -> rank 0 waits 50 µs
                  step 2: rank 0 t0+800 .. t0+900, rank 1 t0+950 .. t0+990 -> apart (ends 90 µs apart)
Rank 0 also has group "0"'s Seq 4, a broadcast at t0+100 .. t0+150 of step 1 (beside its GEMM),
which rank 1's trace lacks: unmatched.
Expected: 5 matched (4 by group, 1 by order; 3 with ranks outside the sample), 2 unmatched (1
missing, 1 apart); rank 0 waits 2 x 100 + 2 x 50 + 50 = 350 µs, rank 1 none; rank 1 the straggler
of both steps.
"""
import json
import os

BASE_NS = 1_718_186_400_000_000_000
STEP_US = 1000

KERNEL_ARGS = {"queued": 0, "device": 0, "context": 1, "registers per thread": 96, "shared memory": 0,
               "grid": [132, 1, 1], "block": [256, 1, 1]}
NAMES = {
    "allreduce": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "allgather": "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "broadcast": "ncclDevKernel_Broadcast_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "sendrecv": "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
}
GROUPS = {"0": ("default_pg", "[0, 1, 2, 3]", 4), "1": ("tp", "[0, 1]", 2)}


def comm_args(op, pg, seq, nelems):
    desc, ranks, size = GROUPS[pg]
    return {"Collective name": op, "In msg nelems": nelems, "Out msg nelems": nelems * (size if op == "allgather" else 1),
            "Group size": size, "dtype": "Float", "In split size": "[]", "Out split size": "[]",
            "Process Group Name": pg, "Process Group Description": desc, "Process Group Ranks": ranks, "Seq": seq}


class Rank:
    def __init__(self, rank):
        self.rank = rank
        self.events = []
        self.corr = 0

    def launch(self, at_us, name, start_us, end_us, stream, args=None):
        """A CPU-side launch at `at_us` (with record_param_comms for a collective) and its kernel."""
        self.corr += 1
        pid, tid = 5100 + self.rank, 5100 + self.rank
        if args:
            self.events.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": pid, "tid": tid,
                                "ts": at_us - 2.0, "dur": 4.0,
                                "args": {"External id": 1000 + self.corr, "Record function id": self.corr,
                                         "Rank": self.rank, **args}})
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
                            "ts": float(at_us), "dur": 5.0,
                            "args": {"External id": 1000 + self.corr, "cbid": 211, "correlation": self.corr}})
        kernel_args = {"External id": 1000 + self.corr, **KERNEL_ARGS, "stream": stream, "correlation": self.corr}
        kernel_args["device"] = 0
        if args:
            kernel_args.update(args)
        self.events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream,
                            "ts": float(start_us), "dur": float(end_us - start_us), "args": kernel_args})

    def document(self):
        return {
            "schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045870592,
                                  "computeMajor": 9, "computeMinor": 0}],
            "distributedInfo": {"backend": "nccl", "rank": self.rank, "world_size": 4, "pg_count": 2,
                                "pg_config": [{"pg_name": pg, "pg_desc": d, "backend_config": "cuda:nccl",
                                               "pg_size": n, "ranks": r} for pg, (d, r, n) in GROUPS.items()],
                                "nccl_version": "2.21.5"},
            "cuda_runtime_version": 12040, "cuda_driver_version": 12040,
            "traceEvents": self.events,
            "traceName": f"coll_rank{self.rank}",
            "baseTimeNanoseconds": BASE_NS,
        }


def build(rank):
    r = Rank(rank)
    gemm_end = 201 if rank == 0 else 301
    for step in (1, 2):
        t0 = (step - 1) * STEP_US
        pid = 5100 + rank
        r.events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": pid, "tid": pid,
                         "ts": float(t0), "dur": float(STEP_US), "args": {"External id": 100 + step}})
        r.launch(t0 + 0.5, "ampere_sgemm_128x64_tn", t0 + 1, t0 + gemm_end, 7)
        if rank == 0 and step == 1:
            r.launch(t0 + 60, NAMES["broadcast"], t0 + 100, t0 + 150, 20, comm_args("broadcast", "0", 4, 53120))
        r.launch(t0 + 180, NAMES["allreduce"], t0 + gemm_end, t0 + 500, 20, comm_args("allreduce", "1", step, 2049000))
        r.launch(t0 + 560, NAMES["allgather"], t0 + (600 if rank == 0 else 650), t0 + 700, 20,
                 comm_args("allgather", "0", 4 + step, 65536))
        if rank == 0:
            r.launch(t0 + 760, NAMES["sendrecv"], t0 + 800, t0 + 900, 24)
        elif step == 1:
            r.launch(t0 + 760, NAMES["sendrecv"], t0 + 850, t0 + 900, 24)
        else:
            r.launch(t0 + 760, NAMES["sendrecv"], t0 + 950, t0 + 990, 24)
    r.events.sort(key=lambda e: e["ts"])
    return r.document()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for rank in (0, 1):
        with open(os.path.join(here, f"coll_rank-{rank}.pt.trace.json"), "w", encoding="utf-8") as f:
            json.dump(build(rank), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
