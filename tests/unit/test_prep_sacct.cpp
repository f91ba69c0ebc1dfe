// prep: Slurm's accounting records, sacct -P (docs/formats.md, "Slurm jobs (`sacct`)"), and the
// fields behind them (src/prep/jobs/slurm_fields.hpp). testdata/sacct/README.md says where each
// fixture's shape comes from; debian12_* were printed by Slurm 22.05.8 itself.
#include <catch2/catch.hpp>

#include "prep/jobs/slurm_fields.hpp"
#include "support.hpp"

#include <gpucost/extract/extract.hpp>
#include <gpucost/extract/sample_collector.hpp>
#include <gpucost/record/slurm.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace slurm = gpucost::prep::slurm;
namespace extract = gpucost::extract;

namespace {

std::vector<std::string> hosts(std::string_view list) { return slurm::expand_hostlist(list).value(); }

}  // namespace

TEST_CASE("prep::slurm: host lists expand with ranges, lists and padding", "[prep][sacct]") {
  CHECK(hosts("node[01-03,07]") == std::vector<std::string>{"node01", "node02", "node03", "node07"});
  CHECK(hosts("gpu01") == std::vector<std::string>{"gpu01"});
  CHECK(hosts("a[1-2],b3,c[08-10]") == std::vector<std::string>{"a1", "a2", "b3", "c08", "c09", "c10"});
  CHECK(hosts("r[1-2]n[0-1]") == std::vector<std::string>{"r1n0", "r1n1", "r2n0", "r2n1"});
  CHECK(hosts("node[9-11]") == std::vector<std::string>{"node9", "node10", "node11"});
  CHECK(hosts("None assigned").empty());
  CHECK(hosts("").empty());
  CHECK_FALSE(slurm::expand_hostlist("node[03-01]"));
  CHECK_FALSE(slurm::expand_hostlist("node[1-2"));
  CHECK_FALSE(slurm::expand_hostlist("node[a-b]"));
  CHECK_FALSE(slurm::expand_hostlist("node 1"));
  CHECK_FALSE(slurm::expand_hostlist("n[0-999999]"));  // beyond kMaxHosts: not a node list
}

TEST_CASE("prep::slurm: AllocTRES gives GPUs (untyped, typed), CPUs and memory", "[prep][sacct]") {
  const auto t = slurm::parse_alloc_tres("billing=128,cpu=128,gres/gpu:h100=16,gres/gpu=16,mem=1000G,node=2").value();
  CHECK(t.gpus == 16);
  CHECK(t.gpu_types == "h100");
  CHECK(t.cpus == 128);
  CHECK(t.nodes == 2);
  CHECK(t.billing == 128);
  CHECK(t.mem == "1000G");
  // Only typed entries: their sum.
  const auto typed = slurm::parse_alloc_tres("cpu=8,gres/gpu:a100=2,gres/gpu:v100=1,node=1").value();
  CHECK(typed.gpus == 3);
  CHECK(typed.gpu_types == "a100,v100");
  // No gres/gpu: none (no GPU, or a cluster that does not account gres/gpu), never 0.
  CHECK_FALSE(slurm::parse_alloc_tres("billing=1,cpu=1,node=1").value().gpus);
  CHECK_FALSE(slurm::parse_alloc_tres("").value().gpus);
  CHECK_FALSE(slurm::parse_alloc_tres("cpu=1,garbage"));
  CHECK_FALSE(slurm::parse_alloc_tres("gres/gpu=two"));
}

TEST_CASE("prep::slurm: states, exit codes and job ids", "[prep][sacct]") {
  CHECK(slurm::parse_job_state("COMPLETED").value().name == "COMPLETED");
  const auto cancelled = slurm::parse_job_state("CANCELLED by 1003").value();
  CHECK(cancelled.name == "CANCELLED");
  CHECK(cancelled.cancelled_by == 1003);
  CHECK(slurm::parse_job_state("OUT_OF_MEMORY").value().name == "OUT_OF_MEMORY");
  CHECK(slurm::parse_job_state("CANCELLED+").value().name == "CANCELLED");
  CHECK_FALSE(slurm::parse_job_state("done"));
  CHECK_FALSE(slurm::parse_job_state("CANCELLED by x"));
  const auto ec = slurm::parse_exit_code("0:15").value();
  CHECK(ec.code == 0);
  CHECK(ec.signal == 15);
  CHECK(slurm::parse_exit_code("3:0").value().code == 3);
  CHECK_FALSE(slurm::parse_exit_code("3"));
  CHECK_FALSE(slurm::parse_exit_code("a:b"));
  const auto step = slurm::split_job_id("4242_7.batch").value();
  CHECK(step.job == "4242_7");
  CHECK(step.step == "batch");
  CHECK(slurm::split_job_id("4260+1.0").value().job == "4260+1");
  CHECK_FALSE(slurm::split_job_id("4242").value().is_step());
  CHECK(slurm::split_job_id("4250_[3-4]").value().job == "4250_[3-4]");
  CHECK_FALSE(slurm::split_job_id("JobID"));
  CHECK_FALSE(slurm::split_job_id("42x"));
}

TEST_CASE("prep::sacct: a cluster's jobs, one event per allocation, steps counted in it", "[prep][sacct]") {
  const PrepRun r = run_prep_text(fixture("sacct/cluster_gpu_jobs.txt"), {}, "Europe/Berlin");
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::sacct);
  CHECK(r.stats.lines == 20);
  CHECK(r.stats.events == 8);
  CHECK(r.stats.ignored == 12);  // header, 10 step lines, the pending array tasks
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::local);
  const auto& job = r.events.front();
  CHECK(job.kind == "job");
  CHECK(job.source == "sacct");
  CHECK(job.gpu == -1);
  CHECK(job.ts_ns == utc_ns(2024, 6, 12, 8, 0, 0));  // 10:00 CEST
  CHECK(field(job, "end_ns") == std::to_string(utc_ns(2024, 6, 12, 10, 0, 0)));
  CHECK(field(job, "job_id") == "4242");
  CHECK(field(job, "nodes") == "gpu01,gpu02");
  CHECK(field(job, "gpus") == "16");
  CHECK(field(job, "energy_j") == "51840000");
  CHECK(field(job, "energy_source") == "job");
  CHECK(field(job, "steps") == "3");
  // 4243: no energy on the allocation line; the extern step's, which spans the allocation.
  CHECK(field(r.events[1], "energy_j") == "312000");
  CHECK(field(r.events[1], "energy_source") == "extern step");
  CHECK(field(r.events[1], "exit_code") == "1");
  // Array tasks with energy 0 (no plugin): not measured, no key.
  CHECK(field(r.events[2], "job_id") == "4250_1");
  CHECK(field(r.events[2], "energy_j") == "<absent>");
  CHECK(field(r.events[3], "exit_signal") == "15");
  CHECK(field(r.events[4], "job_id") == "4260+0");
  CHECK(field(r.events[4], "gpus") == "<absent>");
  CHECK(field(r.events[5], "nodes") == "gpu06,gpu08,gpu09");
  // Still running: no end.
  CHECK(field(r.events[6], "state") == "RUNNING");
  CHECK(field(r.events[6], "end_ns") == "<absent>");
  CHECK(field(r.events[7], "cancelled_by") == "1003");
  CHECK(field(r.events[7], "nodes").empty());
}

TEST_CASE("prep::sacct: times as epoch seconds (--slurm-job) are absolute, without a zone", "[prep][sacct]") {
  const std::string text =
      "JobID|JobName|User|Start|End|NodeList|AllocTRES|ConsumedEnergyRaw|State|ExitCode\n"
      "17|wrap|root|1718186400|1718187600|localhost|billing=1,cpu=1,gres/gpu=2,node=1||COMPLETED|0:0\n"
      "17.batch|batch||1718186400|1718187600|localhost|cpu=1,gres/gpu=2,mem=0,node=1|0|COMPLETED|0:0\n";
  const PrepRun r = run_prep_text(text, {}, "Europe/Berlin");
  check_accounting(r);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].ts_ns == utc_ns(2024, 6, 12, 10, 0, 0));
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  CHECK(r.stats.logs_tz.empty());
}

TEST_CASE("prep::sacct: headerless -n output of the documented list, -p's trailing bar, bad lines", "[prep][sacct]") {
  const PrepRun n = run_prep_text(fixture("sacct/debian12_job7_noheader.txt"));
  check_accounting(n);
  CHECK(n.stats.format == gpucost::Format::sacct);
  REQUIRE(n.events.size() == 1);
  CHECK(field(n.events[0], "job_id") == "7");
  CHECK(field(n.events[0], "gpu_types") == "a100");
  const std::string text =
      "JobID|State|Start|End|\n"
      "5|TIMEOUT|2026-12-02T08:45:13|2026-12-02T08:46:24|\n"
      "6|WEIRD state|2026-12-02T08:45:13|Unknown|\n"
      "7|COMPLETED|yesterday|Unknown|\n"
      "8|COMPLETED|2026-12-02T08:45:13\n";
  const PrepRun p = run_prep_text(text);
  check_accounting(p);
  CHECK(p.events.size() == 1);
  CHECK(p.stats.malformed == 3);
  CHECK(field(p.events[0], "state") == "TIMEOUT");
}

TEST_CASE("extract: a Slurm job's start and end are the window, its record goes with the features",
          "[extract][sacct]") {
  // The job runs 12:00-12:20 Berlin time (10:00-10:20Z); the telemetry 11:58-12:22.
  auto reader = gpucost::io::LineReader::from_string(fixture("sacct/job_4242.txt"));
  auto telemetry = gpucost::io::LineReader::from_string(fixture("sacct/job_4242_query.csv"));
  auto clock = gpucost::LocalClock::make("Europe/Berlin");
  extract::SampleCollector samples;
  gpucost::InputStats a, b;
  REQUIRE(gpucost::prep::run_prep_input(*reader, {}, *clock, samples, a));
  REQUIRE(gpucost::prep::run_prep_input(*telemetry, {}, *clock, samples, b));
  extract::ExtractOptions options;
  auto f = extract::compute_features(samples, options);
  REQUIRE(f);
  CHECK(f->chosen_by == "slurm");
  CHECK(f->from_ns == utc_ns(2024, 6, 12, 10, 0, 0));
  CHECK(f->to_ns == utc_ns(2024, 6, 12, 10, 20, 0));
  REQUIRE(f->jobs.size() == 1);
  CHECK(f->jobs[0].gpus == 2);
  CHECK(f->jobs[0].energy_j == 1100000.0);
  // Written and read back, then merged with itself from another host: one job in the fleet.
  auto back = extract::features_from_json(extract::features_to_json(*f), "doc");
  REQUIRE(back);
  REQUIRE(back->jobs.size() == 1);
  CHECK(back->jobs[0].nodes == std::vector<std::string>{"gpu01"});
  CHECK(back->jobs[0].exit_code == 0);
  CHECK(back->jobs[0].end_ns == utc_ns(2024, 6, 12, 10, 20, 0));
  extract::Features other = *back;
  other.host = "gpu02";
  auto merged = extract::merge_features({*back, other});
  REQUIRE(merged);
  CHECK(merged->jobs.size() == 1);
  // A flag still wins: --from alone keeps the job's end.
  options.from_ns = utc_ns(2024, 6, 12, 10, 5, 0);
  auto flagged = extract::compute_features(samples, options);
  REQUIRE(flagged);
  CHECK(flagged->chosen_by == "flags and slurm");
  CHECK(flagged->from_ns == utc_ns(2024, 6, 12, 10, 5, 0));
  CHECK(flagged->to_ns == utc_ns(2024, 6, 12, 10, 20, 0));
  options = {};
  options.slurm_job = "4243";
  CHECK_FALSE(extract::compute_features(samples, options));
}

TEST_CASE("record::slurm_job: the job's window and nodes from sacct (the hook of a telemetry query)",
          "[record][sacct]") {
  // A stand-in sacct on PATH that answers for job 4242 (tests/cli/slurm_job.sh checks the rest).
  char dir_template[] = "/tmp/gpucost-test-sacct-XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template, script = dir + "/sacct";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\n"
           "echo 'JobID|JobName|User|Start|End|NodeList|AllocTRES|ConsumedEnergyRaw|State|ExitCode'\n"
           "echo '4242|train|alice|1718186400|Unknown|gpu[01-02]|cpu=2,gres/gpu=16,node=2||RUNNING|0:0'\n"
           "echo '4243_1|a|bob|1718186400|1718187600|gpu03|cpu=1,node=1||COMPLETED|0:0'\n"
           "echo '4243_2|a|bob|1718186400|1718187600|gpu04|cpu=1,node=1||COMPLETED|0:0'\n";
  }
  REQUIRE(::chmod(script.c_str(), 0755) == 0);
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "/usr/bin:/bin";
  ::setenv("PATH", (dir + ":" + saved).c_str(), 1);
  auto job = gpucost::record::slurm_job("4242");
  auto array = gpucost::record::slurm_job("4243");
  ::setenv("PATH", saved.c_str(), 1);
  std::remove(script.c_str());
  ::rmdir(dir.c_str());
  REQUIRE(job);
  CHECK(job->start_ns == utc_ns(2024, 6, 12, 10, 0, 0));
  CHECK_FALSE(job->end_ns);  // running
  CHECK(job->nodes == std::vector<std::string>{"gpu01", "gpu02"});
  CHECK(job->gpus == 16);
  REQUIRE_FALSE(array);
  CHECK(array.error().message == "--slurm-job 4243 names 2 allocations: 4243_1, 4243_2");
}

// ---- sacct as people save it (issue 35): testdata/sacct/README.md says how each sample was written.

TEST_CASE("prep::slurm: GRES lists, time strings and the states that end a job", "[prep][sacct]") {
  const auto typed = slurm::parse_gres_gpus("gpu:a100:4(IDX:0-3),mps:100").value();
  CHECK(typed.gpus == 4);
  CHECK(typed.gpu_types == "a100");
  CHECK(slurm::parse_gres_gpus("gpu:4").value().gpus == 4);
  CHECK(slurm::parse_gres_gpus("gres/gpu:2").value().gpus == 2);
  CHECK(slurm::parse_gres_gpus("gpu:v100:2,gpu:k80:1").value().gpu_types == "v100,k80");
  CHECK(slurm::parse_gres_gpus("gpu:v100:2,gpu:k80:1").value().gpus == 3);
  CHECK_FALSE(slurm::parse_gres_gpus("mps:100").value().gpus);
  CHECK_FALSE(slurm::parse_gres_gpus("").value().gpus);
  CHECK_FALSE(slurm::parse_gres_gpus("gpu:a100:four"));
  // Elapsed as sacct prints it, and Slurm's other time strings.
  CHECK(slurm::parse_time_string("1-02:03:04") == 93784);
  CHECK(slurm::parse_time_string("02:03:04") == 7384);
  CHECK(slurm::parse_time_string("45:10") == 2710);  // MM:SS
  CHECK(slurm::parse_time_string("1-02") == 93600);  // D-HH
  CHECK(slurm::parse_time_string("1-02:30") == 95400);
  CHECK(slurm::parse_time_string("30") == 1800);  // minutes
  CHECK(slurm::parse_time_string("00:01:02.345") == 62);
  CHECK_FALSE(slurm::parse_time_string("Unknown"));
  CHECK_FALSE(slurm::parse_time_string("1:2:3:4"));
  CHECK_FALSE(slurm::parse_time_string("x-01:00:00"));
  CHECK_FALSE(slurm::parse_time_string("999999-999999999:00:00"));  // beyond 100 years
  // Energy in a TRES list: joules.
  CHECK(slurm::parse_alloc_tres("billing=8,cpu=8,energy=4682744,gres/gpu=1").value().energy_j == 4682744);
  CHECK_FALSE(slurm::parse_alloc_tres("energy=4.68M"));
  for (const char* s : {"CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "COMPLETED",
                        "BOOT_FAIL", "DEADLINE"})
    CHECK(slurm::is_ended_state(s));
  for (const char* s : {"RUNNING", "PENDING", "SUSPENDED", "REQUEUED", "RESIZING", "WEIRD"})
    CHECK_FALSE(slurm::is_ended_state(s));
  CHECK(slurm::is_known_state("RESIZING"));
  CHECK_FALSE(slurm::is_known_state("WEIRD"));
}

TEST_CASE("prep::sacct: a header with JobID not first (--format=Account,UID,User,JobID,...) maps by name",
          "[prep][sacct]") {
  const std::string text = fixture("sacct/header_account_first.txt");
  CHECK(gpucost::prep::detect_format(text, {}) == gpucost::Format::sacct);
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.ignored == 4);  // the header, three steps
  REQUIRE(r.events.size() == 2);
  const auto& job = r.events[0];
  CHECK(field(job, "job_id") == "5101");
  CHECK(field(job, "user") == "alice");
  CHECK(field(job, "job_name") == "pretrain");
  CHECK(field(job, "elapsed_s") == "93784");  // 1-02:03:04
  CHECK(field(job, "nodes") == "gpu01,gpu02");
  CHECK(field(job, "gpus") == "16");
  // No ConsumedEnergyRaw: the extern step's energy TRES of TRESUsageInTot (J).
  CHECK(field(job, "energy_j") == "187560000");
  CHECK(field(job, "energy_source") == "extern step");
  // The energy TRES of the job's AllocTRES.
  CHECK(field(r.events[1], "energy_j") == "4682744");
  CHECK(field(r.events[1], "energy_source") == "job");
  CHECK(field(r.events[1], "exit_code") == "1");
}

TEST_CASE("prep::sacct: headerless -n output of another list: --sacct-format names it, else the error asks",
          "[prep][sacct]") {
  const std::string text = fixture("sacct/noheader_custom_list.txt");
  // Detected (a job id, a state, times), refused without the list, with a hint that asks for it.
  CHECK(gpucost::prep::detect_format(text, {}) == gpucost::Format::sacct);
  const PrepRun refused = run_prep_text(text);
  REQUIRE_FALSE(refused.status);
  CHECK(refused.status.error().message ==
        "test: sacct output without a header (-n) of 7 fields, not the 10 of the documented list");
  CHECK(refused.status.error().hint.find("--sacct-format") != std::string::npos);
  gpucost::prep::PrepOptions options;
  options.sacct_format = "jobidraw,start,end,elapsed%12,state,nodel,AllocTRES%40";  // sacct's abbreviations, widths
  const PrepRun r = run_prep_text(text, options);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::sacct);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(field(r.events[0], "job_id") == "6001");
  CHECK(field(r.events[0], "gpus") == "2");
  CHECK(field(r.events[0], "end_ns") == std::to_string(utc_ns(2024, 6, 12, 9, 30, 0)));
  CHECK(field(r.events[1], "state") == "RUNNING");
  CHECK(field(r.events[1], "end_ns") == "<absent>");
  // A list without the fields gpucost needs, and ALL, are refused.
  options.sacct_format = "JobID,NodeList";
  CHECK_FALSE(run_prep_text(text, options).status);
  options.sacct_format = "ALL";
  CHECK_FALSE(run_prep_text(text, options).status);
  // A headerless list gpucost cannot tell (no state, no time): the hint asks for --sacct-format.
  const std::string bare = "6001|gpu04|billing=4,cpu=4,gres/gpu=2,mem=32G,node=1\n";
  CHECK(gpucost::prep::detect_format(bare, {}) == gpucost::Format::unknown);
  const auto st = gpucost::prep::check_format(bare, gpucost::prep::PrepOptions{}, "bare.txt");
  REQUIRE_FALSE(st);
  CHECK(st.error().hint.find("--sacct-format") != std::string::npos);
}

TEST_CASE("prep::sacct: --delimiter=STR output, found by itself or given with --sacct-delimiter", "[prep][sacct]") {
  for (const char* name : {"sacct/delimiter_caret.txt", "sacct/delimiter_caret_noheader.txt"}) {
    INFO(name);
    const std::string text = fixture(name);
    CHECK(gpucost::prep::detect_format(text, {}) == gpucost::Format::sacct);
    const PrepRun r = run_prep_text(text);
    check_accounting(r);
    CHECK(r.stats.malformed == 0);
    REQUIRE(r.events.size() == 2);
    CHECK(field(r.events[0], "job_id") == "7001");
    CHECK(field(r.events[0], "energy_j") == "420000");
    CHECK(field(r.events[0], "energy_source") == "batch step");
    CHECK(field(r.events[1], "nodes") == "gpu06,gpu07");
    CHECK(field(r.events[1], "cancelled_by") == "1002");
  }
  // A one-character delimiter other than '|' is given.
  const std::string semi =
      "JobID;Start;End;State\n"
      "17;2024-06-12T10:00:00;2024-06-12T10:20:00;COMPLETED\n";
  gpucost::prep::PrepOptions options;
  options.sacct_delimiter = ";";
  const PrepRun r = run_prep_text(semi, options);
  check_accounting(r);
  REQUIRE(r.events.size() == 1);
  CHECK(field(r.events[0], "state") == "COMPLETED");
  // Detection looks at a long line of punctuation (minified JSON) in bounded time, and says no.
  std::string json = "[";
  for (int i = 0; i < 4000; ++i) json += R"({"a":[1,2],"b":{"c":"d"}},)";
  json += "{}]\n";
  CHECK(gpucost::prep::detect_format(json, {}) != gpucost::Format::sacct);
  // -P lines with empty fields next to each other stay '|'-separated.
  const PrepRun plain = run_prep_text(fixture("sacct/debian12_job7_noheader.txt"));
  CHECK(plain.stats.malformed == 0);
  CHECK(plain.events.size() == 1);
}

TEST_CASE("prep::sacct: -p, Elapsed with days, Unknown, an ended job without End ends at Start + Elapsed",
          "[prep][sacct]") {
  const PrepRun r = run_prep_text(fixture("sacct/states_elapsed_p.txt"));
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.ignored == 3);  // header, a step, the pending job
  REQUIRE(r.events.size() == 9);
  const std::int64_t t0 = utc_ns(2024, 6, 12, 8, 0, 0);
  const auto end_of = [&](std::size_t i) { return field(r.events[i], "end_ns"); };
  CHECK(end_of(0) == std::to_string(t0 + 2 * 3600 * 1'000'000'000LL));  // CANCELLED by 1000
  CHECK(field(r.events[0], "end_from") == "elapsed");
  CHECK(field(r.events[0], "cancelled_by") == "1000");
  CHECK(end_of(1) == std::to_string(t0 + 24 * 3600 * 1'000'000'000LL));  // TIMEOUT, 1-00:00:00
  CHECK(end_of(2) == std::to_string(t0 + 2710 * 1'000'000'000LL));       // NODE_FAIL, 45:10
  CHECK(end_of(3) == std::to_string(utc_ns(2024, 6, 12, 8, 12, 0)));     // OUT_OF_MEMORY with its End
  CHECK(field(r.events[3], "end_from") == "<absent>");
  CHECK(end_of(4) == "<absent>");                                        // RUNNING: open
  CHECK(end_of(5) == std::to_string(t0 + 26 * 3600 * 1'000'000'000LL));  // PREEMPTED, 1-02 (D-HH)
  CHECK(end_of(6) == "<absent>");                                        // SUSPENDED
  CHECK(end_of(7) == "<absent>");                                        // REQUEUED
  CHECK(end_of(8) == std::to_string(t0 + 7 * 1'000'000'000LL));          // FAILED
  bool noted = false;
  for (const auto& n : r.stats.notes)
    noted = noted || n == "5 jobs ended (End Unknown): the end taken as Start + Elapsed";
  CHECK(noted);
  // Without Elapsed, an ended job stays open, said in a note.
  const PrepRun open = run_prep_text("JobID|Start|End|State\n9|2024-06-12T08:00:00|Unknown|COMPLETED\n");
  REQUIRE(open.events.size() == 1);
  CHECK(field(open.events[0], "end_ns") == "<absent>");
  REQUIRE(open.stats.notes.size() == 1);
  CHECK(open.stats.notes[0].find("without an Elapsed") != std::string::npos);
}

TEST_CASE("prep::sacct: GPUs from AllocGRES (Slurm <= 20.02) or ReqTRES when AllocTRES names none", "[prep][sacct]") {
  const PrepRun old = run_prep_text(fixture("sacct/gres_slurm1905.txt"));
  check_accounting(old);
  CHECK(old.stats.malformed == 0);
  REQUIRE(old.events.size() == 3);
  CHECK(field(old.events[0], "gpus") == "4");
  CHECK(field(old.events[0], "gpu_types") == "v100");
  CHECK(field(old.events[0], "gpus_from") == "AllocGRES");
  CHECK(field(old.events[0], "energy_j") == "1512000");
  CHECK(field(old.events[1], "gpus") == "2");
  CHECK(field(old.events[2], "gpus") == "<absent>");
  CHECK(field(old.events[2], "gpus_from") == "<absent>");
  const PrepRun req = run_prep_text(fixture("sacct/reqtres_only.txt"));
  check_accounting(req);
  REQUIRE(req.events.size() == 1);
  CHECK(field(req.events[0], "gpus") == "2");
  CHECK(field(req.events[0], "gpu_types") == "a100");
  CHECK(field(req.events[0], "gpus_from") == "ReqTRES");
  // AllocTRES wins when it names GPUs.
  const PrepRun both = run_prep_text(
      "JobID|Start|End|AllocTRES|ReqTRES\n1|2024-06-12T08:00:00|2024-06-12T09:00:00|cpu=1,gres/gpu=8|cpu=1,gres/"
      "gpu=2\n");
  REQUIRE(both.events.size() == 1);
  CHECK(field(both.events[0], "gpus") == "8");
  CHECK(field(both.events[0], "gpus_from") == "<absent>");
}

TEST_CASE("extract: the telemetry's host not among the Slurm job's nodes is a warning naming both",
          "[extract][sacct]") {
  const auto features_on = [](const std::string& host) {
    gpucost::prep::PrepOptions prep;
    prep.host = host;
    prep.host_given = true;
    prep.host_basis = "option";
    auto reader = gpucost::io::LineReader::from_string(fixture("sacct/job_4242.txt"));
    auto telemetry = gpucost::io::LineReader::from_string(fixture("sacct/job_4242_query.csv"));
    auto clock = gpucost::LocalClock::make("Europe/Berlin");
    extract::SampleCollector samples;
    std::vector<gpucost::InputStats> stats(2);
    REQUIRE(gpucost::prep::run_prep_input(*reader, prep, *clock, samples, stats[0]));
    REQUIRE(gpucost::prep::run_prep_input(*telemetry, prep, *clock, samples, stats[1]));
    samples.note_inputs(stats);
    return extract::compute_features(samples, {}).value();
  };
  CHECK(extract::slurm_host_warning(features_on("gpu01")).empty());
  CHECK(extract::slurm_host_warning(features_on("gpu01.cluster.example")).empty());  // the short name
  const std::string w = extract::slurm_host_warning(features_on("login01"));
  CHECK(w ==
        "the telemetry's host login01 is not among the nodes of Slurm job 4242 (gpu01): the job's window is applied "
        "to another machine's telemetry; give the telemetry of the job's nodes (or --host NODE when it is theirs)");
  // A document of several hosts (one run of a job's nodes, or a merge) is checked host by host.
  extract::Features several = features_on("gpu01");
  several.host = "gpu01,login01";
  CHECK(extract::slurm_host_warning(several) ==
        "the telemetry's host login01 is not among the nodes of Slurm job 4242 (gpu01): the job's window is applied "
        "to another machine's telemetry; give the telemetry of the job's nodes (or --host NODE when it is theirs)");
  several.host = "login01,login02";
  CHECK(extract::slurm_host_warning(several).starts_with("the telemetry's hosts login01,login02 are not among"));
}
