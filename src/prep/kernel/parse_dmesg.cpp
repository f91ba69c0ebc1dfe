// dmesg output (docs/formats.md, "Kernel logs") and /dev/kmsg records:
//   [ 4564.303884] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.      raw
//   <4>[ 1126.635824] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.144.03 ...  dmesg -r, pstore
//   [Sun Feb 23 16:24:18 2025] NVRM: ...                                              dmesg -T (local)
//   2024-11-15T12:02:03,470068+00:00 NVRM: ...                                        --time-format=iso
//   kern  :warn  : 2025-01-21T02:21:33,498559+00:00 NVRM: ...                         --decode
//   6,3964,206764307,-;nvidia-nvswitch2: open (major=510)                              /dev/kmsg
//    SUBSYSTEM=pci                                                                     kmsg dictionary
// A record is a prefixed line plus the prefix-less lines after it (multi-line kernel messages),
// joined with spaces before classify_message() sees them; its lines are held back (deferred)
// and settled together. Uptime stamps are placed with --boot-time, else with a boot time found
// in the log itself (rtc_cmos "setting system clock to ... (EPOCH)"), else kept as seconds since
// boot; events wait in a buffer until that is known.
#include "kernel_events.hpp"
#include "klog_common.hpp"
#include "prep/parsers.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

namespace gpucost::prep {

namespace {

using klog::HeldTime;

enum class DStamp : std::uint8_t { none, uptime, ctime, iso };

struct DPrefix {
  DStamp stamp = DStamp::none;
  std::int64_t uptime_ns = 0;  // uptime
  IsoInstant wall;             // ctime (no offset), iso
  int facility = -1;           // -1 unknown, 0 kernel, > 0 user space writing to /dev/kmsg
  bool kmsg = false;           // a /dev/kmsg record
  bool kmsg_cont = false;      // kmsg flag '+': continues the previous record
  std::string_view message;
};

enum class Scan { none, ok, bad_stamp };

inline bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

constexpr std::string_view kFacilities[] = {"kern",   "user",   "mail",   "daemon",   "auth",   "syslog", "lpr",
                                            "news",   "uucp",   "cron",   "authpriv", "ftp",    "local0", "local1",
                                            "local2", "local3", "local4", "local5",   "local6", "local7"};

constexpr std::string_view kLevels[] = {"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"};

int facility_number(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kFacilities); ++i)
    if (kFacilities[i] == name) return i < 12 ? static_cast<int>(i) : static_cast<int>(i) + 4;
  return -1;
}

// "/dev/kmsg": "prio,seq,usec,flags[,more];message".
bool scan_kmsg(std::string_view line, DPrefix& px) {
  std::size_t pos = 0;
  std::uint64_t prio = 0, seq = 0, usec = 0;
  if (!text::read_uint(line, pos, 4, prio) || pos >= line.size() || line[pos++] != ',') return false;
  if (!text::read_uint(line, pos, 20, seq) || pos >= line.size() || line[pos++] != ',') return false;
  if (!text::read_uint(line, pos, 20, usec) || pos >= line.size() || line[pos++] != ',') return false;
  if (usec >= 3'000'000'000'000'000) return false;  // 95 years of uptime: junk, and beyond ns since the epoch
  const std::size_t semi = line.find(';', pos);
  if (semi == std::string_view::npos || semi - pos > 64) return false;
  const std::string_view flags = line.substr(pos, semi - pos);
  if (flags.empty() || flags.find(' ') != std::string_view::npos) return false;
  px.kmsg = true;
  px.kmsg_cont = flags.front() == '+';
  px.facility = static_cast<int>(prio >> 3);
  px.stamp = DStamp::uptime;
  px.uptime_ns = static_cast<std::int64_t>(usec) * 1000;
  px.message = line.substr(semi + 1);
  return true;
}

// "kern  :warn  : " -> facility; advances pos past the second ':' (and one space).
bool scan_decode(std::string_view line, std::size_t& pos, DPrefix& px) {
  std::size_t p = pos;
  const std::size_t f0 = p;
  while (p < line.size() && (is_lower(line[p]) || text::is_digit(line[p]))) ++p;
  if (p == f0 || p - f0 > 8) return false;
  const std::string_view fac = line.substr(f0, p - f0);
  while (p < line.size() && line[p] == ' ') ++p;
  if (p >= line.size() || line[p] != ':') return false;
  ++p;
  const std::size_t l0 = p;
  while (p < line.size() && is_lower(line[p])) ++p;
  const std::string_view level = line.substr(l0, p - l0);
  if (std::find(std::begin(kLevels), std::end(kLevels), level) == std::end(kLevels)) return false;
  while (p < line.size() && line[p] == ' ') ++p;
  if (p >= line.size() || line[p] != ':') return false;
  ++p;
  const int f = facility_number(fac);
  if (f < 0) return false;
  px.facility = f;
  if (p < line.size() && line[p] == ' ') ++p;
  pos = p;
  return true;
}

// "[Sun Feb 23 16:24:18 2025]" inside: weekday (skipped), month, day, time, year.
bool parse_ctime(std::string_view inner, CivilTime& c) {
  inner = text::trim(inner);
  const std::size_t sp_year = inner.rfind(' ');
  if (sp_year == std::string_view::npos) return false;
  const std::string_view year = inner.substr(sp_year + 1);
  std::string_view rest = text::rtrim(inner.substr(0, sp_year));
  const std::size_t sp_time = rest.rfind(' ');
  if (sp_time == std::string_view::npos) return false;
  const std::string_view clock = rest.substr(sp_time + 1);
  rest = text::rtrim(rest.substr(0, sp_time));
  const std::size_t sp_day = rest.rfind(' ');
  if (sp_day == std::string_view::npos) return false;
  const std::string_view day = rest.substr(sp_day + 1);
  rest = text::rtrim(rest.substr(0, sp_day));
  const std::size_t sp_month = rest.rfind(' ');
  const std::string_view month = sp_month == std::string_view::npos ? rest : rest.substr(sp_month + 1);
  std::size_t pos = 0;
  std::uint64_t y = 0, d = 0;
  if (year.size() != 4 || !text::read_uint(year, pos, 4, y) || pos != 4) return false;
  pos = 0;
  if (!text::read_uint(day, pos, 2, d) || pos != day.size()) return false;
  const int m = klog::month_number(month);
  if (m == 0) return false;
  c.year = static_cast<int>(y);
  c.month = static_cast<unsigned>(m);
  c.day = static_cast<unsigned>(d);
  return parse_clock_time(clock, c);
}

// The prefix of a dmesg line. Scan::none: no prefix (a continuation line).
Scan scan_prefix(std::string_view line, DPrefix& px) {
  const std::size_t n = line.size();
  if (n == 0) return Scan::none;
  std::size_t pos = 0;
  bool prefixed = false;  // a priority or facility prefix was read
  if (text::is_digit(line[0]) && scan_kmsg(line, px)) return Scan::ok;
  if (line[0] == '<') {
    std::uint64_t prio = 0;
    std::size_t p = 1;
    if (text::read_uint(line, p, 4, prio) && p < n && line[p] == '>') {
      px.facility = static_cast<int>(prio >> 3);
      pos = p + 1;
      prefixed = true;
    }
  } else if (is_lower(line[0])) {
    if (!scan_decode(line, pos, px)) return Scan::none;
    prefixed = true;
  }
  const std::string_view rest = line.substr(pos);
  if (!rest.empty() && rest[0] == '[') {
    const std::size_t rb = rest.find(']');
    if (rb <= 40) {  // npos (no bracket) is above it
      const std::string_view inner = rest.substr(1, rb - 1);
      std::size_t after = rb + 1;
      if (after < rest.size() && rest[after] == ' ') ++after;
      if (klog::parse_uptime(inner, px.uptime_ns)) {
        px.stamp = DStamp::uptime;
        px.message = rest.substr(after);
        return Scan::ok;
      }
      // dmesg -T: letters and a clock inside the brackets.
      if (inner.size() >= 20 && inner.find(':') != std::string_view::npos && !text::is_digit(text::trim(inner)[0])) {
        if (!parse_ctime(inner, px.wall.civil)) return prefixed ? Scan::bad_stamp : Scan::none;
        px.stamp = DStamp::ctime;
        px.message = rest.substr(after);
        return Scan::ok;
      }
    }
  } else if (rest.size() > 20 && text::is_digit(rest[0]) && rest[4] == '-' && rest[7] == '-' &&
             (rest[10] == 'T' || rest[10] == ' ') && rest[13] == ':') {
    // --time-format=iso: "2024-11-15T05:39:15,491363+00:00 msg"
    const std::size_t sp = rest.find(' ', 11);
    const std::string_view stamp = rest.substr(0, sp);
    const auto iso = parse_iso8601(stamp);
    if (!iso) return Scan::bad_stamp;
    px.stamp = DStamp::iso;
    px.wall = *iso;
    px.message = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    return Scan::ok;
  }
  if (!prefixed) return Scan::none;
  px.stamp = DStamp::none;  // "<6>msg", "kern  :info  : msg" (dmesg -t): no time
  px.message = rest;
  return Scan::ok;
}

// rtc_cmos 00:00: setting system clock to 2025-01-17T15:36:21 UTC (1737128181)
bool rtc_epoch(std::string_view msg, std::int64_t& epoch_s) {
  if (msg.size() < 40 || msg.substr(0, 3) != "rtc") return false;
  if (msg.find("setting system clock to ") == std::string_view::npos) return false;
  const std::size_t lp = msg.rfind('(');
  if (lp == std::string_view::npos || msg.back() != ')') return false;
  std::size_t pos = lp + 1;
  std::uint64_t v = 0;
  if (!text::read_uint(msg, pos, 12, v) || pos != msg.size() - 1) return false;
  if (v > 4'102'444'800ULL) return false;  // after 2100-01-01: not a clock (and ns would overflow)
  epoch_s = static_cast<std::int64_t>(v);
  return true;
}

class DmesgParser final : public LineParser {
 public:
  explicit DmesgParser(ParseContext& /*ctx*/) {}

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    DPrefix px;
    switch (scan_prefix(line, px)) {
      case Scan::ok: break;
      case Scan::bad_stamp: finish_record(ctx); return ctx.malformed("bad timestamp");
      case Scan::none: return continuation(line);
    }
    if (px.kmsg_cont && m_open) {
      m_text.append(px.message);
      ++m_rec_lines;
      return LineResult::deferred;
    }
    finish_record(ctx);
    open_record(px, ctx);
    return LineResult::deferred;
  }

  void finish(ParseContext& ctx) override {
    finish_record(ctx);
    if (!m_held.empty()) release_held(ctx);
    describe_clock(ctx);
  }

  // The open record was emitted at the end of the run that read it; the held events still
  // wait for a boot time, but were counted then too.
  void end_replay(ParseContext& ctx) override {
    finish_record(ctx);
    m_held.mute();
  }

 private:
  LineResult continuation(std::string_view line) {
    const std::string_view body = text::trim(line);
    if (body.empty() || !m_open) return LineResult::ignored;
    ++m_rec_lines;
    if (m_kmsg && line[0] == ' ' && body.find('=') != std::string_view::npos)
      return LineResult::deferred;  // dictionary
    if (m_text.size() < 64 * 1024) {
      if (!m_text.empty()) m_text += ' ';
      m_text.append(body);
    }
    return LineResult::deferred;
  }

  void open_record(const DPrefix& px, ParseContext& ctx) {
    m_open = true;
    m_rec_first_line = ctx.line_no;
    m_rec_lines = 1;
    m_kmsg = px.kmsg;
    m_stamp = px.stamp;
    m_uptime_ns = px.uptime_ns;
    m_wall = px.wall;
    std::string_view msg = px.message;
    m_ident.clear();
    if (px.facility > 0) {  // user space writing to /dev/kmsg: "systemd[1]: Started ..."
      const std::size_t sp = msg.find(' ');
      const std::string_view tok = msg.substr(0, sp);
      if (tok.size() > 1 && tok.back() == ':') {
        m_ident.assign(klog::strip_pid(tok.substr(0, tok.size() - 1)));
        msg = sp == std::string_view::npos ? std::string_view() : msg.substr(sp + 1);
      }
    }
    m_text.assign(msg);
    note_stamp(ctx);
  }

  void note_stamp(ParseContext& ctx) {
    switch (m_stamp) {
      case DStamp::uptime:
        m_seen_uptime = true;  // the basis is set at the end, once the boot time is known
        break;
      case DStamp::ctime:
        if (!m_seen_ctime) {
          m_seen_ctime = true;
          klog::raise_basis(ctx.stats, TimeBasis::local);
        }
        break;
      case DStamp::iso:
        klog::note_iso_stamp(ctx.stats, m_wall.offset_s.has_value(), m_seen_iso_abs, m_seen_iso_local);
        break;
      case DStamp::none:
        if (!m_seen_none) {
          m_seen_none = true;
          klog::raise_basis(ctx.stats, TimeBasis::relative);
          add_note(ctx.stats, "dmesg records without a timestamp: placed at 1970-01-01T00:00:00Z");
        }
        break;
    }
  }

  // Wall or uptime ns of the open record, in its own clock (for "same second" checks).
  std::int64_t record_clock_ns() const {
    switch (m_stamp) {
      case DStamp::uptime: return m_uptime_ns;
      case DStamp::ctime:
      case DStamp::iso: return m_wall.civil.as_utc_ns() - m_wall.offset_s.value_or(0) * kNsPerSecond;
      case DStamp::none: break;
    }
    return 0;
  }

  void finish_record(ParseContext& ctx) {
    if (!m_open) return;
    m_open = false;
    if (m_stamp == DStamp::uptime && !m_boot_ns && !ctx.options.boot_time_ns) {
      std::int64_t epoch = 0;
      if (rtc_epoch(m_text, epoch)) {
        m_boot_ns = epoch * kNsPerSecond - m_uptime_ns;
        m_boot_line = m_rec_first_line;
        if (!m_held.empty()) release_held(ctx);  // the events before it can be placed now
      }
    }
    Event& ev = ctx.event;
    ev.reset();
    ev.gpu = -1;
    const std::int64_t clock_ns = record_clock_ns();
    if (!classify_message(m_ident, m_text, ev)) {
      const bool cont = !m_prev_kind.empty() && m_prev_stamp == m_stamp &&
                        std::llabs(clock_ns - m_prev_clock_ns) < kNsPerSecond &&
                        continues_incident(m_prev_kind, m_text);
      ctx.settle(cont ? LineResult::event : LineResult::ignored, m_rec_lines, m_rec_first_line);
      return;
    }
    ev.source = "dmesg";
    HeldTime t;
    t.line = m_rec_first_line;
    bool hold = !m_held.empty();
    switch (m_stamp) {
      case DStamp::uptime: {
        t.uptime_ns = m_uptime_ns;
        ev.fields.push_back(Field{
            "uptime_s", ev.own(fmt::format("{}.{:06}", m_uptime_ns / kNsPerSecond, m_uptime_ns % kNsPerSecond / 1000)),
            true, false});
        if (ctx.options.boot_time_ns) {
          t.ns = *ctx.options.boot_time_ns + m_uptime_ns;
        } else if (m_boot_ns) {
          t.ns = *m_boot_ns + m_uptime_ns;
        } else {
          t.kind = HeldTime::Kind::uptime;
          t.ns = m_uptime_ns;
          hold = true;
        }
        break;
      }
      case DStamp::ctime: t.ns = ctx.clock.to_utc_ns(m_wall.civil.as_utc_ns()); break;
      case DStamp::iso:
        t.ns = m_wall.offset_s ? m_wall.civil.as_utc_ns() - *m_wall.offset_s * kNsPerSecond
                               : ctx.clock.to_utc_ns(m_wall.civil.as_utc_ns());
        break;
      case DStamp::none: t.ns = 0; break;
    }
    m_prev_kind.assign(ev.kind);
    m_prev_stamp = m_stamp;
    m_prev_clock_ns = clock_ns;
    if (hold) {
      m_held.hold(ev, t);
      if (m_held.full()) release_held(ctx);
    } else {
      ev.ts_ns = t.ns;
      ctx.emit();
    }
    ctx.settle(LineResult::event, m_rec_lines, m_rec_first_line);
  }

  void release_held(ParseContext& ctx) {
    const std::int64_t boot = m_boot_ns.value_or(0);
    if (!m_boot_ns) m_released_relative = true;
    m_held.release(ctx, [&](const HeldTime& t) { return t.kind == HeldTime::Kind::uptime ? boot + t.ns : t.ns; });
  }

  void describe_clock(ParseContext& ctx) {
    klog::ClockDescription described;
    if (m_seen_uptime) {
      const bool placed = ctx.options.boot_time_ns || (m_boot_ns && !m_released_relative);
      klog::raise_basis(ctx.stats, placed ? TimeBasis::absolute : TimeBasis::uptime);
      if (ctx.options.boot_time_ns) {
        described.add(fmt::format("uptime + boot time {} from {}", format_utc(*ctx.options.boot_time_ns),
                                  ctx.options.boot_time_origin));
      } else if (placed) {
        described.add(fmt::format("uptime + boot time {} derived from line {} (rtc_cmos set the system clock)",
                                  format_utc(*m_boot_ns), m_boot_line));
      } else {
        described.add(
            "uptime: seconds since boot, 1970-01-01T00:00:00Z = boot (no --boot-time and no line giving the wall "
            "time)");
        add_note(ctx.stats,
                 "dmesg uptime stamps and no boot time: times are seconds since boot; give --boot-time "
                 "(e.g. `date -d \"$(uptime -s)\" +%s` or btime in /proc/stat on the host)");
      }
    }
    if (m_seen_ctime)
      described.add("local time in " + ctx.clock.name() + " (dmesg -T: boot time + uptime, late after a suspend)");
    if (m_seen_iso_abs) described.add("absolute (ISO 8601 offsets)");
    if (m_seen_iso_local) described.add("local time in " + ctx.clock.name() + " (ISO stamps without an offset)");
    if (m_seen_none) described.add("no timestamps on some records: placed at 1970-01-01T00:00:00Z");
    described.store(ctx.stats);
  }

  // the open record
  bool m_open = false;
  bool m_kmsg = false;
  std::uint64_t m_rec_first_line = 0, m_rec_lines = 0;
  DStamp m_stamp = DStamp::none;
  std::int64_t m_uptime_ns = 0;
  IsoInstant m_wall;
  std::string m_ident, m_text;
  // the previous event, for continues_incident()
  std::string m_prev_kind;
  DStamp m_prev_stamp = DStamp::none;
  std::int64_t m_prev_clock_ns = 0;
  // clocks
  klog::HeldEvents m_held;
  std::optional<std::int64_t> m_boot_ns;
  std::uint64_t m_boot_line = 0;
  bool m_released_relative = false;
  bool m_seen_uptime = false, m_seen_ctime = false, m_seen_iso_abs = false, m_seen_iso_local = false,
       m_seen_none = false;
};

}  // namespace

namespace klog {

LineShape dmesg_line_shape(std::string_view line) {
  DPrefix px;
  if (scan_prefix(line, px) != Scan::ok) return LineShape::none;
  // "<6>msg" and "kern  :info  : msg" without a stamp are too loose to detect on their own,
  // except for a decode prefix, which nothing else prints.
  if (px.stamp == DStamp::none && line[0] == '<') return LineShape::none;
  return LineShape::dmesg;
}

}  // namespace klog

Expected<std::unique_ptr<LineParser>> make_dmesg_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<DmesgParser>(ctx));
}

}  // namespace gpucost::prep
