// Time-of-use electricity: tariff windows (days, hours, months) in the tariff's IANA zone, and
// the energy-weighted price of a job's energy. Formulas: docs/cost-model.md, "Time of use".
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/time_zone.hpp>
#include <gpucost/extract/features.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

/// One `[[electricity.tou]]` window. A window whose end is not after its start crosses midnight:
/// its part after midnight belongs to the day it started on.
struct TouWindow {
  unsigned days = 0x7f;     ///< bit 0 = Monday ... bit 6 = Sunday: days the window starts on
  unsigned months = 0xfff;  ///< bit 0 = January: months of the instant
  int start_min = 0;        ///< minute of the local day, 0-1439
  int end_min = 1440;       ///< minute of the local day, 1-1440
  double price_per_kwh = 0;
  std::string text;  ///< "mon-fri 08:00-22:00" as written, for messages

  /// Whether the window holds at local minute `minute` of a day with weekday `weekday`
  /// (0 = Monday) in month `month` (0 = January).
  [[nodiscard]] bool covers(unsigned month, unsigned weekday, int minute) const;
};

/// "mon-fri", "sat,sun", "fri-mon" (wraps), "mon": the day bits; empty = every day.
Expected<unsigned> parse_days(std::string_view text);
/// "jun-sep", "1,2,12", "11-2" (wraps); empty = every month.
Expected<unsigned> parse_months(std::string_view text);
/// "08:00-22:00", "22:00-06:00" (crosses midnight), "00:00-24:00" (the whole day).
Status parse_hours(std::string_view text, TouWindow& into);

/// Fails when two windows hold at the same local time (first match would hide a mistake).
Status check_overlaps(const std::vector<TouWindow>& windows);

/// Prices instants: the first window that covers the local time, else the flat price.
class Tariff {
 public:
  /// `zone` empty or "UTC" = UTC; an unknown zone is an error.
  static Expected<Tariff> make(double flat_price, std::vector<TouWindow> windows, const std::string& zone);
  [[nodiscard]] double price_at(std::int64_t utc_ns) const;
  [[nodiscard]] bool time_of_use() const { return !m_windows.empty(); }

 private:
  double m_flat = 0;
  std::vector<TouWindow> m_windows;
  std::shared_ptr<const TimeZone> m_zone;  // null = UTC
};

/// Energy-weighted prices of one job (currency per kWh).
struct EnergyPrices {
  double gpu = 0;     ///< over the GPU energy profile
  double system = 0;  ///< over the system power, spread evenly over the window
  double mean = 0;    ///< over both: the JSON's energy-weighted mean price
};

/// The prices of a job's energy: each minute of the GPU profile at the price in force in that
/// minute; the system power is constant, so its price is the time-weighted price of the window.
/// `gpu_kwh` and `system_kwh` weigh the two into the mean. A flat tariff gives its price thrice.
EnergyPrices energy_prices(const Tariff& tariff, const extract::EnergyProfile& profile, std::int64_t from_ns,
                           std::int64_t to_ns, double gpu_kwh, double system_kwh);

}  // namespace gpucost::breakeven
