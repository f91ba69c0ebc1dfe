// Pieces shared by the kernel/system log parsers (parse_syslog.cpp: kern.log, syslog and the
// journalctl text modes; parse_dmesg.cpp: dmesg and /dev/kmsg). Internal to prep.
#pragma once

#include "prep/line_parser.hpp"

#include <gpucost/core/event.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/prep/prep.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prep::klog {

/// Month 1..12 of a month name as strftime %b/%B prints it in en, fr, de, es, it, pt, nl, pl,
/// ru, uk, zh/ja ("6月", "六月") or ko ("6월"): case-insensitive (ASCII, Latin-1, Cyrillic), with
/// or without a trailing dot ("févr.", "фев", "Avril"). 0 when unknown.
int month_number(std::string_view name);

/// split_printk_stamp() for the stamps printk's "[%5lu.%06lu]" does not fill exactly.
bool split_printk_stamp_other(std::string_view text, std::string_view& stamp, std::string_view& message);

/// "[ 4564.303884] NVRM: ..." -> stamp " 4564.303884", message "NVRM: ..." (one blank after the
/// stamp dropped). False, and nothing set, when `text` does not start with a printk stamp.
/// `message` may alias `text`. The common "[%5lu.%06lu]" is checked at fixed offsets, inline: the
/// syslog prefilter looks at every line's stamp.
inline bool split_printk_stamp(std::string_view text, std::string_view& stamp, std::string_view& message) {
  const char* m = text.data();
  if (text.size() >= 14 && m[0] == '[' && m[13] == ']' && m[6] == '.' && text::is_digit(m[5]) && text::is_digit(m[7]) &&
      text::is_digit(m[12])) {
    stamp = std::string_view(m + 1, 12);
    const std::size_t after = text.size() > 14 && m[14] == ' ' ? 15 : 14;
    message = std::string_view(m + after, text.size() - after);
    return true;
  }
  return split_printk_stamp_other(text, stamp, message);
}

/// "12.345678" (the inside of a printk "[   12.345678]" stamp, spaces allowed before) -> ns.
bool parse_uptime(std::string_view s, std::int64_t& ns);

/// "ident[pid]" or "ident" -> ident ("/usr/libexec/gdm-x-session[1631]" -> the path,
/// "(system-sleep)[15544]" -> "(system-sleep)").
std::string_view strip_pid(std::string_view tag);

/// A time that may only be placed on the UTC clock once the whole input is read: a wall-clock
/// time without a year (the year comes from the last line and the reference time) or an uptime
/// (the boot time may come from a later line).
struct HeldTime {
  enum class Kind : std::uint8_t { final_ts, civil_no_year, uptime };
  Kind kind = Kind::final_ts;
  std::int64_t ns = 0;          ///< final_ts: UTC ns; uptime: ns since boot
  CivilTime civil;              ///< civil_no_year: month..nanos; `year` holds the rollover count
  std::int64_t uptime_ns = -1;  ///< a kernel uptime carried by the record as well (-1: none)
  std::uint64_t line = 0;       ///< first line of the record
};

/// Deep copies of events held back until their times can be resolved; released in input order.
/// Text lives in one arena, so holding an event costs no allocation once the buffers are warm.
class HeldEvents {
 public:
  void hold(const Event& ev, const HeldTime& time);
  [[nodiscard]] bool empty() const { return m_records.empty(); }
  [[nodiscard]] std::size_t size() const { return m_records.size(); }
  /// The events held so far came from replayed lines (a resumed batch run): they still count
  /// for placing the others (the year of a year-less log) but are never emitted.
  void mute() { m_muted = m_records.size(); }
  /// True when the buffer should be released now to keep memory bounded.
  [[nodiscard]] bool full() const { return m_arena.size() > (8u << 20) || m_records.size() >= 50'000; }
  /// True when holding `more`'s events as well would make the buffer full(): the events of a
  /// chunk (prep -j) handed to the parser that joins it would then be released on the way.
  [[nodiscard]] bool full_with(const HeldEvents& more) const {
    return m_arena.size() + more.m_arena.size() > (8u << 20) || m_records.size() + more.m_records.size() >= 50'000;
  }
  /// Calls `f(time, index)` for every held event, rebuilt into `ev`, in order, then empties the
  /// buffer (a chunk's events handed on to the parser that joins it).
  template <class F>
  void drain(Event& ev, F&& f) {
    for (std::size_t i = m_muted; i < m_records.size(); ++i) {
      rebuild(m_records[i], ev);
      f(m_records[i].time, i);
    }
    clear();
  }
  /// Calls `f(time)` for every held event, in order (to try years before they are placed).
  template <class F>
  void for_each_time(F&& f) const {
    for (const Record& r : m_records) f(r.time);
  }

  /// Emits every held event, in order, with ts_ns = resolve(time), then empties the buffer.
  template <class Resolve>
  void release(ParseContext& ctx, Resolve&& resolve) {
    release(ctx, resolve, [](Event&) {});
  }
  /// The same, with `patch(event)` called on each rebuilt event before it is emitted (a field
  /// whose value was only known later).
  template <class Resolve, class Patch>
  void release(ParseContext& ctx, Resolve&& resolve, Patch&& patch) {
    for (std::size_t i = m_muted; i < m_records.size(); ++i) {
      const Record& r = m_records[i];
      rebuild(r, ctx.event);
      ctx.event.ts_ns = resolve(r.time);
      patch(ctx.event);
      ctx.emit();
    }
    clear();
  }

 private:
  struct Record {
    HeldTime time;
    std::string_view source;  // a literal of the parser
    std::int32_t gpu = -1;
    std::uint32_t kind_off = 0, kind_len = 0;
    std::uint32_t host_off = 0, host_len = 0;  // the host the line named; empty: none
    std::uint32_t first_field = 0, n_fields = 0, first_metric = 0, n_metrics = 0;
  };
  struct FieldRec {
    std::uint32_t key_off, key_len, val_off, val_len;
    bool numeric, extra;
  };
  struct MetricRec {
    std::uint8_t index;
    double value;
    std::uint32_t text_off, text_len;
  };
  std::uint32_t put(std::string_view s);
  void rebuild(const Record& r, Event& ev) const;
  void clear();

  std::string m_arena;
  std::vector<Record> m_records;
  std::vector<FieldRec> m_fields;
  std::vector<MetricRec> m_metrics;
  std::size_t m_muted = 0;  ///< the first records, from replayed lines: not emitted
};

/// "weakest basis wins": none < absolute < local < uptime < relative.
inline void raise_basis(InputStats& stats, TimeBasis b) {
  if (static_cast<int>(b) > static_cast<int>(stats.time_basis)) stats.time_basis = b;
}

/// An ISO 8601 stamp: absolute time with an offset, else local time; `seen_absolute` and
/// `seen_local` remember which kinds the input had (for the notes at its end).
inline void note_iso_stamp(InputStats& stats, bool has_offset, bool& seen_absolute, bool& seen_local) {
  raise_basis(stats, has_offset ? TimeBasis::absolute : TimeBasis::local);
  (has_offset ? seen_absolute : seen_local) = true;
}

/// How an input's times were placed (InputStats::clock): the parts, joined by "; ".
class ClockDescription {
 public:
  void add(std::string_view part) {
    if (!m_text.empty()) m_text += "; ";
    m_text += part;
  }
  /// Sets stats.clock, unless no part was added.
  void store(InputStats& stats) {
    if (!m_text.empty()) stats.clock = std::move(m_text);
  }

 private:
  std::string m_text;
};

/// Shape of one line of a kernel/system log, for format detection.
enum class LineShape {
  none,     ///< not a line of these formats (or a continuation line)
  syslog,   ///< "Jun 12 14:22:18 host tag: msg" or RFC 3339 "2024-...T...+02:00 host tag: msg"
  journal,  ///< a shape only journalctl prints (separator, short-unix, short-monotonic, ...)
  dmesg,    ///< "[ 12.3] msg", "<4>[...]", "[Tue Jun 11 ...]", iso with a comma, decode, kmsg
};
/// Shape of a syslog/journalctl line (parse_syslog.cpp).
LineShape syslog_line_shape(std::string_view line);
/// Shape of a dmesg line (parse_dmesg.cpp): LineShape::dmesg or none.
LineShape dmesg_line_shape(std::string_view line);

}  // namespace gpucost::prep::klog
