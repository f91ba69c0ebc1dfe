// Classification of kernel and system log messages into GPU-cost event kinds (xid, gpu_lost,
// aer, thermal, driver, modeset, oom, segfault, power_source, lid, suspend, resume, shutdown,
// boot). Shared by the syslog, dmesg and journald parsers. Internal to prep.
#pragma once

#include <gpucost/core/event.hpp>

#include <string_view>

namespace gpucost::prep {

/// Classifies one message. `ident` is the program that logged it ("kernel", "systemd-logind",
/// "upowerd", "systemd-sleep", "nvidia-persistenced", ...; empty when the format has none, as in
/// dmesg, where everything is the kernel). `message` is the text after the prefix.
/// On a match: sets ev.kind, adds the kind's fields (docs/formats.md, "Kernel and system
/// events"; text that does not outlive the line is copied with ev.own) and returns true.
/// Otherwise returns false and leaves ev.kind untouched: the line is `ignored`.
/// Must be fast on the common non-matching line (kern.log target: >= 1 GB/s).
bool classify_message(std::string_view ident, std::string_view message, Event& ev);

/// A message that continues the previous record (multi-line kernel records: AER detail lines,
/// "NVRM: GPU ... has fallen off the bus" follow-ups) when it has no prefix of its own.
/// Appends to a pending event are the parsers' business; this only tells whether the text of
/// a following record belongs to the same incident (same kind, within the same second).
bool continues_incident(std::string_view previous_kind, std::string_view message);

}  // namespace gpucost::prep
