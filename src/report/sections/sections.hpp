// The writers of each section of the breakeven answer (one file per section in this folder,
// the list that orders them in sections.cpp), and the few words they share.
#pragma once

#include <gpucost/breakeven/paying.hpp>
#include <gpucost/report/section.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace gpucost::report::sections {

// ---- words the sections share (sections.cpp) ----

/// "12.34 USD".
std::string money(double v, const std::string& currency);
/// "12.0 min", "3.25 h" (text::duration_hours).
std::string hours(double h);
/// A break-even's hours, or "none".
std::string hours(const breakeven::Solution& s);
/// "+11.8 %": a signed percentage of a fraction.
std::string pct(double fraction);
/// "owning is 11.6 % dearer" / "owning is 20.3 % cheaper" / "both cost the same".
std::string premium_words(double premium);
/// The one-screen answer's width: `words` broken into lines of at most kScreenColumns, the later
/// ones indented by `indent`; a unit stays with its number.
inline constexpr std::size_t kScreenColumns = 100;
std::string wrapped(std::string_view words, std::size_t indent = 0);
/// `line` cut to kScreenColumns (with "…" in the last column); the full text is in --explain.
std::string one_line(std::string_view line);

// ---- the sections, in the order of the list ----

void verdict_json(io::JsonWriter& w, const Answer& a);
std::string verdict_full(const Answer& a);
std::string verdict_summary(const Answer& a);

void job_json(io::JsonWriter& w, const Answer& a);
std::string job_full(const Answer& a);
std::string job_summary(const Answer& a);

void slurm_json(io::JsonWriter& w, const Answer& a);
std::string slurm_full(const Answer& a);

void costs_json(io::JsonWriter& w, const Answer& a);
std::string costs_full(const Answer& a);
std::string costs_summary(const Answer& a);

void faults_json(io::JsonWriter& w, const Answer& a);
std::string faults_full(const Answer& a);

void carbon_json(io::JsonWriter& w, const Answer& a);
std::string carbon_full(const Answer& a);

void breakevens_json(io::JsonWriter& w, const Answer& a);
std::string breakevens_full(const Answer& a);
std::string breakevens_summary(const Answer& a);

void paying_json(io::JsonWriter& w, const Answer& a);
/// Where each way of paying is the cheapest: "on-demand up to 4205 h/year, reserved-1y 4205 ..
/// 7623 h/year, owning above 7623 h/year" (the HTML report says it under its chart too).
std::string paying_ranges_words(const breakeven::PayingComparison& p);
std::string paying_full(const Answer& a);
std::string paying_summary(const Answer& a);

void work_json(io::JsonWriter& w, const Answer& a);
std::string work_full(const Answer& a);

void trace_jobs_json(io::JsonWriter& w, const Answer& a);
std::string trace_jobs_full(const Answer& a);

void robustness_json(io::JsonWriter& w, const Answer& a);
std::string robustness_full(const Answer& a);
std::string robustness_summary(const Answer& a);

void clouds_json(io::JsonWriter& w, const Answer& a);
std::string clouds_full(const Answer& a);
std::string clouds_summary(const Answer& a);

void attribution_json(io::JsonWriter& w, const Answer& a);
std::string attribution_full(const Answer& a);
std::string attribution_summary(const Answer& a);

void estimate_check_json(io::JsonWriter& w, const Answer& a);
std::string estimate_check_full(const Answer& a);

void findings_json(io::JsonWriter& w, const Answer& a);
std::string findings_full(const Answer& a);
std::string findings_summary(const Answer& a);

}  // namespace gpucost::report::sections
