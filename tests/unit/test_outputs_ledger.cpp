// outputs: the SQLite ledger appends runs with their indicators, creates and migrates its
// schema, survives a concurrent writer, and refuses a file that is not a database.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/outputs/ledger.hpp>

#include <fmt/format.h>
#include <sqlite3.h>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

namespace {

using namespace gpucost;
namespace fs = std::filesystem;

/// A fresh directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() / fmt::format("gpucost-ledger-test-{}-{}", ::getpid(), counter++);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  [[nodiscard]] std::string file(const char* name) const { return (path / name).string(); }
};

outputs::RunRecord run(const std::string& host, std::int64_t from_s, double premium) {
  breakeven::CostConfig c;
  c.currency = "EUR";
  c.price_per_kwh = 0.3;
  c.hardware_price = 3000;
  c.rate_per_hour = 0.8;
  breakeven::JobInputs j;
  j.wall_h = 1.0;
  j.energy_kwh = {0.3};
  j.util = {0.9};
  extract::Features f;
  f.host = host;
  f.from_ns = from_s * 1'000'000'000;
  f.to_ns = f.from_ns + 3'600'000'000'000;
  f.host_indicators["energy_kwh"] = {0.3, ""};
  f.host_indicators["xid_count"] = {std::nullopt, "no kernel log"};
  extract::GpuFeatures g;
  g.gpu = 0;
  g.indicators["power_mean_w"] = {300.0, ""};
  f.gpus.push_back(g);
  Fingerprint fp;
  fp.drivers = {"550.54.14"};
  fp.cuda = {"12.4"};
  fp.gpus = {"NVIDIA GeForce RTX 4090"};
  auto r = outputs::make_run_record(breakeven::compute(c, j), c, f, fp, 1'718'200'000'123'000'000, "0.1.0");
  r.premium = premium;
  return r;
}

std::int64_t count(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(st) == SQLITE_ROW);
  const std::int64_t n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

}  // namespace

TEST_CASE("ledger: a new file gets the current schema, WAL mode and no runs", "[outputs][ledger]") {
  TempDir dir;
  const auto path = dir.file("runs.sqlite");
  {
    auto ledger = outputs::Ledger::open(path);
    REQUIRE(ledger);
    CHECK(ledger->schema_version() == outputs::ledger_schema_version());
    auto runs = ledger->runs({});
    REQUIRE(runs);
    CHECK(runs->empty());
  }
  CHECK(count(path, "PRAGMA user_version") == outputs::ledger_schema_version());
  CHECK(count(path, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'") == 1);
}

TEST_CASE("ledger: an empty existing file is migrated", "[outputs][ledger]") {
  TempDir dir;
  const auto path = dir.file("empty.sqlite");
  std::ofstream(path).close();
  auto ledger = outputs::Ledger::open(path);
  REQUIRE(ledger);
  REQUIRE(ledger->append(run("a", 1'718'000'000, 0.1)));
  CHECK(count(path, "SELECT count(*) FROM runs") == 1);
}

TEST_CASE("ledger: two runs are appended with their indicators and listed in window order", "[outputs][ledger]") {
  TempDir dir;
  const auto path = dir.file("runs.sqlite");
  {
    auto ledger = outputs::Ledger::open(path);
    REQUIRE(ledger);
    REQUIRE(*ledger->append(run("ws", 1'718'100'000, 0.2)) == 1);
  }
  auto ledger = outputs::Ledger::open(path);  // a second process, later
  REQUIRE(ledger);
  REQUIRE(*ledger->append(run("ws", 1'718'000'000, 0.1)) == 2);
  auto runs = ledger->runs({});
  REQUIRE(runs);
  REQUIRE(runs->size() == 2);
  CHECK((*runs)[0].run_id == 2);  // earlier window first
  CHECK((*runs)[0].premium == Approx(0.1));
  CHECK((*runs)[1].premium == Approx(0.2));
  CHECK((*runs)[0].from_ns == 1'718'000'000'000'000'000);
  CHECK((*runs)[0].run_at_ns == 1'718'200'000'123'000'000);
  CHECK((*runs)[0].drivers == "550.54.14");
  CHECK((*runs)[0].config_hash.size() == 16);
  // Host energy and GPU 0 power: two rows per run; the null xid_count has none.
  CHECK(count(path, "SELECT count(*) FROM run_indicators") == 4);
  CHECK(count(path, "SELECT count(*) FROM run_indicators WHERE gpu IS NULL AND key = 'energy_kwh'") == 2);
  CHECK(count(path, "SELECT count(*) FROM run_indicators WHERE gpu = 0 AND unit = 'W'") == 2);
  CHECK(count(path, "SELECT count(*) FROM run_indicators WHERE key = 'xid_count'") == 0);
  CHECK(count(path, "SELECT count(*) FROM configs") == 1);

  outputs::HistoryFilter since;
  since.since_ns = 1'718'050'000'000'000'000;
  CHECK(ledger->runs(since)->size() == 1);
  outputs::HistoryFilter other_host;
  other_host.host = "elsewhere";
  CHECK(ledger->runs(other_host)->empty());
  const std::string table = outputs::history_table(*runs);
  CHECK(table.find("+10.0 % -> +20.0 %") != std::string::npos);
  CHECK(outputs::history_json(*runs).find("\"premium_mean\": 0.15") != std::string::npos);
  CHECK(outputs::history_csv(*runs).find("\n2,") != std::string::npos);
}

TEST_CASE("ledger: a writer holding the lock briefly does not make an append fail", "[outputs][ledger]") {
  TempDir dir;
  const auto path = dir.file("runs.sqlite");
  auto ledger = outputs::Ledger::open(path);
  REQUIRE(ledger);
  std::promise<void> locked;
  auto holder = std::async(std::launch::async, [&] {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    const int rc =
        sqlite3_exec(db, "BEGIN IMMEDIATE; INSERT INTO configs VALUES ('x', 'y')", nullptr, nullptr, nullptr);
    locked.set_value();
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return rc;
  });
  locked.get_future().wait();
  const auto start = std::chrono::steady_clock::now();
  auto id = ledger->append(run("ws", 1'718'000'000, 0.1));
  const auto waited = std::chrono::steady_clock::now() - start;
  REQUIRE(holder.get() == SQLITE_OK);
  INFO((id ? std::string() : id.error().message));
  REQUIRE(id);
  CHECK(waited >= std::chrono::milliseconds(300));  // it did wait for the other writer
  CHECK(count(path, "SELECT count(*) FROM configs") == 2);
}

TEST_CASE("ledger: concurrent appends from several connections all land", "[outputs][ledger]") {
  TempDir dir;
  const auto path = dir.file("runs.sqlite");
  std::vector<std::future<int>> writers;
  for (int w = 0; w < 4; ++w)
    writers.push_back(std::async(std::launch::async, [&path, w] {
      int ok = 0;
      auto ledger = outputs::Ledger::open(path);  // every writer also races to create the schema
      if (!ledger) return 0;
      for (int i = 0; i < 10; ++i) ok += ledger->append(run(fmt::format("h{}", w), 1'718'000'000 + i, 0.1)) ? 1 : 0;
      return ok;
    }));
  int appended = 0;
  for (auto& f : writers) appended += f.get();
  CHECK(appended == 40);
  CHECK(count(path, "SELECT count(*) FROM runs") == 40);
}

TEST_CASE("ledger: a file that is not SQLite is refused with a clear error", "[outputs][ledger]") {
  TempDir dir;
  const auto path = dir.file("notes.txt");
  std::ofstream(path) << "this is not a database, just some text that is long enough to fill a header\n";
  auto ledger = outputs::Ledger::open(path);
  REQUIRE_FALSE(ledger);
  INFO(ledger.error().message);
  CHECK(ledger.error().message.find("not a database") != std::string::npos);
  CHECK(ledger.error().hint.find("not a gpucost ledger") != std::string::npos);
}

TEST_CASE("ledger: a ledger from a newer gpucost is refused", "[outputs][ledger]") {
  TempDir dir;
  const auto path = dir.file("runs.sqlite");
  { REQUIRE(outputs::Ledger::open(path)); }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  auto ledger = outputs::Ledger::open(path);
  REQUIRE_FALSE(ledger);
  CHECK(ledger.error().message.find("schema version 99") != std::string::npos);
}

TEST_CASE("ledger: the config hash is FNV-1a 64 of the canonical text, which names every key", "[outputs][ledger]") {
  breakeven::CostConfig c;
  const std::string text = outputs::canonical_config_text(c);
  // [carbon] keys are named only when the config gives one: a config without them keeps its hash.
  breakeven::CostConfig with_carbon = c;
  with_carbon.keys_set.insert("carbon.country");
  with_carbon.carbon_country = "DE";
  const std::string carbon_text = outputs::canonical_config_text(with_carbon);
  for (const auto& k : breakeven::config_keys()) {
    INFO(k.path);
    if (k.path == "cloud.busy_share") continue;  // at its default, left out (the hashes of before stay)
    if (k.path == "local.machines") continue;    // not said: left out likewise
    const std::string prefix = fmt::format("{} = ", k.path);
    const bool carbon = k.path.starts_with("carbon.");
    CHECK((text.find(prefix) == std::string::npos) == carbon);
    const auto at = carbon_text.find(prefix);
    REQUIRE(at != std::string::npos);
    CHECK(carbon_text[at + prefix.size()] != '\n');  // a value this file knows
  }
  CHECK(carbon_text.find("carbon.country = \"DE\"") != std::string::npos);
  CHECK(outputs::config_hash(with_carbon) != outputs::config_hash(c));
  breakeven::CostConfig d = c;
  d.rate_per_hour = 1.25;
  CHECK(outputs::config_hash(c) != outputs::config_hash(d));
  CHECK(outputs::config_hash(c) == outputs::config_hash(c));
}

TEST_CASE("ledger: a run without finite figures is recorded with NULLs, not refused", "[outputs][ledger]") {
  TempDir dir;
  const auto path = dir.file("runs.sqlite");
  auto ledger = outputs::Ledger::open(path);
  REQUIRE(ledger);
  auto r = run("ws", 1'718'000'000, outputs::kNone);
  r.indicators.push_back(outputs::RunIndicator{0, "power_mean_w", "W", outputs::kNone});
  REQUIRE(ledger->append(r));
  CHECK(count(path, "SELECT count(*) FROM runs WHERE premium IS NULL AND local_total IS NOT NULL") == 1);
  auto runs = ledger->runs({});
  REQUIRE(runs);
  CHECK(std::isnan(runs->front().premium));
}

TEST_CASE("ledger: the same run priced twice is one row, --ledger-append keeps both", "[outputs][ledger]") {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  auto ledger = outputs::Ledger::open(path);
  REQUIRE(ledger);
  CHECK(ledger->schema_version() == 4);
  outputs::RunRecord a = run("gpu01", 1'718'200'000, 0.10);
  a.run_key = outputs::run_key(a, {"/var/log/gpu.csv\t100\t5", "/var/log/kern.log\t20\t6"});
  // The same inputs in another order are the same run.
  CHECK(outputs::run_key(a, {"/var/log/kern.log\t20\t6", "/var/log/gpu.csv\t100\t5"}) == a.run_key);
  // Another window, config or input is another run.
  outputs::RunRecord later = a;
  later.to_ns += 1;
  CHECK(outputs::run_key(later, {"/var/log/gpu.csv\t100\t5", "/var/log/kern.log\t20\t6"}) != a.run_key);
  CHECK(outputs::run_key(a, {"/var/log/gpu.csv\t101\t5", "/var/log/kern.log\t20\t6"}) != a.run_key);
  REQUIRE(ledger->append(a));
  REQUIRE(ledger->append(a));  // replaced
  CHECK(count(path, "SELECT COUNT(*) FROM runs") == 1);
  CHECK(count(path, "SELECT COUNT(*) FROM run_faults WHERE run_id NOT IN (SELECT run_id FROM runs)") == 0);
  const std::int64_t indicators = count(path, "SELECT COUNT(*) FROM run_indicators");
  REQUIRE(ledger->append(a, false));  // --ledger-append
  CHECK(count(path, "SELECT COUNT(*) FROM runs") == 2);
  CHECK(count(path, "SELECT COUNT(*) FROM run_indicators") == 2 * indicators);
  // history's trend sums the run once: one run, its local total once.
  auto runs = ledger->runs({});
  REQUIRE(runs);
  REQUIRE(runs->size() == 2);
  const std::string json = outputs::history_json(*runs);
  CHECK(json.find("\"runs\": 1,") != std::string::npos);
  // Input from a pipe has no identity: its figures stand in for it.
  outputs::RunRecord piped = a;
  const std::string k1 = outputs::run_key(piped, {"-"});
  piped.energy_kwh += 0.001;
  CHECK(outputs::run_key(piped, {"-"}) != k1);
}

TEST_CASE("ledger: a run's faults are listed once each, with their member count", "[outputs][ledger][faults]") {
  TempDir dir;
  const auto path = dir.file("runs.sqlite");
  breakeven::CostConfig c;
  c.currency = "EUR";
  c.price_per_kwh = 0.3;
  c.hardware_price = 3000;
  c.rate_per_hour = 0.8;
  c.hourly_wage = 50;
  breakeven::JobInputs j;
  j.wall_h = 1.0;
  j.energy_kwh = {0.3};
  j.util = {0.9};
  // A storm of 181 Xid 13 then an Xid 43 on one GPU (restart_app: 0.1 h x 50 = 5 EUR) and a
  // suspend (an interruption, not a fault: no row).
  extract::WindowFault storm;
  storm.ts_ns = 1'737'426'093'000'000'000;  // 2025-01-21T02:21:33Z
  storm.last_ts_ns = storm.ts_ns + 4'000'000;
  storm.device = "0000:38:00";
  storm.bucket = "restart_app";
  storm.members = {{"xid", 13, 181}, {"xid", 43, 1}};
  storm.count = 182;
  storm.downtime_s = 57.0;
  j.faults = {storm};
  j.incidents = {{storm.ts_ns + 600'000'000'000, "suspend", "", -1, 30.0}};
  extract::Features f;
  f.host = "ws";
  f.from_ns = storm.ts_ns - 60'000'000'000;
  f.to_ns = f.from_ns + 3'600'000'000'000;
  const auto rec = outputs::make_run_record(breakeven::compute(c, j), c, f, {}, 0, "0.1.0");
  REQUIRE(rec.faults.size() == 1);
  CHECK(rec.faults[0].what == "Xid 13 \u00d7181 then Xid 43");
  auto ledger = outputs::Ledger::open(path);
  REQUIRE(ledger);
  REQUIRE(ledger->append(rec));
  CHECK(count(path, "SELECT count(*) FROM run_faults") == 1);
  CHECK(count(path, "SELECT events FROM run_faults") == 182);
  CHECK(count(path,
              "SELECT count(*) FROM run_faults WHERE what = 'Xid 13 \u00d7181 then Xid 43' AND bucket = "
              "'restart_app' AND device = '0000:38:00' AND ts = '2025-01-21T02:21:33.000Z' AND cost = 5 "
              "AND operator_hours = 0.1 AND downtime_s = 57") == 1);
}

TEST_CASE("ledger: kg CO2e per side are kept, NULL where the intensity was unknown", "[outputs][ledger][carbon]") {
  TempDir dir;
  const auto path = dir.file("runs.sqlite");
  auto ledger = outputs::Ledger::open(path);
  REQUIRE(ledger);
  auto known = run("ws", 1'718'000'000, 0.1);
  breakeven::Result r;
  r.carbon.computed = true;
  r.carbon.local.kg = 0.528;  // the cloud side unknown
  breakeven::CostConfig c;
  extract::Features f;
  const auto rec = outputs::make_run_record(r, c, f, Fingerprint{}, 0, "0.1.0");
  CHECK(rec.co2e_local_kg == Approx(0.528));
  CHECK(std::isnan(rec.co2e_cloud_kg));
  known.co2e_local_kg = rec.co2e_local_kg;
  known.co2e_cloud_kg = rec.co2e_cloud_kg;
  REQUIRE(ledger->append(known));
  CHECK(count(path, "SELECT count(*) FROM runs WHERE co2e_local_kg = 0.528 AND co2e_cloud_kg IS NULL") == 1);
  auto runs = ledger->runs({});
  REQUIRE(runs);
  CHECK(runs->front().co2e_local_kg == Approx(0.528));
  CHECK(std::isnan(runs->front().co2e_cloud_kg));
}

TEST_CASE("ledger: a version 3 ledger gains the carbon columns, its rows NULL", "[outputs][ledger][carbon]") {
  TempDir dir;
  const auto path = dir.file("runs.sqlite");
  {
    auto ledger = outputs::Ledger::open(path);
    REQUIRE(ledger);
    REQUIRE(ledger->append(run("ws", 1'718'000'000, 0.1)));
  }
  // Make it the ledger version 3 wrote: without the two columns.
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db,
                       "ALTER TABLE runs DROP COLUMN co2e_local_kg; ALTER TABLE runs DROP COLUMN co2e_cloud_kg; "
                       "PRAGMA user_version = 3",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  auto ledger = outputs::Ledger::open(path);
  REQUIRE(ledger);
  CHECK(count(path, "PRAGMA user_version") == 4);
  auto runs = ledger->runs({});
  REQUIRE(runs);
  REQUIRE(runs->size() == 1);
  CHECK(std::isnan(runs->front().co2e_local_kg));
}
