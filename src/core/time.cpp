#include <gpucost/core/time.hpp>

#include <gpucost/core/civil_cache.hpp>

#include <gpucost/core/text.hpp>

#include <date/date.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace gpucost {

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? static_cast<unsigned>(-3) : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::int64_t CivilTime::as_utc_ns() const {
  const std::int64_t days = days_from_civil(year, month, day);
  const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second;
  return secs * kNsPerSecond + nanos;
}

int year_from_days(std::int64_t days) {
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  return static_cast<int>(yoe + era * 400 + (mp < 10 ? 0 : 1));
}

unsigned days_in_month(int year, unsigned month) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

namespace {

// Reads exactly n digits at s[pos]; advances pos.
bool digits(std::string_view s, std::size_t& pos, std::size_t n, unsigned& out) {
  if (pos + n > s.size()) return false;
  unsigned v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (!text::is_digit(c)) return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  pos += n;
  out = v;
  return true;
}

// Reads ".fff..." (1-9 digits) into nanoseconds; returns false on a dot without digits.
bool fraction(std::string_view s, std::size_t& pos, std::int64_t& nanos) {
  nanos = 0;
  if (pos >= s.size() || (s[pos] != '.' && s[pos] != ',')) return true;
  ++pos;
  std::int64_t scale = 100'000'000;
  std::size_t n = 0;
  while (pos < s.size() && text::is_digit(s[pos])) {
    if (scale > 0) nanos += (s[pos] - '0') * scale;
    scale /= 10;
    ++pos;
    ++n;
  }
  return n > 0;
}

bool parse_date_part(std::string_view s, std::size_t& pos, CivilTime& t) {
  unsigned y = 0, m = 0, d = 0;
  if (!digits(s, pos, 4, y)) return false;
  if (pos < s.size() && (s[pos] == '/' || s[pos] == '-')) {
    const char sep = s[pos++];
    if (!digits(s, pos, 2, m) || pos >= s.size() || s[pos++] != sep || !digits(s, pos, 2, d)) return false;
  } else if (!digits(s, pos, 2, m) || !digits(s, pos, 2, d)) {
    return false;
  }
  t.year = static_cast<int>(y);
  t.month = m;
  t.day = d;
  return true;
}

bool parse_time_part(std::string_view s, std::size_t& pos, CivilTime& t) {
  unsigned h = 0, mi = 0, se = 0;
  if (!digits(s, pos, 2, h) || pos >= s.size() || s[pos++] != ':' || !digits(s, pos, 2, mi)) return false;
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    if (!digits(s, pos, 2, se)) return false;
  }
  t.hour = h;
  t.minute = mi;
  t.second = se;
  return fraction(s, pos, t.nanos);
}

}  // namespace

bool valid_civil(const CivilTime& t) {
  // Years outside 1900-2200 are junk in a log; they would also overflow ns since the epoch.
  return t.year >= 1900 && t.year <= 2200 && t.month >= 1 && t.month <= 12 && t.day >= 1 &&
         t.day <= days_in_month(t.year, t.month) && t.hour < 24 && t.minute < 60 && t.second < 61;
}

std::optional<CivilTime> parse_civil_datetime(std::string_view s) {
  CivilTime t;
  std::size_t pos = 0;
  if (!parse_date_part(s, pos, t)) return std::nullopt;
  if (pos >= s.size() || (s[pos] != ' ' && s[pos] != 'T')) return std::nullopt;
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == 'T')) ++pos;
  if (!parse_time_part(s, pos, t) || pos != s.size() || !valid_civil(t)) return std::nullopt;
  return t;
}

std::optional<std::int64_t> CivilStampCache::wall_ns(std::string_view s) {
  // The fraction starts at the first '.' or ',' (the date and time hold neither): a text that
  // starts with the remembered prefix followed by one of them, or nothing, shares its second.
  const std::size_t n = m_prefix.size();
  if (m_valid && s.size() >= n && s.compare(0, n, m_prefix) == 0 && (s.size() == n || s[n] == '.' || s[n] == ',')) {
    std::size_t pos = n;
    std::int64_t nanos = 0;
    if (!fraction(s, pos, nanos) || pos != s.size()) return std::nullopt;
    return m_prefix_ns + nanos;
  }
  auto t = parse_civil_datetime(s);
  if (!t) return std::nullopt;
  std::size_t end = 0;
  while (end < s.size() && s[end] != '.' && s[end] != ',') ++end;
  const std::int64_t nanos = t->nanos;
  t->nanos = 0;
  m_prefix.assign(s.substr(0, end));
  m_prefix_ns = t->as_utc_ns();
  m_valid = true;
  return m_prefix_ns + nanos;
}

std::optional<CivilTime> parse_civil_date(std::string_view s) {
  CivilTime t;
  std::size_t pos = 0;
  if (!parse_date_part(s, pos, t) || pos != s.size() || !valid_civil(t)) return std::nullopt;
  return t;
}

bool parse_clock_time(std::string_view s, CivilTime& into) {
  CivilTime t = into;
  std::size_t pos = 0;
  if (!parse_time_part(s, pos, t) || pos != s.size() || !valid_civil(t)) return false;
  into = t;
  return true;
}

std::optional<IsoInstant> parse_iso8601(std::string_view s) {
  IsoInstant out;
  std::size_t pos = 0;
  if (!parse_date_part(s, pos, out.civil)) return std::nullopt;
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
    ++pos;
    if (!parse_time_part(s, pos, out.civil)) return std::nullopt;
  }
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    out.offset_s = 0;
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos++] == '-' ? -1 : 1;
    unsigned hh = 0, mm = 0;
    if (!digits(s, pos, 2, hh)) return std::nullopt;
    // "+hh", "+hhmm" or "+hh:mm": a colon must be followed by the minutes.
    const bool colon = pos < s.size() && s[pos] == ':';
    if (colon) ++pos;
    if ((colon || pos < s.size()) && !digits(s, pos, 2, mm)) return std::nullopt;
    if (hh > 23 || mm > 59) return std::nullopt;
    out.offset_s = sign * static_cast<std::int64_t>(hh * 3600 + mm * 60);
  }
  if (pos != s.size() || !valid_civil(out.civil)) return std::nullopt;
  return out;
}

std::int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string format_utc(std::int64_t ts_ns) {
  std::int64_t secs = ts_ns / kNsPerSecond;
  std::int64_t frac = ts_ns % kNsPerSecond;
  if (frac < 0) {
    frac += kNsPerSecond;
    --secs;
  }
  std::int64_t days = secs / 86400;
  std::int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    --days;
  }
  const date::year_month_day ymd{date::sys_days{date::days{days}}};
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", static_cast<int>(ymd.year()),
                                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), sod / 3600,
                                sod / 60 % 60, sod % 60);
  if (frac != 0) {
    std::string f = fmt::format("{:09}", frac);
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += '.';
    out += f;
  }
  out += 'Z';
  return out;
}

std::string describe_fall_back(const FallBack& f, std::string_view zone) {
  // The change in the local time it ends: 03:00 CEST on the day of the change.
  const std::string local = format_utc(f.at_ns + f.before_offset_ns);  // "2024-10-27T03:00:00Z"
  std::string hm = local.substr(11, 5);
  if (local.substr(17, 2) != "00") hm = local.substr(11, 8);
  return fmt::format("clocks went back at {} {}\u2192{} on {} ({})", hm, f.before, f.after, local.substr(0, 10), zone);
}

std::string repeated_interval(const FallBack& f) {
  const auto hm = [](std::int64_t local_ns) {
    const std::string t = format_utc(local_ns);
    return t.substr(17, 2) == "00" ? t.substr(11, 5) : t.substr(11, 8);
  };
  const std::int64_t end = f.at_ns + f.before_offset_ns;
  return hm(end - f.repeat_ns) + "\u2013" + hm(end);
}

void LocalClock::note_fall_back(const TimeZone::Local& info) {
  FallBack f;
  f.at_ns = info.second.begin * kNsPerSecond;
  for (const FallBack& known : m_fall_backs)
    if (known.at_ns == f.at_ns) return;
  f.before_offset_ns = std::int64_t{info.first.offset_s} * kNsPerSecond;
  f.repeat_ns = f.before_offset_ns - std::int64_t{info.second.offset_s} * kNsPerSecond;
  f.before = std::string(info.first.abbrev);
  f.after = std::string(info.second.abbrev);
  m_fall_backs.push_back(std::move(f));
}

void LocalClock::add_fall_backs(const LocalClock& other) {
  for (const FallBack& f : other.m_fall_backs) {
    const bool known =
        std::any_of(m_fall_backs.begin(), m_fall_backs.end(), [&](const FallBack& k) { return k.at_ns == f.at_ns; });
    if (!known) m_fall_backs.push_back(f);
  }
}

LocalClock LocalClock::utc() { return LocalClock{}; }

Expected<LocalClock> LocalClock::make(std::string_view name) {
  LocalClock clock;
  const auto is_utc = [](std::string_view z) { return z == "UTC" || z == "Etc/UTC" || z == "Z"; };
  // The clock on `zone`, or the error named by where the zone came from.
  const auto on = [&clock](Expected<std::shared_ptr<const TimeZone>> zone, std::string_view source,
                           const char* hint) -> Expected<LocalClock> {
    if (!zone) return make_error(ErrorKind::usage, fmt::format("{}: {}", source, zone.error().message), hint);
    clock.m_zone = std::move(*zone);
    clock.m_name = clock.m_zone->name();
    return clock;
  };
  if (!name.empty()) {
    if (is_utc(name)) return clock;
    return on(TimeZone::load(name), "--tz",
              "give an IANA zone name such as Europe/Berlin or America/New_York (see /usr/share/zoneinfo)");
  }
  const char* env = std::getenv("TZ");
  std::string_view tz = env != nullptr ? env : "";
  if (!tz.empty() && tz != ":") {
    if (is_utc(tz.substr(tz.front() == ':' ? 1 : 0))) return clock;
    return on(TimeZone::from_tz_variable(tz), "TZ",
              "set TZ to an IANA zone name (Europe/Berlin), a zone file (:/etc/localtime) or a POSIX TZ string, "
              "or give --tz");
  }
  if (auto zone = TimeZone::machine()) return on(std::move(zone), "", "");
  clock.m_fallback = true;  // no /etc/localtime: stay on UTC, the summary says so
  return clock;
}

std::int64_t LocalClock::to_utc_ns(std::int64_t local_ns) {
  if (m_zone == nullptr) return local_ns;
  if (local_ns >= m_cache_begin && local_ns < m_cache_end) return local_ns - m_cache_offset_ns;
  // Offsets change only at transitions, which fall on quarter hours of local time in every
  // current zone; cache one 15-minute bucket at a time.
  constexpr std::int64_t kBucket = 900 * kNsPerSecond;
  std::int64_t bucket = local_ns / kBucket;
  if (local_ns < 0 && local_ns % kBucket != 0) --bucket;
  const TimeZone::Local info = m_zone->at_local(local_ns / kNsPerSecond);
  // unique: the offset; repeated hour: the earlier instant (first); DST gap: the offset before
  // the gap, which moves the time forward by the gap's length.
  m_cache_offset_ns = std::int64_t{info.first.offset_s} * kNsPerSecond;
  if (info.kind == TimeZone::Local::Kind::repeated) note_fall_back(info);
  m_cache_begin = bucket * kBucket;
  m_cache_end = m_cache_begin + kBucket;
  return local_ns - m_cache_offset_ns;
}

}  // namespace gpucost
