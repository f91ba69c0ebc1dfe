// Power source, sessions and the temperature-anchored chain: host indicators from the kernel
// and system events, in docs/indicators.md ("Definitions of F106-F123").
#include "host_events.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

namespace gpucost::extract::detail {

namespace {

double secs(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }
void set(IndicatorSet& out, std::string_view key, double v) { out[std::string(key)] = IndicatorValue{v, {}}; }
void absent(IndicatorSet& out, std::string_view key, std::string reason) {
  out[std::string(key)] = IndicatorValue{std::nullopt, std::move(reason)};
}

const std::string kNoHostLogs = "no kernel log, dmesg, journal or bug report among the inputs";
const std::string kNoErrors = "no Xid, AER, modeset or thermal error in the window";

bool has_host_logs(const SampleCollector& c) { return c.has_host_logs() || !c.incidents().empty(); }

/// Incidents in time order (the inputs may come in any order).
std::vector<const Incident*> sorted_incidents(const SampleCollector& c) {
  std::vector<const Incident*> all;
  all.reserve(c.incidents().size());
  for (const Incident& i : c.incidents()) all.push_back(&i);
  std::stable_sort(all.begin(), all.end(), [](const Incident* a, const Incident* b) { return a->ts_ns < b->ts_ns; });
  return all;
}

bool is_chain_error(const Incident& i) {
  return i.kind == "xid" || i.kind == "aer" || i.kind == "modeset" || (i.kind == "thermal" && i.detail != "normal");
}

// ---- stretches: time between an opening and a closing event, clipped to the window ---------

/// The length of the union of [start, end) stretches (sorted by start) clipped to [from, to].
double union_within(std::vector<std::pair<std::int64_t, std::int64_t>> stretches, std::int64_t from, std::int64_t to) {
  std::sort(stretches.begin(), stretches.end());
  double total = 0;
  std::int64_t covered_to = from;
  for (auto [a, b] : stretches) {
    a = std::max(a, covered_to);
    b = std::min(b, to);
    if (b > a) total += secs(b - a);
    covered_to = std::max(covered_to, b);
  }
  return total;
}

/// Stretches that open on `opens` and close on the next `closes` (or never: union_within clips
/// them to the window end), over the events up to `last_ns`; an opening while one is open
/// continues it. A state opened before the window counts from the
/// window start.
template <typename Opens, typename Closes>
std::vector<std::pair<std::int64_t, std::int64_t>> stretches(const std::vector<const Incident*>& events,
                                                             std::int64_t last_ns, Opens opens, Closes closes) {
  constexpr std::int64_t kClosed = std::numeric_limits<std::int64_t>::min();
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  std::int64_t open_since = kClosed;
  for (const Incident* i : events) {
    if (i->ts_ns > last_ns) break;
    if (opens(*i)) {
      if (open_since == kClosed) open_since = i->ts_ns;
    } else if (closes(*i) && open_since != kClosed) {
      out.emplace_back(open_since, i->ts_ns);
      open_since = kClosed;
    }
  }
  if (open_since != kClosed) out.emplace_back(open_since, std::numeric_limits<std::int64_t>::max());  // clipped later
  return out;
}

/// The first event of each cluster of suspends (another within 120 s is the same suspend).
std::vector<std::int64_t> suspend_starts(const std::vector<const Incident*>& events) {
  std::vector<std::int64_t> out;
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  for (const Incident* i : events) {
    if (i->kind != "suspend") continue;
    const bool same = last != std::numeric_limits<std::int64_t>::min() && i->ts_ns - last <= kSameSuspendNs;
    last = i->ts_ns;
    if (!same) out.push_back(i->ts_ns);
  }
  return out;
}

/// AC switches in the window: power_source messages whose state differs from the last known
/// one. The first message of the log only sets the state (the kernel prints it at boot too).
double ac_switches(const std::vector<const Incident*>& events, const Features& f) {
  std::string_view state;
  double n = 0;
  for (const Incident* i : events) {
    if (i->kind != "power_source" || (i->detail != "online" && i->detail != "offline")) continue;
    if (!state.empty() && i->detail != state && f.contains(i->ts_ns)) ++n;
    state = i->detail;
  }
  return n;
}

void rate(IndicatorSet& out, std::string_view key, double count, double wall_s) {
  if (wall_s > 0) set(out, key, count / (wall_s / 3600));
  else absent(out, key, "the window is empty (wall time 0 s)");
}

}  // namespace

// ---- power source and sessions (F114-F123) -------------------------------------------------

void session_indicators(const SampleCollector& c, Features& f) {
  IndicatorSet& out = f.host_indicators;
  static constexpr std::string_view kKeys[] = {"ac_switches_per_hour", "battery_s",        "resume_count",
                                               "suspend_s",            "interruptions_per_hour", "boot_count",
                                               "shutdown_count",       "gpu_unavailable_s", "lid_closed_s",
                                               "segfault_count"};
  if (!has_host_logs(c)) {
    for (auto k : kKeys) absent(out, k, kNoHostLogs);
    return;
  }
  const auto events = sorted_incidents(c);
  const auto is = [](const char* kind, const char* detail = nullptr) {
    return [=](const Incident& i) { return i.kind == kind && (detail == nullptr || i.detail == detail); };
  };
  set(out, "battery_s", union_within(stretches(events, f.last_ns(), is("power_source", "offline"),
                                               is("power_source", "online")), f.from_ns, f.to_ns));
  set(out, "lid_closed_s", union_within(stretches(events, f.last_ns(), is("lid", "closed"), is("lid", "open")),
                                        f.from_ns, f.to_ns));
  const auto gpu_gone = [](const Incident& i) { return i.kind == "gpu_lost" || (i.kind == "driver" && i.detail == "unload"); };
  const auto gpu_back = [](const Incident& i) { return i.kind == "boot" || (i.kind == "driver" && i.detail == "load"); };
  set(out, "gpu_unavailable_s", union_within(stretches(events, f.last_ns(), gpu_gone, gpu_back), f.from_ns, f.to_ns));

  // Suspended: from the first message of a suspend to the next resume (or the window end).
  std::vector<std::pair<std::int64_t, std::int64_t>> asleep;
  double suspends = 0, resumes = 0, boots = 0, shutdowns = 0, lost = 0, resets = 0, segfaults = 0;
  std::vector<std::int64_t> resume_times;
  for (const Incident* i : events)
    if (i->kind == "resume") resume_times.push_back(i->ts_ns);
  for (const std::int64_t s : suspend_starts(events)) {
    if (s > f.last_ns()) break;
    const auto resumed = std::lower_bound(resume_times.begin(), resume_times.end(), s);
    asleep.emplace_back(s, resumed == resume_times.end() ? f.to_ns : std::min(f.to_ns, *resumed));
    if (f.contains(s)) ++suspends;
  }
  set(out, "suspend_s", union_within(asleep, f.from_ns, f.to_ns));
  std::int64_t last_resume = std::numeric_limits<std::int64_t>::min();
  for (const Incident* i : events) {
    if (!f.contains(i->ts_ns)) continue;
    if (i->kind == "resume" && i->detail != "failed") {  // several layers report one resume too
      if (last_resume == std::numeric_limits<std::int64_t>::min() || i->ts_ns - last_resume > kSameSuspendNs) ++resumes;
      last_resume = i->ts_ns;
    }
    if (i->kind == "boot") ++boots;
    if (i->kind == "shutdown") ++shutdowns;
    if (i->kind == "gpu_lost") ++lost;
    if (i->kind == "driver" && i->detail == "reset") ++resets;
    if (i->kind == "segfault") ++segfaults;
  }
  set(out, "resume_count", resumes);
  set(out, "boot_count", boots);
  set(out, "shutdown_count", shutdowns);
  set(out, "segfault_count", segfaults);
  f.host_partials["ac.switches"] = ac_switches(events, f);
  f.host_partials["interruptions"] = suspends + boots + lost + resets;
  session_rates_from_partials(f);
}

void session_rates_from_partials(Features& f) {
  IndicatorSet& out = f.host_indicators;
  const auto switches = f.host_partials.find("ac.switches");
  const auto interruptions = f.host_partials.find("interruptions");
  if (switches == f.host_partials.end() || interruptions == f.host_partials.end()) {
    absent(out, "ac_switches_per_hour", kNoHostLogs);
    absent(out, "interruptions_per_hour", kNoHostLogs);
    return;
  }
  rate(out, "ac_switches_per_hour", switches->second, f.wall_s());
  rate(out, "interruptions_per_hour", interruptions->second, f.wall_s());
}

// ---- the temperature-anchored chain (F106-F113) ----------------------------------------------

ChainData chain_errors(const SampleCollector& c, const Features& f) {
  ChainData chain;
  for (const Incident& i : c.incidents())
    if (is_chain_error(i) && f.contains(i.ts_ns)) chain.errors.push_back(i.ts_ns);
  std::sort(chain.errors.begin(), chain.errors.end());
  chain.around.resize(chain.errors.size());
  return chain;
}

void UtilAroundWalker::add(const Sample& x) {
  if (std::isnan(x.util_pct)) return;
  m_chain.utilisation = true;
  const auto span = static_cast<std::int64_t>(kUtilDropSpanS * 1e9);
  const std::vector<std::int64_t>& errors = m_chain.errors;
  // [t - 12.7 s, t) before, (t, t + 12.7 s] after.
  while (m_first < errors.size() && errors[m_first] + span < x.ts_ns) ++m_first;
  for (std::size_t e = m_first; e < errors.size() && errors[e] - span <= x.ts_ns; ++e) {
    const std::int64_t t = errors[e];
    UtilAround& a = m_chain.around[e];
    if (x.ts_ns < t) {
      a.before_sum += x.util_pct;
      ++a.before_n;
    } else if (x.ts_ns > t) {
      a.after_sum += x.util_pct;
      ++a.after_n;
    }
  }
}

namespace {

/// Mean over the errors (all, or those `chained`) of mean utilisation after / before.
void util_drop(const ChainData& chain, const std::vector<bool>* chained, std::string_view key, IndicatorSet& out) {
  if (!chain.utilisation) {
    absent(out, key, "no utilisation samples in the window");
    return;
  }
  if (chain.errors.empty()) {
    absent(out, key, kNoErrors);
    return;
  }
  double sum = 0, n = 0;
  for (std::size_t e = 0; e < chain.errors.size(); ++e) {
    if (chained != nullptr && !(*chained)[e]) continue;
    const UtilAround& a = chain.around[e];
    if (a.before_n == 0 || a.after_n == 0 || a.before_sum <= 0) continue;
    sum += (a.after_sum / static_cast<double>(a.after_n)) / (a.before_sum / static_cast<double>(a.before_n));
    ++n;
  }
  if (n > 0) set(out, key, sum / n);
  else absent(out, key, chained != nullptr ? "no error after a crossing has utilisation > 0 % before it and samples after it"
                                           : "no error has utilisation > 0 % before it and samples after it");
}

}  // namespace

void chain_indicators(const SampleCollector& c, ChainData& chain, double window_s, IndicatorSet& out) {
  static constexpr std::string_view kCrossingKeys[] = {"chain_errors_after_crossing", "chain_errors_per_crossing",
                                                       "chain_crossings_with_error", "chain_error_share",
                                                       "chain_lag_mean_s", "chain_lag_min_s", "chain_util_drop_ratio"};
  if (!has_host_logs(c)) {
    for (auto k : kCrossingKeys) absent(out, k, kNoHostLogs);
    absent(out, "error_util_drop_ratio", kNoHostLogs);
    return;
  }
  util_drop(chain, nullptr, "error_util_drop_ratio", out);
  if (!chain.temperature) {
    for (auto k : kCrossingKeys) absent(out, k, "no temperature samples in the window");
    return;
  }
  std::sort(chain.crossings.begin(), chain.crossings.end());
  const auto window = static_cast<std::int64_t>(window_s * 1e9);
  std::vector<bool> chained(chain.errors.size(), false);
  double pairs = 0, with_error = 0, lag_sum = 0, lag_min = std::numeric_limits<double>::infinity();
  for (const std::int64_t x : chain.crossings) {
    const auto first = std::lower_bound(chain.errors.begin(), chain.errors.end(), x);
    const auto last = std::upper_bound(first, chain.errors.end(), x + window);
    if (first == last) continue;
    pairs += static_cast<double>(last - first);
    for (auto e = first; e != last; ++e) chained[static_cast<std::size_t>(e - chain.errors.begin())] = true;
    ++with_error;
    lag_sum += secs(*first - x);
    lag_min = std::min(lag_min, secs(*first - x));
  }
  const auto after = static_cast<double>(std::count(chained.begin(), chained.end(), true));
  set(out, "chain_errors_after_crossing", after);
  set(out, "chain_crossings_with_error", with_error);
  const std::string no_crossing = "the rolling-median temperature never crossed the threshold upward";
  if (chain.crossings.empty()) absent(out, "chain_errors_per_crossing", no_crossing);
  else set(out, "chain_errors_per_crossing", pairs / static_cast<double>(chain.crossings.size()));
  if (chain.errors.empty()) absent(out, "chain_error_share", kNoErrors);
  else set(out, "chain_error_share", after / static_cast<double>(chain.errors.size()));
  if (with_error > 0) {
    set(out, "chain_lag_mean_s", lag_sum / with_error);
    set(out, "chain_lag_min_s", lag_min);
  } else {
    const std::string none = chain.crossings.empty() ? no_crossing : "no error followed a crossing within the chain window";
    absent(out, "chain_lag_mean_s", none);
    absent(out, "chain_lag_min_s", none);
  }
  if (with_error > 0) util_drop(chain, &chained, "chain_util_drop_ratio", out);
  else absent(out, "chain_util_drop_ratio", "no error followed a crossing within the chain window");
}

}  // namespace gpucost::extract::detail
