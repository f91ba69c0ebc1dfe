#include "options.hpp"

#include "console.hpp"
#include "help_format.hpp"

#include <gpucost/breakeven/attribution.hpp>
#include <gpucost/breakeven/reference_rates.hpp>
#include <gpucost/core/log.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/pipeline/inputs.hpp>

#include <fmt/format.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

namespace gpucost::cli {

namespace {

void add_tz_option(CLI::App* app, InputArgs& a) {
  app->add_option("--tz", a.settings.tz, "IANA zone of local times in the logs (default: this machine's zone)")
      ->type_name("ZONE")
      ->group("Input");
}

void add_host_option(CLI::App* app, InputArgs& a) {
  app->add_option(
         "--host", a.settings.host,
         "host name for every event, over the names in the logs (default: the line's host, else this machine's)")
      ->type_name("NAME")
      ->group("Input");
}

void add_verbosity_options(CLI::App* app, InputArgs& a) {
  app->add_flag("-q,--quiet", a.quiet, "do not print notes (warnings and errors still go to stderr)");
  app->add_flag("-v,--verbose", a.verbose, "log progress to stderr (-v info, -vv debug); also GPUCOST_LOG=LEVEL");
}

/// The options for logs whose lines lack what a time or a format needs.
void add_reading_options(CLI::App* app, pipeline::InputSettings& s) {
  app->add_option("--date", s.date, "date of dmon -o T output (time of day only)")
      ->type_name("YYYY-MM-DD")
      ->group("Input");
  app->add_option("--start", s.start, "time of the first row for logs without times (ISO 8601; local unless Z/offset)")
      ->type_name("TIME")
      ->group("Input");
  app->add_option("--interval", s.interval_s, "seconds between cycles for logs without times (dmon -d, -l)")
      ->type_name("SECONDS")
      ->group("Input");
  app->add_option("--boot-time", s.boot_time,
                  "boot time for kernel uptime stamps (dmesg, journalctl -o short-monotonic): ISO 8601 "
                  "(local unless Z/offset) or seconds since the epoch")
      ->type_name("TIME")
      ->group("Input");
  app->add_option("--year", s.year,
                  "year of the first syslog/journalctl stamp without a year (default: inferred "
                  "from the file's modification time)")
      ->type_name("YYYY")
      ->group("Input");
  app->add_option("--fields", s.fields, "the --query-gpu field list, for CSV written with noheader")
      ->type_name("LIST")
      ->group("Input");
  app->add_option("--sacct-format", s.sacct_format,
                  "the field list of sacct output written with -n (no header), as given to sacct's --format "
                  "(default: the list --slurm-job asks for)")
      ->type_name("LIST")
      ->group("Input");
  app->add_option("--sacct-delimiter", s.sacct_delimiter,
                  "the delimiter of sacct output written with --delimiter=STR (default |; a multi-character one "
                  "is also found by itself)")
      ->type_name("STR")
      ->group("Input");
  app->add_option("--steps", s.steps, "trace analyses on ProfilerStep#A (or #A to #B) only; default the whole trace")
      ->type_name("A[-B]")
      ->group("Input");
  app->add_option("--max-line", s.max_line,
                  "lines longer than this are reported as malformed with their length, never held in memory "
                  "(default 4M; suffixes K, M, G: 1024-based; at least 64K)")
      ->type_name("BYTES")
      ->group("Input");
  app->add_option("--top-kernels", s.top_kernels, "kernels listed per GPU from a trace (default 10)")
      ->type_name("N")
      ->group("Input");
  app->add_option("--pattern", s.patterns,
                  "RE2 regex with named groups (ts, dur_ms, dur_us, dur_s, dur_ns, step, phase, loss, name, ...): "
                  "matching lines of a training log become `pattern` events (repeatable)")
      ->type_name("REGEX")
      ->allow_extra_args(false)
      ->group("Input");
}

/// The names --input-format offers: prep's formats (it also takes a few aliases).
std::vector<std::string> format_list() {
  std::vector<std::string> out;
  const std::string names = format_names();
  for (std::size_t pos = 0; pos < names.size();) {
    const std::size_t comma = names.find(", ", pos);
    out.push_back(names.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    pos = comma == std::string::npos ? names.size() : comma + 2;
  }
  return out;
}

Expected<breakeven::CostConfig> model_config(const ModelArgs& a) {
  auto config = breakeven::load_config(a.config.empty() ? std::nullopt : std::optional<std::string>(a.config), a.sets,
                                       !a.cloud.empty());
  if (!config) return config.error();
  if (!std::isnan(a.speed_ratio)) {
    if (!(a.speed_ratio > 0) || a.speed_ratio > 1000)
      return make_error(ErrorKind::usage, fmt::format("--speed-ratio: {} is out of range", a.speed_ratio),
                        "it must be in (0, 1000]: cloud GPU speed / local GPU speed on this job, e.g. 1.6");
    config->speed_ratio = a.speed_ratio;
    config->speed_ratio_source = "flag";
  }
  if (!a.faults.empty()) config->faults = a.faults;
  if (!a.cloud.empty()) config->cloud_offer = a.cloud;
  // An offer in another currency without an [exchange] rate takes the ECB rates: those offers update
  // stored when they are as recent as the built-in ones, else the built-in ones.
  auto catalogue = run_catalogue(a.clouds, a.in.quiet);
  if (!catalogue) return catalogue.error();
  breakeven::use_newest_rates(*config, (*catalogue)->rates);
  return config;
}

/// The catalogue offer the config or --cloud names; none when it names none.
Expected<std::optional<breakeven::CloudOffer>> chosen_offer(const breakeven::CostConfig& config, const ModelArgs& a) {
  if (config.cloud_offer.empty()) return std::optional<breakeven::CloudOffer>{};
  auto catalogue = run_catalogue(a.clouds, a.in.quiet);
  if (!catalogue) return catalogue.error();
  auto found = breakeven::find_cloud_offer(config.cloud_offer, (*catalogue)->offers);
  if (!found) return found.error();
  return std::optional<breakeven::CloudOffer>{*found};
}

/// Logs typed on a terminal are never what the user meant: no input named and stdin a terminal is
/// refused (a job that waits silently looks hung); "-" named on a terminal gets a note.
Status check_terminal_stdin(const InputArgs& a) {
  if (::isatty(STDIN_FILENO) == 0) return {};
  // the telemetry comes from the server, or the job's record is the input
  if (a.inputs.empty() && (!a.prometheus.url.empty() || !a.slurm_job.empty())) return {};
  if (a.inputs.empty())
    return make_error(ErrorKind::usage, "no input given, and stdin is a terminal",
                      "name the logs (e.g. gpucost breakeven -c costs.toml gpu.csv kern.log), or pipe them in "
                      "(... | gpucost breakeven -c costs.toml -)");
  if (!a.quiet && std::find(a.inputs.begin(), a.inputs.end(), "-") != a.inputs.end())
    fmt::print(stderr, "{} reading logs from the terminal (stdin); end them with Ctrl-D\n", prefix(Level::note));
  return {};
}

/// --prometheus: the window's series, as one input that fetches its slices while it is read
/// (`jobs` at once); notes and a warning on stderr (the credentials are never printed).
Expected<pipeline::ProbedInput> fetch_prometheus_input(const InputArgs& a, const pipeline::PrometheusSettings& settings,
                                                       const std::string& from, const std::string& to,
                                                       std::optional<std::int64_t> from_ns,
                                                       std::optional<std::int64_t> to_ns, LocalClock& clock,
                                                       unsigned jobs) {
  if (!from.empty()) {
    auto t = pipeline::parse_instant("--from", from, clock);
    if (!t) return t.error();
    from_ns = *t;
  }
  if (!to.empty()) {
    auto t = pipeline::parse_instant("--to", to, clock);
    if (!t) return t.error();
    to_ns = *t;
  }
  const auto now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch());
  auto query = pipeline::prometheus_query(settings, from_ns, to_ns, now.count());
  if (!query) return query.error();
  if (const auto n = text::parse_int(env_or_empty("GPUCOST_PROMETHEUS_MAX_POINTS")); n && *n >= 2)
    query->max_points = *n;  // tests: several ranges from a short window
  auto auth = pipeline::prometheus_auth_from_env();
  if (!auth) return auth.error();
  if (auth->insecure)
    fmt::print(stderr, "{} GPUCOST_PROMETHEUS_INSECURE=1: the server's TLS certificate is not checked\n",
               prefix(Level::warning));
  io::HttpOptions http = pipeline::prometheus_http_options(*auth, settings.headers);
  if (const std::string w = io::cleartext_credentials_warning(query->base_url, http); !w.empty())
    fmt::print(stderr, "{} {}\n", prefix(Level::warning), w);
  apply_http_backoff_env(http);
  // On this machine the bytes cost nothing and gzip's decoding costs more than the answer's parse;
  // across a network the sixfold smaller answers win.
  http.accept_encoding = io::loopback_host(query->base_url) ? "identity" : "";
  if (std::string e = env_or_empty("GPUCOST_PROMETHEUS_ACCEPT_ENCODING"); !e.empty())  // measurements
    http.accept_encoding = e == "any" ? std::string() : std::move(e);
  auto fetched = pipeline::fetch_prometheus(
      *query, [http] { return io::make_http_fetcher(http); }, jobs);
  if (!fetched) return fetched.error();
  if (!a.quiet)
    for (const std::string& n : fetched->notes) fmt::print(stderr, "{} {}\n", prefix(Level::note), n);
  return std::move(fetched->input);
}

/// The text of the sacct record --slurm-job reads: sacct's answer, or a saved file among the inputs.
Expected<std::string> sacct_text(const Inputs& in) {
  std::string path = in.sacct ? in.sacct->path() : std::string();
  for (const pipeline::ProbedInput& p : in.probed)
    if (path.empty() && p.format == Format::sacct && !p.read_once) path = p.path;
  if (path.empty())
    return make_error(ErrorKind::usage, "--slurm-job with --prometheus: the job's sacct record is read from a pipe",
                      "give the saved sacct file by name, or leave it out: --slurm-job asks sacct");
  auto reader = io::LineReader::open(path);
  if (!reader) return reader.error();
  std::string text;
  io::Line line;
  while ((*reader)->next(line)) {
    text += line.text;
    text += '\n';
  }
  return text;
}

/// `a|b.c` as a regex that matches exactly those names (RE2 syntax: metacharacters escaped).
std::string names_regex(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += '|';
    for (const char c : n) {
      if (std::string_view("\\.+*?()|[]{}^$").find(c) != std::string_view::npos) out += "\\\\";
      out += c;
    }
  }
  return out;
}

/// --slurm-job with --prometheus: the job scopes the query. Its start and end are the window where
/// --from/--to do not give it, and its nodes the hosts (dcgm-exporter's Hostname label) where no
/// --match is given. The notes say what was taken from the job.
Status scope_to_slurm_job(const InputArgs& a, Inputs& in, pipeline::PrometheusSettings& settings,
                          const std::string& from, const std::string& to, std::optional<std::int64_t>& from_ns,
                          std::optional<std::int64_t>& to_ns) {
  if (a.slurm_job.empty()) return {};
  auto text = sacct_text(in);
  if (!text) return text.error();
  LocalClock utc = LocalClock::utc();
  auto job = record::pick_slurm_job(*text, a.slurm_job, in.sacct ? utc : in.clock);
  if (!job) return job.error();
  if (from.empty()) from_ns = job->start_ns;
  if (to.empty() && job->end_ns) to_ns = *job->end_ns + 1;  // --to is exclusive, the job's end is in it
  if (settings.matchers.empty()) settings.matchers.push_back(fmt::format("Hostname=~\"{}\"", names_regex(job->nodes)));
  if (!a.quiet)
    fmt::print(stderr, "{} --prometheus scoped to Slurm job {}: {}{}\n", prefix(Level::note), job->id,
               settings.matchers.size() == 1 && a.prometheus.matchers.empty()
                   ? fmt::format("nodes {} (dcgm-exporter's Hostname label)", job->nodelist)
                   : "the --match given",
               from.empty() || to.empty() ? ", over the job's window" : "");
  return {};
}

/// --match without --prometheus picks series: an input must have them (a saved Prometheus answer,
/// an exporter's /metrics text), or the matchers would silently change nothing.
Status check_match_has_series(const InputArgs& a, const std::vector<pipeline::ProbedInput>& probed) {
  if (a.prometheus.matchers.empty()) return {};
  for (const pipeline::ProbedInput& p : probed)
    if (p.format == Format::prometheus_json || p.format == Format::exposition) return {};
  return make_error(ErrorKind::usage, "--match: no input has Prometheus series to match",
                    "--match picks the series of --prometheus URL, of a saved Prometheus answer (prometheus-json) or "
                    "of an exporter's /metrics text (exposition); other inputs have no labels");
}

/// --slurm-job without a sacct input among the inputs: sacct is asked, its answer read as one more
/// input. With a saved sacct -P file, the job is picked from it (extract's window).
Status add_slurm_input(const InputArgs& a, Inputs& in) {
  if (a.slurm_job.empty()) return {};
  for (const pipeline::ProbedInput& p : in.probed)
    if (p.format == Format::sacct) return {};
  if (in.prep.forced != Format::unknown && in.prep.forced != Format::sacct)
    return make_error(
        ErrorKind::usage,
        fmt::format("--slurm-job: sacct's answer cannot be read as --input-format {}", a.settings.input_format),
        "leave --input-format out (every format is detected), or save the job's record and give it "
        "with the other inputs");
  auto file = record::query_sacct(a.slurm_job);
  if (!file) return file.error();
  in.sacct = std::move(*file);
  auto probed = pipeline::probe_inputs({in.sacct->path()}, in.prep);
  if (!probed) return probed.error();
  in.paths.push_back(in.sacct->path());
  in.probed.push_back(std::move(probed->front()));
  return {};
}

}  // namespace

void add_prometheus_options(CLI::App* app, InputArgs& a) {
  app->add_option("--prometheus", a.prometheus.url,
                  "read the GPU telemetry (dcgm-exporter, nvidia_gpu_exporter series) from this Prometheus server "
                  "over --from/--to (--from required, --to default now); credentials from GPUCOST_PROMETHEUS_TOKEN "
                  "or GPUCOST_PROMETHEUS_USER/_PASSWORD (docs/formats.md)")
      ->type_name("URL")
      ->group("Prometheus");
  app->add_option("--match", a.prometheus.matchers,
                  "a label matcher every series must meet, e.g. 'Hostname=\"node01\"' (repeatable): of "
                  "--prometheus, of a saved Prometheus answer or of an exporter's /metrics text")
      ->type_name("MATCHER")
      ->allow_extra_args(false)
      ->group("Prometheus");
  app->add_option("--header", a.prometheus.headers,
                  "with --prometheus: a header 'NAME: VALUE' sent with each query, e.g. 'X-Scope-OrgID: tenant1' "
                  "for Mimir (repeatable; never printed)")
      ->type_name("HEADER")
      ->allow_extra_args(false)
      ->group("Prometheus");
  app->add_option("--step", a.prometheus.step,
                  "with --prometheus: the query's resolution (default 15s; best: the exporter's scrape interval)")
      ->type_name("DURATION")
      ->group("Prometheus");
}

std::string footer_with_example(std::string_view example) {
  return fmt::format("Example: {}\n{}", example, kExitFooter);
}

void add_input_options(CLI::App* app, InputArgs& a) {
  app->add_option("inputs", a.inputs, "log files, globs or - for stdin (.gz/.zst read transparently)")
      ->type_name("FILE");
  app->add_option("--input-format", a.settings.input_format, "force the format: " + format_names())
      ->check(offers(format_list()))
      ->type_name("NAME")
      ->group("Input");
  add_tz_option(app, a);
  add_reading_options(app, a.settings);
  add_host_option(app, a);
  app->add_option("-j,--jobs", a.settings.jobs,
                  "threads: a query CSV, dmon or journal JSON parsed in chunks side by side, .gz/.zst decompressed "
                  "beside the parse, GPUs walked side by side (default: the cores this process may use, or "
                  "GPUCOST_JOBS; 1 = one thread); the output is the same for every N")
      ->check(CLI::Range(1u, 1024u))
      ->type_name("N")
      ->group("Input");
  app->add_flag("--strict", a.strict, "exit with status 1 when any input line is malformed or an input is cut short")
      ->group("Input");
  add_verbosity_options(app, a);
}

void add_slurm_option(CLI::App* app, InputArgs& a) {
  app->add_option("--slurm-job", a.slurm_job,
                  "a Slurm job: its start and end are the window (flags win), its record (nodes, GPUs, state, "
                  "energy) goes with the features; from a sacct -P input when one is given, else asked of sacct "
                  "(run with TZ=UTC SLURM_TIME_FORMAT=%s)")
      ->type_name("ID")
      ->group("Window");
}

void add_work_options(CLI::App* app, InputArgs& a) {
  app->add_option("--tokens-per-step", a.tokens_per_step,
                  "tokens one optimizer step trains (batch x sequence length x accumulation x ranks), for "
                  "work_tokens when the training log counts none (HF num_input_tokens_seen)")
      ->check(CLI::PositiveNumber)
      ->type_name("N")
      ->group("Work");
  app->add_option("--samples-per-step", a.samples_per_step,
                  "samples one optimizer step trains (the global batch size), for work_samples when the training log "
                  "has no HF summary")
      ->check(CLI::PositiveNumber)
      ->type_name("N")
      ->group("Work");
}

void apply_work_options(const InputArgs& a, extract::ExtractOptions& window) {
  window.tokens_per_step = a.tokens_per_step;
  window.samples_per_step = a.samples_per_step;
}

void add_clock_and_verbosity_options(CLI::App* app, InputArgs& a) {
  add_host_option(app, a);
  add_tz_option(app, a);
  add_verbosity_options(app, a);
}

void add_model_options(CLI::App* app, ModelArgs& a) {
  app->add_option("-c,--config", a.config, "cost configuration (TOML; its keys in docs/cost-model.md)")
      ->type_name("FILE.toml")
      ->group("Model");
  app->add_option("--set", a.sets, "override a config key, e.g. --set cloud.rate_per_hour=2.5")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false)
      ->group("Model");
  app->add_option("--from", a.from, "window start (ISO 8601; local in --tz unless Z/offset)")
      ->type_name("TIME")
      ->group("Window");
  app->add_option("--to", a.to, "window end, exclusive")->type_name("TIME")->group("Window");
  app->add_option("--cloud", a.cloud, "price the cloud side with a catalogue offer (see breakeven --list-clouds)")
      ->type_name("OFFER")
      ->group("Model");
  app->add_option("--clouds", a.clouds,
                  "add a catalogue of your own (repeatable): gpucost's TOML, or a SkyPilot vms.csv; its offers "
                  "replace those of the same name")
      ->type_name("FILE")
      ->allow_extra_args(false)
      ->group("Model");
  app->add_option("--speed-ratio", a.speed_ratio,
                  "cloud GPU speed / local GPU speed on this job (wins over config, offer and speed table)")
      ->type_name("X")
      ->group("Model");
  app->add_option("--gpu", a.gpu,
                  "without telemetry: the GPU model that ran the job (gpucost gpus lists them); its energy is "
                  "estimated from the model, with bounds")
      ->type_name("NAME")
      ->group("Estimate");
  app->add_option("--gpus", a.gpus, "without telemetry: how many GPUs the job used")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->group("Estimate");
  app->add_option("--util", a.util,
                  "without telemetry or a trace: how busy the GPUs were, 0-1 or a percentage (e.g. 0.8, 80%)")
      ->type_name("SHARE")
      ->group("Estimate");
  app->add_flag("--estimate", a.estimate,
                "with telemetry: also estimate the energy from the GPU model and show it beside the measurement")
      ->group("Estimate");
  app->add_option("--fill", a.fill,
                  "energy of time without samples: mean (at the GPU's mean power, default), idle (at "
                  "local.idle_power_w) or none (price the measured time only)")
      ->check(offers({"mean", "idle", "none"}))
      ->type_name("RULE")
      ->group("Model");
  app->add_option("--faults", a.faults,
                  "where a fault the application caused (Xid 13, 31, 43 ...) is priced: both-sides (on the cloud "
                  "too: the same bug crashes a rented GPU; default), hardware-only (on neither side) or all-local; "
                  "hardware and unknown faults stay local (local.faults)")
      ->check(offers({"both-sides", "hardware-only", "all-local"}))
      ->type_name("RULE")
      ->group("Model");
}

void add_attribution_option(CLI::App* app, ModelArgs& a) {
  app->add_option("--by", a.by,
                  "split the job's cost over the processes that computed on its GPUs (nvidia-smi pmon), grouped by "
                  "process, user or cgroup (users and cgroups from gpucost record's /proc scan); lists the processes "
                  "that held a GPU without computing")
      ->check(offers({"process", "user", "cgroup"}))
      ->type_name("WHAT")
      ->group("Model");
}

void add_output_options(CLI::App* app, ModelArgs& a) {
  app->add_flag("--json", a.json, "print JSON instead of the table")->group("Output");
  app->add_flag("--full", a.full,
                "print every figure and its basis (sensitivity, premium range, offers, incidents); the default is "
                "one screen: the verdict, the costs, the break-evens and the largest findings")
      ->group("Output");
  app->add_option("-o,--output", a.output, "output file (written atomically), - = stdout")
      ->type_name("FILE")
      ->group("Output");
  app->add_flag("--fail-above", a.fail_above, "exit with status 3 when the premium is above the line")->group("Output");
  app->add_flag("--explain", a.explain,
                "list the findings (what drives the premium, what to change) even below the line, with their evidence "
                "(implies --full)")
      ->group("Output");
  app->add_option("--suggest", a.suggest, "also write the findings as a Markdown note (atomically)")
      ->type_name("FILE.md")
      ->group("Output");
  app->add_option(
         "--prom", a.prom,
         "also write the figures as a Prometheus textfile (atomically, for node_exporter's textfile collector)")
      ->type_name("FILE")
      ->group("Output");
  app->add_option("--mode", a.mode,
                  "permission bits of the files written (-o, --prom, --suggest, a new --ledger), in octal, e.g. 0640 "
                  "(default: 0644 less the umask, or the mode of the file replaced when it is yours; a new ledger "
                  "0600)")
      ->type_name("OCTAL")
      ->group("Output");
  app->add_option("--ledger", a.ledger,
                  "also record the run and its indicators in this SQLite ledger (created when missing; the same "
                  "inputs, window and config replace their earlier row)")
      ->type_name("FILE")
      ->group("Output");
  app->add_flag("--ledger-append", a.ledger_append, "keep an earlier row of the same run in the ledger")
      ->group("Output");
}

namespace {

void start_log(const InputArgs& a) {
  if (a.verbose > 0)
    enable_stderr_log(a.verbose == 1 ? "info" : "debug");
  else if (const char* env = std::getenv("GPUCOST_LOG"); env != nullptr && *env != '\0')
    enable_stderr_log(env);
}

/// The prep options and the clock of the input flags.
Status read_settings(const InputArgs& a, Inputs& in) {
  auto po = pipeline::prep_options(a.settings);
  if (!po) return po.error();
  in.prep = std::move(*po);
  // --match also picks the series of a saved answer or a /metrics text (with --prometheus, the
  // server has applied it already).
  for (const std::string& m : a.prometheus.matchers) GPUCOST_TRY(pipeline::check_matcher(m));  // its quoting hint
  GPUCOST_TRY(prep::check_label_matchers(a.prometheus.matchers));                              // and its regex
  in.prep.label_matchers = a.prometheus.matchers;
  auto clock = LocalClock::make(a.settings.tz);
  if (!clock) return clock.error();
  in.clock = *clock;
  return {};
}

}  // namespace

Expected<Inputs> open_follow_inputs(const InputArgs& a) {
  start_log(a);
  if (!a.prometheus.url.empty() || !a.slurm_job.empty())
    return make_error(ErrorKind::usage,
                      fmt::format("--follow with {}: only files are followed",
                                  a.prometheus.url.empty() ? "--slurm-job" : "--prometheus"),
                      "a Prometheus query or a Slurm record is read once: run without --follow");
  if (a.inputs.empty())
    return make_error(ErrorKind::usage, "--follow: no file named",
                      "name the logs to follow, e.g. gpucost prep --follow /var/log/gpu/query.csv");
  Inputs in;
  GPUCOST_TRY(read_settings(a, in));
  in.paths = a.inputs;
  return in;
}

pipeline::FollowSettings follow_settings() {
  pipeline::FollowSettings s;
  if (const char* ms = std::getenv("GPUCOST_FOLLOW_POLL_MS"); ms != nullptr)
    if (const auto v = text::parse_int(ms); v && *v >= 10 && *v <= 600'000) s.poll = std::chrono::milliseconds(*v);
  if (const char* on = std::getenv("GPUCOST_FOLLOW_INOTIFY"); on != nullptr && std::string_view(on) == "0")
    s.inotify = false;
  return s;
}

Expected<Inputs> open_inputs(const InputArgs& a, const std::string& from, const std::string& to) {
  start_log(a);
  GPUCOST_TRY(check_terminal_stdin(a));
  Inputs in;
  GPUCOST_TRY(read_settings(a, in));
  io::set_decompress_ahead(in.prep.jobs >= 2);
  const bool prometheus = !a.prometheus.url.empty();
  if (!prometheus && (!a.prometheus.headers.empty() || !a.prometheus.step.empty()))
    return make_error(ErrorKind::usage,
                      fmt::format("{}: only with --prometheus", a.prometheus.step.empty() ? "--header" : "--step"),
                      "--header and --step shape the query of --prometheus URL (--steps picks profiler steps)");
  const bool slurm_alone = a.inputs.empty() && !a.slurm_job.empty();  // the job's record is the input
  const bool stdin_default = a.inputs.empty() && !prometheus && !slurm_alone;
  auto globbed = pipeline::expand_inputs(stdin_default ? std::vector<std::string>{"-"} : a.inputs);
  if (!globbed) return globbed.error();
  auto paths = pipeline::expand_trace_directories(*globbed);  // a directory of rank traces
  if (!paths) return paths.error();
  in.paths = std::move(*paths);
  if (in.paths.empty() && !prometheus && !slurm_alone) in.paths.emplace_back("-");
  // Refuse unreadable inputs before any output is written.
  auto probed = pipeline::probe_inputs(in.paths, in.prep);
  if (!probed) return probed.error();
  in.probed = std::move(*probed);
  if (!prometheus) GPUCOST_TRY(check_match_has_series(a, in.probed));
  GPUCOST_TRY(add_slurm_input(a, in));
  if (prometheus) {  // fetched before anything is written: a server's error stops the run here
    pipeline::PrometheusSettings settings = a.prometheus;
    std::optional<std::int64_t> from_ns, to_ns;
    GPUCOST_TRY(scope_to_slurm_job(a, in, settings, from, to, from_ns, to_ns));
    auto fetched = fetch_prometheus_input(a, settings, from, to, from_ns, to_ns, in.clock, in.prep.jobs);
    if (!fetched) return fetched.error();
    in.paths.insert(in.paths.begin(), fetched->path);
    in.probed.insert(in.probed.begin(), std::move(*fetched));
  }
  in.prep = pipeline::with_journal_boot_time(in.probed, std::move(in.prep));
  in.prep = pipeline::with_host_from_inputs(in.probed, std::move(in.prep));
  start_progress(pipeline::plain_input_bytes(in.probed), a.quiet);
  return in;
}

int finish_inputs(const std::vector<InputStats>& stats, const InputArgs& a, const LocalClock& clock) {
  if (clock.fell_back_to_utc() && !a.quiet)
    fmt::print(stderr, "{} this machine has no time zone set: local times are read as UTC (use --tz)\n",
               prefix(Level::note));
  const std::uint64_t malformed = report_inputs(stats, a.quiet);
  bool truncated = false;
  for (const auto& s : stats) truncated = truncated || !s.truncated.empty();
  return a.strict && (malformed > 0 || truncated) ? kStrictFailed : kOk;
}

Expected<const prices::Catalogue*> run_catalogue(const std::vector<std::string>& clouds, bool quiet) {
  // One command per process: the first call loads, later ones (offer, then pricing) reuse it.
  static std::optional<prices::Catalogue> loaded;
  if (loaded) return &*loaded;
  auto catalogue = prices::load_catalogue({prices::user_catalogue_path(), clouds});
  if (!catalogue) return catalogue.error();
  loaded = std::move(*catalogue);
  if (!quiet)
    for (const std::string& n : loaded->notes) fmt::print(stderr, "{} {}\n", prefix(Level::note), text::printable(n));
  return &*loaded;
}

std::string today_date() {
  if (const char* env = std::getenv("GPUCOST_TODAY"); env != nullptr && *env != '\0') return env;
  const auto days = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day ymd{days};
  return fmt::format("{:04d}-{:02d}-{:02d}", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()));
}

Expected<std::vector<breakeven::OfferKind>> parse_offer_kinds(std::string_view list) {
  std::vector<breakeven::OfferKind> kinds;
  if (list == "all") {
    for (const char* k : {"on-demand", "spot", "reserved-1y", "reserved-3y", "savings-plan"})
      kinds.push_back(*breakeven::parse_offer_kind(k));
    return kinds;
  }
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view word = list.substr(start, comma - start);
    start = comma + 1;
    const auto kind = breakeven::parse_offer_kind(text::trim(word));
    if (!kind)
      return make_error(ErrorKind::usage, fmt::format("--compare-kinds: '{}' is not a kind of offer", word),
                        "give on-demand, spot, reserved-1y, reserved-3y, savings-plan (comma-separated) or all");
    kinds.push_back(*kind);
  }
  return kinds;
}

namespace {

/// The config, its offer, the inputs (as read once, or as named for --follow) and the window.
Expected<ModelRun> model_run(const ModelArgs& a, bool follow) {
  auto config = model_config(a);
  if (!config) return config.error();
  auto chosen = chosen_offer(*config, a);
  if (!chosen) return chosen.error();
  auto inputs = follow ? open_follow_inputs(a.in) : open_inputs(a.in, a.from, a.to);
  if (!inputs) return inputs.error();
  auto window = pipeline::window_options(a.from, a.to, inputs->clock);
  if (!window) return window.error();
  window->fault_window_s = config->fault_window_s;  // logs read here group faults as the config says
  window->jobs = inputs->prep.jobs;
  window->slurm_job = a.in.slurm_job;
  apply_work_options(a.in, *window);
  return ModelRun{std::move(*config), *chosen, std::move(*inputs), *window};
}

}  // namespace

Expected<ModelRun> model_setup(const ModelArgs& a) { return model_run(a, false); }

Expected<ModelRun> follow_model_setup(const ModelArgs& a) { return model_run(a, true); }

Expected<breakeven::CostConfig> step_pricing_config(const ModelArgs& a, int gpus,
                                                    const std::vector<std::string>& gpu_names) {
  auto config = model_config(a);
  if (!config) return config.error();
  auto chosen = chosen_offer(*config, a);
  if (!chosen) return chosen.error();
  if (!*chosen) return config;
  breakeven::JobShape shape;
  shape.gpus = std::max(gpus, 1);
  if (gpu_names.size() == 1) shape.local_model = gpu_names.front();
  return breakeven::config_for_offer(*config, **chosen, shape);
}

Status check_model(const ModelArgs& a) {
  auto config = model_config(a);
  if (!config) return config.error();
  GPUCOST_TRY(chosen_offer(*config, a));
  GPUCOST_TRY(breakeven::parse_fill_rule(a.fill));
  GPUCOST_TRY(parse_offer_kinds(a.compare_kinds));
  if (!a.by.empty()) GPUCOST_TRY(breakeven::parse_attribution_by(a.by));
  return {};
}

namespace {

/// --util: a share 0-1, or a percentage with '%'.
Expected<double> parse_util(std::string_view text) {
  const bool percent = !text.empty() && text.back() == '%';
  const auto v = text::parse_double(percent ? text.substr(0, text.size() - 1) : text);
  const double share = v ? (percent ? *v / 100.0 : *v) : -1.0;
  if (!v || !(share >= 0.0 && share <= 1.0))
    return make_error(ErrorKind::usage, fmt::format("--util: '{}' is not a share of 0-1 or a percentage", text),
                      "e.g. --util 0.8 or --util 80%");
  return share;
}

Expected<breakeven::EstimateRequest> estimate_request(const ModelArgs& a) {
  breakeven::EstimateRequest r;
  r.gpu = a.gpu;
  if (a.gpus > 0) r.gpus = a.gpus;
  if (!a.util.empty()) {
    auto util = parse_util(a.util);
    if (!util) return util.error();
    r.util = *util;
  }
  r.beside = a.estimate;
  return r;
}

}  // namespace

Expected<breakeven::PriceOptions> price_options(const ModelArgs& a, const extract::Features& features) {
  breakeven::PriceOptions o;
  auto fill = breakeven::parse_fill_rule(a.fill);
  if (!fill) return fill.error();
  o.fill = *fill;
  o.explain = a.explain;
  o.compare_clouds = a.compare_clouds;
  auto kinds = parse_offer_kinds(a.compare_kinds);
  if (!kinds) return kinds.error();
  o.compare_kinds = std::move(*kinds);
  auto catalogue = run_catalogue(a.clouds, a.in.quiet);
  if (!catalogue) return catalogue.error();
  o.offers = &(*catalogue)->offers;
  o.today = today_date();
  o.mc_draws = a.mc;
  o.mc_seed = a.seed;
  auto estimate = estimate_request(a);
  if (!estimate) return estimate.error();
  o.estimate = std::move(*estimate);
  // The GPU models the inputs named, as the features carry them (so a features document prices as
  // the logs it came from): the telemetry's price the speed ratio, a profiler trace's are checked
  // against them, a training log's names and count serve the estimate only.
  o.gpu_names = features.input_gpus.telemetry;
  o.trace_gpu_names = features.input_gpus.traces;
  o.estimate.log_names = features.input_gpus.log_names;
  if (features.input_gpus.log_count > 0) o.estimate.log_gpus = features.input_gpus.log_count;
  return o;
}

void print_notices(const std::vector<breakeven::Notice>& notices, bool quiet) {
  for (const auto& n : notices)
    if (n.warning || !quiet)
      fmt::print(stderr, "{} {}\n", prefix(n.warning ? Level::warning : Level::note), text::printable(n.text));
}

}  // namespace gpucost::cli
