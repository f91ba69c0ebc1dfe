// The run ledger: an SQLite file to which every breakeven run appends one row of metadata and
// its indicators, in one transaction. WAL mode and a busy timeout let concurrent cron jobs on
// one host append to the same file. Schema (versioned with PRAGMA user_version): docs/outputs.md.
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/core/input_stats.hpp>
#include <gpucost/extract/features.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace gpucost::outputs {

/// Current schema version (PRAGMA user_version) written by this build.
int ledger_schema_version();

/// The configuration as canonical text: one `path = value` line per config key in the order of
/// breakeven::config_keys(), numbers in shortest round-trip form, strings JSON-quoted.
std::string canonical_config_text(const breakeven::CostConfig& config);
/// FNV-1a 64-bit of canonical_config_text, as 16 lowercase hex digits.
std::string config_hash(const breakeven::CostConfig& config);

/// The software stack of all inputs, merged in first-seen order.
Fingerprint merge_fingerprints(const std::vector<InputStats>& stats);

inline constexpr double kNone = std::numeric_limits<double>::quiet_NaN();  ///< NULL in the ledger

struct RunIndicator {
  int gpu = -1;  ///< -1: host (NULL in the ledger)
  std::string key, unit;
  double value = 0;
};

/// One priced fault of a run (a row of `run_faults`): docs/cost-model.md, "Faults".
struct RunFault {
  std::int64_t ts_ns = 0, last_ts_ns = 0;
  std::string device, bucket, what;  ///< what: "Xid 13 ×12 then Xid 43"
  std::int64_t events = 0;
  double operator_hours = 0, cost = 0, downtime_s = kNone;  ///< NaN: downtime unknown
};

/// One row of `runs`, its `run_indicators` and `run_faults`. Times are ns since the epoch.
struct RunRecord {
  std::int64_t run_id = 0;  ///< set by the ledger
  std::int64_t run_at_ns = 0, from_ns = 0, to_ns = 0;
  std::string host, gpucost_version, drivers, cuda, gpu_names, config_hash, currency, cloud_name, util_source;
  std::string config_text;  ///< canonical_config_text, kept once per hash in `configs` (not read back)
  std::int64_t gpus = 0;
  double wall_s = 0, energy_kwh = 0, util_mean = 0;
  double electricity = 0, amortisation = 0, maintenance = 0, local_total = 0;
  double billed_s = 0, cloud_total = 0, premium = 0, line = 0;
  bool above_line = false;
  double breakeven_job_h = kNone, line_job_h = kNone, breakeven_use_h_per_year = kNone;  ///< NaN: no solution
  std::vector<RunIndicator> indicators;
  /// The run's identity (run_key()): empty for rows written before it existed.
  std::string run_key;
  std::vector<RunFault> faults;  ///< written, not read back by runs()
  /// The busy share of q and what gave it ("util", "sm_active"; empty in rows written before).
  double busy_share = kNone;
  std::string busy_source;
  /// Cost per unit of work in breakeven::work_units() order (per step, 1k samples, 1M tokens,
  /// epoch); NaN when the run's features count no such work.
  std::array<double, 4> local_per_unit{kNone, kNone, kNone, kNone}, cloud_per_unit{kNone, kNone, kNone, kNone};
  /// kg CO2e locally and in the cloud (an estimate); NaN: the grid intensity was unknown, or a row
  /// written before carbon existed.
  double co2e_local_kg = kNone, co2e_cloud_kg = kNone;
};

/// An input's identity: its absolute path, size and modification time ("-" for stdin).
std::string input_identity(const std::string& path);
/// The run's identity: FNV-1a 64 of its host, window, config hash and inputs' identities (in
/// any order), and for input from stdin its energy, wall time and GPUs; 16 hex digits.
std::string run_key(const RunRecord& record, const std::vector<std::string>& input_identities);

/// The record of a breakeven run (indicators without a value are left out).
RunRecord make_run_record(const breakeven::Result& result, const breakeven::CostConfig& config,
                          const extract::Features& features, const Fingerprint& fingerprint, std::int64_t run_at_ns,
                          std::string gpucost_version);

struct HistoryFilter {
  std::string host;                                                  ///< empty: every host
  std::int64_t since_ns = std::numeric_limits<std::int64_t>::min();  ///< runs whose window starts at or after
};

class Ledger {
 public:
  enum class Mode { create, existing };
  /// Opens the file (creating it in Mode::create) and brings its schema up to date. Fails with
  /// a clear message for a file that is not an SQLite database or was written by a newer gpucost.
  /// Never through a symbolic link; a new ledger is created exclusively with `file_mode` (default
  /// 0600: it holds the full cost configuration), an existing empty file is refused.
  static Expected<Ledger> open(const std::string& path, Mode mode = Mode::create, int busy_timeout_ms = 10000,
                               std::optional<unsigned> file_mode = std::nullopt);
  Ledger(Ledger&& other) noexcept;
  Ledger& operator=(Ledger&&) = delete;
  Ledger(const Ledger&) = delete;
  ~Ledger();

  /// Appends the run and its indicators in one transaction; returns the run id. With `replace`
  /// (breakeven's default), a row of the same run_key is removed first: the same run is counted once.
  Expected<std::int64_t> append(const RunRecord& run, bool replace = true);
  /// Runs ordered by window start (then id), without indicators.
  Expected<std::vector<RunRecord>> runs(const HistoryFilter& filter);
  [[nodiscard]] int schema_version() const { return m_version; }

 private:
  Ledger(sqlite3* db, std::string path) : m_db(db), m_path(std::move(path)) {}
  Status migrate();
  /// The run's faults (inside append's transaction).
  Status append_faults(std::int64_t run_id, const std::vector<RunFault>& faults);
  Error error(std::string_view what) const;
  sqlite3* m_db = nullptr;
  std::string m_path;
  int m_version = 0;
};

/// What `gpucost history`'s table groups the trend by: the host, or the software stack of the
/// inputs (drivers, CUDA, GPU models: the fingerprint), with the cost per unit of work.
enum class TrendBy { host, fingerprint };

/// `gpucost history`: the runs and the trend of premium and cost over time, per host (or per
/// software stack). The JSON has both trends.
std::string history_table(const std::vector<RunRecord>& runs, TrendBy by = TrendBy::host);
std::string history_json(const std::vector<RunRecord>& runs);
std::string history_csv(const std::vector<RunRecord>& runs);

}  // namespace gpucost::outputs
