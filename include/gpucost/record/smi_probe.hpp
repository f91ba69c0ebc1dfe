// gpucost init's look at this machine: nvidia-smi asked once for its GPUs (name, memory, power
// limit), with a timeout, through record's process helpers; the answer is parsed by
// breakeven::parse_smi_gpu_list into the facts the starter configuration is filled from.
#pragma once

#include <gpucost/breakeven/starter_config.hpp>
#include <gpucost/core/error.hpp>

#include <string>

namespace gpucost::record {

/// nvidia-smi's full path on PATH; empty when it is not there.
std::string nvidia_smi_on_path();
/// Runs `executable` with the query of breakeven::parse_smi_gpu_list, for at most `timeout_ms`,
/// and parses its output. An error (never an exception) when it cannot start, fails, times out
/// or prints no GPU.
Expected<breakeven::MachineFacts> probe_nvidia_smi(const std::string& executable, int timeout_ms);

}  // namespace gpucost::record
