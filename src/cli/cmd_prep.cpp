// gpucost prep: raw logs in, one gpucost.events stream out.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/pipeline/event_filter.hpp>
#include <gpucost/pipeline/follow.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/pipeline/merge.hpp>
#include <gpucost/pipeline/trace_job_events.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace gpucost::cli {

namespace {

struct PrepArgs {
  InputArgs in;
  std::string output = "-", output_format = "jsonl", kinds, from, to;
  bool follow = false;
};

/// What --kinds/--from/--to left out, and the kinds asked for that no event had (likely a typo:
/// a warning, even with -q).
void report_selection(const pipeline::EventFilter& filter, const pipeline::EventSelection& selection, bool quiet) {
  const std::string seen = text::join(filter.kinds_seen(), ", ");
  for (const std::string& kind : filter.kinds_not_seen()) {
    fmt::print(stderr, "{} --kinds: no event of kind '{}' in the inputs (kinds seen: {})\n", prefix(Level::warning),
               kind, seen.empty() ? "none" : seen);
  }
  if (!quiet)
    fmt::print(stderr, "{} prep: {} written, {} left out by {}\n", prefix(Level::note),
               text::counted(static_cast<long long>(filter.passed()), "event"),
               text::counted(static_cast<long long>(filter.left_out()), "event"), selection.describe());
}

/// The stream prep writes: the header, then the events through the --kinds/--from/--to filter,
/// and the jobs of the traces' ranks after every input (they need all the ranks), then the summary.
class PrepStream {
 public:
  PrepStream(std::FILE* out, const PrepArgs& args, const Inputs& inputs, const pipeline::EventSelection& selection)
      : m_writer(out, args.output_format == "tsv" ? io::StreamFormat::tsv : io::StreamFormat::jsonl),
        m_filter(m_writer, selection),
        m_selection(selection),
        m_jobs(selection.everything() ? static_cast<EventSink&>(m_writer) : m_filter) {
    m_writer.write_header(inputs.clock.name(), GPUCOST_VERSION, inputs.prep.host_basis);
  }
  [[nodiscard]] EventSink& sink() { return m_jobs; }
  [[nodiscard]] io::EventWriter& writer() { return m_writer; }
  /// The trace jobs (when every input was read), what the selection left out, the summary.
  void end(const std::vector<InputStats>& stats, bool read_all) {
    if (read_all) m_writer.set_derived(m_jobs.finish());
    if (!m_selection.everything()) m_writer.set_selection(m_selection.describe(), m_filter.left_out());
    m_writer.write_summary(stats);
    m_writer.flush();
  }
  /// The selection's counts on stderr (after the inputs' own accounting).
  void report(bool quiet) const {
    if (!m_selection.everything()) report_selection(m_filter, m_selection, quiet);
  }

 private:
  io::EventWriter m_writer;
  pipeline::EventFilter m_filter;
  const pipeline::EventSelection& m_selection;
  pipeline::TraceJobEvents m_jobs;
};

/// prep --follow: the events of what the files hold, then of what is appended, written and flushed
/// as they come, until SIGTERM or SIGINT; then the summary (docs/live.md).
int run_prep_follow(const PrepArgs& args) {
  auto inputs = open_follow_inputs(args.in);
  if (!inputs) return fail(inputs.error());
  auto selection = pipeline::parse_event_selection(args.kinds, args.from, args.to, inputs->clock);
  if (!selection) return fail(selection.error());
  if (auto st = pipeline::FollowSignals::install(); !st) return fail(st.error());
  // Live: the new file replaces the old one at the start and grows as the events come.
  auto out = io::OutputFile::open(args.output, io::WriteOptions{std::nullopt, io::Readers::shared, true});
  if (!out) return fail(out.error());
  std::FILE* file = out->stream();
  PrepStream stream(file, args, *inputs, *selection);
  pipeline::Follower follower(inputs->paths, inputs->prep, inputs->clock, stream.sink(), follow_settings());
  if (auto st = follower.start(); !st) return fail(st.error());
  for (;;) {
    for (const std::string& w : follower.take_warnings())
      fmt::print(stderr, "{} {}\n", prefix(Level::warning), text::printable(w));
    stream.writer().flush();
    const bool written = std::fflush(file) == 0;  // the writer's buffer reaches the FILE, this the file
    if (!written || stream.writer().failed() || pipeline::FollowSignals::stop_requested()) break;  // EPIPE, a signal
    follower.wait_and_read(std::chrono::seconds(1));
    pipeline::FollowSignals::drain();
    (void)pipeline::FollowSignals::take_hangup();  // nothing to reopen: the stream is written as it goes
  }
  const std::vector<InputStats> stats = follower.finish();
  stream.end(stats, true);
  if (auto st = out->commit(); !st && !stream.writer().failed()) return fail(st.error());
  const int status = finish_inputs(stats, args.in, inputs->clock);
  stream.report(args.in.quiet);
  return status;
}

int run_prep(const PrepArgs& args) {
  if (args.follow) return run_prep_follow(args);
  auto inputs = open_inputs(args.in, args.from, args.to);
  if (!inputs) return fail(inputs.error());
  auto selection = pipeline::parse_event_selection(args.kinds, args.from, args.to, inputs->clock);
  if (!selection) return fail(selection.error());
  auto out = io::OutputFile::open(args.output);
  if (!out) return fail(out.error());
  PrepStream stream(out->stream(), args, *inputs, *selection);
  std::vector<InputStats> stats;
  // One input streams straight through in its own order; several are merged by time.
  const Status st = inputs->paths.size() == 1
                        ? pipeline::feed_inputs(inputs->probed, inputs->prep, inputs->clock, stream.sink(), stats)
                        : pipeline::merge_inputs(inputs->probed, inputs->prep, inputs->clock, stream.sink(), stats);
  stream.end(stats, static_cast<bool>(st));
  if (!st) return fail(st.error());
  if (stream.writer().failed() && errno != EPIPE) {
    const int err = errno;
    return fail(
        make_error(ErrorKind::io,
                   fmt::format("{}: write failed: {}", args.output == "-" ? "stdout" : args.output, std::strerror(err)),
                   io::write_failure_hint(err)));
  }
  if (auto c = out->commit(); !c) return fail(c.error());
  const int status = finish_inputs(stats, args.in, inputs->clock);
  stream.report(args.in.quiet);
  return status;
}

}  // namespace

Runner define_prep(CLI::App& cmd) {
  auto args = std::make_shared<PrepArgs>();
  add_input_options(&cmd, args->in);
  add_prometheus_options(&cmd, args->in);
  add_slurm_option(&cmd, args->in);
  cmd.add_option("-o,--output", args->output, "output file (written atomically), - = stdout")
      ->type_name("FILE")
      ->group("Output");
  cmd.add_option("--output-format", args->output_format, "jsonl (default) or tsv")
      ->check(CLI::IsMember({"jsonl", "tsv"}))
      ->type_name("FMT")
      ->group("Output");
  cmd.add_option("--kinds", args->kinds,
                 "only events of these kinds, comma-separated (e.g. xid,aer,gpu_lost); the rest are counted in the "
                 "summary")
      ->type_name("LIST")
      ->group("Select");
  cmd.add_option("--from", args->from, "only events at or after this time (ISO 8601; local in --tz unless Z/offset)")
      ->type_name("TIME")
      ->group("Select");
  cmd.add_option("--to", args->to, "only events before this time")->type_name("TIME")->group("Select");
  cmd.add_flag("--follow", args->follow,
               "after reading the files, keep reading what is appended, like tail -F (rotations by rename and "
               "copytruncate, files that appear later); events are flushed as they come; SIGTERM or SIGINT ends "
               "it with the summary (docs/live.md)")
      ->group("Live");
  cmd.footer(
      footer_with_example("gpucost prep dmon.log query.csv.gz > events.jsonl\n"
                          "         gpucost prep --kinds xid,gpu_lost --output-format tsv /var/log/kern.log"));
  return [args] { return run_prep(*args); };
}

}  // namespace gpucost::cli
