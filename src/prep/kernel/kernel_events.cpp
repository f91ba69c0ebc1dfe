// Kernel and system message classifier (kernel_events.hpp).
//
// Field contract (keys are literals; every text value is copied into the event):
//
// kind          fields
// xid           code (number); pci (the bus id as printed, "PCI:" dropped: "0000:01:00") or gpu_ref
//               (what the parenthesis names instead, e.g. "GPU4"); gpu_instance, compute_instance
//               (numbers, MIG "GPU-I:05 GPU-CI:01"); pid (number) and process (text) when printed
//               and not "<unknown>"; xid_name (NVIDIA mnemonic, known codes only); bucket
//               (restart_app | reset_gpu | reboot | contact_support | ignore | unknown); cause
//               (application | hardware | unknown: core/fault_cause.hpp, from NVIDIA's possible
//               causes and the bucket); recovery_action (Xid 154 only: "Node Reboot Required", ...); message (NVIDIA's
//               error text after "NN, " and after the pid=/name= parts)
// gpu_lost      cause (fallen_off_bus | init_failed); pci (when printed, "0000:01:00.0");
//               pci_id ("10de:26b5", when printed); message
// aer           severity (corrected | uncorrected_nonfatal | uncorrected_fatal); device (PCI address
//               of the device the error is about: the prefix of the "PCIe Bus Error" line); driver
//               ("pcieport", "nvidia", ...); type ("Physical Layer", ...); agent ("Receiver ID", ...);
//               message
// thermal       target (gpu | cpu | system); state (throttled | normal | critical); cpu (number) and
//               level (core | package) for CPU lines; zone for thermal-zone lines; message
// driver        action (load | unload | reset | persistenced_start | persistenced_stop); version and
//               module (proprietary | open) for load; pid for persistenced; uuid, success for reset;
//               message
// modeset       message
// oom           pid; process; scope (system | cgroup, when printed); message
// segfault      pid; process; object (binary or library after " in ", when printed); message
// power_source  state (online | offline); adapter ("ACAD"); message
// lid           state (closed | open); message
// suspend       mode (suspend | hibernate | hybrid-sleep | suspend-then-hibernate | s2idle | deep |
//               shallow | mem | ..., when printed); via (logind | systemd-sleep | kernel); message
// resume        mode (when printed); via; failed ("true") and error for a failed suspend; message
// shutdown      action (poweroff | reboot | halt, when printed); via (logind | systemd | kernel);
//               message
// boot          kernel (release, "6.5.0-14-generic"); message
// any kind      repeat (number) when the line was rsyslog's "message repeated N times: [ ... ]"
//
// `message` is the whole message as logged (printk stamp and trailing blanks removed), except
// for xid. One suspend or shutdown usually shows at several layers (logind, systemd-sleep or
// systemd, kernel), each an event with its own `via`: deduplicate downstream if needed.
//
// Speed: every message is dispatched on its first byte; only the two kernel shapes that can
// start with any byte (PCIe AER lines "<driver> <pci>: ...", segfaults "<comm>[<pid>]: ...")
// are tested on every line, each with a bounded scan of the first few dozen bytes. Nothing on
// the reject path allocates.
#include "kernel_events.hpp"

#include "klog_common.hpp"

#include <gpucost/core/fault_cause.hpp>
#include <gpucost/core/text.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gpucost::prep {
namespace {

using std::string_view;
constexpr auto npos = string_view::npos;

constexpr XidInfo kXidTable[] = {
#include "xid_table.inc"
};

using text::is_digit;
inline bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
using text::icontains;
using text::ltrim;
using text::rtrim;

/// `s` starts with the literal `lit` (a compile-time length: the comparison is inlined).
template <std::size_t N>
inline bool has_prefix(string_view s, const char (&lit)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}
template <std::size_t N>
inline bool consume(string_view& s, const char (&lit)[N]) {
  if (!has_prefix(s, lit)) return false;
  s.remove_prefix(N - 1);
  return true;
}
bool contains(string_view s, string_view needle) { return s.find(needle) != npos; }

/// Position of `c` among the first `limit` bytes of `s`, or npos.
/// A byte loop: the byte is a few places in, closer than a memchr call costs to set up.
std::size_t find_near(string_view s, char c, std::size_t from, std::size_t limit) {
  const std::size_t end = std::min(s.size(), limit);
  for (std::size_t i = from; i < end; ++i)
    if (s[i] == c) return i;
  return npos;
}

/// Reads an unsigned decimal (at most 18 digits) at the start of `s`; returns the digits read,
/// 0 for a longer number (no pid or code is that long).
std::size_t read_uint(string_view s, std::int64_t& out) {
  std::size_t n = 0;
  std::uint64_t v = 0;
  if (!text::read_uint(s, n, 18, v) || (n < s.size() && is_digit(s[n]))) return 0;
  out = static_cast<std::int64_t>(v);
  return n;
}

/// Whole of `s` is a decimal number.
bool is_uint(string_view s, std::int64_t& out) { return !s.empty() && read_uint(s, out) == s.size(); }

std::size_t count_hex(string_view s, std::size_t from, std::size_t max) {
  std::size_t n = 0;
  while (from + n < s.size() && n < max && is_hex(s[from + n])) ++n;
  return n;
}

/// Length of the PCI address at the start of `s`: domain (4-8 hex) ':' bus (2) ':' device (2),
/// then '.' function when `with_function`. 0 when there is none.
std::size_t pci_len(string_view s, bool with_function) {
  if (s.size() < 10 || !is_hex(s[0]) || !is_hex(s[3])) return 0;
  const std::size_t dom = count_hex(s, 0, 8);
  if (dom < 4 || dom >= s.size() || s[dom] != ':') return 0;
  std::size_t i = dom + 1;
  if (count_hex(s, i, 2) != 2 || i + 2 >= s.size() || s[i + 2] != ':') return 0;
  i += 3;
  if (count_hex(s, i, 2) != 2) return 0;
  i += 2;
  if (with_function) {
    if (i + 1 >= s.size() || s[i] != '.' || s[i + 1] < '0' || s[i + 1] > '7') return 0;
    i += 2;
  }
  if (i < s.size() && is_hex(s[i])) return 0;  // longer than a bus id
  return i;
}

/// Drops a leading printk stamp "[ 4564.303882] " (Ubuntu's rsyslog keeps it in the message).
string_view strip_printk_stamp(string_view m) {
  string_view stamp, rest;
  return klog::split_printk_stamp(m, stamp, rest) ? ltrim(rest) : m;
}

/// "systemd-logind[960]" -> "systemd-logind"; "/usr/bin/nvidia-persistenced" -> "nvidia-persistenced".
string_view normalize_ident(string_view ident) {
  if (!ident.empty() && ident.back() == ']') {
    const std::size_t lb = ident.rfind('[');
    if (lb != npos) ident = ident.substr(0, lb);
  }
  const std::size_t slash = ident.rfind('/');
  if (slash != npos) ident.remove_prefix(slash + 1);
  return ident;
}

/// "Nname[123]: text" -> name, text (userspace lines in dmesg). Name without spaces, <= 64 bytes.
bool split_userspace_prefix(string_view m, string_view& name, string_view& rest) {
  const std::size_t rb = find_near(m, ']', 0, 80);
  if (rb == npos || rb + 2 >= m.size() || m[rb + 1] != ':' || m[rb + 2] != ' ') return false;
  const std::size_t lb = m.rfind('[', rb);
  if (lb == npos || lb == 0 || lb + 1 == rb) return false;
  std::int64_t pid = 0;
  if (!is_uint(m.substr(lb + 1, rb - lb - 1), pid)) return false;
  name = m.substr(0, lb);
  if (name.find(' ') != npos) return false;
  name = normalize_ident(name);
  rest = m.substr(rb + 3);
  return !name.empty();
}

void text(Event& ev, string_view key, string_view value) { ev.add_text(key, value, true); }

// ---- xid ----------------------------------------------------------------------------------

/// Bucket of Xid 154 from its message: "GPU recovery action changed from 0x0 (None) to 0x2 (Node
/// Reboot Required)". Sets `action` to the text in the last parenthesis.
string_view xid154_bucket(string_view msg, string_view& action) {
  const std::size_t to = msg.rfind(" to 0x");
  if (to == npos) return "unknown";
  string_view r = msg.substr(to + 6);
  std::int64_t code = -1;
  std::size_t n = 0;
  while (n < r.size() && n < 8 && is_hex(r[n])) ++n;
  if (n > 0) {
    code = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const char c = text::ascii_lower(r[i]);
      code = code * 16 + (is_digit(c) ? c - '0' : c - 'a' + 10);
    }
  }
  r.remove_prefix(n);
  if (consume(r, " (")) {
    const std::size_t close = r.find(')');
    if (close != npos) action = r.substr(0, close);
  }
  if (!action.empty()) {
    if (action == "None") return "ignore";
    if (icontains(action, "reboot")) return "reboot";
    if (icontains(action, "reset") || icontains(action, "flr")) return "reset_gpu";
    if (icontains(action, "drain p2p")) return "restart_app";
  }
  switch (code) {
    case 0: return "ignore";
    case 1: return "reset_gpu";
    case 2: return "reboot";
    case 3: return "restart_app";
    case 4: return "reset_gpu";
    default: return "unknown";
  }
}

/// `r` starts with "Xid" (after "NVRM: ").
/// Shapes: "Xid (PCI:0000:01:00): 79, GPU has fallen off the bus." (old, no pid);
/// "Xid (0000:01:00): 13, 0005 ..." (older drivers, no "PCI:");
/// "Xid (PCI:0000:38:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception ...";
/// "Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, Timeout after 6s ...";
/// "Xid (PCI:0000:01:00 GPU-I:05 GPU-CI:01): 94, pid=7194, name=python3, Contained: ...".
bool classify_xid(string_view r, Event& ev) {
  r.remove_prefix(3);
  if (!r.empty() && r[0] == ' ') r.remove_prefix(1);
  if (r.empty() || r[0] != '(') return false;
  const std::size_t close = r.find(')');
  if (close == npos) return false;
  string_view inside = r.substr(1, close - 1);
  r.remove_prefix(close + 1);
  if (!consume(r, ":")) return false;
  r = ltrim(r);
  std::int64_t code = 0;
  const std::size_t digits = read_uint(r, code);
  if (digits == 0 || digits > 6) return false;
  r.remove_prefix(digits);
  if (!r.empty() && r[0] != ',' && r[0] != ' ') return false;  // "79abc" is no code
  consume(r, ",");
  r = ltrim(r);

  // The parenthesis: address, then MIG attribution.
  string_view address = inside.substr(0, std::min(inside.find(' '), inside.size()));
  string_view attribution = inside.substr(address.size());
  consume(address, "PCI:");
  const bool is_pci = pci_len(address, false) == address.size() || pci_len(address, true) == address.size();
  std::int64_t gpu_instance = -1, compute_instance = -1;
  for (attribution = ltrim(attribution); !attribution.empty(); attribution = ltrim(attribution)) {
    string_view tok = attribution.substr(0, std::min(attribution.find(' '), attribution.size()));
    attribution.remove_prefix(tok.size());
    std::int64_t v = 0;
    if (consume(tok, "GPU-I:") && is_uint(tok, v))
      gpu_instance = v;
    else if (consume(tok, "GPU-CI:") && is_uint(tok, v))
      compute_instance = v;
  }

  // pid=..., name=..., then the error text.
  std::int64_t pid = -1;
  string_view process;
  if (consume(r, "pid=")) {
    const std::size_t comma = r.find(',');
    string_view value = r.substr(0, comma == npos ? r.size() : comma);
    std::int64_t v = 0;
    if (is_uint(value, v)) pid = v;
    r.remove_prefix(comma == npos ? r.size() : comma + 1);
    r = ltrim(r);
    if (consume(r, "name=")) {
      const std::size_t end = r.find(", ");
      string_view name = r.substr(0, end == npos ? r.size() : end);
      if (name != "<unknown>" && name != "'<unknown>'" && !name.empty()) process = name;
      r.remove_prefix(end == npos ? r.size() : end + 2);
      r = ltrim(r);
    }
  }

  ev.kind = "xid";
  ev.add_number("code", code);
  if (is_pci)
    text(ev, "pci", address);
  else if (!address.empty())
    text(ev, "gpu_ref", address);
  if (gpu_instance >= 0) ev.add_number("gpu_instance", gpu_instance);
  if (compute_instance >= 0) ev.add_number("compute_instance", compute_instance);
  if (pid >= 0) ev.add_number("pid", pid);
  if (!process.empty()) text(ev, "process", process);
  const XidInfo* info = find_xid(static_cast<int>(code));
  string_view bucket = info != nullptr ? info->bucket : string_view("unknown");
  if (info != nullptr) ev.add_text("xid_name", info->name);  // static storage: no copy
  string_view recovery;
  if (code == 154) bucket = xid154_bucket(r, recovery);
  ev.add_text("bucket", bucket);
  ev.add_text(
      "cause",  // static storage: no copy
      fault_cause_name(xid_cause(info != nullptr ? info->causes : string_view(), xid_bucket_from_name(bucket))));
  if (!recovery.empty()) text(ev, "recovery_action", recovery);
  text(ev, "message", r);
  return true;
}

// ---- NVRM ---------------------------------------------------------------------------------

bool gpu_lost(Event& ev, string_view cause, string_view pci, string_view pci_id, string_view message) {
  ev.kind = "gpu_lost";
  ev.add_text("cause", cause);
  if (!pci.empty()) text(ev, "pci", pci);
  if (!pci_id.empty()) text(ev, "pci_id", pci_id);
  text(ev, "message", message);
  return true;
}

bool is_version(string_view s) {
  if (s.empty() || !is_digit(s[0])) return false;
  bool dot = false;
  for (const char c : s) {
    if (c == '.')
      dot = true;
    else if (!is_digit(c))
      return false;
  }
  return dot && s.back() != '.';
}

/// NVRM text that reports GPU thermal trouble (no sampled form; kept narrow).
bool gpu_thermal(string_view m, Event& ev) {
  bool hot = false;  // one pass for the cheap part: most NVRM lines mention neither
  for (std::size_t i = 0; i + 4 <= m.size() && !hot; ++i) {
    const char c = text::ascii_lower(m[i]);
    hot = (c == 't' && text::ascii_lower(m[i + 1]) == 'h' && text::ascii_lower(m[i + 2]) == 'e' &&
           text::ascii_lower(m[i + 3]) == 'r') ||
          (c == 'o' && text::ascii_lower(m[i + 1]) == 'v' && text::ascii_lower(m[i + 2]) == 'e' &&
           text::ascii_lower(m[i + 3]) == 'r');
  }
  if (!hot) return false;
  const bool overheat =
      icontains(m, "overheat") || icontains(m, "over temperature") || icontains(m, "over-temperature");
  const bool thermal = icontains(m, "thermal") && (icontains(m, "slowdown") || icontains(m, "shutdown") ||
                                                   icontains(m, "throttl") || icontains(m, "violation"));
  if (!overheat && !thermal) return false;
  ev.kind = "thermal";
  ev.add_text("target", "gpu");
  ev.add_text("state", icontains(m, "shutdown") ? "critical" : "throttled");
  text(ev, "message", m);
  return true;
}

/// `m` starts with "NVRM: ".
bool classify_nvrm(string_view m, Event& ev) {
  string_view r = m.substr(6);
  if (r.empty()) return false;
  switch (r[0]) {
    case 'X':
      if (has_prefix(r, "Xid")) return classify_xid(r, ev);
      break;
    case 'G':
      if (consume(r, "GPU at ")) {
        // "GPU at 0000:01:00.0 has fallen off the bus." (the UUID line "GPU at PCI:0000:01:00:
        // GPU-..." precedes any first Xid and is not an event).
        if (!contains(r, "fallen off the bus")) return false;
        consume(r, "PCI:");
        const std::size_t n = pci_len(r, true) != 0 ? pci_len(r, true) : pci_len(r, false);
        return gpu_lost(ev, "fallen_off_bus", r.substr(0, n), {}, m);
      }
      if (consume(r, "GPU ")) {
        // "GPU 0000:01:00.0: GPU has fallen off the bus." / "GPU 0000:01:00.0: RmInitAdapter failed! (...)"
        const std::size_t n = pci_len(r, true);
        if (n == 0) return gpu_thermal(m, ev);
        string_view pci = r.substr(0, n);
        string_view rest = r.substr(n);
        if (!consume(rest, ": ")) return false;
        if (contains(rest, "fallen off the bus")) return gpu_lost(ev, "fallen_off_bus", pci, {}, m);
        if (has_prefix(rest, "RmInitAdapter failed")) return gpu_lost(ev, "init_failed", pci, {}, m);
        return gpu_thermal(m, ev);
      }
      break;
    case 'T':
      if (consume(r, "The NVIDIA GPU ")) {
        // 3-line notice, joined or not: "The NVIDIA GPU 0000:b3:00.0" / "(PCI ID: 10de:26b5)
        // installed in this system has" / "fallen off the bus and is not responding to commands."
        if (!contains(r, "fallen off the bus")) return false;
        const std::size_t n = pci_len(r, true);
        string_view pci_id;
        const std::size_t id = r.find("(PCI ID: ");
        if (id != npos) {
          string_view v = r.substr(id + 9);
          pci_id = v.substr(0, std::min(v.find(')'), v.size()));
        }
        return gpu_lost(ev, "fallen_off_bus", r.substr(0, n), pci_id, m);
      }
      break;
    case 'f':
      // Third line of the notice above when the parser did not join it: no address.
      if (has_prefix(r, "fallen off the bus")) return gpu_lost(ev, "fallen_off_bus", {}, {}, m);
      break;
    case 'R':
      if (has_prefix(r, "RmInitAdapter failed")) return gpu_lost(ev, "init_failed", {}, {}, m);
      break;
    case 'l':
      if (has_prefix(r, "loading NVIDIA UNIX")) {
        // "loading NVIDIA UNIX x86_64 Kernel Module  550.144.03  Mon Dec 30 17:44:08 UTC 2024";
        // "loading NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  (...)  ..."
        string_view version;
        const std::size_t mod = r.find("Module");
        if (mod != npos) {
          string_view rest = r.substr(mod + 6);
          for (int i = 0; i < 8 && version.empty(); ++i) {
            rest = ltrim(rest);
            if (rest.empty()) break;
            string_view tok = rest.substr(0, std::min(rest.find(' '), rest.size()));
            if (is_version(tok)) version = tok;
            rest.remove_prefix(tok.size());
          }
        }
        ev.kind = "driver";
        ev.add_text("action", "load");
        if (!version.empty()) text(ev, "version", version);
        ev.add_text("module", contains(r, "Open Kernel Module") ? "open" : "proprietary");
        text(ev, "message", m);
        return true;
      }
      break;
    default: break;
  }
  return gpu_thermal(m, ev);
}

// ---- other kernel shapes ------------------------------------------------------------------

/// The severity an AER text names: "Corrected"/"Correctable", "Uncorrected (Non-Fatal)",
/// "Uncorrected (Fatal)", "Fatal"; empty when none.
string_view aer_severity(string_view sev) {
  if (has_prefix(sev, "Correct")) return "corrected";
  if (contains(sev, "Non-Fatal") || contains(sev, "NonFatal")) return "uncorrected_nonfatal";
  if (contains(sev, "Fatal")) return "uncorrected_fatal";
  return {};
}

/// "[AER: ]Multiple <severity> error received: <pci>" (kernels before 6.x) or "... error message
/// received from <pci>" (6.x): the root port collected more than one error since it was last
/// read. The detail record that may follow describes only the first, and when the kernel cannot
/// find the source device it prints none ("can't find device of ID00e0"): the header is one
/// error report of its own. A header without "Multiple" is the same error as its detail record.
bool classify_aer_multiple(string_view m, string_view r, string_view device, Event& ev) {
  if (!consume(r, "Multiple ")) return false;
  const std::size_t end = r.find(" error ");
  if (end == npos) return false;
  const string_view tail = r.substr(end);
  if (!has_prefix(tail, " error received") && !has_prefix(tail, " error message received")) return false;
  const string_view severity = aer_severity(r.substr(0, end));
  if (severity.empty()) return false;
  ev.kind = "aer";
  ev.add_text("severity", severity);
  text(ev, "device", device);
  text(ev, "driver", m.substr(0, m.find(' ')));
  ev.add_text("multiple", "true");
  text(ev, "message", m);
  return true;
}

/// "<driver> <pci>: [AER: ]PCIe Bus Error: severity=<s>, type=<t>, [id=XXXX](<agent>)".
/// The record's other lines (the "AER: ... error received: <pci>" header, "device [vvvv:dddd]
/// error status/mask=...", "[ n] Name") are not events: one event per "PCIe Bus Error" line,
/// which the kernel prints once per device with an error, on that device; except a "Multiple
/// ... error received" header, which reports errors beyond the first (classify_aer_multiple).
bool classify_aer(string_view m, std::size_t sp, Event& ev) {
  string_view r = m.substr(sp + 1);
  if (r.size() < 40 || !is_hex(r[0])) return false;  // "0000:00:00.0: PCIe Bus Error: severity=" at least
  const std::size_t n = pci_len(r, true);
  if (n == 0) return false;
  string_view device = r.substr(0, n);
  r.remove_prefix(n);
  if (!consume(r, ": ")) return false;
  consume(r, "AER: ");
  if (classify_aer_multiple(m, r, device, ev)) return true;
  if (!consume(r, "PCIe Bus Error: severity=")) return false;
  const std::size_t comma = r.find(',');
  const string_view severity = aer_severity(r.substr(0, std::min(comma, r.size())));
  if (severity.empty()) return false;
  string_view type, agent;
  if (comma != npos) {
    string_view rest = r.substr(comma + 1);
    rest = ltrim(rest);
    if (consume(rest, "type=")) {
      const std::size_t c2 = rest.find(',');
      type = rest.substr(0, std::min(c2, rest.size()));
      if (c2 != npos) {
        rest = rest.substr(c2 + 1);
        const std::size_t open = rest.find('(');
        const std::size_t close = rest.find(')');
        if (open != npos && close != npos && close > open) agent = rest.substr(open + 1, close - open - 1);
      }
    }
  }
  ev.kind = "aer";
  ev.add_text("severity", severity);
  text(ev, "device", device);
  text(ev, "driver", m.substr(0, sp));
  if (!type.empty()) text(ev, "error_type", type);
  if (!agent.empty()) text(ev, "agent", agent);
  text(ev, "message", m);
  return true;
}

/// "<comm>[<pid>]: segfault at 0 ip 00007f... sp 00007ff... error 4 in libcuda.so.535.129.03[7f..+..]".
/// `rb` is the position of a "]:".
bool classify_segfault(string_view m, std::size_t rb, Event& ev) {
  if (!has_prefix(m.substr(rb), "]: segfault at ")) return false;
  const std::size_t lb = m.rfind('[', rb);
  if (lb == npos || lb == 0) return false;
  std::int64_t pid = 0;
  if (!is_uint(m.substr(lb + 1, rb - lb - 1), pid)) return false;
  string_view object;
  const std::size_t in = m.find(" in ", rb);
  if (in != npos) {
    string_view o = m.substr(in + 4);
    object = o.substr(0, std::min({o.find('['), o.find(' '), o.size()}));
  }
  ev.kind = "segfault";
  ev.add_number("pid", pid);
  text(ev, "process", m.substr(0, lb));
  if (!object.empty()) text(ev, "object", object);
  text(ev, "message", m);
  return true;
}

/// "Out of memory: Killed process 1234 (python3) total-vm:...", "Out of memory
/// (oom_kill_allocating_task): Killed process ...", "Memory cgroup out of memory: Killed process
/// ...", and old kernels' second line "Killed process 1234 (python3) total-vm:...". The
/// "oom-kill:constraint=..." summary and old kernels' "Kill process N (x) score S or sacrifice
/// child" precede the same kill and are not events.
bool classify_oom(string_view m, Event& ev) {
  const std::size_t k = m.find("Killed process ");
  if (k == npos) return false;
  string_view scope;
  if (k != 0) {
    string_view head = m.substr(0, k);
    if (!head.ends_with(": ")) return false;
    if (has_prefix(head, "Memory cgroup out of memory"))
      scope = "cgroup";
    else if (has_prefix(head, "Out of memory"))
      scope = "system";
    else
      return false;
  }
  string_view r = m.substr(k + 15);
  std::int64_t pid = 0;
  const std::size_t digits = read_uint(r, pid);
  if (digits == 0) return false;
  r.remove_prefix(digits);
  if (!consume(r, " (")) return false;
  std::size_t end = r.find(") total-vm");
  if (end == npos) end = r.rfind(')');
  if (end == npos || end == 0) return false;
  ev.kind = "oom";
  ev.add_number("pid", pid);
  text(ev, "process", r.substr(0, end));
  if (!scope.empty()) ev.add_text("scope", scope);
  text(ev, "message", m);
  return true;
}

/// "CPU3: Core temperature above threshold, cpu clock throttled (total events = 1)", newer "...
/// temperature is above threshold, cpu clock is throttled ...", "CPU3: Package temperature/speed
/// normal". `m` starts with "CPU" (a "mce: " prefix already dropped).
bool classify_cpu_thermal(string_view full, string_view m, Event& ev) {
  string_view r = m.substr(3);
  std::int64_t cpu = 0;
  const std::size_t digits = read_uint(r, cpu);
  if (digits == 0) return false;
  r.remove_prefix(digits);
  if (!consume(r, ": ")) return false;
  string_view level;
  if (consume(r, "Core"))
    level = "core";
  else if (consume(r, "Package"))
    level = "package";
  else
    return false;
  if (!consume(r, " temperature")) return false;
  string_view state;
  if (has_prefix(r, " above threshold") || has_prefix(r, " is above threshold"))
    state = "throttled";
  else if (has_prefix(r, "/speed normal"))
    state = "normal";
  else
    return false;
  ev.kind = "thermal";
  ev.add_text("target", "cpu");
  ev.add_text("state", state);
  ev.add_number("cpu", cpu);
  ev.add_text("level", level);
  text(ev, "message", full);
  return true;
}

/// "thermal thermal_zone0: critical temperature reached (105 C), shutting down", ACPI's
/// "Critical temperature reached (107 C), shutting down" (with or without a device prefix).
bool classify_critical_temp(string_view m, Event& ev) {
  if (!contains(m, "ritical temperature reached")) return false;
  string_view zone;
  string_view r = m;
  if (consume(r, "thermal ")) zone = r.substr(0, std::min(r.find(':'), r.size()));
  ev.kind = "thermal";
  ev.add_text("target", "system");
  ev.add_text("state", "critical");
  if (!zone.empty()) text(ev, "zone", zone);
  text(ev, "message", m);
  return true;
}

bool suspend_event(Event& ev, string_view kind, string_view mode, string_view via, string_view message) {
  ev.kind = kind;
  if (!mode.empty()) text(ev, "mode", mode);
  ev.add_text("via", via);
  text(ev, "message", message);
  return true;
}

bool shutdown_event(Event& ev, string_view action, string_view via, string_view message) {
  ev.kind = "shutdown";
  if (!action.empty()) ev.add_text("action", action);
  ev.add_text("via", via);
  text(ev, "message", message);
  return true;
}

/// "PM: suspend entry (s2idle)", "PM: suspend exit", "PM: hibernation: hibernation entry",
/// old kernels' "PM: Entering mem sleep" / "PM: Finishing wakeup.".
bool classify_pm(string_view m, Event& ev) {
  string_view r = m.substr(4);
  if (consume(r, "suspend entry")) {
    string_view mode;
    if (consume(r, " (")) mode = r.substr(0, std::min(r.find(')'), r.size()));
    return suspend_event(ev, "suspend", mode, "kernel", m);
  }
  if (has_prefix(r, "suspend exit")) return suspend_event(ev, "resume", {}, "kernel", m);
  consume(r, "hibernation: ");
  if (has_prefix(r, "hibernation entry")) return suspend_event(ev, "suspend", "hibernate", "kernel", m);
  if (has_prefix(r, "hibernation exit")) return suspend_event(ev, "resume", "hibernate", "kernel", m);
  if (consume(r, "Entering ") && r.ends_with(" sleep"))
    return suspend_event(ev, "suspend", r.substr(0, r.size() - 6), "kernel", m);
  if (has_prefix(r, "Finishing wakeup")) return suspend_event(ev, "resume", {}, "kernel", m);
  return false;
}

/// "GPU reset executed: GPU-<uuid>, success: true" (written by NVSentinel's GPU reset job; the
/// NVIDIA kernel module itself logs no reset line).
bool classify_gpu_reset(string_view m, Event& ev) {
  string_view r = m;
  if (!consume(r, "GPU reset executed: ")) return false;
  const std::size_t comma = r.find(',');
  string_view uuid = r.substr(0, std::min(comma, r.size()));
  string_view success;
  const std::size_t s = r.find("success: ");
  if (s != npos) {
    string_view v = r.substr(s + 9);
    success = v.substr(0, std::min({v.find(','), v.find(' '), v.size()}));
  }
  ev.kind = "driver";
  ev.add_text("action", "reset");
  if (!uuid.empty()) text(ev, "uuid", uuid);
  if (!success.empty()) text(ev, "success", success);
  text(ev, "message", m);
  return true;
}

/// The two kernel shapes that may start with any byte: AER lines "<driver> <pci>: ..." (the
/// first blank within the first 32 bytes) and segfaults "<comm>[<pid>]: segfault at ..." (comm
/// <= 15 bytes, pid <= 7 digits: the "]:" lies within the first 24 bytes).
bool classify_any(string_view m, Event& ev) {
  const std::size_t sp = find_near(m, ' ', 1, 32);
  if (sp == npos || sp < 2) return false;
  if (m[sp - 1] == ':') {
    // "python3[12345]: segfault at ..."; otherwise "audit: ...", "ACPI: ...": nothing here.
    return m[sp - 2] == ']' && classify_segfault(m, sp - 2, ev);
  }
  if (classify_aer(m, sp, ev)) return true;
  // A comm with blanks: "Web Content[4242]: segfault at ...".
  const std::size_t rb = find_near(m, ']', sp + 1, 24);
  return rb != npos && rb + 1 < m.size() && m[rb + 1] == ':' && classify_segfault(m, rb, ev);
}

bool classify_kernel(string_view m, Event& ev) {
  if (m[0] == '[') {
    m = strip_printk_stamp(m);
    if (m.empty()) return false;
  }
  switch (m[0]) {
    case 'N':
      if (has_prefix(m, "NVRM: ")) return classify_nvrm(m, ev);
      break;
    case 'n':
      if (has_prefix(m, "nvidia-modeset: ERROR: ")) {
        ev.kind = "modeset";
        text(ev, "message", m);
        return true;
      }
      if (has_prefix(m, "nvidia-nvlink: Unregistered Nvlink Core")) {
        // nvidia.ko carries the NVLink core: this line is the module's unload.
        ev.kind = "driver";
        ev.add_text("action", "unload");
        text(ev, "message", m);
        return true;
      }
      break;  // "nvidia 0000:01:00.0: PCIe Bus Error ..." and the like: below
    case 'C':
      if (has_prefix(m, "CPU") && classify_cpu_thermal(m, m, ev)) return true;
      if (has_prefix(m, "Critical temperature reached")) return classify_critical_temp(m, ev);
      break;
    case 'm':
      if (has_prefix(m, "mce: CPU")) return classify_cpu_thermal(m, m.substr(5), ev);
      break;
    case 't':
      if (has_prefix(m, "thermal ") && classify_critical_temp(m, ev)) return true;
      break;
    case 'O':
      if (has_prefix(m, "Out of memory")) return classify_oom(m, ev);
      break;
    case 'M':
      if (has_prefix(m, "Memory cgroup out of memory")) return classify_oom(m, ev);
      break;
    case 'K':
      if (has_prefix(m, "Killed process ")) return classify_oom(m, ev);
      break;
    case 'A':
      if (has_prefix(m, "ACPI: ")) {
        // "ACPI: AC: AC Adapter [ACAD] (off-line)" (5.x+), "ACPI: AC Adapter [AC] (on-line)" (older)
        string_view r = m.substr(6);
        consume(r, "AC: ");
        if (consume(r, "AC Adapter [")) {
          const std::size_t rb = r.find(']');
          if (rb == npos) return false;
          string_view adapter = r.substr(0, rb);
          r.remove_prefix(rb + 1);
          string_view state;
          if (has_prefix(r, " (on-line)"))
            state = "online";
          else if (has_prefix(r, " (off-line)"))
            state = "offline";
          else
            return false;
          ev.kind = "power_source";
          ev.add_text("state", state);
          text(ev, "adapter", adapter);
          text(ev, "message", m);
          return true;
        }
        if (classify_critical_temp(m, ev)) return true;
      }
      break;
    case 'P':
      if (has_prefix(m, "PM: ")) return classify_pm(m, ev);
      break;
    case 'p':
      // "printk: Suspending console(s) (use no_console_suspend to debug)": printed by every
      // kernel as it suspends, also those too old for "PM: suspend entry".
      if (has_prefix(m, "printk: Suspending console")) return suspend_event(ev, "suspend", {}, "kernel", m);
      break;
    case 'L':
      if (has_prefix(m, "Linux version ")) {
        string_view r = m.substr(14);
        string_view release = r.substr(0, std::min(r.find(' '), r.size()));
        if (release.empty() || !is_digit(release[0])) return false;
        ev.kind = "boot";
        text(ev, "kernel", release);
        text(ev, "message", m);
        return true;
      }
      break;
    case 'r':
      if (has_prefix(m, "reboot: ")) {
        string_view r = m.substr(8);
        if (has_prefix(r, "Power down")) return shutdown_event(ev, "poweroff", "kernel", m);
        if (has_prefix(r, "Restarting system")) return shutdown_event(ev, "reboot", "kernel", m);
        if (has_prefix(r, "System halted")) return shutdown_event(ev, "halt", "kernel", m);
        return false;
      }
      break;
    case 'G':
      if (classify_gpu_reset(m, ev)) return true;
      break;
    default: break;
  }
  return classify_any(m, ev);
}

// ---- system services ----------------------------------------------------------------------

/// Text between the first pair of single quotes: "Performing sleep operation 'suspend'..." -> suspend.
string_view quoted(string_view s) {
  const std::size_t a = s.find('\'');
  if (a == npos) return {};
  const std::size_t b = s.find('\'', a + 1);
  return b == npos ? string_view() : s.substr(a + 1, b - a - 1);
}

bool classify_logind(string_view m, Event& ev) {
  if (m == "Lid closed." || m == "Lid opened.") {
    ev.kind = "lid";
    ev.add_text("state", m == "Lid closed." ? "closed" : "open");
    text(ev, "message", m);
    return true;
  }
  if (has_prefix(m, "System is ")) {
    string_view r = m.substr(10);
    if (has_prefix(r, "powering down")) return shutdown_event(ev, "poweroff", "logind", m);
    if (has_prefix(r, "rebooting")) return shutdown_event(ev, "reboot", "logind", m);
    if (has_prefix(r, "halting")) return shutdown_event(ev, "halt", "logind", m);
    return false;
  }
  // "The system will suspend now!", "... hibernate now!", "... suspend and hibernate now!"
  // (hybrid sleep), "... suspend and later hibernate now!". Power-off/reboot announcements are
  // followed by "System is ..." above and are not events.
  string_view r = m;
  if (consume(r, "The system will ") && r.ends_with(" now!")) {
    r.remove_suffix(5);
    string_view mode;
    if (r == "suspend")
      mode = "suspend";
    else if (r == "hibernate")
      mode = "hibernate";
    else if (r == "suspend and hibernate")
      mode = "hybrid-sleep";
    else if (r == "suspend and later hibernate")
      mode = "suspend-then-hibernate";
    else
      return false;
    return suspend_event(ev, "suspend", mode, "logind", m);
  }
  return false;
}

bool classify_sleep(string_view m, Event& ev) {
  if (has_prefix(m, "Performing sleep operation '") || has_prefix(m, "Entering sleep state '"))
    return suspend_event(ev, "suspend", quoted(m), "systemd-sleep", m);
  if (has_prefix(m, "Suspending system")) return suspend_event(ev, "suspend", "suspend", "systemd-sleep", m);
  if (has_prefix(m, "Hibernating system")) return suspend_event(ev, "suspend", "hibernate", "systemd-sleep", m);
  if (has_prefix(m, "System returned from sleep operation '"))
    return suspend_event(ev, "resume", quoted(m), "systemd-sleep", m);
  if (has_prefix(m, "System returned from sleep state") || has_prefix(m, "System resumed."))
    return suspend_event(ev, "resume", {}, "systemd-sleep", m);
  if (has_prefix(m, "Failed to ")) {
    // "Failed to put system to sleep. System resumed again: Input/output error" (and the older
    // "Failed to suspend system. System resumed again: ..."): a resume that ends a failed suspend.
    constexpr string_view kAgain = "System resumed again";
    const std::size_t a = m.find(kAgain);
    if (a == npos) return false;
    string_view error = m.substr(a + kAgain.size());
    consume(error, ":");
    error = ltrim(error);
    suspend_event(ev, "resume", {}, "systemd-sleep", m);
    ev.add_text("failed", "true");
    if (!error.empty()) text(ev, "error", error);
    return true;
  }
  return false;
}

bool classify_system(string_view ident, string_view m, Event& ev) {
  m = ltrim(m);
  if (m.empty()) return false;
  if (ident == "systemd-logind") return classify_logind(m, ev);
  if (ident == "systemd-sleep") return classify_sleep(m, ev);
  if (ident == "systemd") {
    string_view r = m;
    if (consume(r, "Reached target ") &&
        (r == "Shutdown." || r == "System Shutdown." || r == "shutdown.target - System Shutdown."))
      return shutdown_event(ev, {}, "systemd", m);
    // NVIDIA's nvidia-suspend/-hibernate/-resume units (nvidia-sleep.sh) run just before the
    // system sleeps and right after it wakes: "Finished NVIDIA system suspend actions."
    if (consume(r, "Finished NVIDIA system ") && r.ends_with(" actions.")) {
      r.remove_suffix(9);
      if (r == "suspend") return suspend_event(ev, "suspend", "suspend", "systemd", m);
      if (r == "hibernate") return suspend_event(ev, "suspend", "hibernate", "systemd", m);
      if (r == "resume") return suspend_event(ev, "resume", {}, "systemd", m);
    }
    return false;
  }
  if (ident == "nvidia-persistenced") {
    string_view r = m;
    string_view action;
    if (consume(r, "Started ("))
      action = "persistenced_start";
    else if (consume(r, "Shutdown ("))
      action = "persistenced_stop";
    else
      return false;
    std::int64_t pid = -1;
    const std::size_t digits = read_uint(r, pid);
    ev.kind = "driver";
    ev.add_text("action", action);
    if (digits > 0) ev.add_number("pid", pid);
    text(ev, "message", m);
    return true;
  }
  return m[0] == 'G' && classify_gpu_reset(m, ev);
}

bool classify_one(string_view ident, string_view message, Event& ev) {
  if (ident.empty() || (ident.size() == 6 && has_prefix(ident, "kernel"))) {
    if (classify_kernel(message, ev)) return true;
    string_view name, rest;
    if (ident.empty() && split_userspace_prefix(message, name, rest) && !rest.empty())
      return classify_system(name, rest, ev);
    return false;
  }
  return classify_system(normalize_ident(ident), message, ev);
}

}  // namespace

bool classify_message(std::string_view ident, std::string_view message, Event& ev) {
  message = rtrim(message);
  if (message.empty()) return false;
  if (message[0] == 'm' && has_prefix(message, "message repeated ")) {
    // rsyslog: "message repeated 3 times: [ NVRM: Xid (PCI:0000:01:00): 79, ...]"
    string_view r = message.substr(17);
    std::int64_t times = 0;
    const std::size_t digits = read_uint(r, times);
    r.remove_prefix(digits);
    if (digits == 0 || !consume(r, " times: [") || !r.ends_with("]")) return false;
    r.remove_suffix(1);
    r = rtrim(ltrim(r));
    if (r.empty() || !classify_one(ident, r, ev)) return false;
    ev.add_number("repeat", times);
    return true;
  }
  return classify_one(ident, message, ev);
}

bool continues_incident(std::string_view previous_kind, std::string_view message) {
  string_view m = rtrim(ltrim(strip_printk_stamp(ltrim(message))));
  if (m.empty()) return false;
  if (previous_kind == "aer") {
    // Drop "<driver> <pci>: " and "AER:".
    const std::size_t sp = find_near(m, ' ', 1, 40);
    if (sp != npos) {
      string_view r = m.substr(sp + 1);
      const std::size_t n = pci_len(r, true);
      if (n != 0 && r.substr(n).starts_with(": ")) m = r.substr(n + 2);
    }
    consume(m, "AER:");
    m = ltrim(m);
    return has_prefix(m, "device [") || has_prefix(m, "TLP Header") || has_prefix(m, "Error of this Agent") ||
           (m.size() > 2 && m[0] == '[' && (m[1] == ' ' || is_digit(m[1])));
  }
  if (previous_kind == "gpu_lost" || previous_kind == "xid") {
    if (!consume(m, "NVRM:")) return false;
    if (has_prefix(m, "   ")) return true;  // indented table lines of GSP dumps
    m = ltrim(m);
    if (has_prefix(m, "(PCI ID:") || has_prefix(m, "installed in this system") ||
        has_prefix(m, "A GPU crash dump has been created") || has_prefix(m, "nvidia-bug-report.sh") ||
        has_prefix(m, "the NVIDIA kernel module is unloaded"))
      return true;
    // "GPU4 RPC history (CPU -> GSP):", "GPU4 RPC event history (...)"
    if (has_prefix(m, "GPU") && m.size() > 3 && is_digit(m[3])) {
      std::size_t i = 3;
      while (i < m.size() && is_digit(m[i])) ++i;
      return m.substr(i).starts_with(" RPC ");
    }
    return false;
  }
  if (previous_kind == "segfault") return has_prefix(m, "Code: ");
  if (previous_kind == "oom") return has_prefix(m, "oom_reaper: ");
  return false;
}

const XidInfo* find_xid(int code) {
  constexpr auto kSize = static_cast<int>(std::size(kXidTable));
  if (code >= 1 && code <= kSize && kXidTable[code - 1].code == code) return &kXidTable[code - 1];
  const auto* it = std::lower_bound(std::begin(kXidTable), std::end(kXidTable), code,
                                    [](const XidInfo& x, int c) { return x.code < c; });
  return (it != std::end(kXidTable) && it->code == code) ? it : nullptr;
}

std::span<const XidInfo> xid_catalog() { return {kXidTable, std::size(kXidTable)}; }

}  // namespace gpucost::prep
