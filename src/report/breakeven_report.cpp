// The breakeven answer's three outputs for people and programs, each a walk over the sections in
// their one order (include/gpucost/report/section.hpp; a section's writers in src/report/sections/).
#include <gpucost/report/breakeven_report.hpp>

#include <gpucost/io/json_out.hpp>
#include <gpucost/report/section.hpp>

#include <algorithm>
#include <cstddef>
#include <string>

namespace gpucost::report {

namespace {

/// The one-screen answer's height (docs/outputs.md, "The default answer").
constexpr std::size_t kScreenLines = 25;

}  // namespace

std::string breakeven_json(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                           const BreakevenExtras& x) {
  const Answer answer{r, c, f, x};
  std::string b;
  io::JsonWriter w(b);
  w.object().line("  ").key("schema").str("gpucost.breakeven").line("  ").key("version").integer(1);
  w.line("  ").key("currency").str(c.currency);
  for (const Section& s : answer_sections())
    if (s.json != nullptr) s.json(w, answer);
  w.close("\n");
  b.append("\n");
  return b;
}

std::string breakeven_table(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                            const BreakevenExtras& x) {
  const Answer answer{r, c, f, x};
  std::string b;
  for (const Section& s : answer_sections())
    if (s.full != nullptr) b += s.full(answer);
  return b;
}

std::string breakeven_summary(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                              const BreakevenExtras& x) {
  const Answer answer{r, c, f, x};
  std::string b;
  for (const Section& s : answer_sections())
    if (s.summary != nullptr) b += s.summary(answer);
  // The hint keeps its blank line while the answer fits the screen with it.
  const auto lines = static_cast<std::size_t>(std::count(b.begin(), b.end(), '\n'));
  b += lines + 2 <= kScreenLines ? "\n" : "";
  b += "--full: every figure and its basis; --json: all of it\n";
  return b;
}

}  // namespace gpucost::report
