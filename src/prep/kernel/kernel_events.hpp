// Classification of kernel and system log messages into GPU-cost event kinds (xid, gpu_lost,
// aer, thermal, driver, modeset, oom, segfault, power_source, lid, suspend, resume, shutdown,
// boot). Shared by the syslog, dmesg and journald parsers. Internal to prep.
// The field contract of every kind is listed at the top of kernel_events.cpp.
#pragma once

#include <gpucost/core/event.hpp>

#include <span>
#include <string_view>

namespace gpucost::prep {

/// Classifies one message. `ident` is the program that logged it ("kernel", "systemd-logind",
/// "upowerd", "systemd-sleep", "nvidia-persistenced", ...; empty when the format has none, as in
/// dmesg, where everything is the kernel). `message` is the text after the prefix.
/// On a match: sets ev.kind, adds the kind's fields (docs/formats.md, "Kernel and system
/// events"; text that does not outlive the line is copied with ev.own) and returns true.
/// Otherwise returns false and leaves ev untouched: the line is `ignored`.
/// Must be fast on the common non-matching line (kern.log target: >= 1 GB/s).
///
/// Tolerated on input: an ident with "[pid]" or a path ("/usr/bin/nvidia-persistenced"); a
/// kernel message that still carries its printk stamp ("[ 4564.303882] NVRM: ..."); a trailing
/// CR or blanks; with an empty ident, a userspace "name[pid]: " prefix in the message (userspace
/// lines written to /dev/kmsg, as dmesg shows them); rsyslog's "message repeated N times: [ ... ]"
/// (the inner message is classified and gets a numeric field `repeat` = N).
/// Multi-line records (PCIe AER, the 3-line "fallen off the bus" notice, GSP dumps): one line
/// of the record makes the event, the other lines return false (see continues_incident).
bool classify_message(std::string_view ident, std::string_view message, Event& ev);

/// True when `message` is a follow-up line of a multi-line kernel record whose event line was
/// classified as `previous_kind` ("aer": "  device [10de:2684] error status/mask=...",
/// "   [ 0] RxErr", "AER:   TLP Header: ..."; "gpu_lost"/"xid": "NVRM: (PCI ID: ...) installed
/// in this system has", "NVRM: A GPU crash dump has been created...", GSP RPC history tables;
/// "segfault": "Code: ..."). classify_message() returns false for every such line, so a parser
/// that wants to count them as part of the event (event_lines) rather than as ignored can ask
/// here; nothing else depends on it.
bool continues_incident(std::string_view previous_kind, std::string_view message);

/// One row of NVIDIA's Xid catalogue (data/nvidia-xid-catalog.tsv, compiled in).
struct XidInfo {
  int code = 0;
  std::string_view name;           ///< NVIDIA's mnemonic, e.g. "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"
  std::string_view bucket;         ///< restart_app | reset_gpu | reboot | contact_support | ignore | unknown
  std::string_view nvidia_action;  ///< NVIDIA's "Resolution Bucket (Immediate Action)", as published
  std::string_view description;    ///< NVIDIA's description, e.g. "GPU has fallen off the bus"
  /// NVIDIA's possible causes (data/nvidia-xid-causes.tsv), comma-separated: "hardware,driver,user_app";
  /// empty when it publishes none for the code.
  std::string_view causes;
};

/// The catalogue entry of an Xid code; nullptr when NVIDIA lists no such code.
const XidInfo* find_xid(int code);
/// Every catalogue entry, in increasing code order.
std::span<const XidInfo> xid_catalog();

}  // namespace gpucost::prep
