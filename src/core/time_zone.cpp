// TZif files (RFC 8536) and the POSIX TZ rule of their footer. The periods are made as date/tz
// made them (tz.cpp, time_zone::init_impl and get_info_impl), so that the answers stay the same:
// a first period before the first transition with the file's first standard-time type, and
// neighbouring transitions that change nothing (offset, DST flag, abbreviation) merged.
#include <gpucost/core/time_zone.hpp>

#include <gpucost/core/time.hpp>

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>

namespace gpucost {

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
/// The footer's rule is written out as transitions from (at the earliest) and up to these years;
/// later times keep the last.
constexpr int kFirstRuleYear = 1800;
constexpr int kLastRuleYear = 2200;

Error zone_error(std::string message) {
  return make_error(ErrorKind::usage, std::move(message),
                    "give an IANA zone name such as Europe/Berlin or America/New_York (see /usr/share/zoneinfo)");
}

// ---- POSIX TZ strings (TZif footers: RFC 8536 section 3.3, with its extensions) ----

/// "M3.5.0/3": a day of the year and a time of that day (local time, may be negative or past 24 h).
struct RuleDate {
  enum class Kind { julian_no_leap, julian, month_week_day } kind = Kind::month_week_day;
  int day = 0;  // Jn: 1-365; n: 0-365
  int month = 0, week = 0, weekday = 0;
  std::int64_t time_s = 7200;
};

struct PosixRule {
  std::string std_abbrev, dst_abbrev;
  std::int32_t std_offset = 0, dst_offset = 0;  // seconds east of UTC
  bool has_dst = false;
  RuleDate start, end;  // DST starts (in standard time), ends (in DST)
};

class PosixParser {
 public:
  explicit PosixParser(std::string_view s) : m_s(s) {}

  std::optional<PosixRule> parse() {
    PosixRule r;
    if (!abbrev(r.std_abbrev)) return std::nullopt;
    const auto std_west = hms(24);
    if (!std_west) return std::nullopt;
    r.std_offset = static_cast<std::int32_t>(-*std_west);
    if (done()) return r;
    if (!abbrev(r.dst_abbrev)) return std::nullopt;
    r.has_dst = true;
    r.dst_offset = r.std_offset + 3600;
    if (!done() && peek() != ',') {
      const auto dst_west = hms(24);
      if (!dst_west) return std::nullopt;
      r.dst_offset = static_cast<std::int32_t>(-*dst_west);
    }
    // A footer with DST always has its rule (zic writes it); none: the rule is not known.
    if (!eat(',') || !date(r.start) || !eat(',') || !date(r.end) || !done()) return std::nullopt;
    return r;
  }

 private:
  [[nodiscard]] bool done() const { return m_at == m_s.size(); }
  [[nodiscard]] char peek() const { return done() ? '\0' : m_s[m_at]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++m_at;
    return true;
  }
  static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  // "CET", or "<+0330>" (letters, digits, '+' and '-' between angle brackets).
  bool abbrev(std::string& out) {
    const std::size_t from = m_at;
    if (eat('<')) {
      while (!done() && (is_alpha(peek()) || is_digit(peek()) || peek() == '+' || peek() == '-')) ++m_at;
      out.assign(m_s.substr(from + 1, m_at - from - 1));
      return eat('>') && out.size() >= 3;
    }
    while (!done() && is_alpha(peek())) ++m_at;
    out.assign(m_s.substr(from, m_at - from));
    return out.size() >= 3;
  }
  std::optional<std::int64_t> number(int digits_max) {
    std::int64_t v = 0;
    int digits = 0;
    while (is_digit(peek()) && digits < digits_max) {
      v = v * 10 + (m_s[m_at++] - '0');
      ++digits;
    }
    if (digits == 0) return std::nullopt;
    return v;
  }
  // [+-]hh[:mm[:ss]] in seconds, hours up to `max_hours`.
  std::optional<std::int64_t> hms(std::int64_t max_hours) {
    const bool negative = eat('-');
    if (!negative) (void)eat('+');
    const auto h = number(3);
    if (!h || *h > max_hours) return std::nullopt;
    std::int64_t s = *h * 3600;
    if (eat(':')) {
      const auto m = number(2);
      if (!m || *m > 59) return std::nullopt;
      s += *m * 60;
      if (eat(':')) {
        const auto sec = number(2);
        if (!sec || *sec > 59) return std::nullopt;
        s += *sec;
      }
    }
    return negative ? -s : s;
  }
  bool date(RuleDate& d) {
    if (eat('M')) {
      const auto m = number(2);
      if (!m || *m < 1 || *m > 12 || !eat('.')) return false;
      const auto w = number(1);
      if (!w || *w < 1 || *w > 5 || !eat('.')) return false;
      const auto wd = number(1);
      if (!wd || *wd > 6) return false;
      d.kind = RuleDate::Kind::month_week_day;
      d.month = static_cast<int>(*m);
      d.week = static_cast<int>(*w);
      d.weekday = static_cast<int>(*wd);
    } else {
      const bool julian = eat('J');
      const auto n = number(3);
      if (!n || (julian ? *n < 1 || *n > 365 : *n > 365)) return false;
      d.kind = julian ? RuleDate::Kind::julian_no_leap : RuleDate::Kind::julian;
      d.day = static_cast<int>(*n);
    }
    if (eat('/')) {
      const auto t = hms(167);  // RFC 8536: -167 to 167 hours
      if (!t) return false;
      d.time_s = *t;
    }
    return true;
  }

  std::string_view m_s;
  std::size_t m_at = 0;
};

/// The local seconds since the epoch (as if UTC) at which `d` falls in year `y`.
std::int64_t local_time_of(const RuleDate& d, int y) {
  std::int64_t day = 0;  // days since the epoch
  switch (d.kind) {
    case RuleDate::Kind::julian_no_leap: {  // 1-365, February 29 never counted
      std::int64_t n = d.day - 1;
      if (days_in_month(y, 2) == 29 && d.day >= 60) ++n;
      day = days_from_civil(y, 1, 1) + n;
      break;
    }
    case RuleDate::Kind::julian: day = days_from_civil(y, 1, 1) + d.day; break;
    case RuleDate::Kind::month_week_day: {
      const auto month = static_cast<unsigned>(d.month);
      const std::int64_t first = days_from_civil(y, month, 1);
      // 1970-01-01 was a Thursday (4).
      const std::int64_t first_weekday = ((first % 7) + 7 + 4) % 7;
      std::int64_t mday = 1 + (d.weekday - first_weekday + 7) % 7 + 7 * (d.week - 1);
      while (mday > days_in_month(y, month)) mday -= 7;  // week 5: the last such weekday
      day = first + mday - 1;
      break;
    }
  }
  return day * 86400 + d.time_s;
}

/// The year of a UTC instant in seconds (floored to its day, before the epoch too).
int year_of(std::int64_t utc_s) {
  std::int64_t days = utc_s / 86400;
  if (utc_s % 86400 < 0) --days;
  return year_from_days(days);
}

std::uint32_t be32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | static_cast<std::uint32_t>(p[3]);
}

std::optional<std::string> read_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return std::move(bytes).str();
}

std::string zone_dir() {
  const char* dir = std::getenv("TZDIR");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string("/usr/share/zoneinfo");
}

/// True for a name date/tz listed in its walk of the zone directory.
bool listed_name(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kNotZones{
      "Factory",      "right",       "iso3166.tab", "+VERSION",    "version",          "zone.tab",
      "zone1970.tab", "zonenow.tab", "tzdata.zi",   "leapseconds", "leap-seconds.list"};
  if (name.empty() || name.front() == '/') return false;
  for (std::size_t at = 0; at <= name.size();) {
    std::size_t slash = name.find('/', at);
    if (slash == std::string_view::npos) slash = name.size();
    const std::string_view part = name.substr(at, slash - at);
    if (part.empty() || part.front() == '.' || part.substr(0, 5) == "posix") return false;
    if (std::find(kNotZones.begin(), kNotZones.end(), part) != kNotZones.end()) return false;
    at = slash + 1;
  }
  return true;
}

/// The zone name in a path to a zone file: what follows "zoneinfo/" (date/tz's extract_tz_name).
std::optional<std::string> name_after_zoneinfo(std::string_view path) {
  const std::size_t at = path.rfind("zoneinfo");
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t slash = path.find('/', at);
  if (slash == std::string_view::npos) return std::nullopt;
  return std::string(path.substr(slash + 1));
}

std::optional<std::string> link_target(const char* path) {
  struct stat st {};
  if (::lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return std::nullopt;
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink(path, buf.data(), buf.size() - 1);
  if (n <= 0) return std::nullopt;
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

std::optional<std::string> first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line.empty()) return std::nullopt;
  return line;
}

}  // namespace

class TzifReader {
 public:
  TzifReader(std::string_view bytes, const std::string& name) : m_bytes(bytes), m_name(name) {}

  Expected<std::shared_ptr<const TimeZone>> read() {
    auto zone = std::make_shared<TimeZone>();
    zone->m_name = m_name;
    Header h;
    if (!header(0, h)) return bad("not a TZif zone file");
    std::size_t at = 44;
    if (h.version >= '2') {  // the 64-bit block after the 32-bit one
      at += h.data_bytes(4);
      if (!header(at, h)) return bad("its second TZif header is missing or damaged");
      at += 44;
    }
    const std::size_t time_bytes = h.version >= '2' ? 8 : 4;
    if (m_bytes.size() < at + h.data_bytes(time_bytes)) return bad("the file is cut short");
    if (h.leapcnt != 0) return bad("leap-second zone files (right/...) are not read");
    if (h.typecnt == 0 || h.charcnt == 0) return bad("no local time types");
    const auto* times = reinterpret_cast<const unsigned char*>(m_bytes.data()) + at;
    const unsigned char* indices = times + h.timecnt * time_bytes;
    const unsigned char* types = indices + h.timecnt;
    GPUCOST_TRY(read_types(h, types, *zone));
    // As date/tz: a first period from the lowest time, with the first standard-time type.
    const auto first_std =
        std::find_if(zone->m_types.begin(), zone->m_types.end(), [](const auto& t) { return !t.is_dst; });
    zone->m_transitions.push_back(TimeZone::Transition{
        kMin, static_cast<std::uint32_t>(first_std == zone->m_types.end() ? 0 : first_std - zone->m_types.begin())});
    for (std::size_t i = 0; i < h.timecnt; ++i) {
      const std::int64_t when =
          time_bytes == 8
              ? static_cast<std::int64_t>(std::uint64_t{be32(times + 8 * i)} << 32 | be32(times + 8 * i + 4))
              : static_cast<std::int32_t>(be32(times + 4 * i));
      if (indices[i] >= h.typecnt) return bad("a transition's type is out of range");
      if (when <= zone->m_transitions.back().at && i > 0) return bad("its transitions are not in order");
      if (when == kMin) continue;
      zone->m_transitions.push_back(TimeZone::Transition{when, indices[i]});
    }
    if (h.version >= '2') follow_footer(*zone, at + h.data_bytes(time_bytes));
    merge_unchanged(*zone);
    return std::shared_ptr<const TimeZone>(std::move(zone));
  }

  // A zone of a POSIX TZ string alone (the TZ variable): its rule for every year.
  static std::shared_ptr<const TimeZone> from_rule(const PosixRule& rule, std::string name) {
    auto zone = std::make_shared<TimeZone>();
    zone->m_name = std::move(name);
    zone->m_types.push_back(TimeZone::Type{rule.std_offset, false, rule.std_abbrev});
    zone->m_transitions.push_back(TimeZone::Transition{kMin, 0});
    if (rule.has_dst) add_rule_transitions(*zone, rule);
    return zone;
  }

 private:
  struct Header {
    char version = 0;
    std::size_t isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;
    [[nodiscard]] std::size_t data_bytes(std::size_t time_bytes) const {
      return timecnt * (time_bytes + 1) + typecnt * 6 + charcnt + leapcnt * (time_bytes + 4) + isstdcnt + isutcnt;
    }
  };

  bool header(std::size_t at, Header& h) const {
    if (m_bytes.size() < at + 44 || m_bytes.substr(at, 4) != "TZif") return false;
    h.version = m_bytes[at + 4];
    if (h.version != '\0' && (h.version < '2' || h.version > '9')) return false;
    const auto* c = reinterpret_cast<const unsigned char*>(m_bytes.data()) + at + 20;
    std::array<std::size_t, 6> n{};
    for (std::size_t i = 0; i < 6; ++i) {
      const std::uint32_t v = be32(c + 4 * i);
      if (v > (1u << 24)) return false;  // no real zone comes near: a damaged count
      n[i] = v;
    }
    h.isutcnt = n[0];
    h.isstdcnt = n[1];
    h.leapcnt = n[2];
    h.timecnt = n[3];
    h.typecnt = n[4];
    h.charcnt = n[5];
    return (h.isutcnt == 0 || h.isutcnt == h.typecnt) && (h.isstdcnt == 0 || h.isstdcnt == h.typecnt);
  }

  // The footer's rule ("\nCET-1CEST,M3.5.0,M10.5.0/3\n") written out as transitions after the
  // last one the file lists, through kLastRuleYear. A footer without DST, or one not understood,
  // adds none: the last type then holds on, as in date/tz.
  void follow_footer(TimeZone& zone, std::size_t at) const {
    if (at >= m_bytes.size() || m_bytes[at] != '\n') return;
    const std::size_t end = m_bytes.find('\n', at + 1);
    if (end == std::string_view::npos) return;
    const std::optional<PosixRule> rule = PosixParser(m_bytes.substr(at + 1, end - at - 1)).parse();
    if (rule && rule->has_dst) add_rule_transitions(zone, *rule);
  }

  // The local time types (6 bytes each: offset, DST flag, abbreviation index), then the abbreviations.
  Status read_types(const Header& h, const unsigned char* types, TimeZone& zone) const {
    const char* chars = reinterpret_cast<const char*>(types + h.typecnt * 6);
    for (std::size_t i = 0; i < h.typecnt; ++i) {
      const unsigned char* t = types + i * 6;
      const std::size_t abbrev_at = t[5];
      if (abbrev_at >= h.charcnt) return bad("an abbreviation index is out of range");
      const char* abbrev = chars + abbrev_at;
      const void* nul = std::memchr(abbrev, '\0', h.charcnt - abbrev_at);
      if (nul == nullptr) return bad("an abbreviation is not terminated");
      zone.m_types.push_back(TimeZone::Type{static_cast<std::int32_t>(be32(t)), t[4] != 0,
                                            std::string(abbrev, static_cast<const char*>(nul))});
    }
    return {};
  }

  [[nodiscard]] Error bad(std::string_view why) const {
    return zone_error(fmt::format("time zone '{}': {}", m_name, why));
  }

  static void add_rule_transitions(TimeZone& zone, const PosixRule& rule) {
    const auto type_of = [&](const TimeZone::Type& type) {
      auto it = std::find(zone.m_types.begin(), zone.m_types.end(), type);
      if (it == zone.m_types.end()) it = zone.m_types.insert(it, type);
      return static_cast<std::uint32_t>(it - zone.m_types.begin());
    };
    const std::uint32_t std_type = type_of({rule.std_offset, false, rule.std_abbrev});
    const std::uint32_t dst_type = type_of({rule.dst_offset, true, rule.dst_abbrev});
    const std::int64_t last = zone.m_transitions.back().at;
    std::vector<TimeZone::Transition> added;
    // From the last transition's year (no rule of the database is older than 1800: a file that
    // says otherwise is damaged, and its earlier years keep its last type).
    for (int y = std::max(year_of(last), kFirstRuleYear); y <= kLastRuleYear; ++y) {
      // DST starts at a local standard time and ends at a local DST time.
      added.push_back({local_time_of(rule.start, y) - rule.std_offset, dst_type});
      added.push_back({local_time_of(rule.end, y) - rule.dst_offset, std_type});
    }
    std::sort(added.begin(), added.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
    for (const TimeZone::Transition& t : added)
      if (t.at > zone.m_transitions.back().at) zone.m_transitions.push_back(t);
  }

  // date/tz drops a transition that changes neither the offset, the DST flag nor the abbreviation.
  static void merge_unchanged(TimeZone& zone) {
    const auto same = [&](const TimeZone::Transition& a, const TimeZone::Transition& b) {
      return zone.m_types[a.type] == zone.m_types[b.type];
    };
    zone.m_transitions.erase(std::unique(zone.m_transitions.begin(), zone.m_transitions.end(), same),
                             zone.m_transitions.end());
  }

  std::string_view m_bytes;
  const std::string& m_name;
};

Expected<std::shared_ptr<const TimeZone>> TimeZone::from_tzif(std::string_view bytes, std::string name) {
  TzifReader reader(bytes, name);
  return reader.read();
}

namespace {

/// The zone file of a listed name (listed_name()), read; none when it is not one.
std::optional<std::string> listed_zone_file(std::string_view name) {
  if (!listed_name(name)) return std::nullopt;
  return read_file(zone_dir() + '/' + std::string(name));
}

}  // namespace

Expected<std::shared_ptr<const TimeZone>> TimeZone::load(std::string_view name) {
  const std::optional<std::string> bytes = listed_zone_file(name);
  if (!bytes) return zone_error(fmt::format("unknown time zone '{}'", name));
  return from_tzif(*bytes, std::string(name));
}

Expected<std::shared_ptr<const TimeZone>> TimeZone::from_tz_variable(std::string_view value) {
  const bool file = !value.empty() && value.front() == ':';
  if (file) value.remove_prefix(1);
  if (!value.empty() && value.front() == '/') {
    const std::string path(value);
    const std::optional<std::string> bytes = read_file(path);
    if (!bytes) return zone_error(fmt::format("cannot read the zone file '{}'", path));
    std::optional<std::string> name = link_target(path.c_str());  // /etc/localtime -> .../zoneinfo/Europe/Berlin
    name = name_after_zoneinfo(name ? *name : path);
    return from_tzif(*bytes, name ? *name : path);
  }
  if (const std::optional<std::string> bytes = listed_zone_file(value)) return from_tzif(*bytes, std::string(value));
  if (!file) {
    if (const std::optional<PosixRule> rule = PosixParser(value).parse())
      return TzifReader::from_rule(*rule, std::string(value));
  }
  return zone_error(fmt::format("unknown time zone '{}'", value));
}

Expected<std::shared_ptr<const TimeZone>> TimeZone::machine() {
  if (const auto target = link_target("/etc/localtime")) {
    if (const auto name = name_after_zoneinfo(*target)) return load(*name);
  }
  if (const auto target = link_target("/etc/TZ")) {
    const std::string dir = zone_dir();
    std::string name = *target;
    if (const std::size_t at = name.find(dir); at != std::string::npos) name.erase(0, at + dir.size() + 1);
    return load(name);
  }
  if (const auto line = first_line("/etc/timezone")) return load(*line);
  if (std::ifstream clock("/etc/sysconfig/clock"); clock) {  // Red Hat: ZONE="US/Eastern"
    for (std::string line; std::getline(clock, line);) {
      if (line.rfind("ZONE=\"", 0) != 0 || line.size() < 8 || line.back() != '"') continue;
      return load(std::string_view(line).substr(6, line.size() - 7));
    }
  }
  // A copied /etc/localtime (container images) that names no zone: its rules all the same, named
  // by its path (date/tz gave up here, and gpucost read local times as UTC).
  if (auto zone = from_tz_variable(":/etc/localtime")) return zone;
  return make_error(ErrorKind::usage, "this machine names no time zone", "give --tz");
}

TimeZone::Period TimeZone::period(std::size_t i) const {
  const Type& t = m_types[m_transitions[i].type];
  Period p;
  p.begin = m_transitions[i].at;
  p.end = i + 1 < m_transitions.size() ? m_transitions[i + 1].at : kMax;
  p.offset_s = t.offset_s;
  p.is_dst = t.is_dst;
  p.abbrev = t.abbrev;
  return p;
}

TimeZone::Period TimeZone::at_utc(std::int64_t utc_s) const {
  const auto after = std::upper_bound(m_transitions.begin(), m_transitions.end(), utc_s,
                                      [](std::int64_t s, const Transition& t) { return s < t.at; });
  return period(static_cast<std::size_t>(std::distance(m_transitions.begin(), after)) - 1);
}

// date/tz's time_zone::get_info_impl(local_seconds), on indices: `k` is the first transition
// whose period starts (in its own local time) after the local time.
TimeZone::Local TimeZone::at_local(std::int64_t local_s) const {
  const auto it = std::upper_bound(
      m_transitions.begin(), m_transitions.end(), local_s,
      [&](std::int64_t local, const Transition& t) { return t.at != kMin && local - m_types[t.type].offset_s < t.at; });
  const auto k = static_cast<std::size_t>(std::distance(m_transitions.begin(), it));  // >= 1
  Local info;
  info.first = period(k - 1);
  const std::int64_t utc = local_s - info.first.offset_s;
  // Near the period's start (within a day): the period before may hold the time too.
  if (info.first.begin > kMax - 86400 || utc < info.first.begin + 86400) {
    if (k >= 2) {
      const Period before = period(k - 2);
      if (local_s - before.offset_s < before.end) {
        info.kind = Local::Kind::repeated;
        info.second = info.first;
        info.first = before;
      }
    }
  } else if (utc >= info.first.end && k < m_transitions.size()) {
    const Period after = period(k);
    if (local_s - after.offset_s < after.begin) {
      info.kind = Local::Kind::gap;
      info.second = after;
    }
  }
  return info;
}

}  // namespace gpucost
