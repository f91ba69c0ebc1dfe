#include <gpucost/outputs/ledger.hpp>

#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>
#include <sqlite3.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <thread>

namespace gpucost::outputs {

namespace {

/// Schema migrations, applied in order: entry i takes user_version i to i + 1. Never edit a
/// shipped entry; append a new one.
constexpr std::array<std::string_view, 4> kMigrations = {
    R"sql(
-- REAL columns hold NULL where there is no finite value (no break-even, a degenerate model):
-- a run is never refused for it.
CREATE TABLE runs (
  run_id INTEGER PRIMARY KEY,
  run_at TEXT NOT NULL,
  host TEXT NOT NULL,
  window_from TEXT NOT NULL,
  window_to TEXT NOT NULL,
  wall_s REAL,
  gpus INTEGER NOT NULL,
  energy_kwh REAL,
  util_mean REAL,
  util_source TEXT NOT NULL,
  gpucost_version TEXT NOT NULL,
  drivers TEXT NOT NULL,
  cuda TEXT NOT NULL,
  gpu_names TEXT NOT NULL,
  config_hash TEXT NOT NULL REFERENCES configs(config_hash),
  currency TEXT NOT NULL,
  cloud_name TEXT NOT NULL,
  local_electricity REAL,
  local_amortisation REAL,
  local_maintenance REAL,
  local_total REAL,
  cloud_billed_s REAL,
  cloud_total REAL,
  premium REAL,
  line REAL,
  above_line INTEGER NOT NULL,
  breakeven_job_h REAL,
  line_job_h REAL,
  breakeven_use_h_per_year REAL
);
CREATE INDEX runs_host_window ON runs(host, window_from);
CREATE TABLE run_indicators (
  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  gpu INTEGER,
  key TEXT NOT NULL,
  value REAL NOT NULL,
  unit TEXT NOT NULL
);
CREATE INDEX run_indicators_run ON run_indicators(run_id);
CREATE TABLE configs (
  config_hash TEXT PRIMARY KEY,
  canonical_text TEXT NOT NULL
);
)sql",
    R"sql(
-- The faults a run priced, each once (docs/cost-model.md, "Faults").
CREATE TABLE run_faults (
  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  ts TEXT NOT NULL,
  last_ts TEXT NOT NULL,
  device TEXT NOT NULL,
  bucket TEXT NOT NULL,
  what TEXT NOT NULL,
  events INTEGER NOT NULL,
  operator_hours REAL,
  cost REAL,
  downtime_s REAL
);
CREATE INDEX run_faults_run ON run_faults(run_id);

-- A run's identity: the hash of its inputs' identities, window, config and host (run_key()).
-- The same run priced again replaces its row; rows of version 1 have none and stay apart.
ALTER TABLE runs ADD COLUMN run_key TEXT;
CREATE INDEX runs_key ON runs(run_key);
)sql",
    R"sql(
-- The busy share of the cloud's billed time and what gave it (util or sm_active), and the cost
-- per unit of work (docs/cost-model.md, "Cost per unit of work"): NULL where the run's features
-- count no such work, and in rows written before these columns existed.
ALTER TABLE runs ADD COLUMN busy_share REAL;
ALTER TABLE runs ADD COLUMN busy_source TEXT;
ALTER TABLE runs ADD COLUMN local_per_step REAL;
ALTER TABLE runs ADD COLUMN cloud_per_step REAL;
ALTER TABLE runs ADD COLUMN local_per_1k_samples REAL;
ALTER TABLE runs ADD COLUMN cloud_per_1k_samples REAL;
ALTER TABLE runs ADD COLUMN local_per_1m_tokens REAL;
ALTER TABLE runs ADD COLUMN cloud_per_1m_tokens REAL;
ALTER TABLE runs ADD COLUMN local_per_epoch REAL;
ALTER TABLE runs ADD COLUMN cloud_per_epoch REAL;
)sql",
    R"sql(
-- kg CO2e of the job locally and in the cloud (an estimate), docs/cost-model.md, "Carbon"; NULL
-- where the grid intensity is unknown, and for rows written before.
ALTER TABLE runs ADD COLUMN co2e_local_kg REAL;
ALTER TABLE runs ADD COLUMN co2e_cloud_kg REAL;
)sql",
};

/// Fixed-width UTC time with milliseconds, so that text order is time order (and SQLite's
/// date functions read it).
std::string ledger_time(std::int64_t ns) {
  std::int64_t ms = ns / 1'000'000;
  if (ns % 1'000'000 < 0) --ms;
  std::int64_t secs = ms / 1000;
  std::int64_t frac = ms % 1000;
  if (frac < 0) {
    frac += 1000;
    --secs;
  }
  std::string s = format_utc(secs * kNsPerSecond);  // "...:SSZ", no fraction
  s.insert(s.size() - 1, fmt::format(".{:03}", frac));
  return s;
}

std::int64_t parse_ledger_time(const char* text) {
  if (text == nullptr) return 0;
  const auto iso = parse_iso8601(text);
  if (!iso) return 0;
  return iso->civil.as_utc_ns() - iso->offset_s.value_or(0) * kNsPerSecond;
}

std::string join(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& s : list) out += (out.empty() ? "" : "; ") + s;
  return out;
}

/// A prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql) {
    sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &m_stmt, nullptr);
  }
  ~Statement() { sqlite3_finalize(m_stmt); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  [[nodiscard]] bool ok() const { return m_stmt != nullptr; }
  void bind(int i, std::string_view v) {
    sqlite3_bind_text(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind(int i, double v) {
    if (std::isfinite(v))
      sqlite3_bind_double(m_stmt, i, v);
    else
      sqlite3_bind_null(m_stmt, i);  // NaN sentinel: no value
  }
  void bind_int(int i, std::int64_t v) { sqlite3_bind_int64(m_stmt, i, v); }
  void bind_null(int i) { sqlite3_bind_null(m_stmt, i); }
  int step() { return sqlite3_step(m_stmt); }
  void reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
  [[nodiscard]] std::string text(int col) const {
    const auto* t = sqlite3_column_text(m_stmt, col);
    return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t));
  }
  [[nodiscard]] double real(int col) const {
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL ? kNone : sqlite3_column_double(m_stmt, col);
  }
  [[nodiscard]] std::int64_t integer(int col) const { return sqlite3_column_int64(m_stmt, col); }

 private:
  sqlite3_stmt* m_stmt = nullptr;
};

bool exec(sqlite3* db, std::string_view sql) {
  return sqlite3_exec(db, std::string(sql).c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
}

/// Rolls back an open transaction unless it was committed.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : m_db(db) {
    // IMMEDIATE takes the write lock now, so a busy ledger waits in the busy handler instead
    // of failing later on a lock upgrade.
    m_open = exec(db, "BEGIN IMMEDIATE");
  }
  ~Transaction() {
    if (m_open) exec(m_db, "ROLLBACK");
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  [[nodiscard]] bool open() const { return m_open; }
  bool commit() {
    m_open = !exec(m_db, "COMMIT");
    return !m_open;
  }

 private:
  sqlite3* m_db;
  bool m_open = false;
};

std::string number(double v) { return fmt::format("{}", v); }

std::string json_quoted(std::string_view s) {
  std::string out;
  io::append_json_string(out, s);
  return out;
}

/// The value of one config key as canonical text; empty for a key this file does not know.
std::string config_value(const breakeven::CostConfig& c, std::string_view path) {
  using P = std::pair<std::string_view, double>;
  if (path == "currency") return json_quoted(c.currency);
  if (path == "cloud.name") return json_quoted(c.cloud_name);
  if (path == "cloud.offer") return json_quoted(c.cloud_offer);
  if (path == "electricity.tz") return json_quoted(c.tariff_tz);
  if (path == "cloud.busy_share") return json_quoted(c.busy_share);
  // Always written: its default (both-sides) prices application faults unlike the configs of before.
  if (path == "local.faults") return json_quoted(c.faults);
  if (path == "local.always_on") return c.always_on ? "true" : "false";
  if (path == "electricity.tou") {  // the windows in order, as written, with their prices
    std::string out = "[";
    for (const auto& w : c.tou)
      out += fmt::format("{}{} {}", out.size() > 1 ? "; " : "", w.text, number(w.price_per_kwh));
    return out + "]";
  }
  if (path == "carbon.country") return json_quoted(c.carbon_country);
  if (path == "carbon.cloud_country") return json_quoted(c.carbon_cloud_country);
  if (path == "carbon.tou") {  // the windows in order, as written, with their intensities
    std::string out = "[";
    for (const auto& w : c.carbon_tou)
      out += fmt::format("{}{} {}", out.size() > 1 ? "; " : "", w.text, number(w.price_per_kwh));
    return out + "]";
  }
  if (path == "ranges") {
    std::string out = "{";
    for (const auto& [k, r] : c.ranges)
      out += fmt::format("{}{} = [{}, {}]", out.size() > 1 ? "; " : "", k, number(r.first), number(r.second));
    return out + "}";
  }
  for (const auto& [p, v] : {P{"line", c.line},
                             P{"electricity.price_per_kwh", c.price_per_kwh},
                             P{"local.hardware_price", c.hardware_price},
                             P{"local.residual_fraction", c.residual_fraction},
                             P{"local.lifetime_years", c.lifetime_years},
                             P{"local.use_hours_per_year", c.use_hours_per_year},
                             P{"local.cooling_factor", c.cooling_factor},
                             P{"local.system_power_w", c.system_power_w},
                             P{"local.hourly_wage", c.hourly_wage},
                             P{"local.maintenance_hours_per_year", c.maintenance_hours_per_year},
                             P{"cloud.rate_per_hour", c.rate_per_hour},
                             P{"cloud.speed_ratio", c.speed_ratio},
                             P{"cloud.cold_start_s", c.cold_start_s},
                             P{"cloud.billing_increment_s", c.billing_increment_s},
                             P{"cloud.billing_minimum_s", c.billing_minimum_s},
                             P{"cloud.fixed_per_job", c.fixed_per_job},
                             P{"local.idle_power_w", c.idle_power_w},
                             P{"local.incident_hours.restart_app", c.incident_restart_app_h},
                             P{"local.incident_hours.reset_gpu", c.incident_reset_gpu_h},
                             P{"local.incident_hours.reboot", c.incident_reboot_h},
                             P{"local.incident_hours.contact_support", c.incident_contact_support_h},
                             P{"local.incident_hours.unknown", c.incident_unknown_h},
                             P{"cloud.memory_margin", c.memory_margin},
                             P{"cloud.spot_restart_overhead", c.spot_restart_overhead},
                             P{"cloud.spot_interruptions_per_hour", c.spot_interruptions_per_hour},
                             P{"cloud.checkpoint_interval_s", c.checkpoint_interval_s},
                             P{"cloud.spot_restart_s", c.spot_restart_s},
                             P{"local.fault_window_s", c.fault_window_s},
                             P{"carbon.intensity_g_per_kwh", c.carbon_intensity},
                             P{"carbon.cloud_intensity_g_per_kwh", c.carbon_cloud_intensity},
                             P{"carbon.cloud_pue", c.carbon_cloud_pue}})
    if (p == path) return number(v);
  return {};
}

/// The priced faults of the result (interruptions, which have no bucket, are not faults).
void add_faults(std::vector<RunFault>& out, const breakeven::Result& r) {
  for (const auto& ic : r.incidents) {
    const extract::WindowFault& f = ic.fault;
    if (f.bucket.empty()) continue;
    out.push_back(RunFault{f.ts_ns, f.last_ts_ns, f.device, f.bucket, extract::fault_members_text(f), f.count, ic.hours,
                           ic.cost, f.downtime_s.value_or(kNone)});
  }
}

void add_indicators(std::vector<RunIndicator>& out, const extract::IndicatorSet& set, int gpu) {
  for (const auto& [key, v] : set) {
    if (!v.value || !std::isfinite(*v.value)) continue;  // absent: no row, never a 0
    const auto* def = extract::find_indicator(key);
    out.push_back(RunIndicator{gpu, key, def != nullptr ? std::string(def->unit) : std::string(), *v.value});
  }
}

}  // namespace

int ledger_schema_version() { return static_cast<int>(kMigrations.size()); }

/// Whether the config gives any [carbon] key: only then are they part of its canonical text, so
/// that a config without them keeps the hash (and its runs the run_key) it had before they existed.
bool gives_carbon(const breakeven::CostConfig& c) {
  if (!c.carbon_tou.empty()) return true;
  for (const auto& k : breakeven::config_keys())
    if (k.path.starts_with("carbon.") && c.is_set(k.path)) return true;
  return false;
}

std::string canonical_config_text(const breakeven::CostConfig& config) {
  std::string out;
  const bool carbon = gives_carbon(config);
  for (const auto& k : breakeven::config_keys()) {
    // At its default, cloud.busy_share (and local.machines unsaid) leaves the answer as before it existed, and carbon.* keys
    // count only when some are given: not written, so that the hashes (and run keys) of earlier
    // configs stay the same.
    if (k.path == "cloud.busy_share" && config.busy_share == breakeven::kBusyShareUtil) continue;
    if (k.path == "local.machines" && config.machines == 0) continue;  // not said: as before it existed
    if (!carbon && k.path.starts_with("carbon.")) continue;
    out += fmt::format("{} = {}\n", k.path, config_value(config, k.path));
  }
  if (carbon) out += fmt::format("carbon.tou = {}\n", config_value(config, "carbon.tou"));
  if (!config.exchange.empty()) {  // the rates change the answer: they are part of the config
    out += "exchange = {";
    for (const auto& [code, rate] : config.exchange) out += fmt::format("{} = {}; ", code, number(rate));
    out += fmt::format("date = {}}}\n", json_quoted(config.exchange_date));
  }
  return out;
}

namespace {

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;  // FNV-1a 64 prime
  }
  return h;
}

}  // namespace

std::string config_hash(const breakeven::CostConfig& config) {
  return fmt::format("{:016x}", fnv1a(canonical_config_text(config)));
}

Fingerprint merge_fingerprints(const std::vector<InputStats>& stats) {
  Fingerprint out;
  for (const auto& s : stats) out.merge(s.fingerprint);
  return out;
}

RunRecord make_run_record(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                          const Fingerprint& fp, std::int64_t run_at_ns, std::string gpucost_version) {
  RunRecord rec;
  rec.run_at_ns = run_at_ns;
  rec.from_ns = f.from_ns;
  rec.to_ns = f.to_ns;
  rec.host = f.host;
  rec.gpucost_version = std::move(gpucost_version);
  rec.drivers = join(fp.drivers);
  rec.cuda = join(fp.cuda);
  rec.gpu_names = join(fp.gpus);
  rec.config_hash = config_hash(c);
  rec.config_text = canonical_config_text(c);
  rec.currency = c.currency;
  rec.cloud_name = c.cloud_name;
  rec.util_source = r.job.util_source;
  rec.gpus = static_cast<std::int64_t>(r.job.energy_kwh.size());
  rec.wall_s = r.job.wall_h * 3600;
  rec.energy_kwh = r.energy_kwh;
  rec.util_mean = r.util_mean;
  rec.electricity = r.electricity;
  rec.amortisation = r.amortisation;
  rec.maintenance = r.maintenance;
  rec.local_total = r.local_total;
  rec.billed_s = r.billed_s;
  rec.cloud_total = r.cloud_total;
  rec.premium = r.premium;
  rec.line = r.line;
  rec.above_line = r.above_line;
  rec.breakeven_job_h = r.job_hours.value.value_or(kNone);
  rec.line_job_h = r.line_job_hours.value.value_or(kNone);
  rec.breakeven_use_h_per_year = r.use_hours_per_year.value.value_or(kNone);
  rec.busy_share = r.busy_share;
  rec.busy_source = r.job.busy_source;
  const breakeven::WorkCosts work = breakeven::work_costs(r, f.host_indicators);
  for (std::size_t i = 0; i < work.units.size(); ++i) {
    rec.local_per_unit[i] = work.units[i].local.value_or(kNone);
    rec.cloud_per_unit[i] = work.units[i].cloud.value_or(kNone);
  }
  add_indicators(rec.indicators, f.host_indicators, -1);
  for (const auto& g : f.gpus) add_indicators(rec.indicators, g.indicators, g.gpu);
  add_faults(rec.faults, r);
  if (r.carbon.computed) {
    rec.co2e_local_kg = r.carbon.local.kg.value_or(kNone);
    rec.co2e_cloud_kg = r.carbon.cloud.kg.value_or(kNone);
  }
  return rec;
}

std::string input_identity(const std::string& path) {
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0) return path;  // stdin: the figures stand for it
  const std::int64_t mtime_ns =
      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(st.st_mtim.tv_nsec);
  std::error_code ec;
  const std::string absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
  return fmt::format("{}\t{}\t{}", ec ? path : absolute, static_cast<std::int64_t>(st.st_size), mtime_ns);
}

std::string run_key(const RunRecord& rec, const std::vector<std::string>& input_identities) {
  std::vector<std::string> ids = input_identities;
  std::sort(ids.begin(), ids.end());  // the same files in another order are the same run
  std::string text = fmt::format("gpucost.run/1\n{}\n{}\n{}\n{}\n", rec.host, rec.from_ns, rec.to_ns, rec.config_hash);
  for (const std::string& id : ids) text += id + "\n";
  // Input read from a pipe has no identity of its own: its figures stand in for it.
  if (std::find(ids.begin(), ids.end(), "-") != ids.end())
    text += fmt::format("{:.17g} {:.17g} {}\n", rec.energy_kwh, rec.wall_s, rec.gpus);
  return fmt::format("{:016x}", fnv1a(text));
}

// ---- Ledger -------------------------------------------------------------------------------

namespace {

Error ledger_file_error(const std::string& path, std::string_view why) {
  return make_error(ErrorKind::io, fmt::format("{}: {}: not opened as a ledger", path, why),
                    "give --ledger the path of a gpucost ledger, or a new file name (docs/security.md)");
}

// Before SQLite sees the path: a link, FIFO or device at the name is refused (SQLite would
// follow the link and create the database where it points), another user's empty file is refused
// (SQLite takes it for a new database), and a new ledger is created here exclusively with its mode
// (SQLite gives the -wal and -shm files the database's mode).
Status prepare_ledger_file(const std::string& path, Ledger::Mode mode, std::optional<unsigned> file_mode) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) return ledger_file_error(path, "is a symbolic link");
    if (S_ISDIR(st.st_mode)) return ledger_file_error(path, "is a directory");
    if (!S_ISREG(st.st_mode)) return ledger_file_error(path, "is not a regular file");
    // Empty and someone else's: planted, not a ledger. Empty and ours: another gpucost creating it now.
    if (st.st_size == 0 && st.st_uid != ::geteuid())
      return ledger_file_error(path, "is an empty file of another user, not an SQLite database");
    return {};
  }
  if (errno != ENOENT || mode == Ledger::Mode::existing) return {};  // SQLite's own message follows
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return {};  // another process made it just now
    return make_error(ErrorKind::io, fmt::format("{}: cannot create the ledger: {}", path, std::strerror(errno)),
                      "check that the directory exists and is writable");
  }
  (void)::fchmod(fd, static_cast<mode_t>(file_mode.value_or(0600) & 0777u));
  ::close(fd);
  return {};
}

}  // namespace

Expected<Ledger> Ledger::open(const std::string& path, Mode mode, int busy_timeout_ms,
                              std::optional<unsigned> file_mode) {
  if (auto st = prepare_ledger_file(path, mode, file_mode); !st) return st.error();
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | (mode == Mode::create ? SQLITE_OPEN_CREATE : 0);
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  Ledger ledger(db, path);  // closes db on every path out
  if (rc != SQLITE_OK && mode == Mode::existing)
    return make_error(ErrorKind::io, fmt::format("{}: cannot open the ledger: {}", path, sqlite3_errmsg(db)),
                      "check the path: the ledger is created by gpucost breakeven --ledger FILE");
  if (rc != SQLITE_OK) return ledger.error("cannot open the ledger");
  sqlite3_busy_timeout(db, busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  // Several processes opening a new ledger at once race to switch it to WAL and to create the
  // schema; SQLite answers some of those steps with SQLITE_BUSY at once, without waiting in the
  // busy handler, so they are retried here until the busy timeout.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  for (;;) {
    // The first statement reads the header: a file that is not a database fails here.
    Status st = exec(db, "PRAGMA journal_mode=WAL") && exec(db, "PRAGMA foreign_keys=ON")
                    ? ledger.migrate()
                    : Status(ledger.error("cannot use the ledger"));
    if (st) return ledger;
    const int code = sqlite3_errcode(db) & 0xff;
    if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || std::chrono::steady_clock::now() >= deadline)
      return st.error();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Ledger::Ledger(Ledger&& o) noexcept : m_db(o.m_db), m_path(std::move(o.m_path)), m_version(o.m_version) {
  o.m_db = nullptr;
}

Ledger::~Ledger() { sqlite3_close(m_db); }

Error Ledger::error(std::string_view what) const {
  const int code = m_db != nullptr ? sqlite3_errcode(m_db) : SQLITE_CANTOPEN;
  const std::string detail = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(code);
  std::string hint;
  if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
    hint =
        "the file is not a gpucost ledger (an SQLite database): give --ledger a new file name, or move this one away";
  else if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
    hint = "another process held the ledger longer than the busy timeout; run again";
  else if ((code & 0xff) == SQLITE_CANTOPEN || (code & 0xff) == SQLITE_READONLY)
    hint = "check that the directory exists and is writable (WAL mode needs a -wal and a -shm file beside it)";
  return make_error(ErrorKind::io, fmt::format("{}: {}: {}", m_path, what, detail), hint);
}

Status Ledger::migrate() {
  Transaction tx(m_db);  // serialises two processes creating the same new file
  if (!tx.open()) return error("cannot lock the ledger");
  Statement version(m_db, "PRAGMA user_version");
  if (!version.ok() || version.step() != SQLITE_ROW) return error("cannot read the schema version");
  m_version = static_cast<int>(version.integer(0));
  if (m_version > ledger_schema_version())
    return make_error(ErrorKind::io,
                      fmt::format("{}: the ledger has schema version {}, this gpucost knows up to {}", m_path,
                                  m_version, ledger_schema_version()),
                      "use a newer gpucost to write to this ledger");
  for (; m_version < ledger_schema_version(); ++m_version) {
    if (!exec(m_db, kMigrations[static_cast<std::size_t>(m_version)]))
      return error(fmt::format("cannot migrate the schema to version {}", m_version + 1));
    if (!exec(m_db, fmt::format("PRAGMA user_version = {}", m_version + 1)))
      return error("cannot set the schema version");
  }
  if (!tx.commit()) return error("cannot commit the schema");
  return {};
}

Expected<std::int64_t> Ledger::append(const RunRecord& r, bool replace) {
  Transaction tx(m_db);
  if (!tx.open()) return error("cannot lock the ledger for writing");
  if (replace && !r.run_key.empty()) {
    // The same inputs, window, config and host priced again: the new row replaces the old.
    Statement drop_ind(m_db, "DELETE FROM run_indicators WHERE run_id IN (SELECT run_id FROM runs WHERE run_key = ?1)");
    Statement drop_faults(m_db, "DELETE FROM run_faults WHERE run_id IN (SELECT run_id FROM runs WHERE run_key = ?1)");
    Statement drop_run(m_db, "DELETE FROM runs WHERE run_key = ?1");
    if (!drop_ind.ok() || !drop_faults.ok() || !drop_run.ok()) return error("cannot prepare the replacement");
    drop_ind.bind(1, r.run_key);
    drop_faults.bind(1, r.run_key);
    drop_run.bind(1, r.run_key);
    if (drop_ind.step() != SQLITE_DONE || drop_faults.step() != SQLITE_DONE || drop_run.step() != SQLITE_DONE)
      return error("cannot replace the run");
  }
  Statement cfg(m_db, "INSERT OR IGNORE INTO configs(config_hash, canonical_text) VALUES (?1, ?2)");
  if (!cfg.ok()) return error("cannot prepare the insert");
  cfg.bind(1, r.config_hash);
  cfg.bind(2, std::string_view(r.config_text));
  if (cfg.step() != SQLITE_DONE) return error("cannot record the configuration");
  Statement run(m_db, R"sql(INSERT INTO runs(run_at, host, window_from, window_to, wall_s, gpus, energy_kwh,
      util_mean, util_source, gpucost_version, drivers, cuda, gpu_names, config_hash, currency, cloud_name,
      local_electricity, local_amortisation, local_maintenance, local_total, cloud_billed_s, cloud_total, premium,
      line, above_line, breakeven_job_h, line_job_h, breakeven_use_h_per_year, run_key, busy_share, busy_source,
      local_per_step, cloud_per_step, local_per_1k_samples, cloud_per_1k_samples, local_per_1m_tokens,
      cloud_per_1m_tokens, local_per_epoch, cloud_per_epoch, co2e_local_kg, co2e_cloud_kg)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,
              ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39, ?40, ?41))sql");
  if (!run.ok()) return error("cannot prepare the insert");
  run.bind(1, ledger_time(r.run_at_ns));
  run.bind(2, r.host);
  run.bind(3, ledger_time(r.from_ns));
  run.bind(4, ledger_time(r.to_ns));
  run.bind(5, r.wall_s);
  run.bind_int(6, r.gpus);
  run.bind(7, r.energy_kwh);
  run.bind(8, r.util_mean);
  run.bind(9, r.util_source);
  run.bind(10, r.gpucost_version);
  run.bind(11, r.drivers);
  run.bind(12, r.cuda);
  run.bind(13, r.gpu_names);
  run.bind(14, r.config_hash);
  run.bind(15, r.currency);
  run.bind(16, r.cloud_name);
  run.bind(17, r.electricity);
  run.bind(18, r.amortisation);
  run.bind(19, r.maintenance);
  run.bind(20, r.local_total);
  run.bind(21, r.billed_s);
  run.bind(22, r.cloud_total);
  run.bind(23, r.premium);
  run.bind(24, r.line);
  run.bind_int(25, r.above_line ? 1 : 0);
  run.bind(26, r.breakeven_job_h);
  run.bind(27, r.line_job_h);
  run.bind(28, r.breakeven_use_h_per_year);
  if (r.run_key.empty())
    run.bind_null(29);
  else
    run.bind(29, r.run_key);
  run.bind(30, r.busy_share);
  if (r.busy_source.empty())
    run.bind_null(31);
  else
    run.bind(31, r.busy_source);
  for (std::size_t i = 0; i < r.local_per_unit.size(); ++i) {  // step, 1k samples, 1M tokens, epoch
    run.bind(32 + 2 * static_cast<int>(i), r.local_per_unit[i]);
    run.bind(33 + 2 * static_cast<int>(i), r.cloud_per_unit[i]);
  }
  run.bind(40, r.co2e_local_kg);
  run.bind(41, r.co2e_cloud_kg);
  if (run.step() != SQLITE_DONE) return error("cannot append the run");
  const std::int64_t run_id = sqlite3_last_insert_rowid(m_db);
  Statement ind(m_db, "INSERT INTO run_indicators(run_id, gpu, key, value, unit) VALUES (?1, ?2, ?3, ?4, ?5)");
  if (!ind.ok()) return error("cannot prepare the insert");
  for (const auto& i : r.indicators) {
    if (!std::isfinite(i.value)) continue;  // no value, no row
    ind.bind_int(1, run_id);
    if (i.gpu < 0)
      ind.bind_null(2);
    else
      ind.bind_int(2, i.gpu);
    ind.bind(3, i.key);
    ind.bind(4, i.value);
    ind.bind(5, i.unit);
    if (ind.step() != SQLITE_DONE) return error("cannot append the indicators");
    ind.reset();
  }
  GPUCOST_TRY(append_faults(run_id, r.faults));
  if (!tx.commit()) return error("cannot commit the run");
  return run_id;
}

Status Ledger::append_faults(std::int64_t run_id, const std::vector<RunFault>& faults) {
  Statement st(m_db, R"sql(INSERT INTO run_faults(run_id, ts, last_ts, device, bucket, what, events, operator_hours,
      cost, downtime_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10))sql");
  if (!st.ok()) return error("cannot prepare the insert");
  for (const RunFault& f : faults) {
    st.bind_int(1, run_id);
    st.bind(2, ledger_time(f.ts_ns));
    st.bind(3, ledger_time(f.last_ts_ns));
    st.bind(4, f.device);
    st.bind(5, f.bucket);
    st.bind(6, f.what);
    st.bind_int(7, f.events);
    st.bind(8, f.operator_hours);
    st.bind(9, f.cost);
    st.bind(10, f.downtime_s);
    if (st.step() != SQLITE_DONE) return error("cannot append the faults");
    st.reset();
  }
  return {};
}

Expected<std::vector<RunRecord>> Ledger::runs(const HistoryFilter& filter) {
  Statement q(m_db, R"sql(SELECT run_id, run_at, host, window_from, window_to, wall_s, gpus, energy_kwh, util_mean,
      util_source, gpucost_version, drivers, cuda, gpu_names, config_hash, currency, cloud_name, local_electricity,
      local_amortisation, local_maintenance, local_total, cloud_billed_s, cloud_total, premium, line, above_line,
      breakeven_job_h, line_job_h, breakeven_use_h_per_year, COALESCE(run_key, ''), busy_share,
      COALESCE(busy_source, ''), local_per_step, cloud_per_step, local_per_1k_samples, cloud_per_1k_samples,
      local_per_1m_tokens, cloud_per_1m_tokens, local_per_epoch, cloud_per_epoch, co2e_local_kg, co2e_cloud_kg
      FROM runs WHERE (?1 = '' OR host = ?1) AND window_from >= ?2 ORDER BY window_from, run_id)sql");
  if (!q.ok()) return error("cannot read the runs");
  q.bind(1, filter.host);
  q.bind(2, filter.since_ns == std::numeric_limits<std::int64_t>::min() ? std::string() : ledger_time(filter.since_ns));
  std::vector<RunRecord> out;
  int rc = SQLITE_ROW;
  while ((rc = q.step()) == SQLITE_ROW) {
    RunRecord r;
    int c = 0;
    r.run_id = q.integer(c++);
    r.run_at_ns = parse_ledger_time(q.text(c++).c_str());
    r.host = q.text(c++);
    r.from_ns = parse_ledger_time(q.text(c++).c_str());
    r.to_ns = parse_ledger_time(q.text(c++).c_str());
    r.wall_s = q.real(c++);
    r.gpus = q.integer(c++);
    r.energy_kwh = q.real(c++);
    r.util_mean = q.real(c++);
    r.util_source = q.text(c++);
    r.gpucost_version = q.text(c++);
    r.drivers = q.text(c++);
    r.cuda = q.text(c++);
    r.gpu_names = q.text(c++);
    r.config_hash = q.text(c++);
    r.currency = q.text(c++);
    r.cloud_name = q.text(c++);
    r.electricity = q.real(c++);
    r.amortisation = q.real(c++);
    r.maintenance = q.real(c++);
    r.local_total = q.real(c++);
    r.billed_s = q.real(c++);
    r.cloud_total = q.real(c++);
    r.premium = q.real(c++);
    r.line = q.real(c++);
    r.above_line = q.integer(c++) != 0;
    r.breakeven_job_h = q.real(c++);
    r.line_job_h = q.real(c++);
    r.breakeven_use_h_per_year = q.real(c++);
    r.run_key = q.text(c++);
    r.busy_share = q.real(c++);
    r.busy_source = q.text(c++);
    for (std::size_t i = 0; i < r.local_per_unit.size(); ++i) {
      r.local_per_unit[i] = q.real(c++);
      r.cloud_per_unit[i] = q.real(c++);
    }
    r.co2e_local_kg = q.real(c++);
    r.co2e_cloud_kg = q.real(c++);
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return error("cannot read the runs");
  return out;
}

}  // namespace gpucost::outputs
