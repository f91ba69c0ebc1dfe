// prep: nvidia-bug-report.log, split into sections handed to the dmesg, syslog/journal and
// nvidia-smi -q parsers. The fixture is hand-written in the shape of nvidia-bug-report.sh 535.
#include "support.hpp"

#include <catch2/catch.hpp>

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

TEST_CASE("prep::bug-report: sections go to their parsers, copies of one event are written once",
          "[prep][bug-report]") {
  const auto r = run_prep_text(fixture("bug-report/nvidia-bug-report_a100_535.log"), {}, "Europe/Berlin");
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::bug_report);
  CHECK(r.stats.malformed == 0);
  std::vector<std::string> kinds;
  for (const auto& e : r.events) kinds.push_back(e.kind);
  // Two Xid 13 lines (kern.log excerpt; their journal and dmesg copies are duplicates), the
  // dmesg boot banner, driver load and segfault, then gpu_info + sample of the -q section.
  CHECK(kinds == std::vector<std::string>{"xid", "xid", "boot", "driver", "segfault", "gpu_info", "sample"});
  CHECK(r.stats.events == 11);
  CHECK(r.stats.duplicates == 4);
  // "Mar 21 15:51:07 ... [ 1432.119804]": local 15:51:07 CET = 14:51:07 UTC, so the boot was at
  // 14:51:07 - 1432.119804 s = 14:27:14.880196 UTC; the NVRM load line at [4.991310] follows.
  const std::int64_t boot = utc_ns(2024, 3, 21, 14, 51, 7) - 1'432'119'804'000;
  CHECK(r.events[3].ts_ns == boot + 4'991'310'000);
  CHECK(field(r.events[3], "version") == "535.161.07");
  CHECK(r.events[0].ts_ns == utc_ns(2024, 3, 21, 14, 51, 7));  // year from the report's Date: line
  CHECK(field(r.events[0], "code") == "13");
  CHECK(r.events[5].source == "smi-q");
  CHECK(r.events[5].ts_ns == utc_ns(2024, 3, 21, 15, 4, 11));  // the -q Timestamp, CET
}

TEST_CASE("prep::bug-report: detected from its prologue only", "[prep][bug-report]") {
  prep::PrepOptions o;
  const std::string report = fixture("bug-report/nvidia-bug-report_a100_535.log");
  CHECK(prep::detect_format(report.substr(0, 400), o) == gpucost::Format::bug_report);
  CHECK(prep::detect_format("____________________________________________\n\n*** /etc/issue\n", o) !=
        gpucost::Format::bug_report);
}
