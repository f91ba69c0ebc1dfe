// Feeding stages: glob expansion, up-front checks, and the same features from raw logs and
// from an events stream.
#include "support.hpp"

#include <gpucost/pipeline/inputs.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace gpucost;
namespace fs = std::filesystem;

namespace {

fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("gpucost-test-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

const char* const kDmon =
    "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk \n"
    "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz \n"
    "    0    100     50     50     50      9      0      0      0      0   2619   1500 \n"
    "    0    200     51     50    100      9      0      0      0      0   2619   1500 \n"
    "    0    300     52     50      0      9      0      0      0      0   2619   1500 \n";

}  // namespace

TEST_CASE("pipeline::expand_inputs: patterns expand sorted, names pass through", "[pipeline]") {
  const fs::path dir = scratch_dir("glob");
  write(dir / "b.log", "x");
  write(dir / "a.log", "x");
  write(dir / "c.txt", "x");
  auto got = pipeline::expand_inputs({(dir / "*.log").string(), "-", (dir / "c.txt").string()});
  REQUIRE(got);
  REQUIRE(got->size() == 4);
  CHECK((*got)[0] == (dir / "a.log").string());
  CHECK((*got)[1] == (dir / "b.log").string());
  CHECK((*got)[2] == "-");
  auto none = pipeline::expand_inputs({(dir / "*.gz").string()});
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("no file matches") != std::string::npos);
}

namespace {

std::vector<pipeline::ProbedInput> probed(const std::vector<std::string>& paths, const prep::PrepOptions& o) {
  auto got = pipeline::probe_inputs(paths, o);
  REQUIRE(got);
  return std::move(*got);
}

}  // namespace

TEST_CASE("pipeline::probe_inputs: missing, directory and unknown format fail before any output", "[pipeline]") {
  const fs::path dir = scratch_dir("check");
  write(dir / "ok.txt", kDmon);
  write(dir / "junk.txt", "hello world\n");
  write(dir / "empty.txt", "");
  prep::PrepOptions o;
  CHECK(pipeline::probe_inputs({(dir / "ok.txt").string(), (dir / "empty.txt").string(), "-"}, o));
  CHECK_FALSE(pipeline::probe_inputs({(dir / "missing.txt").string()}, o));
  CHECK_FALSE(pipeline::probe_inputs({dir.string()}, o));
  const auto junk = pipeline::probe_inputs({(dir / "junk.txt").string()}, o);
  REQUIRE_FALSE(junk);
  CHECK(junk.error().kind == ErrorKind::format);
  o.forced = Format::dmon;  // forcing a format skips detection
  CHECK(pipeline::probe_inputs({(dir / "junk.txt").string()}, o));
}

TEST_CASE("pipeline::probe_inputs: each file's format detected once, stdin's by its reader", "[pipeline]") {
  const fs::path dir = scratch_dir("probe");
  write(dir / "dmon.txt", kDmon);
  write(dir / "empty.txt", "");
  prep::PrepOptions o;
  const auto in = probed({(dir / "dmon.txt").string(), (dir / "empty.txt").string(), "-"}, o);
  REQUIRE(in.size() == 3);
  CHECK(in[0].format == Format::dmon);
  CHECK(in[0].kind == pipeline::ProbedInput::Kind::raw_log);
  CHECK(in[0].size == std::uint64_t{std::string_view(kDmon).size()});
  CHECK(in[0].detections == 1);
  CHECK(in[0].known_format() == Format::dmon);
  CHECK(in[1].format == Format::unknown);
  CHECK(in[1].detections == 1);  // an empty file: detected (nothing), not again when read
  CHECK(in[1].known_format() == Format::unknown);
  CHECK(in[2].read_once);
  CHECK(in[2].detections == 0);  // its reader detects it, from the bytes it then reads
  CHECK_FALSE(in[2].known_format());
  CHECK(pipeline::plain_input_bytes(in) == 0);  // stdin: size unknown
  CHECK(pipeline::plain_input_bytes({in[0], in[1]}) == std::string_view(kDmon).size());
  o.forced = Format::dmon;
  CHECK(probed({(dir / "dmon.txt").string()}, o)[0].detections == 0);
}

TEST_CASE("pipeline::load_features: raw log and its events stream give the same energy", "[pipeline]") {
  const fs::path dir = scratch_dir("features");
  write(dir / "dmon.txt", kDmon);
  prep::PrepOptions o;
  o.start = parse_iso8601("2024-01-01T00:00:00Z");
  o.interval_s = 2.0;
  o.host = std::string{"node-1"};  // a temporary: GCC 12 warns (-Wrestrict, PR105329) on assigning a literal here
  LocalClock clock = LocalClock::utc();
  std::vector<InputStats> stats;
  auto f = pipeline::load_features(probed({(dir / "dmon.txt").string()}, o), o, clock, {}, stats);
  REQUIRE(f);
  REQUIRE(f->gpus.size() == 1);
  // Trapezoid: (100+200)/2*2 + (200+300)/2*2 = 300 + 500 = 800 J over 4 s = 800/3.6e6 kWh.
  CHECK(*f->gpus[0].indicators.at("energy_kwh").value == Approx(800.0 / 3.6e6));
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].events == 3);
  CHECK(stats[0].ignored == 2);
}

TEST_CASE("pipeline::with_journal_boot_time: dmesg uptime placed with the journal's boot time", "[pipeline]") {
  const fs::path dir = scratch_dir("boot");
  write(dir / "dmesg.txt",
        "[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP\n"
        "[ 1432.119804] NVRM: Xid (PCI:0000:01:00): 79, pid=4242, name=python3, GPU has fallen off the bus.\n");
  // Two boots: the later one (b2) is the one dmesg shows. Its entries give realtime - monotonic
  // = 1718194938.000000 - 120.000000 s and 1718194999.500000 - 181.400000 s (0.1 s later: the
  // smallest is taken) -> boot at 1718194818 s.
  write(dir / "journal.json",
        "{\"__REALTIME_TIMESTAMP\":\"1718100000000000\",\"__MONOTONIC_TIMESTAMP\":\"5000000\",\"_BOOT_ID\":\"b1\","
        "\"MESSAGE\":\"x\"}\n"
        "{\"__REALTIME_TIMESTAMP\":\"1718194938000000\",\"__MONOTONIC_TIMESTAMP\":\"120000000\",\"_BOOT_ID\":\"b2\","
        "\"MESSAGE\":\"y\"}\n"
        "{\"__REALTIME_TIMESTAMP\":\"1718194999500000\",\"__MONOTONIC_TIMESTAMP\":\"181400000\",\"_BOOT_ID\":\"b2\","
        "\"MESSAGE\":\"z\"}\n");
  const prep::PrepOptions none;
  const auto o = pipeline::with_journal_boot_time(
      probed({(dir / "dmesg.txt").string(), (dir / "journal.json").string()}, none), none);
  REQUIRE(o.boot_time_ns);
  CHECK(*o.boot_time_ns == 1718194818LL * 1'000'000'000);
  CHECK(o.boot_time_origin.find("boot b2") != std::string::npos);
  // Without a dmesg input, or with --boot-time given, nothing changes.
  CHECK_FALSE(pipeline::with_journal_boot_time(probed({(dir / "journal.json").string()}, none), none).boot_time_ns);
  prep::PrepOptions given;
  given.boot_time_ns = 7;
  CHECK(*pipeline::with_journal_boot_time(
             probed({(dir / "dmesg.txt").string(), (dir / "journal.json").string()}, given), given)
             .boot_time_ns == 7);
}
