// The order of the answer's sections (include/gpucost/report/section.hpp), and the words they share.
#include "report/sections/sections.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace gpucost::report {

namespace {

using namespace sections;

// The HTML report draws timelines, the trace and the indicators (html_report.cpp): sections
// with no JSON or text of their own, named here so that every output keeps one order.
constexpr std::array<Section, 18> kSections = {{
    {"verdict", verdict_json, verdict_full, verdict_summary},
    {"job", job_json, job_full, job_summary},
    {"slurm", slurm_json, slurm_full, nullptr},
    {"costs", costs_json, costs_full, costs_summary},
    {"faults", faults_json, faults_full, nullptr},
    {"carbon", carbon_json, carbon_full, nullptr},
    {"break-evens", breakevens_json, breakevens_full, breakevens_summary},
    {"paying", paying_json, paying_full, paying_summary},
    {"work", work_json, work_full, nullptr},
    {"timelines", nullptr, nullptr, nullptr},
    {"trace", nullptr, nullptr, nullptr},
    {"trace jobs", trace_jobs_json, trace_jobs_full, nullptr},
    {"robustness", robustness_json, robustness_full, robustness_summary},
    {"clouds", clouds_json, clouds_full, clouds_summary},
    {"attribution", attribution_json, attribution_full, attribution_summary},
    {"estimate check", estimate_check_json, estimate_check_full, nullptr},
    {"findings", findings_json, findings_full, findings_summary},
    {"indicators", nullptr, nullptr, nullptr},
}};

}  // namespace

std::span<const Section> answer_sections() { return kSections; }

namespace sections {

std::string money(double v, const std::string& currency) { return fmt::format("{:.2f} {}", v, currency); }

std::string hours(double h) { return text::duration_hours(h); }

std::string hours(const breakeven::Solution& s) { return s.value ? hours(*s.value) : "none"; }

std::string pct(double fraction) { return fmt::format("{:+.1f} %", fraction * 100); }

std::string premium_words(double premium) {
  if (std::fabs(premium) < 0.0005) return "both cost the same";
  return fmt::format("owning is {} {}", fmt::format("{:.1f} %", std::fabs(premium) * 100),
                     premium > 0 ? "dearer" : "cheaper");
}

std::string wrapped(std::string_view words, std::size_t indent) {
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
    if (!line.empty() && line.size() + 1 + word.size() > kScreenColumns) {
      out += line + "\n";
      line.assign(indent, ' ');
    } else if (!line.empty() && line.find_first_not_of(' ') != std::string::npos) {
      line += ' ';
    }
    line += word;
  }
  return out + line + "\n";
}

std::string one_line(std::string_view line) {
  std::size_t pos = 0, last_fit = 0;  // last_fit: where the first kScreenColumns - 1 columns end
  for (std::size_t columns = 0; pos < line.size(); ++columns) {
    if (columns == kScreenColumns) return std::string(line.substr(0, last_fit)) + "\u2026\n";
    if (columns == kScreenColumns - 1) last_fit = pos;
    const auto c = static_cast<unsigned char>(line[pos]);
    pos += c < 0x80 ? 1 : std::max<std::size_t>(1, text::utf8_sequence_length(line, pos));
  }
  return std::string(line) + "\n";
}

}  // namespace sections

}  // namespace gpucost::report
