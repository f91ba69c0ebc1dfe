// `gpucost history`: the ledger's runs and the trend per host, as a table, JSON or CSV.
#include <gpucost/outputs/ledger.hpp>

#include <gpucost/breakeven/carbon.hpp>
#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>
#include <tuple>

namespace gpucost::outputs {

namespace {

/// Premium and cost of one host over its runs, in window order.
/// What every trend keeps of its runs (window order): their count, windows, premiums, currency.
struct RunTrend {
  std::string currency;
  std::size_t runs = 0;
  std::int64_t first_from_ns = 0, last_from_ns = 0;
  double premium_first = 0, premium_last = 0, premium_sum = 0;
  bool mixed_currency = false;
  void add(const RunRecord& r) {
    if (runs == 0) {
      currency = r.currency;
      first_from_ns = r.from_ns;
      premium_first = r.premium;
    }
    mixed_currency = mixed_currency || currency != r.currency;
    ++runs;
    last_from_ns = r.from_ns;
    premium_last = r.premium;
    premium_sum += r.premium;
  }
};

struct HostTrend : RunTrend {
  std::string host;
  double local_per_h_first = 0, local_per_h_last = 0;
  double local_sum = 0, cloud_sum = 0, energy_kwh_sum = 0;
  std::size_t above_line = 0;
};

double per_hour(double cost, double wall_s) { return wall_s > 0 ? cost / (wall_s / 3600) : kNone; }

/// Each run once: of rows with the same run_key (kept by --ledger-append), the latest priced.
std::vector<const RunRecord*> distinct_runs(const std::vector<RunRecord>& runs) {
  std::map<std::string, const RunRecord*> latest;
  for (const auto& r : runs)
    if (!r.run_key.empty()) {
      const RunRecord*& seen = latest[r.run_key];
      if (seen == nullptr || r.run_at_ns >= seen->run_at_ns) seen = &r;
    }
  std::vector<const RunRecord*> out;
  for (const auto& r : runs)
    if (r.run_key.empty() || latest[r.run_key] == &r) out.push_back(&r);
  return out;
}

std::vector<HostTrend> trends(const std::vector<RunRecord>& all) {
  std::map<std::string, HostTrend> by_host;
  for (const RunRecord* run : distinct_runs(all)) {  // runs come in window order
    const RunRecord& r = *run;
    HostTrend& t = by_host[r.host];
    if (t.runs == 0) {
      t.host = r.host;
      t.local_per_h_first = per_hour(r.local_total, r.wall_s);
    }
    t.add(r);
    t.local_per_h_last = per_hour(r.local_total, r.wall_s);
    t.local_sum += r.local_total;
    t.cloud_sum += r.cloud_total;
    t.energy_kwh_sum += r.energy_kwh;
    t.above_line += r.above_line ? 1 : 0;
  }
  std::vector<HostTrend> out;
  for (auto& [host, t] : by_host) out.push_back(std::move(t));
  return out;
}

/// One unit's cost over the runs of a software stack that counted it, in window order.
struct UnitTrend {
  std::size_t runs = 0;
  double local_first = kNone, local_last = kNone, local_sum = 0;
  double cloud_first = kNone, cloud_last = kNone, cloud_sum = 0;
  void add(double local, double cloud) {
    if (!std::isfinite(local) || !std::isfinite(cloud)) return;
    if (runs == 0) {
      local_first = local;
      cloud_first = cloud;
    }
    ++runs;
    local_last = local;
    cloud_last = cloud;
    local_sum += local;
    cloud_sum += cloud;
  }
  [[nodiscard]] double local_mean() const { return runs > 0 ? local_sum / static_cast<double>(runs) : kNone; }
  [[nodiscard]] double cloud_mean() const { return runs > 0 ? cloud_sum / static_cast<double>(runs) : kNone; }
};

/// The runs of one software stack (the inputs' fingerprint: drivers, CUDA, GPU models): the
/// premium and the cost per unit of work over time, to see what a driver or CUDA update changed.
struct StackTrend : RunTrend {
  std::string drivers, cuda, gpu_names;
  std::array<UnitTrend, 4> units;  ///< breakeven::work_units() order
  [[nodiscard]] std::string label() const {
    const auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
    return fmt::format("driver {}, CUDA {}, {}", or_unknown(drivers), or_unknown(cuda), or_unknown(gpu_names));
  }
};

std::vector<StackTrend> stack_trends(const std::vector<RunRecord>& all) {
  std::map<std::tuple<std::string, std::string, std::string>, StackTrend> by_stack;
  std::vector<std::tuple<std::string, std::string, std::string>> order;  // first seen first
  for (const RunRecord* run : distinct_runs(all)) {
    const RunRecord& r = *run;
    const auto key = std::make_tuple(r.drivers, r.cuda, r.gpu_names);
    StackTrend& t = by_stack[key];
    if (t.runs == 0) {
      order.push_back(key);
      t.drivers = r.drivers;
      t.cuda = r.cuda;
      t.gpu_names = r.gpu_names;
    }
    t.add(r);
    for (std::size_t i = 0; i < t.units.size(); ++i) t.units[i].add(r.local_per_unit[i], r.cloud_per_unit[i]);
  }
  std::vector<StackTrend> out;
  for (const auto& key : order) out.push_back(std::move(by_stack[key]));
  return out;
}

/// "2024-06-12 12:22" (UTC, minutes).
std::string minute(std::int64_t ns) {
  std::string s = format_utc(ns);
  return s.substr(0, 10) + " " + s.substr(11, 5);
}

std::string percent(double ratio) { return std::isfinite(ratio) ? fmt::format("{:+.1f} %", ratio * 100) : "-"; }
/// A job length as the breakeven table writes it ("45.0 min", "2.50 h"; "none" when unknown).
std::string hours(double h) { return text::duration_hours(h); }

std::string csv_cell(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out.push_back(c);
  }
  return out + "\"";
}

std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); }

std::string cost_text(double v) { return std::isfinite(v) ? breakeven::unit_money(v) : std::string("-"); }

/// The trend per software stack: a line per stack, and under it a line per unit of work counted.
std::string stacks_table(const std::vector<RunRecord>& runs) {
  std::string b = "\ntrend per software stack (driver, CUDA, GPU; runs in window order)\n";
  for (const auto& t : stack_trends(runs)) {
    const std::string cur = t.mixed_currency ? "(mixed)" : t.currency;
    b += fmt::format("{}\n  {}, {} .. {}, premium {} -> {} (mean {})\n", t.label(),
                     text::counted(static_cast<long long>(t.runs), "run"), minute(t.first_from_ns),
                     minute(t.last_from_ns), percent(t.premium_first), percent(t.premium_last),
                     percent(t.premium_sum / static_cast<double>(t.runs)));
    bool any = false;
    for (std::size_t i = 0; i < t.units.size(); ++i) {
      const UnitTrend& u = t.units[i];
      if (u.runs == 0) continue;
      any = true;
      b += fmt::format("  per {:<11} local {} -> {} (mean {}), cloud {} -> {} (mean {}) {}, {} of {}\n",
                       breakeven::work_units()[i].per_label, cost_text(u.local_first), cost_text(u.local_last),
                       cost_text(u.local_mean()), cost_text(u.cloud_first), cost_text(u.cloud_last),
                       cost_text(u.cloud_mean()), cur, u.runs, text::counted(static_cast<long long>(t.runs), "run"));
    }
    if (!any) b += "  no cost per unit of work: the runs' inputs counted no steps, samples, tokens or epochs\n";
  }
  return b;
}

/// A trend's runs, windows and premiums, as host and stack trends both write them.
void json_run_trend(io::JsonWriter& w, const RunTrend& t) {
  w.key("runs").count(t.runs);
  w.key("first_window_from").str(format_utc(t.first_from_ns)).key("last_window_from").str(format_utc(t.last_from_ns));
  w.key("premium_first").num(t.premium_first).key("premium_last").num(t.premium_last);
  w.key("premium_mean").num(t.premium_sum / static_cast<double>(t.runs));
}

/// The trend's currency, the last field; null when its runs mixed currencies.
void json_currency(io::JsonWriter& w, const RunTrend& t) {
  w.key("currency");
  if (t.mixed_currency)
    w.null();
  else
    w.str(t.currency);
}

void json_stacks(io::JsonWriter& w, const std::vector<RunRecord>& runs) {
  const auto stacks = stack_trends(runs);
  w.line("  ").key("stacks").array();
  for (const auto& t : stacks) {
    w.line("    ").item().object().key("drivers").str(t.drivers).key("cuda").str(t.cuda);
    w.key("gpu_names").str(t.gpu_names);
    json_run_trend(w, t);
    w.key("per_unit").object();
    for (std::size_t i = 0; i < t.units.size(); ++i) {
      const UnitTrend& u = t.units[i];
      if (u.runs == 0) continue;
      w.key(breakeven::work_units()[i].per_id).object().key("runs").count(u.runs);
      w.key("local_first").num(u.local_first).key("local_last").num(u.local_last).key("local_mean").num(u.local_mean());
      w.key("cloud_first").num(u.cloud_first).key("cloud_last").num(u.cloud_last).key("cloud_mean").num(u.cloud_mean());
      w.close();
    }
    w.close();
    json_currency(w, t);
    w.close();
  }
  w.close(stacks.empty() ? "" : "\n  ");
}

/// The run's cost per unit columns, as in the ledger: local_per_step, cloud_per_step, ...
std::string unit_column(std::size_t i, std::string_view side) {
  static constexpr std::array<std::string_view, 4> kSuffix = {"step", "1k_samples", "1m_tokens", "epoch"};
  return fmt::format("{}_per_{}", side, kSuffix[i]);
}
/// kg CO2e for people: "-" when unknown (no grid intensity, or a row written before carbon).
std::string kg_co2e(double kg) { return std::isfinite(kg) ? breakeven::kg_text(kg) : "-"; }

}  // namespace

std::string history_table(const std::vector<RunRecord>& runs, TrendBy by) {
  if (runs.empty()) return "no runs in the ledger (for these filters)\n";
  std::string b = fmt::format("{:>5}  {:<16}  {:<16}  {:>9}  {:>4}  {:>10}  {:>12}  {:>12}  {:>8}  {:>6}  {:<10}  {}\n",
                              "run", "window (UTC)", "host", "wall", "GPUs", "energy kWh", "local", "cloud", "premium",
                              "line", "break-even", "kg CO2e local/cloud");
  for (const auto& r : runs)
    b += fmt::format("{:>5}  {:<16}  {:<16}  {:>9}  {:>4}  {:>10.4f}  {:>12}  {:>12}  {:>8}  {:>6}  {:<10}  {}\n",
                     r.run_id, minute(r.from_ns), r.host, hours(r.wall_s / 3600), r.gpus, r.energy_kwh,
                     fmt::format("{:.2f} {}", r.local_total, r.currency),
                     fmt::format("{:.2f} {}", r.cloud_total, r.currency), percent(r.premium),
                     fmt::format("{:.1f} %", r.line * 100), hours(r.breakeven_job_h),
                     fmt::format("{} / {}", kg_co2e(r.co2e_local_kg), kg_co2e(r.co2e_cloud_kg)));
  if (by == TrendBy::fingerprint) return b + stacks_table(runs);
  b += "\ntrend per host (runs in window order)\n";
  b += fmt::format("{:<16}  {:>5}  {:<16}  {:<16}  {:>19}  {:>8}  {:>11}  {:>21}  {:>12}  {:>12}\n", "host", "runs",
                   "first window", "last window", "premium first->last", "mean", "above line", "local/h first->last",
                   "local sum", "cloud sum");
  for (const auto& t : trends(runs)) {
    const std::string cur = t.mixed_currency ? "(mixed)" : t.currency;
    b +=
        fmt::format("{:<16}  {:>5}  {:<16}  {:<16}  {:>19}  {:>8}  {:>11}  {:>21}  {:>12}  {:>12}\n", t.host, t.runs,
                    minute(t.first_from_ns), minute(t.last_from_ns),
                    fmt::format("{} -> {}", percent(t.premium_first), percent(t.premium_last)),
                    percent(t.premium_sum / static_cast<double>(t.runs)), fmt::format("{} of {}", t.above_line, t.runs),
                    fmt::format("{:.2f} -> {:.2f} {}", t.local_per_h_first, t.local_per_h_last, cur),
                    fmt::format("{:.2f} {}", t.local_sum, cur), fmt::format("{:.2f} {}", t.cloud_sum, cur));
  }
  return b;
}

std::string history_json(const std::vector<RunRecord>& runs) {
  std::string b;
  io::JsonWriter w(b);
  w.object().line("  ").key("schema").str("gpucost.history").line("  ").key("version").integer(1);
  w.line("  ").key("runs").array();
  for (const auto& r : runs) {
    w.line("    ").item().object().key("run_id").integer(r.run_id).key("run_at").str(format_utc(r.run_at_ns));
    w.key("host").str(r.host).key("window_from").str(format_utc(r.from_ns)).key("window_to").str(format_utc(r.to_ns));
    w.key("wall_s").num(r.wall_s).key("gpus").integer(r.gpus).key("energy_kwh").num(r.energy_kwh);
    w.key("util_mean").num(r.util_mean).key("drivers").str(r.drivers).key("cuda").str(r.cuda);
    w.key("gpu_names").str(r.gpu_names).key("config_hash").str(r.config_hash).key("currency").str(r.currency);
    w.key("local_total").num(r.local_total).key("cloud_total").num(r.cloud_total).key("premium").num(r.premium);
    w.key("line").num(r.line).key("above_line").boolean(r.above_line);
    w.key("breakeven_job_h").num(r.breakeven_job_h).key("line_job_h").num(r.line_job_h);
    w.key("breakeven_use_h_per_year").num(r.breakeven_use_h_per_year).key("busy_share").num(r.busy_share);
    w.key("busy_source").str_or_null(r.busy_source);
    for (std::size_t i = 0; i < r.local_per_unit.size(); ++i) {
      w.key(unit_column(i, "local")).num(r.local_per_unit[i]);
      w.key(unit_column(i, "cloud")).num(r.cloud_per_unit[i]);
    }
    w.key("co2e_local_kg").num(r.co2e_local_kg).key("co2e_cloud_kg").num(r.co2e_cloud_kg).close();
  }
  w.close(runs.empty() ? "" : "\n  ");
  const auto hosts = trends(runs);
  w.line("  ").key("hosts").array();
  for (const auto& t : hosts) {
    w.line("    ").item().object().key("host").str(t.host);
    json_run_trend(w, t);
    w.key("runs_above_line").count(t.above_line);
    w.key("local_per_hour_first").num(t.local_per_h_first).key("local_per_hour_last").num(t.local_per_h_last);
    w.key("local_total").num(t.local_sum).key("cloud_total").num(t.cloud_sum).key("energy_kwh").num(t.energy_kwh_sum);
    json_currency(w, t);
    w.close();
  }
  w.close(hosts.empty() ? "" : "\n  ");
  json_stacks(w, runs);
  w.close("\n");
  b += "\n";
  return b;
}

std::string history_csv(const std::vector<RunRecord>& runs) {
  std::string b =
      "run_id,run_at,host,window_from,window_to,wall_s,gpus,energy_kwh,util_mean,drivers,cuda,gpu_names,config_hash,"
      "currency,local_electricity,local_amortisation,local_maintenance,local_total,cloud_billed_s,cloud_total,premium,"
      "line,above_line,breakeven_job_h,line_job_h,breakeven_use_h_per_year,busy_share,busy_source,local_per_step,"
      "cloud_per_step,local_per_1k_samples,cloud_per_1k_samples,local_per_1m_tokens,cloud_per_1m_tokens,"
      "local_per_epoch,cloud_per_epoch,co2e_local_kg,co2e_cloud_kg\n";
  for (const auto& r : runs) {
    b += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},", r.run_id, format_utc(r.run_at_ns), csv_cell(r.host),
                     format_utc(r.from_ns), format_utc(r.to_ns), csv_number(r.wall_s), r.gpus, csv_number(r.energy_kwh),
                     csv_number(r.util_mean), csv_cell(r.drivers), csv_cell(r.cuda), csv_cell(r.gpu_names),
                     r.config_hash, csv_cell(r.currency));
    b += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}", csv_number(r.electricity), csv_number(r.amortisation),
                     csv_number(r.maintenance), csv_number(r.local_total), csv_number(r.billed_s),
                     csv_number(r.cloud_total), csv_number(r.premium), csv_number(r.line), r.above_line ? 1 : 0,
                     csv_number(r.breakeven_job_h), csv_number(r.line_job_h), csv_number(r.breakeven_use_h_per_year));
    b += fmt::format(",{},{}", csv_number(r.busy_share), csv_cell(r.busy_source));
    for (std::size_t i = 0; i < r.local_per_unit.size(); ++i)
      b += fmt::format(",{},{}", csv_number(r.local_per_unit[i]), csv_number(r.cloud_per_unit[i]));
    b += fmt::format(",{},{}\n", csv_number(r.co2e_local_kg), csv_number(r.co2e_cloud_kg));
  }
  return b;
}

}  // namespace gpucost::outputs
