#!/usr/bin/env python3
"""Writes the job fixtures of the golden cases: one Slurm job and the telemetry of its node.

job_4242.txt        sacct -P (header) of job 4242: 2 GPUs on gpu01, 12:00:00-12:20:00 local time
                    (Europe/Berlin, CEST: 10:00-10:20Z), node energy measured (ConsumedEnergyRaw)
job_4244_gpus4.txt  the same window allotted 4 GPUs, no energy plugin: the telemetry shows 2
job_4242_query.csv  nvidia-smi --query-gpu CSV of gpu01, every 10 s from 11:58:00 to 12:22:00 local
Run from this folder: python3 make_fixtures.py
"""

HEADER = "JobID|JobName|User|Start|End|NodeList|AllocTRES|ConsumedEnergyRaw|State|ExitCode\n"


def sacct(path, job, tres, energy, steps_energy):
    with open(path, "w") as out:
        out.write(HEADER)
        out.write(f"{job}|finetune|alice|2024-06-12T12:00:00|2024-06-12T12:20:00|gpu01|billing=16,cpu=16,{tres},"
                  f"mem=128G,node=1|{energy}|COMPLETED|0:0\n")
        out.write(f"{job}.batch|batch||2024-06-12T12:00:00|2024-06-12T12:20:00|gpu01|cpu=16,{tres},mem=128G,node=1|"
                  f"{steps_energy}|COMPLETED|0:0\n")
        out.write(f"{job}.extern|extern||2024-06-12T12:00:00|2024-06-12T12:20:00|gpu01|billing=16,cpu=16,{tres},"
                  f"mem=128G,node=1|{steps_energy}|COMPLETED|0:0\n")


def telemetry(path):
    with open(path, "w") as out:
        out.write("timestamp, index, pci.bus_id, name, power.draw [W], temperature.gpu, utilization.gpu [%], "
                  "utilization.memory [%], memory.used [MiB], clocks.current.sm [MHz], clocks.max.sm [MHz]\n")
        for i in range(0, 24 * 60 + 1, 10):
            hh, mm, ss = 11 + (58 * 60 + i) // 3600, ((58 * 60 + i) // 60) % 60, i % 60
            inside = 120 <= i <= 1320  # the job runs from 12:00:00 to 12:20:00
            for g in range(2):
                k = i // 10 * 7 + g * 13
                power = 280 + k % 90 + 0.5 * g if inside else 61.0 + g
                util = 85 + k % 15 if inside else 0
                out.write(f"2024/06/12 {hh:02d}:{mm:02d}:{ss:02d}.{10 * g:03d}, {g}, 00000000:{0x41 + g:02X}:00.0, "
                          f"NVIDIA A100-SXM4-80GB, {power:.2f} W, {45 + k % 20 if inside else 34}, {util} %, "
                          f"{util // 2} %, {60000 + k % 5000 if inside else 4} MiB, {1410 if inside else 210} MHz, "
                          f"1410 MHz\n")


sacct("job_4242.txt", 4242, "gres/gpu:a100=2,gres/gpu=2", 1100000, 1100000)
sacct("job_4244_gpus4.txt", 4244, "gres/gpu=4", "", 0)
telemetry("job_4242_query.csv")
