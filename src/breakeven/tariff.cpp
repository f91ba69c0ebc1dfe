#include <gpucost/breakeven/tariff.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>

#include <date/date.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>

namespace gpucost::breakeven {

namespace {

constexpr std::array<std::string_view, 7> kDays = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
constexpr std::array<std::string_view, 12> kMonths = {"jan", "feb", "mar", "apr", "may", "jun",
                                                      "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> kMonthNames = {"January",   "February", "March",    "April",
                                                          "May",       "June",     "July",     "August",
                                                          "September", "October",  "November", "December"};
constexpr std::array<std::string_view, 7> kDayNames = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                                       "Friday", "Saturday", "Sunday"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Index of a name (or 1-based number) in `names`, -1 when neither.
template <std::size_t N>
int index_of(std::string_view word, const std::array<std::string_view, N>& names) {
  const std::string w = lower(text::trim(word));
  for (std::size_t i = 0; i < N; ++i)
    if (w == names[i] || (w.size() > 3 && names[i] == std::string_view(w).substr(0, 3))) return static_cast<int>(i);
  if (const auto n = text::parse_int(w); n && *n >= 1 && static_cast<std::size_t>(*n) <= N)
    return static_cast<int>(*n - 1);
  return -1;
}

// "a-b,c" over a cycle of N names: the bits of the named items, ranges wrapping.
template <std::size_t N>
Expected<unsigned> parse_cycle(std::string_view textv, const std::array<std::string_view, N>& names,
                               std::string_view what, std::string_view example) {
  const unsigned all = (1u << N) - 1;
  if (text::trim(textv).empty() || text::trim(textv) == "*") return all;
  unsigned bits = 0;
  std::size_t pos = 0;
  while (pos <= textv.size()) {
    const std::size_t comma = std::min(textv.find(',', pos), textv.size());
    const std::string_view item = textv.substr(pos, comma - pos);
    const std::size_t dash = item.find('-');
    const int a = index_of(item.substr(0, dash), names);
    const int b = dash == std::string_view::npos ? a : index_of(item.substr(dash + 1), names);
    if (a < 0 || b < 0)
      return make_error(ErrorKind::config, fmt::format("electricity.tou: '{}' is not a list of {}", textv, what),
                        fmt::format("e.g. {}", example));
    for (int i = a;; i = (i + 1) % static_cast<int>(N)) {
      bits |= 1u << i;
      if (i == b) break;
    }
    pos = comma + 1;
  }
  return bits;
}

Expected<int> parse_minute(std::string_view s) {
  s = text::trim(s);
  const std::size_t colon = s.find(':');
  const auto h = text::parse_int(s.substr(0, colon));
  const auto m =
      colon == std::string_view::npos ? std::optional<std::int64_t>(0) : text::parse_int(s.substr(colon + 1));
  if (!h || !m || *h < 0 || *m < 0 || *m > 59 || *h * 60 + *m > 1440)
    return make_error(ErrorKind::config, fmt::format("electricity.tou: '{}' is not a time of day", s),
                      "use HH:MM from 00:00 to 24:00");
  return static_cast<int>(*h * 60 + *m);
}

}  // namespace

bool TouWindow::covers(unsigned month, unsigned weekday, int minute) const {
  if ((months & (1u << month)) == 0) return false;
  const bool today = (days & (1u << weekday)) != 0;
  if (start_min < end_min) return today && minute >= start_min && minute < end_min;
  const bool yesterday = (days & (1u << ((weekday + 6) % 7))) != 0;  // crosses midnight
  return (today && minute >= start_min) || (yesterday && minute < end_min);
}

Expected<unsigned> parse_days(std::string_view text) {
  return parse_cycle(text, kDays, "days", "days = \"mon-fri\" or \"sat,sun\"");
}

Expected<unsigned> parse_months(std::string_view text) {
  return parse_cycle(text, kMonths, "months", "months = \"jun-sep\" or \"11-2\"");
}

Status parse_hours(std::string_view text, TouWindow& into) {
  const std::size_t dash = text.find('-');
  if (dash == std::string_view::npos)
    return make_error(ErrorKind::config, fmt::format("electricity.tou: hours '{}' is not a range", text),
                      "e.g. hours = \"08:00-22:00\" or \"22:00-06:00\" (crosses midnight)");
  auto a = parse_minute(text.substr(0, dash));
  if (!a) return a.error();
  auto b = parse_minute(text.substr(dash + 1));
  if (!b) return b.error();
  if (*a == *b || *a == 1440)
    return make_error(ErrorKind::config, fmt::format("electricity.tou: hours '{}' is empty", text),
                      "the whole day is \"00:00-24:00\"");
  into.start_min = *a;
  into.end_min = *b == 0 ? 1440 : *b;  // "22:00-00:00" ends at midnight
  return {};
}

Status check_overlaps(const std::vector<TouWindow>& w) {
  for (unsigned month = 0; month < 12; ++month)
    for (unsigned day = 0; day < 7; ++day)
      for (int minute = 0; minute < 1440; ++minute) {
        std::size_t first = w.size();
        for (std::size_t i = 0; i < w.size(); ++i) {
          if (!w[i].covers(month, day, minute)) continue;
          if (first == w.size()) {
            first = i;
            continue;
          }
          return make_error(ErrorKind::config,
                            fmt::format("electricity.tou: windows {} ({}) and {} ({}) overlap, e.g. on a {} in {} at "
                                        "{:02}:{:02}",
                                        first + 1, w[first].text, i + 1, w[i].text, kDayNames[day], kMonthNames[month],
                                        minute / 60, minute % 60),
                            "make the windows disjoint: each instant may have one time-of-use price");
        }
      }
  return {};
}

Expected<Tariff> Tariff::make(double flat_price, std::vector<TouWindow> windows, const std::string& zone) {
  Tariff t;
  t.m_flat = flat_price;
  t.m_windows = std::move(windows);
  if (zone.empty() || zone == "UTC" || zone == "Etc/UTC") return t;
  auto loaded = TimeZone::load(zone);
  if (!loaded)
    return make_error(ErrorKind::config, fmt::format("electricity.tz: {}", loaded.error().message),
                      "give an IANA zone name such as Europe/Berlin (see /usr/share/zoneinfo)");
  t.m_zone = std::move(*loaded);
  return t;
}

double Tariff::price_at(std::int64_t utc_ns) const {
  if (m_windows.empty()) return m_flat;
  using namespace std::chrono;
  std::int64_t s = utc_ns / kNsPerSecond;
  if (utc_ns < 0 && utc_ns % kNsPerSecond != 0) --s;
  const date::local_seconds local{seconds{s + (m_zone == nullptr ? 0 : m_zone->at_utc(s).offset_s)}};
  const auto day = date::floor<date::days>(local);
  const date::year_month_day ymd{day};
  const unsigned weekday = (date::weekday{day}.iso_encoding() + 6) % 7;  // 0 = Monday
  const int minute = static_cast<int>((local - day).count() / 60);
  const unsigned month = static_cast<unsigned>(ymd.month()) - 1;
  for (const TouWindow& w : m_windows)
    if (w.covers(month, weekday, minute)) return w.price_per_kwh;
  return m_flat;
}

EnergyPrices energy_prices(const Tariff& tariff, const extract::EnergyProfile& profile, std::int64_t from_ns,
                           std::int64_t to_ns, double gpu_kwh, double system_kwh) {
  EnergyPrices p;
  if (!tariff.time_of_use()) {
    p.gpu = p.system = p.mean = tariff.price_at(from_ns);
    return p;
  }
  constexpr std::int64_t kMin = extract::EnergyProfile::kBucketNs;
  double cost = 0, energy = 0;
  for (const auto& [minute, kwh] : profile.kwh_by_minute) {
    cost += kwh * tariff.price_at(minute * kMin);
    energy += kwh;
  }
  p.gpu = energy > 0 ? cost / energy : tariff.price_at(from_ns);
  // Time-weighted price of the window, minute by minute (the system draws the same power throughout).
  double weighted = 0, span = 0;
  std::int64_t t = from_ns;
  while (t < to_ns) {
    std::int64_t next = (t / kMin + 1) * kMin;
    if (t < 0 && t % kMin != 0) next -= kMin;
    next = std::min(next, to_ns);
    const double dt = static_cast<double>(next - t);
    weighted += dt * tariff.price_at(t);
    span += dt;
    t = next;
  }
  p.system = span > 0 ? weighted / span : tariff.price_at(from_ns);
  const double total = gpu_kwh + system_kwh;
  p.mean = total > 0 ? (p.gpu * gpu_kwh + p.system * system_kwh) / total : p.system;
  return p;
}

}  // namespace gpucost::breakeven
