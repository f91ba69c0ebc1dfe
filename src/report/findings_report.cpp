#include <gpucost/report/findings_report.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpucost::report {

namespace {

constexpr std::size_t kTextWidth = 100;

std::string money(double v, const std::string& cur) { return fmt::format("{:.2f} {}", v, cur); }

std::string evidence_name(const breakeven::Evidence& e) {
  return e.id.empty() ? e.key : fmt::format("{} {}", e.id, e.key);
}

/// `text` wrapped at kTextWidth, starting at `first_column`; later lines are indented by `indent`.
std::string wrapped(std::string_view text, std::size_t first_column, std::size_t indent) {
  std::string out;
  std::size_t column = first_column;
  bool line_has_word = false;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    if (word.empty()) continue;
    if (line_has_word && column + 1 + word.size() > kTextWidth) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
      line_has_word = false;
    }
    if (line_has_word) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    line_has_word = true;
  }
  return out;
}

/// The evidence as one line; `glue` stands for the spaces inside one item (kept together when wrapping).
std::string evidence_line(const breakeven::Finding& f, char glue = ' ') {
  std::string out;
  for (const auto& e : f.evidence) {
    std::string item = fmt::format("{} = {}", evidence_name(e), text::short_number(e.value));
    std::replace(item.begin(), item.end(), ' ', glue);
    out += fmt::format("{}{}", out.empty() ? "" : "; ", item);
  }
  return out;
}

/// The evidence wrapped between items, never inside one.
std::string wrapped_evidence(const breakeven::Finding& f, std::size_t column) {
  constexpr char kGlue = '\x1f';
  std::string text = wrapped(evidence_line(f, kGlue), column, column);
  std::replace(text.begin(), text.end(), kGlue, ' ');
  return text;
}

void json_finding(io::JsonWriter& w, const breakeven::Finding& f, std::size_t rank) {
  w.object().key("rank").count(rank).key("kind").str(f.kind);
  w.key("title").str(f.title).key("trigger").str(f.trigger);
  w.line("     ").key("evidence").array();
  for (const auto& e : f.evidence)
    w.item().object().key("id").str_or_null(e.id).key("key").str(e.key).key("value").num(e.value).close();
  w.close();
  w.line("     ").key("saving").num(f.saving).key("saving_basis").str(f.saving_basis);
  w.line("     ").key("suggestion").str(f.suggestion).close();
}

}  // namespace

void findings_json(io::JsonWriter& w, const std::vector<breakeven::Finding>& findings) {
  w.line("  ").key("findings").array();
  for (std::size_t i = 0; i < findings.size(); ++i) json_finding(w.line("    ").item(), findings[i], i + 1);
  w.close(findings.empty() ? "" : "\n  ");
}

std::string findings_table(const std::vector<breakeven::Finding>& findings, const std::string& currency,
                           bool evidence) {
  std::string b = "\nfindings (largest estimated saving first; each saving is an alternative, they do not add up)\n";
  if (findings.empty()) return b + "  none: no indicator crossed its threshold (docs/cost-model.md, \"Findings\")\n";
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const auto& f = findings[i];
    b += fmt::format("  {:>2}. {}\n", i + 1, wrapped(f.title, 6, 6));
    b += fmt::format("      saving      {}\n",
                     wrapped(fmt::format("~{} ({})", money(f.saving, currency), f.saving_basis), 18, 18));
    if (evidence) b += fmt::format("      evidence    {}\n", wrapped_evidence(f, 18));
    b += fmt::format("      suggestion  {}\n", wrapped(f.suggestion, 18, 18));
  }
  return b;
}

std::string findings_markdown(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                              const std::vector<breakeven::Finding>* findings) {
  const std::string& cur = c.currency;
  std::string b = fmt::format("# gpucost findings{}\n\n", f.host.empty() ? std::string() : ": " + f.host);
  b += fmt::format("Job {} .. {} ({}, {}).\n\n", format_utc(f.from_ns), format_utc(f.to_ns),
                   text::duration_hours(r.job.wall_h),
                   text::counted(static_cast<long long>(r.job.energy_kwh.size()), "GPU"));
  b += fmt::format("Local {} against cloud {}{}: premium {:+.1f} % (line {:.1f} %), {}.\n\n", money(r.local_total, cur),
                   money(r.cloud_total, cur), c.cloud_name.empty() ? std::string() : fmt::format(" ({})", c.cloud_name),
                   r.premium * 100, r.line * 100,
                   r.unfit        ? "no verdict: the cloud offer cannot run this job as logged"
                   : r.undecided  ? "undecided: " + r.verdict_reason
                   : r.above_line ? std::string("above the line: renting is cheaper for this job")
                                  : std::string("below the line"));
  if (findings == nullptr)
    return b + fmt::format("No findings: the premium is {} (run `gpucost breakeven --explain` to list them anyway).\n",
                           r.above_line  ? "above the line"
                           : r.undecided ? "undecided"
                           : r.unfit     ? "no verdict"
                                         : "below the line");
  if (findings->empty()) return b + "No findings: no indicator crossed its threshold.\n";
  b += "Ranked by estimated saving; each saving is an alternative, they do not add up.\n";
  for (std::size_t i = 0; i < findings->size(); ++i) {
    const auto& x = (*findings)[i];
    b += fmt::format("\n## {}. {}\n\nEstimated saving: **{}** ({}).\n\n", i + 1, x.title, money(x.saving, cur),
                     x.saving_basis);
    b += fmt::format("- Trigger: `{}`\n", x.trigger);
    for (const auto& e : x.evidence) b += fmt::format("- `{}` = {}\n", evidence_name(e), text::short_number(e.value));
    b += fmt::format("\n{}\n", x.suggestion);
  }
  return b;
}

}  // namespace gpucost::report
