// The one-screen answer (docs/outputs.md, "The default answer"): the verdict in one sentence, the
// costs side by side, the break-evens, what moves the premium most and the largest findings, in at
// most 25 lines of 100 columns. Every figure behind it is in --full, --json and the report.
#include <gpucost/report/breakeven_report.hpp>

#include <gpucost/breakeven/carbon.hpp>
#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/report/attribution_report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace gpucost::report {

namespace {

constexpr std::size_t kColumns = 100;
constexpr std::size_t kScreenLines = 25;
constexpr std::size_t kDriversShown = 3;
constexpr std::size_t kFindingsShown = 3;
constexpr std::size_t kOffersShown = 3;

std::string money(double v, const std::string& cur) { return fmt::format("{:.2f} {}", v, cur); }
std::string percent(double fraction) { return fmt::format("{:.1f} %", std::fabs(fraction) * 100); }

/// `words` broken into lines of at most kColumns, the later ones indented by `indent`.
std::string wrapped(std::string_view words, std::size_t indent = 0) {
  std::string out;
  std::size_t pos = words.find_first_not_of(' ');
  if (pos == std::string_view::npos) return "\n";
  std::string line(pos, ' ');  // the first line's own indentation is kept
  while (pos < words.size()) {
    std::size_t end = words.find(' ', pos);
    if (end == std::string_view::npos) end = words.size();
    // A unit stays with its number: "11.8 %", "46.6 pp" never break between the two.
    const std::size_t next_end = words.find(' ', end + 1);
    const std::string_view next = end < words.size() ? words.substr(end + 1, next_end - end - 1) : std::string_view();
    if (next == "%" || next == "pp" || next == "%)" || next == "pp)" || next == "%." || next == "%,")
      end = next_end == std::string_view::npos ? words.size() : next_end;
    const std::string_view word = words.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.size() + 1 + word.size() > kColumns) {
      out += line + "\n";
      line.assign(indent, ' ');
    } else if (!line.empty() && line.find_first_not_of(' ') != std::string::npos) {
      line += ' ';
    }
    line += word;
  }
  return out + line + "\n";
}

/// `line` cut to kColumns (with "…" in the last column); the full text is in --explain.
std::string one_line(std::string_view line) {
  std::size_t pos = 0, last_fit = 0;  // last_fit: where the first kColumns - 1 columns end
  for (std::size_t columns = 0; pos < line.size(); ++columns) {
    if (columns == kColumns) return std::string(line.substr(0, last_fit)) + "\u2026\n";
    if (columns == kColumns - 1) last_fit = pos;
    const auto c = static_cast<unsigned char>(line[pos]);
    pos += c < 0x80 ? 1 : std::max<std::size_t>(1, text::utf8_sequence_length(line, pos));
  }
  return std::string(line) + "\n";
}

/// The sensitivity table's parameters in a user's words.
std::string parameter_words(std::string_view parameter) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kWords = {{
      {"rate_per_hour", "cloud rate"},
      {"use_hours_per_year", "use per year"},
      {"speed_ratio", "cloud GPU speed"},
      {"lifetime_years", "GPU lifetime"},
      {"hardware_price", "hardware price"},
      {"hourly_wage", "hourly wage"},
      {"maintenance_hours_per_year", "maintenance hours"},
      {"price_per_kwh, cooling_factor", "electricity price"},
      {"residual_fraction", "resale value"},
      {"billing_increment_s", "billing step"},
      {"billing_minimum_s", "minimum billed time"},
      {"cold_start_s", "cloud start-up time"},
      {"system_power_w", "system power"},
      {"idle_power_w", "idle power"},
      {"fixed_per_job", "fixed cost per job"},
      {"cooling_factor", "cooling overhead"},
  }};
  for (const auto& [name, words] : kWords)
    if (name == parameter) return std::string(words);
  if (parameter.starts_with("incident_hours.")) return "hours per incident";
  return std::string(parameter);
}

/// "owning is 11.6 % dearer" / "owning is 20.3 % cheaper" / "both cost the same".
std::string premium_words(double premium) {
  if (std::fabs(premium) < 0.0005) return "both cost the same";
  return fmt::format("owning is {} {}", percent(premium), premium > 0 ? "dearer" : "cheaper");
}

/// The verdict: what each side cost, by how much, against the line, and the decision.
std::string verdict_sentence(const breakeven::Result& r, const breakeven::CostConfig& c, const BreakevenExtras& x) {
  const std::string& cur = c.currency;
  const std::string offer = c.cloud_name.empty() ? std::string() : fmt::format(" ({})", c.cloud_name);
  if (r.unfit)
    return fmt::format(
        "The cloud offer{} cannot run this job ({}): no verdict. `--compare-clouds` lists the offers that fit.", offer,
        c.cloud_unfit);
  std::string s = fmt::format("Owning cost {}, renting would have cost {}{}: {}", money(r.local_total, cur),
                              money(r.cloud_total, cur), offer, premium_words(r.premium));
  const std::string line = fmt::format("{:.1f} %", r.line * 100);
  const std::string range = x.range.low && x.range.high
                                ? fmt::format(" ({:+.1f} % .. {:+.1f} %)", *x.range.low * 100, *x.range.high * 100)
                                : std::string();
  if (r.undecided)
    return s +
           fmt::format(". You accept up to {} more for owning, and {}{}: undecided.", line, r.verdict_reason, range);
  if (r.above_line)
    return s + fmt::format(", more than the {} extra you accept for owning: renting is cheaper for this job.", line);
  if (r.premium > 0) return s + fmt::format(", within the {} extra you accept for owning: owning holds its own.", line);
  return s + ": owning holds its own.";
}

/// "2024-06-12 12:22 .. 13:02 UTC" (the end's date only when it differs): the full table has the
/// exact times.
std::string minute_span(std::int64_t from_ns, std::int64_t to_ns) {
  const std::string from = format_utc(from_ns), to = format_utc(to_ns);  // 2024-06-12T12:22:18.004Z
  if (from.size() < 16 || to.size() < 16) return from + " .. " + to;
  const bool same_day = from.compare(0, 10, to, 0, 10) == 0;
  return fmt::format("{} {} .. {}{} UTC", from.substr(0, 10), from.substr(11, 5),
                     same_day ? "" : to.substr(0, 10) + " ", to.substr(11, 5));
}

std::string job_lines(const breakeven::Result& r, const extract::Features& f, const BreakevenExtras& x) {
  std::string host = f.host.empty() ? std::string() : ", host " + f.host;
  std::string b = fmt::format("job          {} on {}{}, {}\n", text::duration_hours(r.job.wall_h),
                              text::counted(static_cast<long long>(r.job.energy_kwh.size()), "GPU"), host,
                              minute_span(f.from_ns, f.to_ns));
  if (const std::string note = assumed_host_note(f); !note.empty()) b += fmt::format("             {}\n", note);
  const char* how = x.estimate ? "estimated from the GPU model (no telemetry)" : "measured";
  b += fmt::format("energy       {:.4f} kWh {}, mean utilisation {:.1f} %{}\n", r.energy_kwh, how, r.util_mean * 100,
                   r.job.util_assumed ? " (assumed: not measured)" : "");
  return b;
}

/// The unit of work the answer shows (tokens when counted: they compare across models), or none.
const breakeven::UnitCost* headline_unit(const breakeven::WorkCosts& w) {
  const breakeven::UnitCost* first = nullptr;
  for (const breakeven::UnitCost& u : w.units) {
    if (!u.count) continue;
    if (u.unit->noun == "tokens") return &u;
    if (first == nullptr) first = &u;
  }
  return first;
}

std::string cost_rows(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f) {
  const std::string& cur = c.currency;
  const auto row = [&](std::string_view label, std::string_view owning, std::string_view renting,
                       std::string_view note = {}) {
    std::string line = fmt::format("  {:<15}{:>14}{:>14}", label, owning, renting);
    if (!note.empty()) line += fmt::format("  {}", note);
    return std::string(text::rtrim(line)) + "\n";
  };
  std::string b = row("", "owning", "renting");
  b += row("electricity", money(r.electricity, cur), "");
  b += row("amortisation", money(r.amortisation, cur), "");
  b += row("maintenance", money(r.maintenance - r.incident_cost, cur), "");  // faults on their own row
  if (r.incident_cost > 0)
    b += row("faults", money(r.incident_cost, cur), r.cloud_fault_cost > 0 ? money(r.cloud_fault_cost, cur) : "");
  const std::string billing =
      c.billing_increment_s > 1 ? fmt::format(", billed per {:g} s", c.billing_increment_s) : "";
  b += row("cloud time", "", money(r.cloud_total - r.cloud_fault_cost, cur),
           fmt::format("{} at {:.6g} {}/h{}", text::duration_hours(r.billed_s / 3600), c.rate_per_hour, cur, billing));
  b += row("total", money(r.local_total, cur), money(r.cloud_total, cur));
  const breakeven::WorkCosts work = breakeven::work_costs(r, f.host_indicators);
  if (const breakeven::UnitCost* u = headline_unit(work); u && u->local && u->cloud)
    b += row(fmt::format("per {}", u->unit->per_label), breakeven::unit_money(*u->local) + " " + cur,
             breakeven::unit_money(*u->cloud) + " " + cur,
             fmt::format("{} {} in the job", breakeven::work_amount(*u->count), u->unit->noun));
  if (r.carbon.computed && r.carbon.local.kg && r.carbon.cloud.kg)
    b += row("carbon", breakeven::kg_text(*r.carbon.local.kg) + " kg", breakeven::kg_text(*r.carbon.cloud.kg) + " kg",
             "CO2e (the cloud's estimated)");
  return b;
}

std::string breakeven_lines(const breakeven::Result& r, const breakeven::CostConfig& c) {
  std::string b;
  const bool from_start = r.job_hours.value && text::duration_hours(*r.job_hours.value) == text::duration_hours(0);
  if (from_start)
    b += "break-even   the cloud is cheaper from the shortest job on\n";
  else if (r.job_hours.value)
    b += fmt::format("break-even   jobs shorter than {} cost less here; longer ones less in the cloud\n",
                     text::duration_hours(*r.job_hours.value));
  else
    b += wrapped(fmt::format("break-even   job length: none, {}", r.job_hours.reason), 13);
  if (r.use_hours_per_year.value) {
    const double h = *r.use_hours_per_year.value;
    b += h > 8760 ? std::string("             owning never pays: it would need more hours than a year has\n")
                  : fmt::format("             owning pays above {:.0f} h of use a year ({:.1f} %); you plan {:g} h\n",
                                h, h / 87.60, c.use_hours_per_year);
  } else {
    b += wrapped(fmt::format("             use: none, {}", r.use_hours_per_year.reason), 13);
  }
  return b;
}

/// The parameters that move the premium most, in words, with the size of their swing.
std::string drivers_line(const std::vector<breakeven::Swing>& sensitivity) {
  std::string parts;
  std::size_t shown = 0;
  for (const auto& s : sensitivity) {
    if (shown == kDriversShown || s.swing() < 0.0005) break;
    parts += fmt::format("{}{} {:.1f} pp", shown == 0 ? "" : ", ", parameter_words(s.parameter), s.swing() * 100);
    ++shown;
  }
  if (shown == 0) return {};
  return wrapped("moved most   " + parts + " (from 0.8x to 1.2x)", 13);
}

std::string offers_lines(const std::vector<CloudRank>& clouds, const std::string& cur) {
  std::size_t fit = 0;
  for (const auto& k : clouds) fit += k.unfit.empty() ? 1u : 0u;
  if (fit == 0) return {};
  std::string b = fmt::format("\ncheapest of {} that fit\n", text::counted(static_cast<long long>(fit), "offer"));
  for (std::size_t i = 0; i < std::min(fit, kOffersShown); ++i)
    b += fmt::format("  {}. {:<36} {:>12}  ({})\n", i + 1, clouds[i].name, money(clouds[i].total, cur),
                     premium_words(clouds[i].premium));
  return b;
}

std::string findings_lines(const std::vector<breakeven::Finding>& findings, const std::string& cur) {
  if (findings.empty()) return {};
  std::string b = fmt::format("\nwhat to change ({} of {}, estimated saving first; --explain for the evidence)\n",
                              std::min(findings.size(), kFindingsShown), findings.size());
  for (std::size_t i = 0; i < std::min(findings.size(), kFindingsShown); ++i)
    b += one_line(fmt::format("  {}. {:>11}  {}", i + 1, money(findings[i].saving, cur), findings[i].title));
  return b;
}

}  // namespace

std::string breakeven_summary(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                              const BreakevenExtras& x) {
  std::string b = wrapped(verdict_sentence(r, c, x));
  b += "\n" + job_lines(r, f, x) + "\n" + cost_rows(r, c, f) + "\n";
  b += breakeven_lines(r, c);
  b += drivers_line(x.sensitivity);
  b += offers_lines(x.clouds, c.currency);
  if (x.attribution) b += "\n" + attribution_table(*x.attribution, c.currency);  // --by asked for it
  if (x.findings) b += findings_lines(*x.findings, c.currency);
  // The hint keeps its blank line while the answer fits the screen with it.
  const auto lines = static_cast<std::size_t>(std::count(b.begin(), b.end(), '\n'));
  b += lines + 2 <= kScreenLines ? "\n" : "";
  b += "--full: every figure and its basis; --json: all of it\n";
  return b;
}

}  // namespace gpucost::report
