// Ways of paying for a year of jobs like this one: owning, on demand, spot and the terms of the
// priced offer's instance as cost per year against use, and where each is the cheapest
// (docs/cost-model.md, "Ways of paying: cost per year against use").
#include "report/sections/sections.hpp"

#include <gpucost/breakeven/paying.hpp>

#include <fmt/format.h>

#include <cstddef>
#include <string>

namespace gpucost::report::sections {

namespace {

using breakeven::PayingComparison;
using breakeven::PayingCurve;

void curve_json(io::JsonWriter& w, const PayingCurve& c, double planned_h) {
  w.object().key("way").str(c.way).key("offer").str_or_null(c.offer).key("commitment").boolean(c.commitment);
  w.key("fixed_per_year").num(c.fixed_per_year).key("per_job_hour").num(c.per_job_h);
  w.key("capacity_job_hours").num(c.capacity_job_h).key("overflow_per_job_hour").num(c.overflow_per_job_h);
  w.key("upfront_per_year").num(c.upfront_per_year).key("cost_at_planned_use").num(c.cost(planned_h));
  w.key("basis").str(c.basis).close();
}

std::string way_name(const PayingComparison& p, std::size_t curve) { return p.curves[curve].way; }

}  // namespace

std::string paying_ranges_words(const PayingComparison& p) {
  if (p.ranges.size() == 1) return way_name(p, p.ranges.front().curve) + " at any use";
  std::string out;
  for (std::size_t i = 0; i < p.ranges.size(); ++i) {
    const breakeven::CheapestRange& r = p.ranges[i];
    out += i == 0 ? "" : ", ";
    if (i == 0)
      out += fmt::format("{} up to {:.0f} h/year", way_name(p, r.curve), r.to_h);
    else if (i + 1 == p.ranges.size())
      out += fmt::format("{} above {:.0f} h/year", way_name(p, r.curve), r.from_h);
    else
      out += fmt::format("{} {:.0f} .. {:.0f} h/year", way_name(p, r.curve), r.from_h, r.to_h);
  }
  return out;
}

namespace {

std::string planned_words(const PayingComparison& p) {
  return p.planned_assumed ? "local.use_hours_per_year not set: the default, an assumption"
                           : "local.use_hours_per_year";
}

// "at 4000 h/year   on-demand is the cheapest, 10000.00 USD a year; owning 10600.00, ...".
std::string planned_line(const PayingComparison& p, const std::string& currency) {
  const std::size_t best = p.cheapest_at(p.planned_h);
  std::string others;
  for (std::size_t i = 0; i < p.curves.size(); ++i) {
    if (i == best) continue;
    const auto cost = p.curves[i].cost(p.planned_h);
    others += fmt::format("; {} {}", p.curves[i].way,
                          cost ? fmt::format("{:.2f}", *cost) : std::string("cannot run that much"));
  }
  return fmt::format("  {:<17}{} is the cheapest, {} a year ({}){}\n", fmt::format("at {:g} h/year", p.planned_h),
                     way_name(p, best), money(*p.curves[best].cost(p.planned_h), currency), planned_words(p), others);
}

}  // namespace

void paying_json(io::JsonWriter& w, const Answer& a) {
  if (!a.extras.paying) return;
  const PayingComparison& p = *a.extras.paying;
  w.line("  ").key("paying").object();
  w.line("    ").key("instance").str(p.instance);
  w.line("    ")
      .key("planned_use_hours_per_year")
      .num(p.planned_h)
      .key("planned_use_assumed")
      .boolean(p.planned_assumed);
  w.line("    ").key("curves").array();
  for (const PayingCurve& c : p.curves) curve_json(w.line("      ").item(), c, p.planned_h);
  w.close("\n    ");
  w.line("    ").key("cheapest").array();
  for (const breakeven::CheapestRange& r : p.ranges)
    w.line("      ")
        .item()
        .object()
        .key("way")
        .str(way_name(p, r.curve))
        .key("from_hours")
        .num(r.from_h)
        .key("to_hours")
        .num(r.to_h)
        .close();
  w.close("\n    ");
  w.line("    ").key("cheapest_at_planned_use").str(way_name(p, p.cheapest_at(p.planned_h)));
  w.line("    ").key("never_cheapest").array();
  for (std::size_t i : p.never_cheapest()) w.item().str(way_name(p, i));
  w.close();
  w.line("    ").key("missing").array();
  for (const std::string& m : p.missing) w.item().str(m);
  w.close();
  w.close("\n  ");
}

std::string paying_full(const Answer& a) {
  if (!a.extras.paying) return {};
  const PayingComparison& p = *a.extras.paying;
  const std::string& currency = a.config.currency;
  std::string b =
      fmt::format("\nways of paying for a year of jobs like this one, {}: cost per year against use\n", p.instance);
  for (const PayingCurve& c : p.curves)
    b += fmt::format("  {:<17}{}{}\n", c.way, c.basis, c.offer.empty() ? "" : fmt::format(" [{}]", c.offer));
  b += fmt::format("  {:<17}{}\n", "cheapest", paying_ranges_words(p));
  std::string never;
  for (std::size_t i : p.never_cheapest()) never += (never.empty() ? "" : ", ") + way_name(p, i);
  if (!never.empty())
    b += fmt::format("  {:<17}{}: never the cheapest for this job mix, at any use up to 8760 h/year\n", "never pays",
                     never);
  b += planned_line(p, currency);
  for (const std::string& m : p.missing) b += fmt::format("  {:<17}{}\n", "not compared", m);
  return b + "\n";
}

// One line, and only when a term is the cheapest at the planned use: then neither owning nor the
// on-demand price the verdict compares with is the best answer.
std::string paying_summary(const Answer& a) {
  if (!a.extras.paying) return {};
  const PayingComparison& p = *a.extras.paying;
  const PayingCurve& best = p.curves[p.cheapest_at(p.planned_h)];
  if (!best.commitment) return {};
  return wrapped(
      fmt::format("paying       cheapest at your {:g} h/year{}: {}, {} a year", p.planned_h,
                  p.planned_assumed ? " (assumed)" : "", best.offer, money(*best.cost(p.planned_h), a.config.currency)),
      13);
}

}  // namespace gpucost::report::sections
