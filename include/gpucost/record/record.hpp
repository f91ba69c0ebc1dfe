// `gpucost record -- CMD [ARGS...]`: runs a training command and collects its logs while it runs
// (nvidia-smi telemetry, the command's own output, the kernel messages of the run window), into
// a run folder that breakeven then prices. The command is executed directly (execvp), never
// through a shell.
#pragma once

#include <gpucost/core/error.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace gpucost::record {

inline constexpr std::string_view kRunSchema = "gpucost.run";
inline constexpr int kRunVersion = 1;

/// The nvidia-smi query record samples: what extract and the report use.
inline constexpr std::string_view kQueryFields =
    "timestamp,index,pci.bus_id,power.draw,temperature.gpu,utilization.gpu,utilization.memory,clocks.sm,"
    "clocks.max.sm,memory.used";

struct RecordOptions {
  std::vector<std::string> command;  ///< argv of the training command
  std::string run_dir;               ///< created when missing; may exist when it holds no run.json
  /// run_dir is a default name (default_run_dir): never an existing folder; when the name is
  /// taken, the first free of run_dir-2, run_dir-3, ... (made atomically by mkdir)
  bool numbered_run_dir = false;
  int interval_ms = 1000;  ///< nvidia-smi -lms
  std::string host;        ///< for the metadata
  std::string version;     ///< gpucost's, for the metadata
  bool quiet = false;      ///< no notes on stderr
  /// The /proc scans for processes holding NVIDIA device files (gpu-handles.jsonl; gpucost procs):
  /// the tree's root ("/" = this machine) and the --device-pattern patterns.
  std::string proc_root = "/";
  std::vector<std::string> device_patterns;
};

/// File names inside the run folder.
inline constexpr std::string_view kTelemetryFile = "telemetry.csv";
inline constexpr std::string_view kTrainLogFile = "train.log";
inline constexpr std::string_view kJournalFile = "kernel.journal.json";
inline constexpr std::string_view kMetadataFile = "run.json";
inline constexpr std::string_view kHandlesFile = "gpu-handles.jsonl";
inline constexpr std::string_view kPmonFile = "pmon.txt";

struct RecordResult {
  std::string run_dir;  ///< the folder made (a default name may have gained a -N)
  int exit_status = 0;  ///< the command's; 128 + N when a signal N ended it; 127 when it could not start
  int signal = 0;       ///< the signal that ended it, 0 if none
  std::int64_t start_ns = 0, end_ns = 0;  ///< the command's run
  /// The span to price: the command's run widened to the samples taken just before it started
  /// and just after it ended (so that every sampled run holds two samples at least).
  std::int64_t from_ns = 0, to_ns = 0;
  bool sampled = false;            ///< nvidia-smi answered at the start: the telemetry has samples
  bool journal = false;            ///< the kernel messages of the window were exported
  bool handles = false;            ///< gpu-handles.jsonl holds the /proc scans' gpu_handle events
  std::vector<std::string> notes;  ///< what could not be recorded, and why
};

/// "gpucost-run-YYYYmmdd-HHMMSS" in the local time of `now_ns`.
std::string default_run_dir(std::int64_t now_ns);

/// Runs the command, collecting as described above, and writes the metadata file. nvidia-smi is
/// asked once before the command starts, then every interval while it runs, then once after it
/// ended. Fails only before the command starts (the run folder, the training log or a pipe
/// cannot be made): an error means the command was not run. A missing nvidia-smi or
/// journalctl, or a metadata file that cannot be written, is a note.
Expected<RecordResult> record_run(const RecordOptions& options);

/// The files of the run folder breakeven can read (telemetry, a training log in a known
/// format, the kernel messages): empty or unrecognised ones are left out with a note.
std::vector<std::string> priceable_files(const RecordResult& result, std::vector<std::string>& notes);

}  // namespace gpucost::record
