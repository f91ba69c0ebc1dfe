// The window's incidents and downtime, the temperature-anchored chain, power source and
// sessions: host indicators from the kernel and system events, in docs/indicators.md
// ("Definitions of F106-F123"). Every pass reads the incident store once in time order.
#include "host_events.hpp"

#include <gpucost/core/time.hpp>
#include <gpucost/core/xid_bucket.hpp>
#include <gpucost/extract/catalogue.hpp>

#include "faults.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>

namespace gpucost::extract::detail {

namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::min();

const std::string kNoHostLogs = "no kernel log, dmesg, journal or bug report among the inputs";
const std::string kNoErrors = "no Xid, AER, modeset or thermal error in the window";
constexpr IndicatorKey kErrorUtilDrop = "error_util_drop_ratio";  // the chain indicator crossings do not set

/// Sets every indicator of the catalogue's `category` ("chain", "session") to null with `reason`.
void absent_category(IndicatorSet& out, std::string_view category, const std::string& reason) {
  for (const IndicatorDef& d : catalogue())
    if (d.category == category) set_absent(out, IndicatorKey::of(d.key), reason);
}

bool has_host_logs(const SampleCollector& c) { return c.has_host_logs() || !c.incidents().empty(); }

bool is_chain_error(const Incident& i) {
  return i.kind == EventKind::xid || i.kind == EventKind::aer || i.kind == EventKind::modeset ||
         (i.kind == EventKind::thermal && i.detail != "normal");
}

// ---- the window's incidents and their downtime ----------------------------------------------

/// The first sample of any GPU after a time that reads utilisation > 0; asked for times in
/// ascending order, it reads the samples once.
class NextBusy {
 public:
  NextBusy(const SampleStore& store, const Features& f) : m_reader(store, f.from_ns, f.last_ns(), 2) {}
  /// The busy sample's time, or kNever when none comes in the window.
  std::int64_t after(std::int64_t t) {
    while (!m_done && m_ts <= t) pull();
    return m_done ? kNever : m_ts;
  }

 private:
  void pull() {
    while (const Sample* s = m_reader.next())
      if (s->util_pct > 0) {
        m_ts = s->ts_ns;
        return;
      }
    m_done = true;
  }
  SampleStore::Reader m_reader;
  std::int64_t m_ts = kNever;
  bool m_done = false;
};

/// Builds Features::incidents: Xid, gpu_lost, the first message of each suspend and AC offline,
/// bursts coalesced (kBurstNs), each entry with the union of its members' downtimes; and the
/// host's downtime, the union over every member.
class IncidentList {
 public:
  IncidentList(NextBusy& busy, Features& f, bool utilisation) : m_f(f), m_busy(busy), m_utilisation(utilisation) {}

  /// An incident of the window; `suspend_start`: a suspend event starts a suspend (SuspendStarts).
  void add(const Incident& i, bool suspend_start) {
    std::string_view kind = event_kind_name(i.kind), bucket;
    int code = -1;
    if (i.kind == EventKind::xid) {
      bucket = i.detail;
      code = i.code;
    } else if (i.kind == EventKind::gpu_lost) {
      bucket = xid_bucket_name(XidBucket::reboot);  // a GPU off the bus comes back only with a reboot
    } else if (i.kind == EventKind::suspend) {
      if (!suspend_start) return;  // the same suspend seen by another layer
    } else if (i.kind == EventKind::power_source && i.detail == "offline") {
      kind = "ac_offline";
    } else {
      return;
    }
    WindowIncident& w = entry(i.ts_ns, kind, bucket, code);
    if (!m_utilisation) return;  // no way to tell when work resumed
    const std::int64_t busy = m_busy.after(i.ts_ns);
    const std::int64_t end = busy == kNever ? m_f.to_ns : busy;
    m_total_s += covered(i.ts_ns, end, m_covered_to);
    std::int64_t& entry_covered = m_entry_covered[static_cast<std::size_t>(&w - m_f.incidents.data())];
    w.downtime_s = w.downtime_s.value_or(0) + covered(i.ts_ns, end, entry_covered);
    w.downtime_to_end = busy == kNever;
  }

  /// downtime_s (F051).
  void finish(const SampleCollector& c) {
    if (!has_host_logs(c))
      set_absent(m_f.host_indicators, "downtime_s", kNoHostLogs);
    else if (!m_utilisation)
      set_absent(m_f.host_indicators, "downtime_s", "no utilisation samples to tell when work resumed");
    else
      set_value(m_f.host_indicators, "downtime_s", m_total_s);
  }

 private:
  /// The part of [from, to) beyond `covered_to` (a union, built in time order), s.
  static double covered(std::int64_t from, std::int64_t to, std::int64_t& covered_to) {
    const std::int64_t start = std::max(from, covered_to);
    covered_to = std::max(covered_to, to);
    return to > start ? seconds_of(to - start) : 0.0;
  }

  /// The burst this incident joins, or a new entry.
  WindowIncident& entry(std::int64_t ts, std::string_view kind, std::string_view bucket, int code) {
    const auto key = std::make_tuple(kind, bucket, code);  // views of the store's names or of literals
    const auto open = m_open.find(key);
    if (open != m_open.end()) {
      WindowIncident& w = m_f.incidents[open->second];
      if (ts - w.last() <= kBurstNs) {
        ++w.count;
        w.last_ts_ns = ts;
        return w;
      }
    }
    WindowIncident w;
    w.ts_ns = w.last_ts_ns = ts;
    w.kind = std::string(kind);
    w.bucket = std::string(bucket);
    w.code = code;
    m_f.incidents.push_back(std::move(w));
    m_entry_covered.push_back(kNever);
    m_open[key] = m_f.incidents.size() - 1;
    return m_f.incidents.back();
  }

  Features& m_f;
  NextBusy& m_busy;
  bool m_utilisation;
  std::map<std::tuple<std::string_view, std::string_view, int>, std::size_t> m_open;  // the latest entry per key
  std::vector<std::int64_t> m_entry_covered;  // per entry: its downtime union so far reaches here
  std::int64_t m_covered_to = kNever;
  double m_total_s = 0;
};

// ---- the temperature-anchored chain (F106-F113) ----------------------------------------------

/// The chain over the window's errors, given in time order, against the crossings of every
/// GPU; the utilisation around each error from one merged read of every GPU's samples.
class ChainPass {
 public:
  ChainPass(const SampleStore& store, const Features& f, std::vector<std::int64_t> crossings, double window_s)
      : m_reader(store, f.from_ns, f.last_ns(), 2),
        m_crossings(std::move(crossings)),
        m_window(static_cast<std::int64_t>(window_s * 1e9)) {
    std::sort(m_crossings.begin(), m_crossings.end());
  }

  void add_error(std::int64_t t) {
    ++m_errors;
    read_samples_before(t);
    if (!m_pending.empty() && m_pending.back().t == t) {  // the same instant: the same windows
      ++m_pending.back().multiplicity;
      count_pairs(t);
      return;
    }
    Pending p;
    p.t = t;
    p.chained = count_pairs(t);
    assign_lags(t);
    while (!m_recent.empty() && m_recent.front().first < t - kSpanNs) m_recent.pop_front();
    for (const auto& [ts, util] : m_recent) {  // [t - 12.7 s, t)
      p.before_sum += util;
      ++p.before_n;
    }
    m_pending.push_back(p);
  }

  void finish(bool temperature, bool utilisation, IndicatorSet& out) {
    if (m_held && !m_pending.empty()) take(m_held_sample);
    m_held = false;
    while (!m_pending.empty()) {  // the after-windows still open; the samples beyond matter to none
      const Sample* s = m_reader.next();
      if (s == nullptr) break;
      take(*s);
    }
    while (!m_pending.empty()) close_front();
    util_drop(utilisation, false, kErrorUtilDrop, out);
    if (!temperature) {
      for (const IndicatorDef& d : catalogue())
        if (d.category == "chain" && d.key != kErrorUtilDrop.name())
          set_absent(out, IndicatorKey::of(d.key), "no temperature samples in the window");
      return;
    }
    set_value(out, "chain_errors_after_crossing", m_chained);
    const std::string no_crossing = "the rolling-median temperature never crossed the threshold upward";
    if (m_errors == 0)
      set_absent(out, "chain_error_share", kNoErrors);
    else
      set_value(out, "chain_error_share", m_chained / m_errors);
    if (m_with_error > 0) {
      set_value(out, "chain_lag_mean_s", m_lag_sum / m_with_error);
      util_drop(utilisation, true, "chain_util_drop_ratio", out);
    } else {
      const std::string none =
          m_crossings.empty() ? no_crossing : "no error followed a crossing within the chain window";
      set_absent(out, "chain_lag_mean_s", none);
      set_absent(out, "chain_util_drop_ratio", "no error followed a crossing within the chain window");
    }
  }

 private:
  static constexpr auto kSpanNs = static_cast<std::int64_t>(kUtilDropSpanS * 1e9);

  /// An error whose after-window is still open: (t, t + 12.7 s].
  struct Pending {
    std::int64_t t = 0;
    double multiplicity = 1;  // errors at this very instant
    double before_sum = 0, after_sum = 0;
    std::size_t before_n = 0, after_n = 0;
    bool chained = false;
  };

  /// True when a crossing lies within the chain window before t (x <= t <= x + window), i.e.
  /// the error follows a crossing; counts it.
  bool count_pairs(std::int64_t t) {
    const auto last = std::upper_bound(m_crossings.begin(), m_crossings.end(), t);
    const auto first = std::lower_bound(m_crossings.begin(), last, t - m_window);
    if (first == last) return false;
    ++m_chained;
    return true;
  }

  /// Crossings whose first error this is: their lag. Errors come in time order, so a crossing
  /// not yet assigned and at or before t has t as its first error at or after it.
  void assign_lags(std::int64_t t) {
    while (m_next_crossing < m_crossings.size() && m_crossings[m_next_crossing] < t - m_window) ++m_next_crossing;
    for (; m_next_crossing < m_crossings.size() && m_crossings[m_next_crossing] <= t; ++m_next_crossing) {
      const double lag = seconds_of(t - m_crossings[m_next_crossing]);
      ++m_with_error;
      m_lag_sum += lag;
    }
  }

  void read_samples_before(std::int64_t t) {
    if (m_held) {
      if (m_held_sample.ts_ns >= t) return;
      m_held = false;
      take(m_held_sample);
    }
    while (const Sample* s = m_reader.next()) {
      if (s->ts_ns >= t) {  // the error's own instant is in neither window: keep it for later
        m_held_sample = *s;
        m_held = true;
        return;
      }
      take(*s);
    }
  }

  void take(const Sample& s) {
    if (std::isnan(s.util_pct)) return;
    while (!m_pending.empty() && m_pending.front().t + kSpanNs < s.ts_ns) close_front();
    for (Pending& p : m_pending)
      if (p.t < s.ts_ns) {
        p.after_sum += s.util_pct;
        ++p.after_n;
      }
    m_recent.emplace_back(s.ts_ns, s.util_pct);
    while (m_recent.front().first < s.ts_ns - kSpanNs) m_recent.pop_front();  // no later error needs it
  }

  /// The oldest pending error's ratio: mean utilisation after / before.
  void close_front() {
    const Pending& p = m_pending.front();
    if (p.before_n > 0 && p.after_n > 0 && p.before_sum > 0) {
      const double ratio =
          (p.after_sum / static_cast<double>(p.after_n)) / (p.before_sum / static_cast<double>(p.before_n));
      for (double k = 0; k < p.multiplicity; ++k) {  // one term per error, as errors are counted
        m_ratio_all += ratio;
        ++m_ratio_all_n;
        if (p.chained) {
          m_ratio_chained += ratio;
          ++m_ratio_chained_n;
        }
      }
    }
    m_pending.pop_front();
  }

  /// Mean over the errors (all, or those after a crossing) of mean utilisation after / before.
  void util_drop(bool utilisation, bool chained, const IndicatorKey& key, IndicatorSet& out) const {
    if (!utilisation) {
      set_absent(out, key, "no utilisation samples in the window");
      return;
    }
    if (m_errors == 0) {
      set_absent(out, key, kNoErrors);
      return;
    }
    const double sum = chained ? m_ratio_chained : m_ratio_all, n = chained ? m_ratio_chained_n : m_ratio_all_n;
    if (n > 0)
      set_value(out, key, sum / n);
    else
      set_absent(out, key,
                 chained ? "no error after a crossing has utilisation > 0 % before it and samples after it"
                         : "no error has utilisation > 0 % before it and samples after it");
  }

  SampleStore::Reader m_reader;
  Sample m_held_sample;
  bool m_held = false;
  std::vector<std::int64_t> m_crossings;
  std::int64_t m_window;
  std::size_t m_next_crossing = 0;
  std::deque<std::pair<std::int64_t, double>> m_recent;  // utilisation samples of the last 12.7 s
  std::deque<Pending> m_pending;
  double m_errors = 0, m_chained = 0, m_with_error = 0, m_lag_sum = 0;
  double m_ratio_all = 0, m_ratio_all_n = 0, m_ratio_chained = 0, m_ratio_chained_n = 0;
};

}  // namespace

namespace {

/// A fault member with its downtime: until the next busy sample, or the window end.
FaultEvent fault_event(const Incident& i, NextBusy& busy, bool utilisation, const Features& f) {
  const std::string_view kind = event_kind_name(i.kind);
  FaultEvent e{i.ts_ns, i.device,     kind,  fault_bucket(kind, i.detail),
               i.code,  std::nullopt, false, fault_member_cause(kind, i.cause)};
  if (!utilisation) return e;
  const std::int64_t next = busy.after(i.ts_ns);
  e.downtime_end_ns = next == kNever ? f.to_ns : next;
  e.downtime_to_end = next == kNever;
  return e;
}

}  // namespace

void window_pass(const SampleCollector& c, GpuWalkSummary& walks, const WindowPassOptions& options, Features& f) {
  const bool host_logs = has_host_logs(c);
  NextBusy busy(c.store(), f);
  IncidentList list(busy, f, walks.utilisation);
  FaultBuilder faults(options.fault_window_s);
  f.fault_window_s = options.fault_window_s;
  ChainPass chain(c.store(), f, std::move(walks.crossings), options.chain_window_s);
  SuspendStarts suspends;
  if (host_logs)
    c.incidents().for_each([&](const Incident& i) {
      const bool suspend_start = i.kind == EventKind::suspend && suspends.starts(i.ts_ns);
      if (!f.contains(i.ts_ns)) return;
      list.add(i, suspend_start);
      if (is_fault_member(i)) faults.add(fault_event(i, busy, walks.utilisation, f));
      if (is_chain_error(i)) chain.add_error(i.ts_ns);
    });
  list.finish(c);
  f.faults = faults.finish();
  fault_indicators(f, host_logs ? std::string() : kNoHostLogs);
  if (!host_logs) {
    absent_category(f.host_indicators, "chain", kNoHostLogs);
    return;
  }
  chain.finish(walks.temperature, walks.utilisation, f.host_indicators);
}

// ---- power source and sessions (F114-F123) -------------------------------------------------

namespace {

/// A state that opens on one event and closes on another (AC offline .. online, lid closed ..
/// open, ...); its time within the window, summed as the stretches close. An opening while
/// open continues the stretch; one opened before the window counts from the window start; one
/// still open at the end runs to the window end.
class Stretches {
 public:
  Stretches(const Features& f) : m_from(f.from_ns), m_to(f.to_ns) {}
  void open(std::int64_t t) {
    if (m_since == kNever) m_since = t;
  }
  void close(std::int64_t t) {
    if (m_since == kNever) return;
    add(m_since, t);
    m_since = kNever;
  }
  double finish() {
    if (m_since != kNever) add(m_since, m_to);
    m_since = kNever;
    return m_total;
  }

 private:
  void add(std::int64_t a, std::int64_t b) {
    a = std::max(a, m_from);
    b = std::min(b, m_to);
    if (b > a) m_total += seconds_of(b - a);
  }
  std::int64_t m_from, m_to, m_since = kNever;
  double m_total = 0;
};

void rate(IndicatorSet& out, const IndicatorKey& key, double count, double wall_s) {
  if (wall_s > 0)
    set_value(out, key, count / (wall_s / 3600));
  else
    set_absent(out, key, "the window is empty (wall time 0 s)");
}

}  // namespace

void session_indicators(const SampleCollector& c, Features& f) {
  IndicatorSet& out = f.host_indicators;
  if (!has_host_logs(c)) {
    absent_category(out, "session", kNoHostLogs);
    return;
  }
  Stretches battery(f), gpu_gone(f), asleep(f);
  SuspendStarts suspend_starts;
  double suspends = 0, boots = 0, lost = 0, resets = 0;
  c.incidents().for_each([&](const Incident& i) {
    const bool inside = f.contains(i.ts_ns);
    if (i.ts_ns > f.last_ns()) return;  // stretches and sleep only up to the window end
    if (i.kind == EventKind::power_source && i.detail == "offline") battery.open(i.ts_ns);
    if (i.kind == EventKind::power_source && i.detail == "online") battery.close(i.ts_ns);
    if (i.kind == EventKind::gpu_lost || (i.kind == EventKind::driver && i.detail == "unload")) gpu_gone.open(i.ts_ns);
    if (i.kind == EventKind::boot || (i.kind == EventKind::driver && i.detail == "load")) gpu_gone.close(i.ts_ns);
    // Suspended: from the first message of a suspend (others within 120 s are the same one) to
    // the next resume, failed or not.
    if (i.kind == EventKind::suspend && suspend_starts.starts(i.ts_ns)) {
      asleep.open(i.ts_ns);
      if (inside) ++suspends;
    }
    if (i.kind == EventKind::resume) asleep.close(i.ts_ns);
    if (!inside) return;
    if (i.kind == EventKind::boot) ++boots;
    if (i.kind == EventKind::gpu_lost) ++lost;
    if (i.kind == EventKind::driver && i.detail == "reset") ++resets;
  });
  set_value(out, "battery_s", battery.finish());
  set_value(out, "gpu_unavailable_s", gpu_gone.finish());
  set_value(out, "suspend_s", asleep.finish());
  set_value(out, "boot_count", boots);
  f.host_partials["interruptions"] = suspends + boots + lost + resets;
  session_rates_from_partials(f);
}

void session_rates_from_partials(Features& f) {
  IndicatorSet& out = f.host_indicators;
  const auto interruptions = f.host_partials.find("interruptions");
  if (interruptions == f.host_partials.end()) {
    for (const std::string_view key : kSessionRateKeys) set_absent(out, IndicatorKey::of(key), kNoHostLogs);
    return;
  }
  rate(out, "interruptions_per_hour", interruptions->second, f.wall_s());
}

}  // namespace gpucost::extract::detail
