// The breakeven answer by section, in the one order every output walks (docs/outputs.md,
// "Sections"): the JSON document, the --full table, the one-screen summary and the HTML report.
// A section writes its JSON members and its lines for people side by side (src/report/sections/);
// an output takes the sections it has a writer for, so the one-screen default and --full select
// sections instead of branching.
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/features.hpp>
#include <gpucost/io/json_out.hpp>
#include <gpucost/report/breakeven_report.hpp>

#include <span>
#include <string>
#include <string_view>

namespace gpucost::report {

/// What every section reads: the priced job, the configuration, the features and the analyses
/// breakeven adds around them.
struct Answer {
  const breakeven::Result& result;
  const breakeven::CostConfig& config;
  const extract::Features& features;
  const BreakevenExtras& extras;
};

/// One section of the answer. A null writer leaves the section out of that output (a section
/// the HTML report draws has its name in html_report.cpp's table of drawings).
struct Section {
  std::string_view name;
  /// Its members of breakeven --json, each on a line of its own.
  void (*json)(io::JsonWriter& w, const Answer& a);
  /// Its lines in --full: every figure and its basis; empty when there is nothing to show.
  std::string (*full)(const Answer& a);
  /// Its lines on the one-screen answer.
  std::string (*summary)(const Answer& a);
};

/// The sections in the agreed order: verdict, job, Slurm, costs, faults, carbon, break-evens,
/// ways of paying, work, timelines, trace, trace jobs, robustness, clouds, attribution, estimate check, findings,
/// indicators. The verdict comes first in every output; the figures behind it follow.
std::span<const Section> answer_sections();

}  // namespace gpucost::report
