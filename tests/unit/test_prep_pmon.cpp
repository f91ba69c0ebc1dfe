// prep: nvidia-smi pmon (docs/formats.md, "nvidia-smi pmon"). Fixtures in testdata/pmon are hand-written in the byte
// shape of the driver named in their file name; expectations below are computed by hand from them.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <fstream>
#include <sstream>

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;

}  // namespace

TEST_CASE("prep::pmon: default columns of driver 590+, C+G type, a truncated command", "[prep][pmon]") {
  prep::PrepOptions o;
  o.start = gpucost::parse_iso8601("2024-05-01T08:00:00+02:00");
  REQUIRE(o.start.has_value());
  o.interval_s = 1.0;
  const PrepRun r = run_prep_text(fixture("pmon/rtx4090_595_default.txt"), o);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::pmon);
  CHECK(r.stats.lines == 11);
  CHECK(r.stats.ignored == 2);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 9);

  const auto& xorg = r.events[0];
  CHECK(xorg.source == "pmon");
  CHECK(xorg.kind == "process");
  CHECK(xorg.gpu == 0);
  CHECK(xorg.metric("pid") == 2210.0);
  CHECK(field(xorg, "process_type") == "G");
  CHECK(field(xorg, "command") == "Xorg");
  CHECK(xorg.metrics.size() == 1);  // every utilisation column is '-'

  const auto& shell = r.events[1];
  CHECK(field(shell, "process_type") == "C+G");
  CHECK(field(shell, "command") == "gnome-shell");
  CHECK(shell.metric("sm_pct") == 1.0);
  CHECK(shell.metric("mem_pct") == 0.0);
  CHECK_FALSE(shell.metric("enc_pct"));

  const auto& sd = r.events[2];
  CHECK(field(sd, "process_type") == "C");
  CHECK(field(sd, "command") == "stable-diffusio");  // nvidia-smi cuts names at 15 characters
  CHECK(sd.metric("pid") == 40211.0);
  CHECK(sd.metric("sm_pct") == 98.0);
  CHECK(sd.metric("mem_pct") == 61.0);
  CHECK(r.events[8].metric("sm_pct") == 99.0);

  // pid 2210 repeats on GPU 0: a new cycle, one --interval later.
  const std::int64_t t0 = utc_ns(2024, 5, 1, 6, 0, 0);
  for (std::size_t i = 0; i < 9; ++i) {
    INFO("row " << i);
    CHECK(r.events[i].ts_ns == t0 + static_cast<std::int64_t>(i / 3) * kSec);
  }
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
}

TEST_CASE("prep::pmon: -s mu with fb, two header pairs back to back (the second wins)", "[prep][pmon]") {
  const PrepRun r = run_prep_text(fixture("pmon/v100x4_460_s_mu_doubleheader.txt"));
  check_accounting(r);
  CHECK(r.stats.lines == 12);
  CHECK(r.stats.ignored == 4);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    INFO("row " << i);
    const auto g = static_cast<int>(i % 4);
    const auto c = static_cast<double>(i / 4);
    CHECK(r.events[i].gpu == g);
    CHECK(r.events[i].metric("pid") == 928417.0);
    CHECK(r.events[i].metric("fb_mib") == 15807.0 + g);
    CHECK(r.events[i].metric("sm_pct") == 88.0 - g + c);
    CHECK(r.events[i].metric("mem_pct") == 41.0 + c);
    CHECK(r.events[i].metric("enc_pct") == 0.0);
    CHECK(field(r.events[i], "command") == "python");
    // The GPU index goes back to 0: a new cycle.
    CHECK(r.events[i].ts_ns == static_cast<std::int64_t>(i / 4) * kSec);
  }
}

TEST_CASE("prep::pmon: commands with spaces and names cut at 16 characters (Windows)", "[prep][pmon]") {
  const PrepRun r = run_prep_text(fixture("pmon/rtx2080s_win_591.txt"));
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 8);
  CHECK(field(r.events[0], "command") == "dwm.exe");
  CHECK(field(r.events[1], "command") == "NVIDIA Share.exe");
  CHECK(field(r.events[1], "process_type") == "C+G");
  CHECK(r.events[1].metric("pid") == 6140.0);
  CHECK(field(r.events[2], "command") == "steamwebhelper.e");
  CHECK(field(r.events[3], "command") == "obs64.exe");
  CHECK(field(r.events[3], "process_type") == "C");
  CHECK(r.events[3].metric("sm_pct") == 4.0);
  CHECK(r.events[3].metric("mem_pct") == 2.0);
  CHECK(r.events[3].metric("enc_pct") == 31.0);
  CHECK(r.events[7].metric("enc_pct") == 30.0);
  for (std::size_t i = 0; i < 8; ++i) CHECK(r.events[i].ts_ns == static_cast<std::int64_t>(i / 4) * kSec);
}

TEST_CASE("prep::pmon: an all-'-' row is a no_process event", "[prep][pmon]") {
  const PrepRun r = run_prep_text(fixture("pmon/h100x2_590_idle.txt"));
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 6);
  const char* want_kind[] = {"process", "no_process", "process", "no_process", "no_process", "no_process"};
  const int want_gpu[] = {0, 1, 0, 1, 0, 1};
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("row " << i);
    CHECK(r.events[i].kind == want_kind[i]);
    CHECK(r.events[i].gpu == want_gpu[i]);
    CHECK(r.events[i].ts_ns == static_cast<std::int64_t>(i / 2) * kSec);
  }
  const auto& idle = r.events[1];
  CHECK(idle.metrics.empty());
  CHECK(idle.fields.empty());
  CHECK(r.events[0].metric("pid") == 55120.0);
  CHECK(r.events[0].metric("sm_pct") == 100.0);
  CHECK(r.events[2].metric("mem_pct") == 24.0);
  CHECK(field(r.events[2], "command") == "gpu_burn");
}

TEST_CASE("prep::pmon: a pid repeating on the same GPU starts a new cycle", "[prep][pmon]") {
  // Two processes on GPU 0, then the first one again (cycle 1), then a new process: same cycle.
  const std::string text =
      "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command \n"
      "# Idx           #    C/G      %      %      %      %      %      %    name \n"
      "    0       7001     C     50     20      -      -      -      -    train.py       \n"
      "    0       7002     C     10      5      -      -      -      -    eval.py        \n"
      "    0       7001     C     55     21      -      -      -      -    train.py       \n"
      "    0       7003     C      1      0      -      -      -      -    tensorboard    \n"
      "    0       7001     C     52     20      -      -      -      -    train.py       \n";
  prep::PrepOptions o;
  o.interval_s = 5.0;
  const PrepRun r = run_prep_text(text, o);
  check_accounting(r);
  REQUIRE(r.events.size() == 5);
  const std::int64_t want[] = {0, 0, 5 * kSec, 5 * kSec, 10 * kSec};
  for (std::size_t i = 0; i < 5; ++i) CHECK(r.events[i].ts_ns == want[i]);
}

TEST_CASE("prep::pmon: an idle row and a process row on the same GPU are never one cycle", "[prep][pmon]") {
  // One GPU: idle, idle, then two processes start, then the first one again.
  const std::string text =
      "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command \n"
      "# Idx           #    C/G      %      %      %      %      %      %    name \n"
      "    0          -     -      -      -      -      -      -      -    -              \n"
      "    0          -     -      -      -      -      -      -      -    -              \n"
      "    0       8101     C     12      3      -      -      -      -    python3        \n"
      "    0       8102     C      0      0      -      -      -      -    nvtop          \n"
      "    0       8101     C     40      9      -      -      -      -    python3        \n"
      "    0          -     -      -      -      -      -      -      -    -              \n";
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  REQUIRE(r.events.size() == 6);
  const std::int64_t want[] = {0, kSec, 2 * kSec, 2 * kSec, 3 * kSec, 4 * kSec};
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("row " << i);
    CHECK(r.events[i].ts_ns == want[i]);
  }
  CHECK(r.events[0].kind == "no_process");
  CHECK(r.events[2].kind == "process");
  CHECK(r.events[5].kind == "no_process");
}

TEST_CASE("prep::pmon: a row without the command, or before the header, is malformed", "[prep][pmon]") {
  prep::PrepOptions o;
  o.forced = gpucost::Format::pmon;
  const std::string text =
      "    0       7001     C     50     20      -      -      -      -    train.py       \n"
      "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command \n"
      "# Idx           #    C/G      %      %      %      %      %      %    name \n"
      "    0       7001     C     50     20      -      -      -      - \n"
      "    0       7001     C     50     20      -      -      -      -    train.py       \n"
      "    0       abcd     C     50     20      -      -      -      -    train.py       \n";
  const PrepRun r = run_prep_text(text, o);
  check_accounting(r);
  CHECK(r.stats.events == 1);
  CHECK(r.stats.ignored == 2);
  CHECK(r.stats.malformed == 3);
  REQUIRE(r.stats.examples.size() == 3);
  CHECK(r.stats.examples[0].line == 1);
  CHECK(r.stats.examples[0].reason.find("before any") != std::string::npos);
  CHECK(r.stats.examples[1].line == 4);
  CHECK(r.stats.examples[1].reason.find("expected 10 columns") != std::string::npos);
  CHECK(r.stats.examples[2].line == 6);
  CHECK(r.stats.examples[2].reason.find("pid") != std::string::npos);
}
