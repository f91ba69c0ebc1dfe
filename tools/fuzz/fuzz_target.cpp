// One libFuzzer target, compiled once per kind (a -D chosen in CMakeLists.txt):
//   prep_<format>  run_prep_input() with --input-format forced to that format
//   prep_detect    run_prep_input() with format detection
//   event_stream   io::read_event_stream()
//   features       extract::features_from_json()
//   extract        extract::compute_features() over an events stream, the document round trip
//                  and merge
//   config         breakeven::load_config() (the input up to the first NUL is the TOML file,
//                  the lines after it are --set overrides), and prices::load_catalogue() with
//                  that file as the user catalogue and as a --clouds file (a SkyPilot vms.csv
//                  when it starts with one's header)
//   time_zone      TimeZone::from_tzif() (a zone file), and the periods of a few instants in it
// The prep targets take the first byte as a set of option bits (--start, --interval, --fields,
// --year, --boot-time, --date, --pattern) and check the accounting invariant
// lines == event_lines + ignored + malformed on every input: a mismatch aborts. prep_kineto also
// reads the input with the trace reader's own scanner and with simdjson alone: the same data, or
// (where simdjson finds the JSON broken) broken for both, else it aborts.
#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/core/time_zone.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>
#include <gpucost/prices/offer_catalogue.hpp>

#if defined(GPUCOST_FUZZ_TRACE_SCAN)
#include "prep/profiler/trace/trace.hpp"
#endif

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace gpucost;

class NullSink final : public EventSink {
 public:
  void on_event(const Event& event) override { m_bytes += event.kind.size(); }
  std::size_t m_bytes = 0;
};

void check_accounting(const InputStats& stats) {
  if (stats.lines != stats.event_lines + stats.ignored + stats.malformed) {
    std::fprintf(stderr, "accounting broken: lines=%llu event_lines=%llu ignored=%llu malformed=%llu\n",
                 static_cast<unsigned long long>(stats.lines), static_cast<unsigned long long>(stats.event_lines),
                 static_cast<unsigned long long>(stats.ignored), static_cast<unsigned long long>(stats.malformed));
    std::abort();
  }
}

LocalClock& berlin() {
  static LocalClock clock = [] {
    auto c = LocalClock::make("Europe/Berlin");
    if (!c) {
      std::fprintf(stderr, "fuzz: cannot load Europe/Berlin\n");
      std::abort();
    }
    return *c;
  }();
  return clock;
}

#if defined(GPUCOST_FUZZ_TRACE_SCAN)
void check_trace_scan(std::string_view text) {
  for (const std::size_t chunk : {std::size_t{512}}) {
    prep::trace::ReadOptions alone_options;
    alone_options.scan_records = false;
    const prep::trace::TraceData alone = prep::trace::read_trace_text(text, chunk, alone_options);
    const prep::trace::TraceData scanned = prep::trace::read_trace_text(text, chunk);
    if (alone.truncated.empty() ? scanned == alone : !scanned.truncated.empty()) continue;
    std::fprintf(stderr, "trace reader: json_scan and simdjson differ (chunk %zu): records %llu / %llu, '%s' / '%s'\n",
                 chunk, static_cast<unsigned long long>(scanned.counts.records),
                 static_cast<unsigned long long>(alone.counts.records), scanned.truncated.c_str(),
                 alone.truncated.c_str());
    std::abort();
  }
}
#endif

[[maybe_unused]] void fuzz_prep(Format format, const std::uint8_t* data, std::size_t size) {
  prep::PrepOptions options;
  options.forced = format;
  const std::uint8_t bits = size > 0 ? data[0] : 0;
  if (size > 0) {
    ++data;
    --size;
  }
  if (bits & 0x01) options.start = parse_iso8601("2024-06-12T14:22:18Z");
  if (bits & 0x02) options.interval_s = (bits & 0x40) ? 0.5 : 2.0;
  if (bits & 0x04)
    options.fields = "name,index,temperature.gpu,utilization.gpu,memory.used,power.draw,clocks.sm,clocks.mem";
  if (bits & 0x08) options.year = 2024;
  if (bits & 0x10) options.boot_time_ns = std::int64_t{1718200000} * 1000000000;
  // trainlog always reads with one fixed --pattern (the other targets with bit 0x80): every
  // group role, so timestamps, durations and numbers from the fuzzer reach their parsers.
  if (format == Format::trainlog || (bits & 0x80))
    options.patterns = {R"((?P<ts>\S+ \S+)? ?kernel (?P<name>\w+) step=(?P<step>\S+) loss=(?P<loss>\S+) )"
                        R"(\(duration: (?P<dur_ms>[^m)]*)ms(?: (?P<dur_us>\S+)us)?\)(?: (?P<extra>\S+))?)"};
  if (bits & 0x20) {
    CivilTime d{};
    d.year = 2024;
    d.month = 3;
    d.day = 31;
    options.date = d;
  }
  LocalClock clock = berlin();
  NullSink sink;
  InputStats stats;
  auto reader = io::LineReader::from_string(std::string(reinterpret_cast<const char*>(data), size));
  const Status st = prep::run_prep_input(*reader, options, clock, sink, stats);
  if (st) check_accounting(stats);
#if defined(GPUCOST_FUZZ_TRACE_SCAN)
  check_trace_scan(std::string_view(reinterpret_cast<const char*>(data), size));
#endif
}

[[maybe_unused]] void fuzz_event_stream(const std::uint8_t* data, std::size_t size) {
  NullSink sink;
  InputStats stats;
  auto reader = io::LineReader::from_string(std::string(reinterpret_cast<const char*>(data), size));
  const Status st = io::read_event_stream(*reader, sink, stats);
  if (st) check_accounting(stats);
}

// extract over an events stream: the store spills after 32 samples (so the runs, the merge of
// runs and the two reads are exercised), then every indicator, the document written and read
// back, and merged alone. The first byte picks the window flags, the threshold and the chain
// window.
[[maybe_unused]] void fuzz_extract(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t bits = size > 0 ? data[0] : 0;
  if (size > 0) {
    ++data;
    --size;
  }
  extract::SampleCollector samples(32);
  InputStats stats;
  auto reader = io::LineReader::from_string(std::string(reinterpret_cast<const char*>(data), size));
  if (!io::read_event_stream(*reader, samples, stats)) return;
  samples.note_inputs({stats});
  extract::ExtractOptions options;
  constexpr std::int64_t kBase = std::int64_t{1718200000} * 1000000000;
  if (bits & 0x01) options.from_ns = kBase;
  if (bits & 0x02) options.to_ns = kBase + std::int64_t{3600} * 1000000000;
  if (bits & 0x04) options.temp_threshold_c = 40;
  if (bits & 0x08) options.chain_window_s = 5;
  auto f = extract::compute_features(samples, options);
  if (!f) return;
  auto back = extract::features_from_json(extract::features_to_json(*f), "fuzz.json");
  if (!back) {
    std::fprintf(stderr, "extract wrote a features document it cannot read: %s\n", back.error().message.c_str());
    std::abort();
  }
  auto merged = extract::merge_features({*back});
  (void)merged;
}

[[maybe_unused]] void fuzz_features(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto f = extract::features_from_json(text, "fuzz.json");
  (void)f;
}

[[maybe_unused]] void fuzz_config(const std::uint8_t* data, std::size_t size) {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/gpucost-fuzz-config-" +
           std::to_string(::getpid()) + ".toml";
  }();
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  std::vector<std::string> overrides;
  if (nul != std::string::npos) {
    std::size_t pos = nul + 1;
    while (pos <= input.size()) {
      std::size_t end = input.find('\n', pos);
      if (end == std::string::npos) end = input.size();
      overrides.push_back(input.substr(pos, end - pos));
      pos = end + 1;
    }
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  const std::string file = input.substr(0, nul);
  if (!file.empty() && std::fwrite(file.data(), 1, file.size(), f) != file.size()) std::abort();
  std::fclose(f);
  auto c = breakeven::load_config(path, overrides);
  (void)c;
  // The same text as catalogues: TOML offers and [exchange] rates, or a vms.csv of "aws".
  static const std::string csv_path = [] {
    const std::string dir = path + ".d/aws";
    std::filesystem::create_directories(dir);
    return dir + "/vms.csv";
  }();
  std::FILE* csv = std::fopen(csv_path.c_str(), "wb");
  if (csv == nullptr) std::abort();
  if (!file.empty() && std::fwrite(file.data(), 1, file.size(), csv) != file.size()) std::abort();
  std::fclose(csv);
  auto catalogue = prices::load_catalogue({path, {csv_path}});
  (void)catalogue;
}

// A zone file (TZif) from the bytes, and the periods of a few instants in it: times from the
// input's last 8 bytes, and the transitions' neighbourhood of 1970, 2024 and 2100.
[[maybe_unused]] void fuzz_time_zone(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto zone = TimeZone::from_tzif(bytes, "fuzz");
  if (!zone) return;
  std::int64_t tail = 0;
  if (size >= 8) std::memcpy(&tail, data + size - 8, 8);
  for (const std::int64_t t :
       {tail, std::int64_t{0}, std::int64_t{1718200000}, std::int64_t{4102444800},
        std::numeric_limits<std::int64_t>::min() / 2, std::numeric_limits<std::int64_t>::max() / 2}) {
    const TimeZone::Period p = (*zone)->at_utc(t);
    if (p.begin > t || (p.end != std::numeric_limits<std::int64_t>::max() && p.end <= t)) std::abort();
    const TimeZone::Local l = (*zone)->at_local(t / 2);
    (void)l;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
#if defined(GPUCOST_FUZZ_PREP)
  fuzz_prep(Format::GPUCOST_FUZZ_PREP, data, size);
#elif defined(GPUCOST_FUZZ_EVENT_STREAM)
  fuzz_event_stream(data, size);
#elif defined(GPUCOST_FUZZ_FEATURES)
  fuzz_features(data, size);
#elif defined(GPUCOST_FUZZ_EXTRACT)
  fuzz_extract(data, size);
#elif defined(GPUCOST_FUZZ_CONFIG)
  fuzz_config(data, size);
#elif defined(GPUCOST_FUZZ_TIME_ZONE)
  fuzz_time_zone(data, size);
#else
#error \
    "define GPUCOST_FUZZ_PREP=<format>, GPUCOST_FUZZ_EVENT_STREAM, GPUCOST_FUZZ_FEATURES, GPUCOST_FUZZ_EXTRACT, GPUCOST_FUZZ_CONFIG or GPUCOST_FUZZ_TIME_ZONE"
#endif
  return 0;
}
