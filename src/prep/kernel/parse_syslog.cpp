// Kernel and system logs in syslog files (docs/formats.md, "Kernel logs": /var/log/kern.log, syslog, messages) and
// the journalctl text modes (same section), one parser for both since they share the line shape:
//   Jun  5 22:36:51 host kernel: [ 4564.303884] NVRM: Xid (PCI:0000:01:00): 79, ...    RFC 3164
//   2024-06-12T14:22:18.123456+02:00 host kernel: NVRM: ...                             rsyslog RFC 3339
//   May 01 21:08:08 deli systemd-logind[1050]: Lid closed.                              short
//   May 01 21:08:08.123456 deli systemd-logind[1050]: ...                               short-precise
//   2024-06-12T14:22:18+0200 deli kernel: ...                                           short-iso(-precise)
//   1718194938.123456 deli kernel: ...                                                  short-unix
//   [ 1234.567890] deli kernel: ...                                                    short-monotonic
//   фев 12 00:48:02 kernel: ...                                                         --no-hostname, ru locale
//   -- Reboot --                                                                        separators
// The stamp shape is recognised per line. Only the prefix is scanned to find the identifier and
// the message; the time is parsed only for lines that classify_message() turns into events.
// Years: from --year, else the last line is placed not after the reference time (the file's
// mtime) and earlier lines are walked back through Dec->Jan rollovers; events wait in a buffer
// until the end of the input so that the year is known.
// prep -j cuts the lines into chunks parsed side by side: a chunk counts its rollovers from the
// month the chunk before ended with, holds its events while the year is unknown, and hands them
// on where the chunks are joined in input order, so the year is settled there as on one thread.
#include "kernel_events.hpp"
#include "klog_common.hpp"
#include "prep/parsers.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/io/newline_cursor.hpp>
#include <gpucost/prep/clock_check.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace gpucost::prep {

// ---- shared helpers (klog_common.hpp) ------------------------------------------------------

namespace klog {

namespace {

struct MonthName {
  std::string_view name;  // lower case, no trailing dot
  int month;
};

// Abbreviated (%b) and full (%B) month names of the locales journalctl and dmesg -T print with.
// clang-format off
constexpr MonthName kMonthNames[] = {
    // en
    {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4}, {"may", 5}, {"jun", 6}, {"jul", 7}, {"aug", 8}, {"sep", 9},
    {"oct", 10}, {"nov", 11}, {"dec", 12}, {"sept", 9}, {"january", 1}, {"february", 2}, {"march", 3},
    {"april", 4}, {"june", 6}, {"july", 7}, {"august", 8}, {"september", 9}, {"october", 10}, {"november", 11},
    {"december", 12},
    // fr
    {"janv", 1}, {"févr", 2}, {"fév", 2}, {"fevr", 2}, {"mars", 3}, {"avr", 4}, {"mai", 5}, {"juin", 6},
    {"juil", 7}, {"août", 8}, {"aout", 8}, {"déc", 12}, {"janvier", 1}, {"février", 2}, {"fevrier", 2},
    {"avril", 4}, {"juillet", 7}, {"septembre", 9}, {"octobre", 10}, {"novembre", 11}, {"décembre", 12},
    {"decembre", 12},
    // de
    {"jän", 1}, {"mär", 3}, {"märz", 3}, {"okt", 10}, {"dez", 12}, {"januar", 1}, {"jänner", 1}, {"februar", 2},
    {"juni", 6}, {"juli", 7}, {"oktober", 10}, {"dezember", 12},
    // es
    {"ene", 1}, {"abr", 4}, {"ago", 8}, {"dic", 12}, {"enero", 1}, {"febrero", 2}, {"marzo", 3}, {"abril", 4},
    {"mayo", 5}, {"junio", 6}, {"julio", 7}, {"agosto", 8}, {"septiembre", 9}, {"setiembre", 9},
    {"octubre", 10}, {"noviembre", 11}, {"diciembre", 12},
    // it
    {"gen", 1}, {"mag", 5}, {"giu", 6}, {"lug", 7}, {"set", 9}, {"ott", 10}, {"gennaio", 1}, {"febbraio", 2},
    {"aprile", 4}, {"maggio", 5}, {"giugno", 6}, {"luglio", 7}, {"settembre", 9}, {"ottobre", 10},
    {"dicembre", 12},
    // pt
    {"fev", 2}, {"out", 10}, {"janeiro", 1}, {"fevereiro", 2}, {"março", 3}, {"maio", 5}, {"junho", 6},
    {"julho", 7}, {"setembro", 9}, {"outubro", 10}, {"novembro", 11}, {"dezembro", 12},
    // nl
    {"mrt", 3}, {"mei", 5}, {"januari", 1}, {"februari", 2}, {"maart", 3}, {"augustus", 8},
    // pl
    {"sty", 1}, {"lut", 2}, {"kwi", 4}, {"maj", 5}, {"cze", 6}, {"lip", 7}, {"sie", 8}, {"wrz", 9}, {"paź", 10},
    {"lis", 11}, {"gru", 12}, {"stycznia", 1}, {"lutego", 2}, {"marca", 3}, {"kwietnia", 4}, {"maja", 5},
    {"czerwca", 6}, {"lipca", 7}, {"sierpnia", 8}, {"września", 9}, {"października", 10}, {"listopada", 11},
    {"grudnia", 12},
    // ru (nominative, genitive and the abbreviations of old and new glibc)
    {"янв", 1}, {"фев", 2}, {"февр", 2}, {"мар", 3}, {"март", 3}, {"апр", 4}, {"май", 5}, {"мая", 5},
    {"июн", 6}, {"июнь", 6}, {"июня", 6}, {"июл", 7}, {"июль", 7}, {"июля", 7}, {"авг", 8}, {"сен", 9},
    {"сент", 9}, {"окт", 10}, {"ноя", 11}, {"нояб", 11}, {"дек", 12}, {"январь", 1}, {"января", 1},
    {"февраль", 2}, {"февраля", 2}, {"марта", 3}, {"апрель", 4}, {"апреля", 4}, {"август", 8},
    {"августа", 8}, {"сентябрь", 9}, {"сентября", 9}, {"октябрь", 10}, {"октября", 10}, {"ноябрь", 11},
    {"ноября", 11}, {"декабрь", 12}, {"декабря", 12},
    // uk
    {"січ", 1}, {"лют", 2}, {"бер", 3}, {"кві", 4}, {"тра", 5}, {"чер", 6}, {"лип", 7}, {"сер", 8}, {"вер", 9},
    {"жов", 10}, {"лис", 11}, {"гру", 12}, {"січня", 1}, {"лютого", 2}, {"березня", 3}, {"квітня", 4},
    {"травня", 5}, {"червня", 6}, {"липня", 7}, {"серпня", 8}, {"вересня", 9}, {"жовтня", 10},
    {"листопада", 11}, {"грудня", 12},
    // zh / ja full names
    {"一月", 1}, {"二月", 2}, {"三月", 3}, {"四月", 4}, {"五月", 5}, {"六月", 6}, {"七月", 7}, {"八月", 8},
    {"九月", 9}, {"十月", 10}, {"十一月", 11}, {"十二月", 12},
};
// clang-format on

// Lower-cases ASCII, Latin-1 capitals (U+00C0-U+00DE) and Cyrillic capitals (U+0400-U+042F)
// of `s` into `out`; false when `s` does not fit.
bool fold_case(std::string_view s, char* out, std::size_t cap, std::size_t& n) {
  n = 0;
  if (s.size() > cap) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 'A' && c <= 'Z') {
      out[n++] = static_cast<char>(c + 32);
    } else if (i + 1 < s.size() && (c == 0xC3 || c == 0xD0)) {
      const auto d = static_cast<unsigned char>(s[i + 1]);
      unsigned char c2 = c, d2 = d;
      if (c == 0xC3 && d >= 0x80 && d <= 0x9E && d != 0x97) {
        d2 = static_cast<unsigned char>(d + 0x20);
      } else if (c == 0xD0 && d >= 0x90 && d <= 0x9F) {
        d2 = static_cast<unsigned char>(d + 0x20);
      } else if (c == 0xD0 && d >= 0xA0 && d <= 0xAF) {
        c2 = 0xD1;
        d2 = static_cast<unsigned char>(d - 0x20);
      } else if (c == 0xD0 && d >= 0x80 && d <= 0x8F) {
        c2 = 0xD1;
        d2 = static_cast<unsigned char>(d + 0x10);
      }
      out[n++] = static_cast<char>(c2);
      out[n++] = static_cast<char>(d2);
      ++i;
    } else {
      out[n++] = static_cast<char>(c);
    }
  }
  return true;
}

}  // namespace

int month_number(std::string_view name) {
  while (!name.empty() && name.back() == '.') name.remove_suffix(1);
  if (name.empty() || name.size() > 40) return 0;
  if (text::is_digit(name.front())) {  // "6月", "06月", "6월"
    std::size_t pos = 0;
    std::uint64_t v = 0;
    text::read_uint(name, pos, 2, v);
    const std::string_view rest = name.substr(pos);
    return (rest == "月" || rest == "월") && v >= 1 && v <= 12 ? static_cast<int>(v) : 0;
  }
  char buf[48];
  std::size_t n = 0;
  if (!fold_case(name, buf, sizeof buf, n)) return 0;
  const std::string_view low(buf, n);
  for (const MonthName& m : kMonthNames)
    if (m.name == low) return m.month;
  return 0;
}

bool parse_uptime(std::string_view s, std::int64_t& ns) {
  std::size_t pos = 0;
  while (pos < s.size() && s[pos] == ' ') ++pos;
  std::uint64_t secs = 0;
  if (!text::read_uint(s, pos, 12, secs)) return false;
  // An uptime of 95 years or more is junk; it would also overflow ns once a boot time is added.
  if (secs >= 3'000'000'000) return false;
  std::int64_t frac = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::int64_t scale = 100'000'000;
    std::size_t n = 0;
    while (pos < s.size() && text::is_digit(s[pos])) {
      frac += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
      ++n;
    }
    if (n == 0) return false;
  }
  if (pos != s.size()) return false;
  ns = static_cast<std::int64_t>(secs) * kNsPerSecond + frac;
  return true;
}

std::string_view strip_pid(std::string_view tag) {
  if (!tag.empty() && tag.back() == ']') {
    const std::size_t lb = tag.rfind('[');
    if (lb != std::string_view::npos && lb > 0) return tag.substr(0, lb);
  }
  return tag;
}

std::uint32_t HeldEvents::put(std::string_view s) {
  const auto off = static_cast<std::uint32_t>(m_arena.size());
  m_arena.append(s);
  return off;
}

void HeldEvents::hold(const Event& ev, const HeldTime& time) {
  Record r;
  r.time = time;
  r.source = ev.source;
  r.gpu = ev.gpu;
  r.kind_off = put(ev.kind);
  r.kind_len = static_cast<std::uint32_t>(ev.kind.size());
  r.host_off = put(ev.host);
  r.host_len = static_cast<std::uint32_t>(ev.host.size());
  r.first_field = static_cast<std::uint32_t>(m_fields.size());
  for (const Field& f : ev.fields) {
    FieldRec fr{};
    fr.key_off = put(f.key);
    fr.key_len = static_cast<std::uint32_t>(f.key.size());
    fr.val_off = put(f.value);
    fr.val_len = static_cast<std::uint32_t>(f.value.size());
    fr.numeric = f.numeric;
    fr.extra = f.extra;
    m_fields.push_back(fr);
  }
  r.n_fields = static_cast<std::uint32_t>(m_fields.size()) - r.first_field;
  r.first_metric = static_cast<std::uint32_t>(m_metrics.size());
  if (ev.present != 0) {
    for (std::size_t i = 0; i < kMetricCount; ++i) {
      if (!ev.has(static_cast<Metric>(i))) continue;
      MetricRec mr{};
      mr.index = static_cast<std::uint8_t>(i);
      mr.value = ev.values[i];
      mr.text_off = put(ev.texts[i]);
      mr.text_len = static_cast<std::uint32_t>(ev.texts[i].size());
      m_metrics.push_back(mr);
    }
  }
  r.n_metrics = static_cast<std::uint32_t>(m_metrics.size()) - r.first_metric;
  m_records.push_back(r);
}

void HeldEvents::rebuild(const Record& r, Event& ev) const {
  const std::string_view arena(m_arena);
  ev.reset();
  ev.source = r.source;
  ev.gpu = r.gpu;
  ev.kind = arena.substr(r.kind_off, r.kind_len);
  ev.host = arena.substr(r.host_off, r.host_len);
  for (std::uint32_t i = 0; i < r.n_fields; ++i) {
    const FieldRec& f = m_fields[r.first_field + i];
    ev.fields.push_back(
        Field{arena.substr(f.key_off, f.key_len), arena.substr(f.val_off, f.val_len), f.numeric, f.extra});
  }
  for (std::uint32_t i = 0; i < r.n_metrics; ++i) {
    const MetricRec& m = m_metrics[r.first_metric + i];
    ev.set(static_cast<Metric>(m.index), m.value, arena.substr(m.text_off, m.text_len));
  }
}

void HeldEvents::clear() {
  m_arena.clear();
  m_records.clear();
  m_fields.clear();
  m_metrics.clear();
  m_muted = 0;
}

bool split_printk_stamp_other(std::string_view text, std::string_view& stamp, std::string_view& message) {
  const std::string_view m = text;
  if (m.size() < 3 || m[0] != '[') return false;
  // "[ 4564.303884]": blanks, digits, one dot; parsed only when the line becomes an event.
  const std::size_t limit = std::min<std::size_t>(m.size(), 24);
  std::size_t rb = 1, dots = 0, digits = 0;
  for (; rb < limit; ++rb) {
    const char c = m[rb];
    if (c == ']') break;
    if (text::is_digit(c))
      ++digits;
    else if (c == '.')
      ++dots;
    else if (c != ' ' || digits > 0)
      return false;
  }
  if (rb >= limit || digits == 0 || dots > 1 || m[rb - 1] == '.') return false;
  stamp = m.substr(1, rb - 1);
  std::size_t after = rb + 1;
  if (after < m.size() && m[after] == ' ') ++after;
  message = m.substr(after);
  return true;
}

}  // namespace klog

namespace {

using klog::HeldTime;

enum class Stamp : std::uint8_t { none, bsd, iso, unix_s, mono };

/// The prefix of one line: where the stamp, identifier and message are.
struct Prefix {
  Stamp stamp = Stamp::none;
  std::string_view stamp_text;   // the whole stamp
  std::string_view second_key;   // the stamp up to the seconds: equal keys = same second
  std::string_view month;        // bsd: the month token
  std::string_view after_month;  // bsd: " 5 22:36:09", "12 14:22:18.123"
  std::string_view uptime;       // mono stamp, or the printk stamp inside a kernel message
  std::string_view tag;          // "kernel:", "systemd-logind[1050]:", empty when none
  bool host = false;             // a host field was present
  std::string_view host_name;    // its text, when present
  std::string_view message;
};

// Position of the first ' ' in s, npos when none.
inline std::size_t find_space(std::string_view s) {
  const void* hit = s.empty() ? nullptr : std::memchr(s.data(), ' ', s.size());
  return hit == nullptr ? std::string_view::npos : static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
}

// "HH:MM:SS" at s[pos] (digits checked), then an optional ".ffffff"; advances pos.
bool skip_clock(std::string_view s, std::size_t& pos) {
  if (pos + 8 > s.size()) return false;
  const char* p = s.data() + pos;
  if (!(text::is_digit(p[0]) && text::is_digit(p[1]) && p[2] == ':' && text::is_digit(p[3]) && text::is_digit(p[4]) &&
        p[5] == ':' && text::is_digit(p[6]) && text::is_digit(p[7])))
    return false;
  pos += 8;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    while (pos < s.size() && text::is_digit(s[pos])) ++pos;
    if (pos == start) return false;
  }
  return true;
}

// Recognises the stamp at the start of `line`; returns the offset of what follows the stamp and
// its separating space, 0 when there is no stamp.
std::size_t scan_stamp(std::string_view line, Prefix& px) {
  const std::size_t n = line.size();
  if (n < 8) return 0;
  const char c0 = line[0];
  // Fast path: C-locale "Jun  5 22:36:09 " / "Jun 05 22:36:09 ".
  if (n >= 16 && text::is_alpha(c0) && line[3] == ' ' && line[9] == ':' && line[12] == ':' && line[6] == ' ' &&
      (line[4] == ' ' || text::is_digit(line[4])) && text::is_digit(line[5])) {
    std::size_t pos = 7;
    if (skip_clock(line, pos) && pos < n && line[pos] == ' ') {
      px.stamp = Stamp::bsd;
      px.month = line.substr(0, 3);
      px.after_month = line.substr(3, pos - 3);
      px.stamp_text = line.substr(0, pos);
      px.second_key = line.substr(0, 15);
      return pos + 1;
    }
  }
  if (text::is_digit(c0)) {
    // RFC 3339 / short-iso: "2024-06-12T14:22:18[.ffffff](Z|+hh:mm|+hhmm) "
    if (n > 20 && line[4] == '-' && line[7] == '-' && line[10] == 'T' && line[13] == ':' && line[16] == ':') {
      const std::size_t sp = line.find(' ');
      if (sp == std::string_view::npos || sp < 19) return 0;
      if (line[19] == ',') return 0;  // dmesg --time-format=iso writes a comma
      px.stamp = Stamp::iso;
      px.stamp_text = line.substr(0, sp);
      px.second_key = line.substr(0, 19);
      return sp + 1;
    }
    // short-unix: "1718194938.123456 "
    std::size_t pos = 0;
    while (pos < n && text::is_digit(line[pos])) ++pos;
    if (pos >= 9 && pos < n && line[pos] == '.') {
      const std::size_t int_end = pos++;
      const std::size_t frac = pos;
      while (pos < n && text::is_digit(line[pos])) ++pos;
      if (pos > frac && pos < n && line[pos] == ' ') {
        px.stamp = Stamp::unix_s;
        px.stamp_text = line.substr(0, pos);
        px.second_key = line.substr(0, int_end);
        return pos + 1;
      }
      return 0;
    }
  }
  if (c0 == '[') {  // short-monotonic: "[ 1234.567890] "
    const std::size_t rb = line.find(']');
    if (rb > 24 || rb + 1 >= n || line[rb + 1] != ' ') return 0;  // npos (no bracket) is above 24
    std::int64_t ns = 0;
    const std::string_view inner = line.substr(1, rb - 1);
    if (!klog::parse_uptime(inner, ns)) return 0;
    px.stamp = Stamp::mono;
    px.stamp_text = line.substr(0, rb + 1);
    px.uptime = inner;
    const std::size_t dot = inner.find('.');
    px.second_key = inner.substr(0, dot);
    return rb + 2;
  }
  // General month-name stamp: "avril 12 ...", "фев 12 ...", "févr. 12 ...", "6月 12 ...", " 6월 12".
  std::size_t start = 0;
  if (c0 == ' ') {
    while (start < n && line[start] == ' ') ++start;
    if (start >= n || !text::is_digit(line[start])) return 0;
  } else if (text::is_space(c0) || c0 == '-' || c0 == '<') {
    return 0;
  }
  const std::size_t sp = line.find(' ', start);
  if (sp == std::string_view::npos || sp == start || sp - start > 24) return 0;
  std::size_t pos = sp;
  while (pos < n && line[pos] == ' ') ++pos;
  std::uint64_t day = 0;
  if (!text::read_uint(line, pos, 2, day) || day == 0 || day > 31 || pos >= n || line[pos] != ' ') return 0;
  ++pos;
  if (!skip_clock(line, pos) || pos >= n || line[pos] != ' ') return 0;
  px.stamp = Stamp::bsd;
  px.month = line.substr(start, sp - start);
  px.after_month = line.substr(sp, pos - sp);
  px.stamp_text = line.substr(start, pos - start);
  const std::size_t dot = px.stamp_text.find('.', px.month.size());
  px.second_key = px.stamp_text.substr(0, dot);
  return pos + 1;
}

// After the stamp: "[host ]tag: message" or, without a tag, "[host ]message".
inline bool starts_kernel_tag(std::string_view s) { return s.size() >= 8 && std::memcmp(s.data(), "kernel: ", 8) == 0; }

// "tag: message" at the start of `s` ("kernel: ", or a first token ending in ':'): sets the tag
// and the message; false when `s` starts with no tag.
bool take_tag(std::string_view s, Prefix& px) {
  if (starts_kernel_tag(s)) {
    px.tag = s.substr(0, 7);
    px.message = s.substr(8);
    return true;
  }
  const std::size_t end = find_space(s);
  const std::string_view tok = s.substr(0, end);
  if (tok.empty() || tok.back() != ':') return false;
  px.tag = tok;
  px.message = end == std::string_view::npos ? std::string_view() : s.substr(end + 1);
  return true;
}

void scan_tag(std::string_view rest, Prefix& px) {
  if (take_tag(rest, px)) return;  // no host (journalctl --no-hostname)
  const std::size_t end = find_space(rest);
  px.host = true;
  px.host_name = rest.substr(0, end);
  if (end == std::string_view::npos) return;  // a lone token: a host with an empty message
  // The common kern.log line: "host kernel: ..."; without a tag, the whole text after the host.
  const std::string_view after_host = rest.substr(end + 1);
  if (!take_tag(after_host, px)) px.message = after_host;
}

// "kernel: [ 4564.303884] NVRM: ..." -> uptime " 4564.303884", message "NVRM: ...".
void strip_printk_stamp(Prefix& px) { klog::split_printk_stamp(px.message, px.uptime, px.message); }

bool is_tag_with_pid(std::string_view tok) {
  // "ident[1234]:"
  if (tok.size() < 5 || tok.back() != ':' || tok[tok.size() - 2] != ']') return false;
  const std::size_t lb = tok.rfind('[');
  if (lb == std::string_view::npos || lb == 0 || lb + 3 > tok.size() - 1) return false;
  for (std::size_t i = lb + 1; i < tok.size() - 2; ++i)
    if (!text::is_digit(tok[i])) return false;
  return true;
}

bool is_separator(std::string_view line) {
  return line.size() >= 5 && line[0] == '-' && line[1] == '-' && line[2] == ' ';
}

// ISO stamp with an explicit zone?
bool iso_has_offset(std::string_view stamp) {
  if (stamp.size() <= 19) return false;
  const std::string_view tail = stamp.substr(19);
  return tail.find_first_of("Zz+-") != std::string_view::npos;
}

constexpr std::int64_t kSlackNs = 26 * 3600 * kNsPerSecond;  // zone uncertainty of the reference

/// Where the year of the bsd stamps stands after a line: what infer_base_year() reads.
struct YearState {
  int month = 0;                      ///< month of the last bsd stamp (0: none yet)
  int rollovers = 0;                  ///< Dec->Jan rollovers counted so far
  std::array<char, 16> last_stamp{};  ///< day and time of the last bsd stamp ("  5 22:36:09", fraction cut)
  std::size_t last_stamp_len = 0;
};

/// prep -j: a chunk's parser starts from a copy of the parser's state some chunks back (the
/// joined state when the chunk was handed out), without its held events and with no incident
/// before. What the chunk's lines read of that start state, before they set it themselves, is
/// written down here; joining the chunk (continue_with) compares it with the true state there.
struct ChunkReads {
  bool active = false;     ///< this parser parses a chunk
  bool holding = false;    ///< the copied parser held events: the chunk holds all of its own
  YearState year;          ///< the copied year state
  bool year_read = false;  ///< a bsd stamp of the chunk read it (rollover check, unknown month)
  bool unknown_month_noted = false, unknown_month_read = false;
  bool seen_stamp_read = false;  ///< a reboot separator came before the chunk's first stamp
  bool seen_mono = false;        ///< the copied m_seen_mono
  int boots = 0;                 ///< the copied reboot count
  bool multi_boot_noted = false, boots_read = false;
  bool boot_set = false;        ///< note_boot() found the boot time in the chunk
  bool incident_known = false;  ///< the chunk has set the incident of the previous event itself
  bool last_was_event_known = false, last_was_event_read = false;
  /// Hashes of the second keys of the lines that looked for the incident of an event before the
  /// chunk (consecutive repeats once): one of them equal to that event's makes the chunk be
  /// parsed again, as the line may continue it.
  std::vector<std::size_t> incident_keys;
  std::array<char, 40> last_key{};  ///< the second key hashed last (as m_prev_key keeps one)
  std::size_t last_key_len = 0;
  /// The year state at each held event, and whether the chunk had set it by then.
  struct HeldYear {
    YearState year;
    bool set_in_chunk;
  };
  std::vector<HeldYear> held_years;
};

class SyslogParser final : public LineParser {
 public:
  SyslogParser(ParseContext& ctx, bool journal)
      : m_journal(journal), m_source(journal ? "journal" : "syslog"), m_ctx(&ctx) {}

  // prep -j: the lines are cut into chunks parsed side by side (chunked_parse.cpp). A chunk
  // starts from the state of some chunks back; what it read of it is checked when it is joined
  // (ChunkReads). Its events whose year is not known yet stay held in the chunk and are handed
  // on, one by one, to the parser that joins it, which holds or emits them as on one thread.
  [[nodiscard]] std::unique_ptr<LineParser> clone(ParseContext& ctx) const override {
    auto chunk = std::make_unique<SyslogParser>(ctx, m_journal);
    chunk->start_chunk_from(*this);
    return chunk;
  }
  // With the prefilter a line costs a few tens of nanoseconds, about what the thread that cuts
  // the chunks spends on it (its read() copy, the count of its lines, the copy into the chunk):
  // with one worker beside that thread, chunks cost more CPU than they save (0.7-1.0x measured
  // at -j 2 on 2 cores, docs/performance.md), so -j 2 reads on one thread, as for journal JSON.
  [[nodiscard]] unsigned chunks_from_jobs() const override { return 3; }
  bool continue_with(LineParser& other) override {
    auto& chunk = static_cast<SyslogParser&>(other);
    if (!reads_match(chunk.m_chunk) || !keeps_order(chunk)) return false;
    take_chunk_state(chunk);
    return true;
  }

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    // A member reset field by field: zeroing a fresh Prefix on every line costs more than the scan.
    Prefix& px = m_px;
    px.stamp = Stamp::none;
    px.uptime = {};
    px.tag = {};
    px.host = false;
    px.host_name = {};
    px.message = {};
    const std::size_t body = scan_stamp(line, px);
    if (body == 0) return other_line(line, ctx);

    if (px.stamp == Stamp::bsd)
      track_month(line, px, ctx);
    else
      note_stamp(px, ctx);
    scan_tag(line.substr(body), px);
    const std::string_view tag = px.tag.empty() ? std::string_view() : px.tag.substr(0, px.tag.size() - 1);
    const std::string_view ident = klog::strip_pid(tag);
    if (ident == "kernel") strip_printk_stamp(px);

    Event& ev = ctx.event;
    ev.reset();
    ev.gpu = -1;
    if (!classify_message(ident, px.message, ev)) {
      // A follow-up line of the previous event's incident (AER detail lines, ...).
      if (!m_chunk.incident_known && m_chunk.active) note_incident_read(px.second_key);
      const bool cont = !m_prev_kind.empty() && px.second_key == std::string_view(m_prev_key.data(), m_prev_key_len) &&
                        continues_incident(m_prev_kind, px.message);
      set_last_was_event(cont);
      return cont ? LineResult::event : LineResult::ignored;
    }
    return on_event(px, ctx);
  }

  // The prefilter: the common line "Jun 12 14:22:18 host kernel: [ 4564.303884] message" of the
  // month of the line before (no rollover to count), whose message classify_message() does not
  // take and that continues no incident, is only counted as ignored: parse() would change nothing
  // but the last stamp and m_last_was_event, set here for the last line skipped.
  [[nodiscard]] bool has_prefilter() const override { return true; }
  std::size_t skip_ignored(std::string_view lines, std::uint64_t& count) override {
    count = 0;
    if (m_month_tok_len != 3 || m_month_tok_value == 0 || m_month_tok_value != m_year.month) return 0;
    std::size_t at = 0;
    std::string_view last;
    io::NewlineCursor newlines(lines);
    for (;;) {
      const std::size_t end = newlines.next(at);
      if (end == io::NewlineCursor::npos || end - at > kSkipLineBytes)
        break;  // the end of what is buffered, or a line over 4 KiB
      const std::string_view line(lines.data() + at, end - at);
      if (!only_ignored(line)) break;
      last = line;
      ++count;
      at = end + 1;
      if (at == lines.size()) break;
    }
    if (count == 0) return 0;
    std::memcpy(m_year.last_stamp.data(), last.data() + 3, 12);  // as track_month() keeps it
    m_year.last_stamp_len = 12;
    m_chunk.year_read = true;  // the month the skipped lines were taken to be of
    set_last_was_event(false);
    return at;
  }

  void finish(ParseContext& ctx) override {
    if (!m_held.empty()) release_held(ctx);
    describe_clock(ctx);
  }

  // A live file is being written now: its time dates the held stamps, and the later lines
  // follow on from that year (rollovers counted as ever).
  void settle_live(ParseContext& ctx) override {
    if (!m_held.empty()) release_held(ctx);
  }

  // The held events keep their say in the year; only the new lines' events are emitted.
  void end_replay(ParseContext& /*ctx*/) override { m_held.mute(); }

 private:
  // Longer lines are left to parse() (they may be overlong).
  static constexpr std::size_t kSkipLineBytes = 4096;

  // True when parse() would find `line` (no '\n') an ignored line with a C-locale stamp of the
  // cached month token (which is the month of the last stamp) and the kernel's tag. The byte
  // compares are written out: at a few tens of nanoseconds a line, libc's memcmp calls showed.
  bool only_ignored(std::string_view line) {
    const std::size_t n = line.size();
    if (n < 24 || line.back() == '\r') return false;
    const char* p = line.data();
    // scan_stamp()'s fast path, with no fraction after the seconds, then track_month()'s cache.
    if (!(p[0] == m_month_tok[0] && p[1] == m_month_tok[1] && p[2] == m_month_tok[2] && text::is_alpha(p[0]) &&
          p[3] == ' ' && p[6] == ' ' && p[9] == ':' && p[12] == ':' && p[15] == ' ' &&
          (p[4] == ' ' || text::is_digit(p[4])) && text::is_digit(p[5]) && text::is_digit(p[7]) &&
          text::is_digit(p[8]) && text::is_digit(p[10]) && text::is_digit(p[11]) && text::is_digit(p[13]) &&
          text::is_digit(p[14])))
      return false;
    std::string_view message(p + 16, n - 16);
    if (!skip_kernel_tag(message)) return false;
    std::string_view uptime;
    klog::split_printk_stamp(message, uptime, message);
    if (classify_message("kernel", message, m_probe)) {
      m_probe.reset();
      return false;
    }
    if (!m_chunk.incident_known && m_chunk.active) note_incident_read(line.substr(0, 15));
    return m_prev_kind.empty() || m_prev_key_len != 15 || !same_15(p, m_prev_key.data()) ||
           !continues_incident(m_prev_kind, message);
  }

  // scan_tag(): "kernel: msg" or "host kernel: msg", host not ending in ':', taken off `message`.
  // The last "host kernel: " is remembered and compared word by word: a log's lines share it.
  bool skip_kernel_tag(std::string_view& message) {
    const std::size_t n = m_host_tag_len;
    if (n != 0 && message.size() >= (n + 7) / 8 * 8 && same_words(message.data(), m_host_tag.data(), n)) {
      message.remove_prefix(n);
      return true;
    }
    if (is_kernel_tag(message)) {
      message.remove_prefix(8);
      return true;
    }
    std::size_t sp = 0;
    while (sp < message.size() && message[sp] != ' ') ++sp;
    if (sp == 0 || sp == message.size() || message[sp - 1] == ':') return false;
    if (!is_kernel_tag(message.substr(sp + 1))) return false;
    if (sp + 9 <= m_host_tag.size()) {
      std::memcpy(m_host_tag.data(), message.data(), sp + 9);
      m_host_tag_len = sp + 9;
    }
    message.remove_prefix(sp + 9);
    return true;
  }
  // The first `n` bytes of `a` and `b` equal; both may be read up to `n` rounded up to 8.
  static bool same_words(const char* a, const char* b, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t x = 0, y = 0;
      std::memcpy(&x, a + i, 8);
      std::memcpy(&y, b + i, 8);
      if (x != y) return false;
    }
    if (i == n) return true;
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    const std::uint64_t mask = ~std::uint64_t{0} >> (64 - 8 * (n - i));  // little-endian: the first bytes
    return ((x ^ y) & mask) == 0;
  }
  // starts_kernel_tag(), "kernel: " compared as one word.
  static bool is_kernel_tag(std::string_view s) {
    if (s.size() < 8) return false;
    std::uint64_t word = 0, tag = 0;
    std::memcpy(&word, s.data(), 8);
    std::memcpy(&tag, "kernel: ", 8);
    return word == tag;
  }
  // The 15 bytes of a bsd second key ("Jun 12 14:22:18") equal.
  static bool same_15(const char* a, const char* b) {
    std::uint64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    std::memcpy(&a0, a, 8);
    std::memcpy(&a1, a + 7, 8);
    std::memcpy(&b0, b, 8);
    std::memcpy(&b1, b + 7, 8);
    return a0 == b0 && a1 == b1;
  }

  // A line without a stamp: separator, continuation, blank, or malformed.
  LineResult other_line(std::string_view line, ParseContext& ctx) {
    if (text::trim(line).empty()) return LineResult::ignored;
    if (is_separator(line)) {
      set_last_was_event(false);
      const std::string_view rest = line.substr(3);
      if (rest.substr(0, 6) == "Reboot" || rest.substr(0, 5) == "Boot ") {
        if (!m_seen_stamp) m_chunk.seen_stamp_read = true;
        if (m_seen_stamp) ++m_boots;
        m_prev_kind.clear();
        m_chunk.incident_known = true;
      }
      return LineResult::ignored;
    }
    if (text::is_space(line[0])) return last_was_event() ? LineResult::event : LineResult::ignored;
    set_last_was_event(false);
    return ctx.malformed(m_journal ? "not a journalctl line: no timestamp at the start"
                                   : "not a syslog line: no timestamp at the start");
  }

  static bool same_bytes(std::string_view a, const char* b) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

  // Month of a bsd stamp (cached: consecutive lines share it) and the Dec->Jan rollovers.
  void track_month(std::string_view line, const Prefix& px, ParseContext& ctx) {
    int month = 0;
    if (px.month.size() == m_month_tok_len && same_bytes(px.month, m_month_tok.data())) {
      month = m_month_tok_value;
    } else {
      month = klog::month_number(px.month);
      if (px.month.size() <= m_month_tok.size()) {
        std::memcpy(m_month_tok.data(), px.month.data(), px.month.size());
        m_month_tok_len = px.month.size();
        m_month_tok_value = month;
      }
      if (month == 0) m_chunk.unknown_month_read = true;
      if (month == 0 && !m_unknown_month_noted) {
        m_unknown_month_noted = true;
        add_note(ctx.stats, fmt::format("unknown month name '{}' (line {}): the month of the line before is used",
                                        px.month, ctx.line_no));
      }
    }
    if (month == 0) {
      month = m_year.month;  // 0 while no line before had a known month
    } else if (m_year.month != 0 && month + 6 <= m_year.month) {
      ++m_year.rollovers;  // the month went down by 6 or more: a new year began
    }
    m_year.month = month;
    m_chunk.year_read = true;
    if (!m_seen_bsd) {
      m_seen_bsd = true;
      klog::raise_basis(ctx.stats, TimeBasis::local);
    }
    m_seen_stamp = true;
    // Day and time of the last stamp, for the year at the end ("  5 22:36:09", fraction cut).
    const std::size_t len = std::min<std::size_t>(px.after_month.size(), 16);
    const auto offset = static_cast<std::size_t>(px.after_month.data() - line.data());
    if (line.size() - offset >= 16)
      std::memcpy(m_year.last_stamp.data(), px.after_month.data(), 16);  // inlined
    else
      std::memcpy(m_year.last_stamp.data(), px.after_month.data(), len);
    m_year.last_stamp_len = len;
  }

  void note_stamp(const Prefix& px, ParseContext& ctx) {
    m_seen_stamp = true;
    switch (px.stamp) {
      case Stamp::iso:
        klog::note_iso_stamp(ctx.stats, iso_has_offset(px.stamp_text), m_seen_iso_abs, m_seen_iso_local);
        break;
      case Stamp::unix_s:
        if (!m_seen_unix) klog::raise_basis(ctx.stats, TimeBasis::absolute);
        m_seen_unix = true;
        break;
      case Stamp::mono:
        if (!m_seen_mono) {
          m_seen_mono = true;
          if (ctx.options.boot_time_ns) {
            klog::raise_basis(ctx.stats, TimeBasis::absolute);
          } else {
            klog::raise_basis(ctx.stats, TimeBasis::uptime);
            add_note(ctx.stats,
                     "short-monotonic stamps and no --boot-time: times are seconds since boot "
                     "(1970-01-01T00:00:00Z = boot); give --boot-time to place them");
          }
        }
        break;
      default: break;
    }
  }

  // Day and time of a bsd stamp: " 5 22:36:09", "12 14:22:18.123456".
  static bool bsd_civil(std::string_view after_month, int month, CivilTime& c) {
    std::size_t pos = 0;
    while (pos < after_month.size() && after_month[pos] == ' ') ++pos;
    std::uint64_t day = 0;
    if (!text::read_uint(after_month, pos, 2, day) || pos >= after_month.size() || after_month[pos] != ' ')
      return false;
    ++pos;
    c.month = static_cast<unsigned>(month);
    c.day = static_cast<unsigned>(day);
    return parse_clock_time(after_month.substr(pos), c);  // also checks the day against the month (year 1970)
  }

  LineResult on_event(const Prefix& px, ParseContext& ctx) {
    Event& ev = ctx.event;
    HeldTime t;
    t.line = ctx.line_no;
    if (!px.uptime.empty() && klog::parse_uptime(px.uptime, t.uptime_ns))
      ev.fields.push_back(Field{"uptime_s", text::trim(px.uptime), true, false});
    switch (px.stamp) {
      case Stamp::bsd: {
        if (m_year.month == 0) {
          set_last_was_event(false);
          ctx.reason_buf = fmt::format("unknown month name '{}'", px.month);
          return ctx.malformed(ctx.reason_buf);
        }
        CivilTime c;
        c.year = 2000;  // a leap year, so that Feb 29 passes the check
        if (!bsd_civil(px.after_month, m_year.month, c)) {
          set_last_was_event(false);
          return ctx.malformed("bad day or time in the timestamp");
        }
        if (ctx.options.year) {
          c.year = *ctx.options.year + m_year.rollovers;
          t.ns = ctx.clock.to_utc_ns(c.as_utc_ns());
        } else if (m_base_year) {
          c.year = *m_base_year + m_year.rollovers;
          t.ns = ctx.clock.to_utc_ns(c.as_utc_ns());
        } else {
          c.year = m_year.rollovers;  // offset from the base year, known at the end
          t.kind = HeldTime::Kind::civil_no_year;
          t.civil = c;
        }
        break;
      }
      case Stamp::iso: {
        const auto iso = parse_iso8601(px.stamp_text);
        if (!iso) {
          set_last_was_event(false);
          return ctx.malformed("bad ISO 8601 timestamp");
        }
        t.ns = iso->offset_s ? iso->civil.as_utc_ns() - *iso->offset_s * kNsPerSecond
                             : ctx.clock.to_utc_ns(iso->civil.as_utc_ns());
        break;
      }
      case Stamp::unix_s: {
        std::int64_t ns = 0;
        if (!klog::parse_uptime(px.stamp_text, ns)) {
          set_last_was_event(false);
          return ctx.malformed("bad seconds since the epoch");
        }
        t.ns = ns;
        break;
      }
      case Stamp::mono:
        t.ns = t.uptime_ns + (ctx.options.boot_time_ns ? *ctx.options.boot_time_ns : 0);
        m_chunk.boots_read = true;
        if (m_boots > 0 && !m_multi_boot_noted) {
          m_multi_boot_noted = true;
          add_note(ctx.stats,
                   "short-monotonic stamps from more than one boot: every boot is placed with the same "
                   "boot time");
        }
        break;
      case Stamp::none: break;
    }
    ev.source = m_source;
    ev.host = px.host_name;

    m_prev_kind.assign(ev.kind);
    m_prev_key_len = std::min(px.second_key.size(), m_prev_key.size());
    std::memcpy(m_prev_key.data(), px.second_key.data(), m_prev_key_len);
    m_chunk.incident_known = true;
    set_last_was_event(true);
    hold_or_emit(t, ctx);
    return LineResult::event;
  }

  // Holds the event (ctx.event) while its year is unknown or events before it wait; else emits
  // it. A chunk's parser never releases: the year is settled where the chunks are joined.
  void hold_or_emit(const HeldTime& t, ParseContext& ctx) {
    if (t.kind == HeldTime::Kind::civil_no_year || m_chunk.holding || !m_held.empty()) {
      m_held.hold(ctx.event, t);
      if (m_chunk.active)
        m_chunk.held_years.push_back(ChunkReads::HeldYear{m_year, m_chunk.year_read});
      else if (m_held.full())
        release_held(ctx);
    } else {
      ctx.event.ts_ns = t.ns;
      note_boot(t);
      ctx.emit();
    }
  }

  // A kernel uptime and a wall-clock time on the same line give the boot time.
  void note_boot(const HeldTime& t) {
    if (t.uptime_ns < 0 || m_boot_ns || m_seen_mono) return;
    m_boot_ns = t.ns - t.uptime_ns;
    m_boot_line = t.line;
    m_chunk.boot_set = true;
  }

  // ---- prep -j ----

  bool last_was_event() {
    if (!m_chunk.last_was_event_known) m_chunk.last_was_event_read = true;
    return m_last_was_event;
  }
  void set_last_was_event(bool v) {
    m_last_was_event = v;
    m_chunk.last_was_event_known = true;
  }

  // A line of the chunk looked for the incident of an event before the chunk (hashed once for
  // a run of lines of the same second).
  void note_incident_read(std::string_view second_key) {
    if (!m_chunk.incident_keys.empty() && second_key.size() == m_chunk.last_key_len &&
        (second_key.size() == 15 ? same_15(second_key.data(), m_chunk.last_key.data())
                                 : second_key == std::string_view(m_chunk.last_key.data(), m_chunk.last_key_len)))
      return;  // the second of the line before (a bsd stamp's 15 bytes compared as two words)
    m_chunk.incident_keys.push_back(std::hash<std::string_view>{}(second_key));
    m_chunk.last_key_len = std::min(second_key.size(), m_chunk.last_key.size());
    std::memcpy(m_chunk.last_key.data(), second_key.data(), m_chunk.last_key_len);
  }

  // This parser becomes a chunk's, starting from `from`'s state (its held events left out).
  void start_chunk_from(const SyslogParser& from) {
    m_month_tok = from.m_month_tok;
    m_month_tok_len = from.m_month_tok_len;
    m_month_tok_value = from.m_month_tok_value;
    m_year = from.m_year;
    m_base_year = from.m_base_year;
    m_unknown_month_noted = from.m_unknown_month_noted;
    m_seen_stamp = from.m_seen_stamp;
    m_seen_bsd = from.m_seen_bsd;
    m_seen_iso_abs = from.m_seen_iso_abs;
    m_seen_iso_local = from.m_seen_iso_local;
    m_seen_unix = from.m_seen_unix;
    m_seen_mono = from.m_seen_mono;
    m_boots = from.m_boots;
    m_multi_boot_noted = from.m_multi_boot_noted;
    m_boot_ns = from.m_boot_ns;
    m_boot_line = from.m_boot_line;
    m_chunk.active = true;
    m_chunk.holding = !from.m_held.empty();
    m_chunk.year = m_year;
    m_chunk.unknown_month_noted = m_unknown_month_noted;
    m_chunk.seen_mono = m_seen_mono;
    m_chunk.boots = m_boots;
    m_chunk.multi_boot_noted = m_multi_boot_noted;
  }

  // True when what the chunk read of its start state is this parser's state now (the true
  // state before the chunk's lines).
  [[nodiscard]] bool reads_match(const ChunkReads& r) const {
    if (r.year_read && (r.year.month != m_year.month || r.year.rollovers != m_year.rollovers)) return false;
    if (r.unknown_month_read && r.unknown_month_noted != m_unknown_month_noted) return false;
    if (r.seen_stamp_read && m_seen_stamp) return false;  // the chunk read "no stamp yet"
    if (r.boots_read && (r.boots != m_boots || r.multi_boot_noted != m_multi_boot_noted)) return false;
    if (r.last_was_event_read && m_last_was_event) return false;  // the chunk began with false
    if (!m_prev_kind.empty() && !r.incident_keys.empty()) {
      const std::size_t key = std::hash<std::string_view>{}(std::string_view(m_prev_key.data(), m_prev_key_len));
      if (std::find(r.incident_keys.begin(), r.incident_keys.end(), key) != r.incident_keys.end()) return false;
    }
    return true;
  }

  [[nodiscard]] bool base_known() const { return m_ctx->options.year || m_base_year; }

  // True when joining the chunk keeps the events in input order: the chunk's own (in its sink,
  // handed on after continue_with) come before whatever this parser emits of its held events.
  [[nodiscard]] bool keeps_order(const SyslogParser& chunk) const {
    const InputStats& chunk_stats = chunk.m_ctx->stats;
    const bool emitted = chunk_stats.events > 0;
    if (emitted && !m_held.empty()) return false;  // one thread would have held them
    if (chunk.m_held.empty()) return true;
    const bool releases = m_held.full_with(chunk.m_held);  // the year is inferred on the way
    if (emitted && (releases || base_known())) return false;
    if (releases && !chunk_stats.notes.empty()) return false;  // its notes come before the release's
    // note_boot() of a held event reads m_seen_mono as of its line (when it is emitted at once).
    return !(chunk.m_seen_mono && !chunk.m_chunk.seen_mono);
  }

  // Takes a joined chunk's end state; its held events are held or emitted here as they come.
  void take_chunk_state(SyslogParser& chunk) {
    const ChunkReads& r = chunk.m_chunk;
    if (r.boot_set && !m_boot_ns && !m_seen_mono) {
      m_boot_ns = chunk.m_boot_ns;
      m_boot_line = chunk.m_boot_line;
    }
    m_seen_bsd = m_seen_bsd || chunk.m_seen_bsd;  // release_held() reads it
    take_held(chunk);
    if (r.year_read) m_year = chunk.m_year;
    m_unknown_month_noted = m_unknown_month_noted || chunk.m_unknown_month_noted;
    m_seen_stamp = m_seen_stamp || chunk.m_seen_stamp;
    m_seen_iso_abs = m_seen_iso_abs || chunk.m_seen_iso_abs;
    m_seen_iso_local = m_seen_iso_local || chunk.m_seen_iso_local;
    m_seen_unix = m_seen_unix || chunk.m_seen_unix;
    m_seen_mono = m_seen_mono || chunk.m_seen_mono;
    m_boots += chunk.m_boots - r.boots;
    m_multi_boot_noted = m_multi_boot_noted || chunk.m_multi_boot_noted;
    if (r.incident_known) {
      m_prev_kind = chunk.m_prev_kind;
      m_prev_key = chunk.m_prev_key;
      m_prev_key_len = chunk.m_prev_key_len;
    }
    if (r.last_was_event_known) m_last_was_event = chunk.m_last_was_event;
  }

  // The chunk's held events, as if their lines had been parsed here: the year state each was
  // held with is the one a release on the way infers the year from.
  void take_held(SyslogParser& chunk) {
    ParseContext& ctx = *m_ctx;
    chunk.m_held.drain(ctx.event, [&](const HeldTime& held, std::size_t i) {
      const ChunkReads::HeldYear& at = chunk.m_chunk.held_years[i];
      if (at.set_in_chunk) m_year = at.year;
      HeldTime t = held;
      if (t.kind == HeldTime::Kind::civil_no_year && m_base_year) {  // settled since the chunk began
        CivilTime c = t.civil;
        c.year = *m_base_year + t.civil.year;
        t.ns = ctx.clock.to_utc_ns(c.as_utc_ns());
        t.kind = HeldTime::Kind::final_ts;
      }
      hold_or_emit(t, ctx);
    });
    chunk.m_chunk.held_years.clear();
  }

  // The year of the first stamp: from the last stamp, not after the reference time.
  int infer_base_year(ParseContext& ctx) {
    std::int64_t ref = 0;
    if (ctx.reference_ns) {
      ref = *ctx.reference_ns;
      m_year_from = "the file's modification time";
      m_reference_text = format_utc(ref);
    } else {
      ref = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
      m_year_from = "the current time (no file time)";
      add_note(ctx.stats,
               "no file time to infer the year of the syslog stamps from: the current time is used; "
               "give --year");
    }
    // Local wall-clock time of the reference in the input's zone.
    const std::int64_t ref_local = ref + (ref - ctx.clock.to_utc_ns(ref));
    const int ref_year = utc_year(ref_local);  // the year on the input's wall clock
    CivilTime last;
    last.year = 2000;
    if (m_year.month == 0 ||
        !bsd_civil(std::string_view(m_year.last_stamp.data(), m_year.last_stamp_len), m_year.month, last))
      return ref_year - m_year.rollovers;
    int year = ref_year;
    for (int back = 0; back < 8; ++back, --year) {
      last.year = year;
      if (valid_civil(last) && last.as_utc_ns() <= ref_local + kSlackNs) break;
    }
    return year - m_year.rollovers;
  }

  // The year from the file time; when the run's telemetry dates the job and that year puts
  // every held year-less event outside it, the year that puts them inside (formats.md).
  int choose_base_year(ParseContext& ctx) {
    const int inferred = infer_base_year(ctx);
    if (!ctx.options.telemetry_span || m_held.empty()) return inferred;
    const TelemetrySpan& span = *ctx.options.telemetry_span;
    const auto [lowest, highest] = candidate_base_years(span, m_year.rollovers);
    const auto fit = fit_base_year(inferred, lowest, highest, [&](int base) { return held_inside(ctx, span, base); });
    if (!fit || *fit == inferred) return inferred;
    m_redated_from = inferred;
    return *fit;
  }

  // Held year-less events inside the span when the first line is of year `base`; a date that
  // year lacks (Feb 29) is not inside.
  std::size_t held_inside(ParseContext& ctx, const TelemetrySpan& span, int base) {
    std::size_t n = 0;
    m_held.for_each_time([&](const HeldTime& t) {
      if (t.kind != HeldTime::Kind::civil_no_year) return;
      CivilTime c = t.civil;
      c.year = base + t.civil.year;
      if (valid_civil(c) && span.contains(ctx.clock.to_utc_ns(c.as_utc_ns()))) ++n;
    });
    return n;
  }

  void release_held(ParseContext& ctx) {
    if (!m_base_year && m_seen_bsd && !ctx.options.year) m_base_year = choose_base_year(ctx);
    const int base = ctx.options.year ? *ctx.options.year : m_base_year.value_or(1970);
    m_held.release(ctx, [&](const HeldTime& t) {
      HeldTime r = t;
      if (t.kind == HeldTime::Kind::civil_no_year) {
        CivilTime c = t.civil;
        c.year = base + t.civil.year;
        r.ns = ctx.clock.to_utc_ns(c.as_utc_ns());
      }
      note_boot(r);
      return r.ns;
    });
  }

  // The year of the stamps and where it came from, for stderr (not only the summary's clock).
  std::string year_note(const ParseContext& ctx, const std::string& years) const {
    if (m_redated_from) {
      const TelemetrySpan& span = *ctx.options.telemetry_span;
      return fmt::format(
          "stamps without a year: {} (from {} {}) puts all its events outside the telemetry ({} to {}); "
          "{} puts them inside: {} used (give --year to choose)",
          *m_redated_from, m_year_from, m_reference_text, format_utc(span.first_ns), format_utc(span.last_ns),
          *m_base_year, *m_base_year);
    }
    if (ctx.options.year || m_reference_text.empty()) return "stamps without a year: " + years;
    return fmt::format(
        "stamps without a year: {}; the file's time is {}: give --year if it was copied without "
        "keeping it",
        years, m_reference_text);
  }

  void describe_clock(ParseContext& ctx) {
    klog::ClockDescription described;
    if (m_seen_bsd) {
      std::string years;
      if (ctx.options.year) {
        const int y = *ctx.options.year;
        years = m_year.rollovers > 0
                    ? fmt::format("years {}-{} from --year (Dec->Jan rollover)", y, y + m_year.rollovers)
                    : fmt::format("year {} from --year", y);
      } else {
        if (!m_base_year) m_base_year = infer_base_year(ctx);
        const int y = *m_base_year;
        const std::string from = m_redated_from ? std::string("the telemetry of the same run") : m_year_from;
        years = m_year.rollovers > 0
                    ? fmt::format("years {}-{} inferred from {} (Dec->Jan rollover)", y, y + m_year.rollovers, from)
                    : fmt::format("year {} inferred from {}", y, from);
      }
      described.add(fmt::format("local time in {}, {}", ctx.clock.name(), years));
      add_note(ctx.stats, year_note(ctx, years));
    }
    if (m_seen_iso_local) described.add("local time in " + ctx.clock.name() + " (ISO stamps without an offset)");
    if (m_seen_iso_abs) described.add("absolute (RFC 3339 offsets)");
    if (m_seen_unix) described.add("absolute (seconds since the epoch)");
    if (m_seen_mono) {
      described.add(ctx.options.boot_time_ns
                        ? fmt::format("uptime + boot time {} from --boot-time", format_utc(*ctx.options.boot_time_ns))
                        : std::string("uptime: seconds since boot (no --boot-time)"));
    }
    if (m_boot_ns)
      described.add(fmt::format("kernel uptime stamps in the messages put the boot at {} (line {})",
                                format_utc(*m_boot_ns), m_boot_line));
    described.store(ctx.stats);
  }

  bool m_journal;
  std::string_view m_source;
  Prefix m_px;
  klog::HeldEvents m_held;
  Event m_probe;  // what classify_message() may fill for a line the prefilter looks at
  // month and year tracking
  std::array<char, 24> m_month_tok{};
  std::array<char, 72> m_host_tag{};  // "host kernel: " of the prefilter's last line (see skip_kernel_tag)
  std::size_t m_host_tag_len = 0;
  std::size_t m_month_tok_len = 0;
  int m_month_tok_value = 0;
  YearState m_year;
  std::optional<int> m_base_year;
  std::optional<int> m_redated_from;  // the year the file time gave, when the telemetry's replaced it
  std::string m_year_from;
  std::string m_reference_text;  // the file time, UTC
  bool m_unknown_month_noted = false;
  // stamp kinds seen
  bool m_seen_stamp = false, m_seen_bsd = false, m_seen_iso_abs = false, m_seen_iso_local = false, m_seen_unix = false,
       m_seen_mono = false;
  int m_boots = 0;
  bool m_multi_boot_noted = false;
  std::optional<std::int64_t> m_boot_ns;
  std::uint64_t m_boot_line = 0;
  // the incident of the previous event
  std::string m_prev_kind;
  std::array<char, 40> m_prev_key{};
  std::size_t m_prev_key_len = 0;
  bool m_last_was_event = false;
  // prep -j
  ParseContext* m_ctx;  ///< the context this parser was made for (the one the chunks are joined in)
  ChunkReads m_chunk;
};

}  // namespace

namespace klog {

LineShape syslog_line_shape(std::string_view line) {
  if (is_separator(line)) {
    return line.size() >= 6 && line.substr(line.size() - 3) == " --" ? LineShape::journal : LineShape::none;
  }
  Prefix px;
  const std::size_t body = scan_stamp(line, px);
  if (body == 0) return LineShape::none;
  scan_tag(line.substr(body), px);
  if (px.tag.empty() || px.tag.size() < 2) return LineShape::none;
  const bool kernel_or_pid = px.tag == "kernel:" || is_tag_with_pid(px.tag);
  switch (px.stamp) {
    case Stamp::bsd: {
      const int month = month_number(px.month);
      if (month == 0) return LineShape::none;
      const bool c_locale = px.month.size() == 3 && text::is_alpha(px.month[0]) && text::is_alpha(px.month[1]) &&
                            text::is_alpha(px.month[2]);
      const std::string_view am = px.after_month;  // " 5 22:.." (rsyslog) or " 05 22:.." (journalctl)
      const bool zero_padded = am.size() > 3 && am[1] == '0';
      const bool precise = px.stamp_text.find('.', px.month.size()) != std::string_view::npos;
      if (!px.host && !kernel_or_pid) return LineShape::none;
      return (!c_locale || !px.host || zero_padded || precise) ? LineShape::journal : LineShape::syslog;
    }
    case Stamp::iso: {
      if (!px.host && !kernel_or_pid) return LineShape::none;
      // journalctl short-iso writes "+0200"; rsyslog "+02:00".
      const std::string_view st = px.stamp_text;
      const bool colon_offset = st.size() >= 6 && st[st.size() - 3] == ':';
      return colon_offset || st.back() == 'Z' ? LineShape::syslog : LineShape::journal;
    }
    case Stamp::unix_s: return px.host || kernel_or_pid ? LineShape::journal : LineShape::none;
    case Stamp::mono: {
      // Raw dmesg looks the same; journalctl has "host ident[pid]:" or "kernel:" after the stamp.
      if (kernel_or_pid && px.host) return LineShape::journal;
      if (!px.host && px.tag == "kernel:") return LineShape::journal;
      return LineShape::none;
    }
    case Stamp::none: break;
  }
  return LineShape::none;
}

}  // namespace klog

Format detect_kernel_log(std::string_view head) {
  std::size_t counts[4] = {0, 0, 0, 0};  // none, syslog, journal, dmesg
  std::size_t considered = 0;
  HeadLines lines(head);
  std::string_view line;
  while (considered < 40 && lines.next(line)) {
    klog::LineShape shape = klog::syslog_line_shape(line);                    // " 6월 12 ..." (ko) starts with a blank
    if (shape == klog::LineShape::none && text::is_space(line[0])) continue;  // a continuation line
    ++considered;
    if (shape == klog::LineShape::none) shape = klog::dmesg_line_shape(line);
    ++counts[static_cast<int>(shape)];
  }
  const std::size_t syslog = counts[1], journal = counts[2], dmesg = counts[3];
  const std::size_t known = syslog + journal + dmesg;
  if (known == 0 || known < counts[0]) return Format::unknown;
  if (dmesg > syslog + journal) return Format::dmesg;
  return journal > 0 ? Format::journal_text : Format::syslog;
}

Expected<std::unique_ptr<LineParser>> make_syslog_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<SyslogParser>(ctx, false));
}

Expected<std::unique_ptr<LineParser>> make_journal_text_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<SyslogParser>(ctx, true));
}

}  // namespace gpucost::prep
