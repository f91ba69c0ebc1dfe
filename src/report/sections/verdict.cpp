// The verdict: the premium of owning over renting against the line, its range, and the side
// it falls on (docs/cost-model.md, "The verdict").
#include "report/sections/sections.hpp"

#include <gpucost/breakeven/cost_model.hpp>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

/// What the premium's side of the line means for the job.
const char* verdict_text(const breakeven::Result& r) {
  return r.above_line ? "ABOVE the line, renting is cheaper for this job"
                      : "below the line, the local GPU holds its own";
}

/// The premium, its range and the verdict: one only when the whole range is on one side of the
/// line; none against an offer that cannot run the job.
std::string premium_line(const breakeven::Result& r, const breakeven::PremiumRange& range, bool estimated) {
  const std::string span = range.low && range.high ? fmt::format("range {} .. {}; ", pct(*range.low), pct(*range.high))
                           : estimated             ? std::string("no range; ")
                                                   : std::string();
  std::string b = fmt::format("premium   {:+.1f} % local over cloud{} ({}line {:.1f} %): ", r.premium * 100,
                              estimated ? ", ESTIMATED" : "", span, r.line * 100);
  if (r.unfit) return b + "NO VERDICT, the offer cannot run this job as logged\n";
  if (r.undecided) {
    b += fmt::format("UNDECIDED, {}\n", r.verdict_reason);
    if (estimated)
      b += "          log telemetry to decide: nvidia-smi --query-gpu=timestamp,index,name,power.draw,utilization.gpu "
           "--format=csv -l 5 > gpu.csv\n";
    return b;
  }
  return b + fmt::format("{}{}\n", verdict_text(r), range.low && range.high ? " over the whole range" : "");
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

}  // namespace

void verdict_json(io::JsonWriter& w, const Answer& a) {
  const breakeven::Result& r = a.result;
  w.line("  ").key("premium").num(r.premium).line("  ").key("line").num(r.line);
  // An offer that cannot run the job gives no side of the line: null, not false.
  w.line("  ").key("above_line");
  if (r.unfit)
    w.null();
  else
    w.boolean(r.above_line);
  w.line("  ").key("verdict").str(breakeven::verdict_word(r)).text_if("verdict_reason", r.verdict_reason);
}

std::string verdict_full(const Answer& a) {
  const breakeven::Result& r = a.result;
  const breakeven::CostConfig& c = a.config;
  std::string b = premium_line(r, a.extras.range, a.extras.estimate.has_value());
  if (r.cloud_fault_cost > 0)
    b += fmt::format("          of the totals without the {} of application faults both sides pay\n",
                     money(r.cloud_fault_cost, c.currency));
  if (!c.cloud_unfit.empty())
    b += fmt::format(
        "          ({}): the comparison is not a verdict;\n"
        "          choose an offer that fits (--compare-clouds lists them)\n",
        c.cloud_unfit);
  return b + "\n";
}

std::string verdict_summary(const Answer& a) { return wrapped(verdict_sentence(a.result, a.config, a.extras)) + "\n"; }

}  // namespace gpucost::report::sections
