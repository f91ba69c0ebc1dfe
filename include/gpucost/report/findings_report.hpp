// Renders breakeven's findings: a JSON array, a section of the text table, and a Markdown note
// (`breakeven --suggest FILE.md`).
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/findings.hpp>
#include <gpucost/extract/features.hpp>

#include <gpucost/io/json_out.hpp>

#include <string>
#include <vector>

namespace gpucost::report {

/// The JSON member `"findings": [...]` on a line of its own, in `w`'s open object (ranked, with
/// evidence, saving and suggestion).
void findings_json(io::JsonWriter& w, const std::vector<breakeven::Finding>& findings);
/// The "findings" section of the table (a line saying none fired when the list is empty).
/// `evidence`: the indicators each finding rests on, by id and key (--explain; internal names).
std::string findings_table(const std::vector<breakeven::Finding>& findings, const std::string& currency,
                           bool evidence = true);
/// A Markdown note: the verdict and the findings, each with evidence and suggestion. `findings`
/// is null when none were computed (below the line without --explain).
std::string findings_markdown(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                              const std::vector<breakeven::Finding>* findings);

}  // namespace gpucost::report
