// What `gpucost procs` prints of a scan: a table for people and the gpucost.procs JSON document
// (docs/procs.md). Both are functions of the scan alone: the same tree prints the same text.
#pragma once

#include <gpucost/procs/scan.hpp>

#include <string>
#include <string_view>

namespace gpucost::procs {

inline constexpr std::string_view kProcsSchema = "gpucost.procs";
inline constexpr int kProcsVersion = 1;

/// One row per holder (pid, user, start UTC, GPUs, devices, container or cgroup, command), then
/// the counts: processes read, kernel threads, vanished, unreadable (with their users).
std::string procs_table(const ScanResult& scan);

/// The gpucost.procs document, every field of the scan.
std::string procs_json(const ScanResult& scan);

/// "12 processes could not be read (fd, maps: Permission denied; users root 10, postgres 2)":
/// empty when every process was read.
std::string unreadable_summary(const ScanResult& scan);

/// "2 files of the tree left unread or read in part (1234/maps: a symbolic link (not followed);
/// ...): a real /proc has none": empty when none was refused.
std::string refused_summary(const ScanResult& scan);

/// The container, Slurm job or cgroup a holder runs in, as the table shows it
/// ("docker:0123456789ab", "slurm job 4242", "/user.slice/...").
std::string placement(const Holder& h);

}  // namespace gpucost::procs
