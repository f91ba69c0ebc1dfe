#include <gpucost/breakeven/findings.hpp>

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/fault_cause.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/core/xid_bucket.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

namespace gpucost::breakeven {

namespace {

/// A launch delay over this counts as the long tail (F036 uses the same 10 ms).
constexpr double kLongDelayS = 0.010;

// The one table of triggers (docs/cost-model.md, "Findings", prints the same rows). Findings
// of equal saving keep this order.
constexpr std::array kThresholds = {
    FindingThreshold{"idle_share", "F009", "idle_fraction", ">=", 0.10,
                     "a tenth or more of the covered time at 0 % utilisation"},
    FindingThreshold{"throttling", "F078", "throttle_work_lost_fraction", ">=", 0.10,
                     "a tenth or more of the SM clock lost while the GPU was busy (idle down-clocking does not count)"},
    FindingThreshold{"launch_delay_tail", "F036", "launch_delay_over_10ms_fraction", ">=", 0.01,
                     "1 % or more of the GPU ops started over 10 ms after their launch call"},
    FindingThreshold{"incidents_restart_app", "F018", "xid_restart_app_count", ">=", 1,
                     "an Xid whose NVIDIA resolution is to restart the application"},
    FindingThreshold{"incidents_reset_gpu", "F019", "xid_reset_gpu_count", ">=", 1,
                     "an Xid whose resolution is a GPU reset"},
    FindingThreshold{"incidents_reboot", "F020", "xid_reboot_count", ">=", 1, "an Xid whose resolution is a reboot"},
    FindingThreshold{"incidents_contact_support", "F021", "xid_contact_support_count", ">=", 1,
                     "an Xid that points at the hardware (contact support)"},
    FindingThreshold{"incidents_gpu_lost", "F022", "gpu_lost_count", ">=", 1, "a GPU fell off the bus"},
    FindingThreshold{"incidents_other", "F017", "xid_count", ">=", 1,
                     "an Xid of a code the catalogue does not know (bucket unknown in `incidents`)"},
    FindingThreshold{"straggler_wait", "", "trace_jobs[].wait_fraction", ">=", 0.05,
                     "the ranks of a distributed job waited in collectives for the last rank 5 % or more of their GPU "
                     "time (the profiler traces of two ranks or more)"},
    FindingThreshold{"exposed_comm", "", "trace_jobs[].exposed_comm_fraction - wait_fraction", ">=", 0.10,
                     "a tenth or more of a distributed job's GPU time communicated with no computation beside it, "
                     "beyond the waiting"},
    FindingThreshold{"interruptions", "F025+F026+F027", "suspend_count + lid_close_count + ac_offline_count", ">=", 1,
                     "a suspend, a lid closed or the AC unplugged in the window (needs F051 downtime_s)"},
    FindingThreshold{"cloud_offer", "", "paid - cheapest offer total", ">", 0,
                     "the cheapest catalogue offer that can run the job (GPU count and memory), converted to the "
                     "config's currency, costs less than what this job is paid with: the local total, or the "
                     "configured cloud when the verdict is to rent"},
    FindingThreshold{"job_length", "", "breakeven.job_hours / job.wall_h", "<", 1,
                     "the job is longer than the break-even job length T*"},
    FindingThreshold{"use_per_year", "", "local.use_hours_per_year / breakeven.use_hours_per_year", "<", 1,
                     "the machine is used fewer hours a year than H*, and H* <= 8760 h"},
};

/// What every finding reads.
struct Context {
  const Result& r;
  const CostConfig& c;
  const extract::Features& f;
  double time_cost = 0;
};

std::optional<double> host(const extract::Features& f, std::string_view key) {
  const auto it = f.host_indicators.find(std::string(key));
  return it != f.host_indicators.end() ? it->second.value : std::nullopt;
}

std::string trigger_text(const FindingThreshold& t) {
  return fmt::format("{}{}{} {} {:g}", t.id, t.id.empty() ? "" : " ", t.key, t.op, t.value);
}

Finding start(std::string_view kind) {
  Finding out;
  out.kind = std::string(kind);
  out.trigger = trigger_text(threshold_of(kind));
  return out;
}

/// The indicator behind a finding, as evidence.
Evidence indicator(const FindingThreshold& t, double v) { return Evidence{std::string(t.id), std::string(t.key), v}; }
Evidence indicator(const char* id, const char* key, double v) { return Evidence{id, key, v}; }
Evidence model(std::string key, double v) { return Evidence{{}, std::move(key), v}; }

/// The three terms of the time cost, so that a reader can add them up.
void add_time_cost(Finding& out, const Result& r) {
  out.evidence.push_back(model("local.electricity", r.electricity));
  out.evidence.push_back(model("local.amortisation", r.amortisation));
  out.evidence.push_back(model("local.maintenance_routine", r.maintenance_routine));
}

void add_if_present(Finding& out, const extract::Features& f, const char* id, const char* key) {
  if (const auto v = host(f, key)) out.evidence.push_back(indicator(id, key, *v));
}

std::string money(double v, const std::string& currency) { return fmt::format("{:.2f} {}", v, currency); }

std::optional<Finding> idle_share(const Context& x) {
  const FindingThreshold& t = threshold_of("idle_share");
  const auto idle = host(x.f, t.key);
  if (!idle || *idle < t.value) return std::nullopt;
  Finding out = start(t.kind);
  out.title = fmt::format("GPUs idle {:.1f} % of the time", *idle * 100);
  out.evidence.push_back(indicator(t, *idle));
  add_if_present(out, x.f, "F008", "util_mean");
  add_time_cost(out, x.r);
  out.saving = *idle * x.time_cost;
  out.saving_basis = fmt::format("idle_fraction {:.4f} x time cost {}", *idle, money(x.time_cost, x.c.currency));
  out.suggestion =
      "Keep the GPU fed: raise the DataLoader's num_workers, set pin_memory=True with non_blocking copies, "
      "prefetch (prefetch_factor, persistent_workers), keep the dataset on fast local storage or pre-process it "
      "once, and raise the batch size while memory allows; queue the next job so the GPU does not wait between runs.";
  return out;
}

std::optional<Finding> throttling(const Context& x) {
  const FindingThreshold& t = threshold_of("throttling");
  const auto lost = host(x.f, t.key);
  if (!lost || *lost < t.value) return std::nullopt;
  Finding out = start(t.kind);
  out.title = fmt::format("Throttled: {:.1f} % of the SM clock lost while the GPU was busy", *lost * 100);
  out.evidence.push_back(indicator(t, *lost));
  out.evidence.push_back(model("job.util_mean", x.r.util_mean));
  add_if_present(out, x.f, "F013", "sm_clock_ratio");
  add_if_present(out, x.f, "F011", "temp_max_c");
  add_if_present(out, x.f, "F012", "time_above_78c_s");
  add_time_cost(out, x.r);
  // F078 counts busy intervals only, so the lost work is that share of the busy part of the time cost.
  const double busy_cost = x.r.util_mean * x.time_cost;
  out.saving = *lost * busy_cost;
  out.saving_basis = fmt::format("throttle_work_lost_fraction {:.4f} x util_mean {:.4f} x time cost {}", *lost,
                                 x.r.util_mean, money(x.time_cost, x.c.currency));
  const auto hot = host(x.f, "time_above_78c_s");
  const std::string cooling =
      hot && *hot > 0 ? fmt::format(
                            "Cooling first: each GPU spent {:.0f} s above 78 °C on average; clean the filters "
                            "and heat sinks, raise the fan curve, improve the case or rack airflow. ",
                            *hot)
                      : std::string("No sustained heat was measured, so look at the power limit first. ");
  out.suggestion = cooling +
                   "Check the throttle reasons (nvidia-smi -q -d PERFORMANCE) and the power limit (nvidia-smi -q -d "
                   "POWER; raise it with nvidia-smi -pl within the board's range); a smaller batch size draws less "
                   "power. Idle stretches lower the clock too: see the idle share.";
  return out;
}

std::optional<Finding> launch_delay_tail(const Context& x) {
  const FindingThreshold& t = threshold_of("launch_delay_tail");
  const auto frac = host(x.f, t.key), kernels = host(x.f, "kernels"), busy = host(x.f, "gpu_busy_s"),
             idle = host(x.f, "gpu_idle_fraction_trace");
  if (!frac || !kernels || !busy || !idle || *frac < t.value || !(*busy > 0) || !(*idle < 1)) return std::nullopt;
  Finding out = start(t.kind);
  out.title = fmt::format("{:.1f} % of GPU ops waited over 10 ms for their launch", *frac * 100);
  out.evidence.push_back(indicator(t, *frac));
  out.evidence.push_back(indicator("F037", "kernels", *kernels));
  out.evidence.push_back(indicator("F028", "gpu_busy_s", *busy));
  out.evidence.push_back(indicator("F029", "gpu_idle_fraction_trace", *idle));
  add_if_present(out, x.f, "F034", "launch_delay_p99_us");
  add_if_present(out, x.f, "F035", "short_kernel_fraction");
  add_time_cost(out, x.r);
  // The trace covers a few steps: its share of time lost to long delays stands for the job's.
  const double lost_s = *frac * *kernels * kLongDelayS;
  const double span_s = *busy / (1.0 - *idle);
  const double share = std::min(*idle, lost_s / span_s);  // a delay can only cost idle GPU time
  out.saving = share * x.time_cost;
  out.saving_basis = fmt::format(
      "min(gpu_idle_fraction_trace, {:.4f} x {:.0f} kernels x 10 ms / span {:.3f} s) = "
      "{:.6f} x time cost {}",
      *frac, *kernels, span_s, share, money(x.time_cost, x.c.currency));
  out.suggestion =
      "The CPU falls behind the GPU: capture the training step in CUDA graphs (torch.cuda.graph, or "
      "torch.compile(mode=\"reduce-overhead\")), fuse small kernels with torch.compile, remove host "
      "synchronisations from the step (.item(), .cpu(), printing tensors), and give the process free CPU cores.";
  return out;
}

// ---- incidents ------------------------------------------------------------------------------

struct IncidentRule {
  std::string_view kind;
  std::string_view incident_kind;  ///< xid or gpu_lost
  std::string_view bucket;         ///< the Xid bucket; empty for gpu_lost
  std::string_view suggestion;
};

constexpr std::array kIncidentRules = {
    IncidentRule{"incidents_restart_app", "xid", "restart_app",
                 "Application-level GPU errors: run the job under compute-sanitizer to find illegal memory accesses, "
                 "check for out-of-memory handling, and update the driver if they recur without a code change."},
    IncidentRule{"incidents_reset_gpu", "xid", "reset_gpu",
                 "Reset the GPU (nvidia-smi -r) and update the driver; if it recurs, check the power supply and the "
                 "temperatures under load."},
    IncidentRule{"incidents_reboot", "xid", "reboot",
                 "Update the driver and the GPU firmware; if it recurs after a reboot, run a hardware check "
                 "(dcgmi diag -r 3)."},
    IncidentRule{"incidents_contact_support", "xid", "contact_support",
                 "Hardware check: dcgmi diag -r 3, nvidia-smi -q -d ECC,ROW_REMAPPER, collect nvidia-bug-report.sh and "
                 "contact the vendor (RMA) if the diagnostics fail."},
    IncidentRule{"incidents_gpu_lost", "gpu_lost", "",
                 "A GPU fell off the bus: reseat the card and its power cables, check the power supply and any riser, "
                 "update the BIOS and the driver, then run dcgmi diag -r 3."},
    IncidentRule{"incidents_other", "xid", "unknown",
                 "Look the Xid code up in NVIDIA's Xid catalogue and update the driver; the cost assumes "
                 "local.incident_hours.unknown of operator time each."},
};

bool has_member(const extract::WindowFault& f, std::string_view kind) {
  return std::any_of(f.members.begin(), f.members.end(), [&](const extract::FaultMember& m) { return m.kind == kind; });
}

/// Each fault belongs to one rule: the GPU-lost one when a GPU fell off the bus in it, else the
/// rule of its bucket (a fatal AER alone: reset_gpu). Interruptions (no bucket) to none.
bool matches(const IncidentRule& rule, const extract::WindowFault& f) {
  if (f.bucket.empty()) return false;
  if (rule.incident_kind == "gpu_lost") return has_member(f, "gpu_lost");
  if (has_member(f, "gpu_lost")) return false;
  if (rule.bucket == xid_bucket_name(XidBucket::unknown))  // a code outside NVIDIA's four buckets (and not ignored)
    return xid_bucket_from_name(f.bucket) == XidBucket::unknown;
  return f.bucket == rule.bucket;
}

std::string codes_of(const IncidentRule& rule, const Result& r) {
  std::vector<int> codes;
  for (const auto& ic : r.incidents)
    if (matches(rule, ic.fault))
      for (const auto& m : ic.fault.members)
        if (m.kind == "xid" && m.code >= 0 && std::find(codes.begin(), codes.end(), m.code) == codes.end())
          codes.push_back(m.code);
  std::sort(codes.begin(), codes.end());
  std::string out;
  for (int code : codes) out += fmt::format("{}{}", out.empty() ? "Xid " : ", ", code);
  return out;
}

/// A fault's resolution in a user's words (NVIDIA's resolution buckets: restart_app, reset_gpu ...).
std::string bucket_words(std::string_view bucket) {
  if (bucket == "restart_app") return "that needed the application restarted";
  if (bucket == "reset_gpu") return "that needed a GPU reset";
  if (bucket == "reboot") return "that needed a reboot";
  if (bucket == "contact_support") return "that needed NVIDIA support";
  if (bucket == "ignore") return "that needed nothing";
  return "of unknown resolution";
}

std::optional<Finding> incident_finding(const Context& x, const IncidentRule& rule) {
  const FindingThreshold& t = threshold_of(rule.kind);
  const auto count = host(x.f, t.key);
  if (!count || *count < t.value) return std::nullopt;
  double cost = 0, faults = 0, events = 0, application = 0;
  for (const auto& ic : x.r.incidents)
    if (matches(rule, ic.fault)) {
      cost += ic.cost;
      ++faults;
      events += static_cast<double>(ic.fault.count);
      if (ic.fault.cause == fault_cause_name(FaultCause::application)) ++application;
    }
  // The indicator counts lines of every fault (F017 every bucket); the finding prices faults.
  if (faults < 1) return std::nullopt;
  Finding out = start(t.kind);
  const std::string codes = codes_of(rule, x.r);
  const auto n_faults = static_cast<long long>(faults), n_events = static_cast<long long>(events);
  out.title = rule.incident_kind == "gpu_lost"
                  ? fmt::format("{} with a GPU fallen off the bus ({})", text::counted(n_faults, "fault"),
                                text::counted(n_events, "event"))
                  : fmt::format("{} {} ({}{})", text::counted(n_faults, "fault"), bucket_words(rule.bucket),
                                codes.empty() ? std::string() : codes + "; ", text::counted(n_events, "event"));
  out.evidence.push_back(indicator(t, *count));
  out.evidence.push_back(model(rule.bucket.empty() ? std::string("incidents[kind=gpu_lost].cost")
                                                   : fmt::format("incidents[bucket={}].cost", rule.bucket),
                               cost));
  out.saving = cost;
  out.saving_basis = fmt::format("operator time of the {} listed {}, once each: {}", n_faults,
                                 n_faults == 1 ? "fault" : "faults", money(cost, x.c.currency));
  out.suggestion = std::string(rule.suggestion);
  // The application's own faults follow it to a rented GPU: fixing them pays, renting does not.
  if (application > 0 && x.r.fault_rule != FaultRule::all_local)
    out.suggestion += application == faults
                          ? " These faults come from the application: a rented GPU runs the same code and "
                            "crashes the same way, so they are no reason to rent (priced on both sides or neither)."
                          : " Some of these faults come from the application: a rented GPU would crash the "
                            "same way, so only the others count against owning.";
  return out;
}

// ---- interruptions --------------------------------------------------------------------------

/// Length of the union of [event, event + downtime] over the suspends and AC losses, s.
double interruption_downtime_s(const std::vector<extract::WindowIncident>& incidents) {
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  double total = 0, covered_to = kNone;
  for (const auto& i : incidents) {  // in time order
    if ((i.kind != "suspend" && i.kind != "ac_offline") || !i.downtime_s) continue;
    const double from = static_cast<double>(i.ts_ns) / 1e9, to = from + *i.downtime_s;
    const double begin = std::max(from, covered_to);
    if (to > begin) total += to - begin;
    covered_to = std::max(covered_to, to);
  }
  return total;
}

std::optional<Finding> interruptions(const Context& x) {
  const FindingThreshold& t = threshold_of("interruptions");
  const auto suspends = host(x.f, "suspend_count"), lids = host(x.f, "lid_close_count"),
             ac = host(x.f, "ac_offline_count"), downtime = host(x.f, "downtime_s");
  const double n = suspends.value_or(0) + lids.value_or(0) + ac.value_or(0);
  if (!downtime || n < t.value) return std::nullopt;
  Finding out = start(t.kind);
  out.title =
      fmt::format("{}, {}, {} during the job", text::counted(static_cast<long long>(suspends.value_or(0)), "suspend"),
                  text::counted(static_cast<long long>(lids.value_or(0)), "lid close"),
                  text::counted(static_cast<long long>(ac.value_or(0)), "AC loss", "AC losses"));
  if (suspends) out.evidence.push_back(indicator("F025", "suspend_count", *suspends));
  if (lids) out.evidence.push_back(indicator("F026", "lid_close_count", *lids));
  if (ac) out.evidence.push_back(indicator("F027", "ac_offline_count", *ac));
  out.evidence.push_back(indicator("F051", "downtime_s", *downtime));
  const double down_s = interruption_downtime_s(x.r.job.incidents);
  out.evidence.push_back(model("incidents[kind=suspend|ac_offline].downtime_s_union", down_s));
  out.evidence.push_back(model("job.wall_h", x.r.job.wall_h));
  add_time_cost(out, x.r);
  out.saving = down_s / 3600.0 / x.r.job.wall_h * x.time_cost;
  out.saving_basis = fmt::format("{:.0f} s down / {:.0f} s of job x time cost {}", down_s, x.r.job.wall_h * 3600,
                                 money(x.time_cost, x.c.currency));
  out.suggestion =
      "Keep the machine awake and on mains while a job runs: start it under systemd-inhibit "
      "--what=sleep:idle:handle-lid-switch, set HandleLidSwitch=ignore and HandleLidSwitchExternalPower=ignore in "
      "/etc/systemd/logind.conf, turn automatic suspend off in the power settings; an AC loss calls for a UPS or a "
      "check of the power cable and supply.";
  return out;
}

// ---- the cloud side -------------------------------------------------------------------------

std::optional<Finding> cloud_offer(const Context& x, const std::optional<OfferQuote>& cheapest) {
  if (!cheapest) return std::nullopt;
  // Measured against what the user pays for this job: the local machine, or the configured cloud
  // when the verdict is to rent. So a saving can never exceed the job's own cost.
  const bool renting = x.r.above_line;
  const double paid = renting ? x.r.cloud_total : x.r.local_total;  // capped further by cap_savings
  if (!(paid - cheapest->total > threshold_of("cloud_offer").value)) return std::nullopt;
  Finding out = start("cloud_offer");
  out.saving = paid - cheapest->total;
  out.title = fmt::format("A cheaper cloud offer: {} ({}), the cheapest in the catalogue that can run this job",
                          cheapest->name, cheapest->gpu_model);
  out.evidence.push_back(model(renting ? "cloud.total" : "local.total", paid));
  out.evidence.push_back(model(fmt::format("compare_clouds[{}].total", cheapest->name), cheapest->total));
  out.saving_basis = fmt::format("{} {} - {} on {}", renting ? "configured cloud total" : "local total",
                                 money(paid, x.c.currency), money(cheapest->total, x.c.currency), cheapest->name);
  // A recommendation is only as good as its price: an old or unconfirmed one is said here too.
  const bool old = cheapest->age_days && *cheapest->age_days > kStalePriceDays;
  const std::string price =
      old ? fmt::format("a list price seen {}, {} days ago: it may have changed, run gpucost offers update",
                        cheapest->date_seen, *cheapest->age_days)
          : fmt::format("a list price seen {}", cheapest->date_seen);
  out.suggestion = fmt::format(
      "{} {} ({}{}). The figure assumes a speed ratio of {:.3g} ({}) for a {}: measure it on "
      "a short run before moving.",
      renting ? "When renting, take" : "This job would have cost less on", cheapest->name, price,
      cheapest->confirmed ? "" : "; not confirmed against its source", cheapest->speed_ratio,
      cheapest->speed_ratio_source, cheapest->gpu_model);
  return out;
}

// With several crossings (the cloud's bill rounds up to whole increments), where the answer flips.
std::string flips_note(const breakeven::Crossings& c) {
  if (c.points.size() < 2) return {};
  const breakeven::Crossing& last = c.points.back();
  const std::size_t flips = c.points.size() + c.omitted - 1;
  return fmt::format(
      " Between {} and {} the answer flips {} as the cloud's bill rounds up to "
      "whole increments (local is cheaper just after each step){}.",
      text::duration_hours(c.points.front().hours), text::duration_hours(last.hours),
      flips == 1 ? std::string("once") : fmt::format("{} times", flips),
      last.local_cheaper_below
          ? fmt::format("; beyond {} the cloud is cheaper for good", text::duration_hours(last.hours))
          : std::string());
}

std::optional<Finding> job_length(const Context& x) {
  const double W = x.r.job.wall_h;
  const auto& T = x.r.job_hours.value;
  // Against an offer that cannot run the job, "rent" is no advice.
  if (x.r.unfit) return std::nullopt;
  if (!T || !(*T / W < threshold_of("job_length").value) || !(x.r.local_total > x.r.cloud_total)) return std::nullopt;
  Finding out = start("job_length");
  // T* that prints as 0.0 min: the cloud is cheaper from the shortest job on ("longer than 0.0 min" says nothing).
  const bool from_start = text::duration_hours(*T) == text::duration_hours(0);
  out.title = from_start ? fmt::format(
                               "Rent jobs of this kind: even the shortest costs less in the cloud, and so does this "
                               "{} job",
                               text::duration_hours(W))
                         : fmt::format("Rent jobs of this kind longer than {}: this {} job costs less in the cloud",
                                       text::duration_hours(*T), text::duration_hours(W));
  out.evidence.push_back(model("breakeven.job_hours", *T));
  out.evidence.push_back(model("job.wall_h", W));
  out.evidence.push_back(model("local.total", x.r.local_total));
  out.evidence.push_back(model("cloud.total", x.r.cloud_total));
  out.saving = x.r.local_total - x.r.cloud_total;
  out.saving_basis = fmt::format("local total {} - cloud total {} for this job", money(x.r.local_total, x.c.currency),
                                 money(x.r.cloud_total, x.c.currency));
  out.suggestion =
      from_start ? std::string(
                       "The local GPU costs more than the cloud from the shortest job on (the cloud's cold start and "
                       "fixed cost included). Rent jobs of this kind, or lower the local cost first (the other "
                       "findings say where it goes).")
                 : fmt::format(
                       "A longer job does not help here: the cloud's per-job cost (cold start, fixed cost) is paid "
                       "back after {0} and every further hour costs less in the cloud. Keep short runs (debugging, "
                       "evaluation, jobs under {0}) on the local GPU and rent for the long ones.",
                       text::duration_hours(*T));
  out.suggestion += flips_note(x.r.job_crossings);
  return out;
}

std::optional<Finding> use_per_year(const Context& x) {
  const auto& H = x.r.use_hours_per_year.value;
  const double U = x.c.use_hours_per_year;
  if (x.r.unfit) return std::nullopt;  // H* against an offer that cannot run the job
  if (!H || *H > 8760.0 || !(U / *H < threshold_of("use_per_year").value)) return std::nullopt;
  Finding out = start("use_per_year");
  const double F = x.c.hardware_price * (1.0 - x.c.residual_fraction) / x.c.lifetime_years +
                   x.c.hourly_wage * x.c.maintenance_hours_per_year;
  out.title = fmt::format("Use the machine {:.0f} h a year or more (configured: {:g} h/y)", *H, U);
  out.evidence.push_back(model("local.use_hours_per_year", U));
  out.evidence.push_back(model("breakeven.use_hours_per_year", *H));
  out.evidence.push_back(model("job.wall_h", x.r.job.wall_h));
  out.evidence.push_back(model("fixed_cost_per_year", F));
  out.saving = x.r.job.wall_h * F * (1.0 / U - 1.0 / *H);
  out.saving_basis =
      fmt::format("W {:.4f} h x F {} x (1 / {:g} - 1 / {:.1f})", x.r.job.wall_h, money(F, x.c.currency), U, *H);
  out.suggestion = fmt::format(
      "The amortisation and maintenance are spread over too few hours: share the machine (other users or teams, "
      "inference, scheduled jobs at night) so that it works {:.0f} h a year or more; there owning costs as much per "
      "job hour as renting.",
      *H);
  return out;
}

/// The distributed job of the traces with the most waiting (ties: the first); null without one of
/// two ranks or more.
const extract::TraceJob* most_waiting(const extract::Features& f) {
  const extract::TraceJob* best = nullptr;
  for (const extract::TraceJob& j : f.trace_jobs)
    if (j.ranks.size() >= 2 && (best == nullptr || j.wait_fraction() > best->wait_fraction())) best = &j;
  return best;
}

std::optional<Finding> straggler_wait(const Context& x) {
  const FindingThreshold& t = threshold_of("straggler_wait");
  const extract::TraceJob* j = most_waiting(x.f);
  if (j == nullptr || j->wait_fraction() < t.value) return std::nullopt;
  Finding out = start(t.kind);
  out.title = j->straggler_rank >= 0
                  ? fmt::format(
                        "Ranks waited {:.1f} % of their GPU time for rank {} (last to arrive in {:.0f} % of "
                        "the steps)",
                        j->wait_fraction() * 100, j->straggler_rank, j->straggler_step_share * 100)
                  : fmt::format("Ranks waited {:.1f} % of their GPU time in collectives (no single straggler)",
                                j->wait_fraction() * 100);
  out.evidence.push_back(model("trace_jobs.wait_fraction", j->wait_fraction()));
  out.evidence.push_back(model("trace_jobs.straggler_step_share", j->straggler_step_share));
  add_time_cost(out, x.r);
  // The waiting GPU time is paid; a balanced job would not wait, so it is the most to win back.
  out.saving = j->wait_fraction() * x.time_cost;
  out.saving_basis =
      fmt::format("wait_fraction {:.4f} x time cost {}", j->wait_fraction(), money(x.time_cost, x.c.currency));
  out.suggestion =
      (j->straggler_rank >= 0 ? fmt::format("Look at rank {} first. ", j->straggler_rank) : std::string()) +
      "A rank that arrives last is slower before the collective: its input pipeline (DataLoader workers, "
      "storage, CPU and NUMA affinity of its process), uneven batches (bucket or pack sequences by length so every "
      "rank gets the same work), a slower or throttled GPU or link on its node (clocks, PCIe/NVLink width), or "
      "host work on that rank only (logging, checkpointing, evaluation, garbage collection).";
  return out;
}

std::optional<Finding> exposed_comm(const Context& x) {
  const FindingThreshold& t = threshold_of("exposed_comm");
  const extract::TraceJob* best = nullptr;
  double best_share = 0;
  for (const extract::TraceJob& j : x.f.trace_jobs) {
    const double share = std::max(0.0, j.exposed_comm_fraction() - j.wait_fraction());
    if (best == nullptr || share > best_share) {
      best = &j;
      best_share = share;
    }
  }
  if (best == nullptr || best_share < t.value) return std::nullopt;
  Finding out = start(t.kind);
  out.title = fmt::format(
      "{:.1f} % of the GPU time communicated without computation beside it ({:.0f} % of the "
      "communication overlapped)",
      best->exposed_comm_fraction() * 100, best->overlap_fraction() * 100);
  out.evidence.push_back(model("trace_jobs.exposed_comm_fraction", best->exposed_comm_fraction()));
  out.evidence.push_back(model("trace_jobs.wait_fraction", best->wait_fraction()));
  out.evidence.push_back(model("trace_jobs.overlap_fraction", best->overlap_fraction()));
  add_time_cost(out, x.r);
  // The waiting is exposed communication too, and belongs to straggler_wait: only the rest can be hidden.
  out.saving = best_share * x.time_cost;
  out.saving_basis =
      fmt::format("(exposed_comm_fraction {:.4f} - wait_fraction {:.4f}) x time cost {}", best->exposed_comm_fraction(),
                  best->wait_fraction(), money(x.time_cost, x.c.currency));
  out.suggestion =
      "Overlap communication with the backward pass: with DDP, tune bucket_cap_mb (smaller buckets start the "
      "all-reduce earlier) and set gradient_as_bucket_view=True; with FSDP, backward_prefetch=BACKWARD_PRE and "
      "forward_prefetch; with DeepSpeed ZeRO, overlap_comm=true; accumulate gradients over more micro-batches "
      "(no_sync) so that fewer steps communicate; check that NCCL uses NVLink or InfiniBand (NCCL_DEBUG=INFO).";
  return out;
}

/// What the user pays for this job: the local total below the line (the job ran, and stays,
/// local), the configured cloud's above it (the verdict is to rent), the smaller of the two when
/// no verdict holds (undecided, or an offer that cannot run the job).
double paid_for_job(const Result& r) {
  if (r.above_line) return r.cloud_total;
  if (r.undecided || r.unfit) return std::min(r.local_total, r.cloud_total);
  return r.local_total;
}

// No saving can exceed what the job is paid with (job_length and use_per_year are differences of
// the two totals: what renting or more use would change, not a part of what is paid).
void cap_savings(std::vector<Finding>& found, const Result& r) {
  const double paid = paid_for_job(r);
  for (Finding& f : found)
    if (f.saving > paid && f.kind != "job_length" && f.kind != "use_per_year") {
      f.saving = paid;
      f.saving_basis += fmt::format("; capped at what this job is paid with ({} total {:.2f})",
                                    paid == r.local_total ? "local" : "cloud", paid);
    }
}

}  // namespace

std::span<const FindingThreshold> finding_thresholds() { return kThresholds; }

const FindingThreshold& threshold_of(std::string_view kind) {
  for (const auto& t : kThresholds)
    if (t.kind == kind) return t;
  return kThresholds.front();  // unreachable: every kind has a row (a unit test checks)
}

double time_cost(const Result& r) { return r.electricity + r.amortisation + r.maintenance_routine; }

std::optional<OfferQuote> cheapest_offer(const CostConfig& c, const JobInputs& job, const EnergyPrices& prices,
                                         const JobShape* shape) {
  JobShape count_only;
  count_only.gpus = static_cast<int>(job.energy_kwh.size());
  return cheapest_of(price_offers(c, job, prices, shape != nullptr ? *shape : count_only, cloud_offers()));
}

std::optional<OfferQuote> cheapest_of(const std::vector<OfferPrice>& offers) {
  if (offers.empty() || !offers.front().unfit.empty()) return std::nullopt;  // none can run the job
  const OfferPrice& best = offers.front();
  return OfferQuote{best.name,      best.total,     best.speed_ratio, best.speed_ratio_source,
                    best.gpu_model, best.date_seen, best.age_days,    best.confirmed};
}

std::vector<Finding> findings(const Result& r, const CostConfig& c, const extract::Features& f,
                              const std::optional<OfferQuote>& cheapest) {
  const Context x{r, c, f, time_cost(r)};
  std::vector<std::optional<Finding>> all = {idle_share(x), throttling(x), launch_delay_tail(x), straggler_wait(x),
                                             exposed_comm(x)};
  for (const IncidentRule& rule : kIncidentRules) all.push_back(incident_finding(x, rule));
  all.push_back(interruptions(x));
  all.push_back(cloud_offer(x, cheapest));
  all.push_back(job_length(x));
  all.push_back(use_per_year(x));
  std::vector<Finding> out;
  for (auto& one : all)
    if (one) out.push_back(std::move(*one));
  cap_savings(out, r);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.saving > b.saving; });
  return out;
}

}  // namespace gpucost::breakeven
