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

TEST_CASE("extract: a Slurm job's start and end are the window; its record goes with the features",
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
