// The per-process list of the features document: pmon's rows per (GPU, process) joined with the
// device-file holders of gpucost record's scan (docs/indicators.md, "Per-process list").
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_collector.hpp>

#include <simdjson.h>

#include <string>
#include <vector>

namespace gpucost::extract::detail {

/// The processes of the window, by host, GPU and pid (the scan's control-file holders last).
std::vector<ProcessUse> process_list(const SampleCollector& c, const Features& f);

/// The median gap between a GPU's successive pmon cycles, s (1 s, pmon's default -d, when the
/// rows give one cycle only).
double pmon_cycle_s(const std::vector<std::int64_t>& cycle_times);

/// "processes": [...] after the other top-level keys; nothing when the list is empty.
void write_processes(std::string& b, const std::vector<ProcessUse>& processes);
/// Reads "processes" (absent: none).
Status read_processes(simdjson::dom::element doc, std::vector<ProcessUse>& out, const std::string& path);

/// The lists of several documents as one: a process seen in consecutive windows (same host, GPU,
/// pid, start and command) becomes one entry, its rows and busy seconds added.
std::vector<ProcessUse> merge_processes(const std::vector<const std::vector<ProcessUse>*>& lists);

}  // namespace gpucost::extract::detail
