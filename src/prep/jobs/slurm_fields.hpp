// The fields of Slurm's accounting output (`sacct -P`) that need more than a split: host lists
// (node[01-03,07]), TRES lists (billing=8,cpu=32,gres/gpu:a100=4,gres/gpu=4,mem=200G,node=1,
// energy=4682744), GRES lists (gpu:a100:4(IDX:0-3)), job states (CANCELLED by 1000), exit codes
// (N:M), job ids (4242, 4242_7, 4242+1, 4242.batch) and Slurm's time strings (1-02:03:04).
// Internal to prep; tests include it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prep::slurm {

/// The most hosts one list expands to: a longer one is refused (not a job's node list).
inline constexpr std::size_t kMaxHosts = 65536;

/// Expands Slurm's hostlist syntax: comma-separated names, each with bracketed ranges and
/// numbers ("node[01-03,07]", "gpu[1-2]-ib[0-1]", "a,b"); zero padding is kept as written.
/// Empty for "" and "None assigned"; none when the text is not a host list.
std::optional<std::vector<std::string>> expand_hostlist(std::string_view list);

/// What a TRES list (AllocTRES, ReqTRES, TRESUsageInTot) says of an allocation.
struct AllocTres {
  std::optional<std::int64_t> gpus;  ///< gres/gpu=N, else the sum of the typed gres/gpu:TYPE=N
  std::string gpu_types;             ///< the types of gres/gpu:TYPE=N, comma-separated, in the order printed
  std::optional<std::int64_t> cpus, nodes, billing;
  std::optional<std::int64_t> energy_j;  ///< energy=N: joules (the energy TRES, acct_gather_energy)
  std::string mem;                       ///< as printed ("200G")
};
/// Parses `billing=8,cpu=32,gres/gpu=4,mem=200G,node=1`; none when an entry is not NAME=VALUE,
/// or a GPU count or the energy is not a whole number.
std::optional<AllocTres> parse_alloc_tres(std::string_view tres);

/// The GPUs of a GRES list (AllocGRES: `gpu:4`, `gpu:a100:4(IDX:0-3)`, `gres/gpu:2`, several
/// comma-separated, other GRES such as `mps:100` skipped).
struct GresGpus {
  std::optional<std::int64_t> gpus;  ///< the sum of the gpu entries; none when none names a GPU
  std::string gpu_types;             ///< their types, comma-separated, in the order printed
};
/// None when a gpu entry's count is not a whole number.
std::optional<GresGpus> parse_gres_gpus(std::string_view gres);

/// The most GPUs one GRES entry may count, and the longest time span read (100 years, in s): more
/// is not a job's (and would overflow a time in ns).
inline constexpr std::int64_t kMaxGres = 1'000'000;
inline constexpr std::int64_t kMaxTimeSpanS = 100LL * 366 * 86400;

/// Slurm's time strings, as sacct prints Elapsed ([D-]HH:MM:SS[.micro]) and as Slurm reads a
/// time limit: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. Seconds (a fraction dropped); none when the
/// text is not one.
std::optional<std::int64_t> parse_time_string(std::string_view text);

/// A job's State: its name and, for "CANCELLED by UID", who cancelled it.
struct JobState {
  std::string_view name;  ///< COMPLETED, FAILED, CANCELLED, TIMEOUT, RUNNING, ...
  std::optional<std::int64_t> cancelled_by;
};
/// Parses "COMPLETED", "CANCELLED by 0", "CANCELLED+" (sacct's mark of a truncated state); none
/// when it is not an upper-case state name.
std::optional<JobState> parse_job_state(std::string_view state);
/// One of the states sacct prints (its JOB STATE CODES): BOOT_FAIL, CANCELLED, COMPLETED,
/// DEADLINE, FAILED, NODE_FAIL, OUT_OF_MEMORY, PENDING, PREEMPTED, RUNNING, REQUEUED, RESIZING,
/// REVOKED, SUSPENDED, TIMEOUT.
bool is_known_state(std::string_view name);
/// A state in which the job has ended: all the known ones but PENDING, RUNNING, SUSPENDED,
/// REQUEUED and RESIZING (a job in those may still run; an unknown state is not taken as ended).
bool is_ended_state(std::string_view name);

/// ExitCode "N:M": the exit code of the script and the signal that ended it (0: none).
struct ExitCode {
  std::int64_t code = 0, signal = 0;
};
std::optional<ExitCode> parse_exit_code(std::string_view text);

/// A JobID split into the job it belongs to and the step: "4242.batch" -> job "4242", step
/// "batch"; "4242_7.0" -> "4242_7", "0"; "4242+1.extern" -> "4242+1", "extern".
struct JobId {
  std::string_view job, step;
  [[nodiscard]] bool is_step() const { return !step.empty(); }
};
/// None when the text is not a job id (digits, then _N or _[..] for an array task, +N for a
/// heterogeneous component, then .STEP).
std::optional<JobId> split_job_id(std::string_view id);

}  // namespace gpucost::prep::slurm
