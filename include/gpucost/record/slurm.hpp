// --slurm-job: Slurm's accounting asked for one job with sacct, through record's process helpers.
// The answer is a sacct -P file the inputs read like a saved one (the `sacct` format), and the
// job's window and nodes for a caller that needs them before reading anything (a telemetry query
// scoped to the job: its nodes over its window).
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/features.hpp>

#include <string>
#include <vector>

namespace gpucost::record {

/// The fields --slurm-job asks sacct for, in this order (also the order of a headerless file).
inline constexpr std::string_view kSacctFormat =
    "JobID,JobName,User,Start,End,NodeList,AllocTRES,ConsumedEnergyRaw,State,ExitCode";
/// How long sacct may take before it is stopped (slurmdbd busy or unreachable), ms.
inline constexpr int kSacctTimeoutMs = 60'000;

/// The command --slurm-job runs: `sacct -j ID -P --format=...`, in the environment TZ=UTC and
/// SLURM_TIME_FORMAT=%s (epoch seconds: times that need no zone), as argv for env(1).
std::vector<std::string> sacct_command(const std::string& job_id);

/// sacct's output for one job, in a file of its own (removed with this object), for the inputs.
class SacctFile {
 public:
  SacctFile(std::string dir, std::string path) : m_dir(std::move(dir)), m_path(std::move(path)) {}
  ~SacctFile();
  SacctFile(const SacctFile&) = delete;
  SacctFile& operator=(const SacctFile&) = delete;
  [[nodiscard]] const std::string& path() const { return m_path; }

 private:
  std::string m_dir, m_path;
};

/// Runs sacct for `job_id` into a file under $TMPDIR. Fails when the id is not a job id, sacct is
/// not on PATH, it fails (its stderr in the message: slurmdbd unreachable, no slurm.conf), does
/// not answer within `timeout_ms`, or knows no such job.
Expected<std::unique_ptr<SacctFile>> query_sacct(const std::string& job_id, int timeout_ms = kSacctTimeoutMs);

/// The jobs of a sacct -P text (its allocation lines), times read in `clock` when they have no zone.
Expected<std::vector<extract::JobRecord>> read_sacct_jobs(const std::string& text, LocalClock& clock);

/// The job `job_id` of a sacct -P text: fails for a job that never started, one the text does not
/// hold, and an id of an array or heterogeneous job that names several allocations (naming them).
Expected<extract::JobRecord> pick_slurm_job(const std::string& sacct_text, const std::string& job_id,
                                            LocalClock& clock);

/// The job's window and nodes, asked of sacct: start_ns, end_ns (none while it runs) and the
/// expanded node list of the record. Fails like query_sacct, and for a job that never started.
/// A job id of an array or heterogeneous job that names several allocations fails, naming them.
Expected<extract::JobRecord> slurm_job(const std::string& job_id, int timeout_ms = kSacctTimeoutMs);

}  // namespace gpucost::record
