// breakeven --follow: the running cost of the job in progress (docs/live.md). The files are
// followed into one sample collector; every --every the window so far (or the last --window)
// is priced again and -o and --prom are rewritten atomically; the end (a signal, --to passed,
// the training log's end) gives the last update and the ledger row.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/extract/sample_collector.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/outputs/prom_textfile.hpp>
#include <gpucost/pipeline/follow.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>

namespace gpucost::cli {

namespace {

using Clock = std::chrono::steady_clock;

/// "60s", "5m", "1h" or a number of seconds, as ns; none when it is not a positive duration.
std::optional<std::int64_t> duration_ns(std::string_view s) {
  double unit = 1;
  if (!s.empty() && (s.back() == 's' || s.back() == 'm' || s.back() == 'h')) {
    unit = s.back() == 's' ? 1 : s.back() == 'm' ? 60 : 3600;
    s.remove_suffix(1);
  }
  const auto v = text::parse_double(s);
  if (!v || !(*v > 0) || *v * unit > 366.0 * 86400) return std::nullopt;
  return static_cast<std::int64_t>(*v * unit * 1e9);
}

/// Training-log ends (`train` events of phase end) among what was read.
std::size_t train_ends(const extract::SampleCollector& samples) {
  const auto& marks = samples.train_marks();
  return static_cast<std::size_t>(
      std::count_if(marks.begin(), marks.end(), [](const auto& m) { return m.second == "end"; }));
}

/// breakeven's update: the outputs of the window so far; the last one also writes the ledger
/// row. Nothing to price yet (no sample): the textfile says gpucost_up 0.
class BreakevenUpdates {
 public:
  BreakevenUpdates(const ModelArgs& a, ModelRun& run) : m_args(a), m_run(run) {}

  int operator()(const Expected<extract::Features>& features, const std::vector<InputStats>& stats, bool last) {
    const std::int64_t now = wall_clock_ns();
    if (!features) {
      if (!m_said_waiting || last)
        fmt::print(stderr, "{} nothing to price {}: {}\n", prefix(last ? Level::warning : Level::note),
                   last ? "at the end" : "yet", text::printable(features.error().message));
      m_said_waiting = true;
      if (!m_args.prom.empty())
        (void)io::write_file_atomically(m_args.prom,
                                        outputs::prometheus_live_metrics(m_run.inputs.prep.host, false, now),
                                        io::WriteOptions{io::parse_file_mode(m_args.mode), io::Readers::shared, false});
      return last ? kError : kOk;
    }
    ModelArgs a = m_args;
    if (!last) a.ledger.clear();  // one row, when the window closes
    breakeven::CostConfig config = m_run.config;
    if (config.tariff_tz.empty()) config.tariff_tz = m_run.inputs.clock.name();
    const int status = price_and_write(a, std::move(config), m_run.offer, *features, stats, kOk,
                                       outputs::prometheus_live_metrics(features->host, true, now), m_first || last);
    m_first = false;
    return status;
  }

  /// SIGHUP: the config (and its offer) read again; a config that no longer loads keeps the old one.
  void reload() {
    auto fresh = follow_model_setup(m_args);
    if (!fresh) {
      fmt::print(stderr, "{} SIGHUP: the config was not reloaded: {}\n", prefix(Level::warning),
                 text::printable(fresh.error().message));
      return;
    }
    m_run.config = std::move(fresh->config);
    m_run.offer = std::move(fresh->offer);
    if (!m_args.in.quiet) fmt::print(stderr, "{} SIGHUP: config reloaded\n", prefix(Level::note));
  }

 private:
  const ModelArgs& m_args;
  ModelRun& m_run;
  bool m_first = true, m_said_waiting = false;
};

}  // namespace

Expected<LiveTiming> live_timing(std::string_view every, std::string_view window) {
  LiveTiming t;
  const auto every_ns = duration_ns(every);
  if (!every_ns)
    return make_error(ErrorKind::usage, fmt::format("--every: '{}' is not a duration", every),
                      "e.g. --every 60s, --every 5m");
  t.every_ns = *every_ns;
  if (!window.empty()) {
    t.window_ns = duration_ns(window);
    if (!t.window_ns)
      return make_error(ErrorKind::usage, fmt::format("--window: '{}' is not a duration", window), "e.g. --window 1h");
  }
  return t;
}

int run_breakeven_follow(const ModelArgs& a) {
  const auto timing = live_timing(a.every, a.live_window);
  if (!timing) return fail(timing.error());
  if (a.list_clouds || a.mc > 0)
    return fail(make_error(ErrorKind::usage, fmt::format("--follow with {}", a.list_clouds ? "--list-clouds" : "--mc"),
                           "run them without --follow"));
  auto run = follow_model_setup(a);
  if (!run) return fail(run.error());
  BreakevenUpdates updates(a, *run);
  LiveLoop loop{a.in, run->inputs, run->window, timing->every_ns, timing->window_ns};
  return follow_and_update(loop, std::ref(updates), [&] { updates.reload(); });
}

int follow_and_update(const LiveLoop& loop, const LiveUpdate& update, const std::function<void()>& on_hangup) {
  if (auto st = pipeline::FollowSignals::install(); !st) return fail(st.error());
  extract::SampleCollector samples;
  pipeline::Follower follower(loop.inputs.paths, loop.inputs.prep, loop.inputs.clock, samples, follow_settings());
  if (auto st = follower.start(); !st) return fail(st.error());
  const auto update_now = [&](const std::vector<InputStats>& stats, bool last) {
    samples.note_inputs(stats);
    extract::ExtractOptions window = loop.window;
    if (loop.window_ns && !samples.store().empty() && !window.from_ns)
      window.from_ns = samples.store().max_ts() - *loop.window_ns;
    return update(extract::compute_features(samples, window), stats, last);
  };
  const std::size_t ends_at_start = train_ends(samples);
  const auto every = std::chrono::nanoseconds(loop.every_ns);
  Clock::time_point next = Clock::now();  // the first update at once
  for (;;) {
    for (const std::string& w : follower.take_warnings())
      fmt::print(stderr, "{} {}\n", prefix(Level::warning), text::printable(w));
    if (pipeline::FollowSignals::take_hangup() && on_hangup) on_hangup();
    const bool passed_to =
        loop.window.to_ns && !samples.store().empty() && samples.store().max_ts() >= *loop.window.to_ns;
    if (pipeline::FollowSignals::stop_requested() || passed_to || train_ends(samples) > ends_at_start) break;
    if (Clock::now() >= next) {
      update_now(follower.stats(), false);
      next = Clock::now() + every;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
    follower.wait_and_read(std::max(left, std::chrono::milliseconds(1)));
    pipeline::FollowSignals::drain();
  }
  const std::vector<InputStats> stats = follower.finish();
  const int status = finish_inputs(stats, loop.in, loop.inputs.clock);
  return std::max(status, update_now(stats, true));
}

}  // namespace gpucost::cli
