// Helpers shared by the unit tests: run prep over a string, collect events as owned copies.
#pragma once

#include <gpucost/core/event.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace gpucost::test {

/// A directory of this test process under the temp directory (ctest runs cases in parallel),
/// removed when the process ends. Hold one per test file: `static const ScratchDir kDir{"config"};`.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag)
      : m_path(std::filesystem::temp_directory_path() / ("gpucost-unit-" + tag + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(m_path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

/// An Event with its strings copied, so it outlives the parser's line buffer.
struct OwnedEvent {
  std::int64_t ts_ns = 0;
  std::string source, host, kind;
  int gpu = -1;
  std::map<std::string, double> metrics;      // metric key -> value
  std::map<std::string, std::string> fields;  // field key -> value (extras too)

  [[nodiscard]] std::optional<double> metric(const std::string& key) const {
    const auto it = metrics.find(key);
    return it == metrics.end() ? std::nullopt : std::optional<double>(it->second);
  }
};

class CollectingSink final : public gpucost::EventSink {
 public:
  std::vector<OwnedEvent> events;
  void on_event(const Event& ev) override {
    OwnedEvent o;
    o.ts_ns = ev.ts_ns;
    o.source = std::string(ev.source);
    o.host = std::string(ev.host);
    o.kind = std::string(ev.kind);
    o.gpu = ev.gpu;
    for (std::size_t i = 0; i < kMetricCount; ++i)
      if (ev.has(static_cast<Metric>(i))) o.metrics[std::string(kMetricInfo[i].key)] = ev.values[i];
    for (const Field& f : ev.fields) o.fields[std::string(f.key)] = std::string(f.value);
    events.push_back(std::move(o));
  }
};

struct PrepRun {
  Status status;
  gpucost::InputStats stats;
  std::vector<OwnedEvent> events;
};

/// Runs prep over `text` with the given options (zone UTC unless `tz` is given).
inline PrepRun run_prep_text(const std::string& text, prep::PrepOptions options = {}, const std::string& tz = "UTC") {
  auto reader = io::LineReader::from_string(text);
  auto clock = LocalClock::make(tz);
  CollectingSink sink;
  PrepRun run;
  run.stats.path = "test";
  run.status = prep::run_prep_input(*reader, options, *clock, sink, run.stats);
  run.events = std::move(sink.events);
  return run;
}

/// Contents of a file under testdata/ (a fixture written in the shape of a real tool's output).
inline std::string fixture(const std::string& rel) {
  const std::string path = std::string(GPUCOST_TESTDATA_DIR) + "/" + rel;
  std::ifstream in(path, std::ios::binary);
  INFO("fixture " << path);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Every line is an event line, ignored or malformed; the sink saw exactly the counted events.
inline void check_accounting(const PrepRun& r) {
  CHECK(r.status);
  CHECK(r.stats.lines == r.stats.event_lines + r.stats.ignored + r.stats.malformed);
  CHECK(r.events.size() == r.stats.events - r.stats.duplicates);
}

/// A text field of an event, or "<absent>".
/// The sample of `gpu` at `ts_ns` among a run's events (fails the test when there is none).
inline const OwnedEvent& sample_at(const PrepRun& r, int gpu, std::int64_t ts_ns) {
  for (const auto& e : r.events)
    if (e.kind == "sample" && e.gpu == gpu && e.ts_ns == ts_ns) return e;
  FAIL("no sample of GPU " << gpu << " at " << ts_ns);
  return r.events.front();
}

/// Whether one of the run's notes contains `part`.
inline bool has_note(const PrepRun& r, const std::string& part) {
  for (const auto& n : r.stats.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

inline std::string field(const OwnedEvent& e, const std::string& key) {
  const auto it = e.fields.find(key);
  return it == e.fields.end() ? std::string("<absent>") : it->second;
}

/// ns since the epoch of a UTC wall-clock time.
inline std::int64_t utc_ns(int y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s, std::int64_t ms = 0) {
  CivilTime t;
  t.year = y;
  t.month = mo;
  t.day = d;
  t.hour = h;
  t.minute = mi;
  t.second = s;
  t.nanos = ms * 1'000'000;
  return t.as_utc_ns();
}

}  // namespace gpucost::test
