// Event: one normalised record of the gpucost.events stream (schema in docs/formats.md).
// Parsers fill a reused Event per line; string_views point into the current input line, so an
// Event is valid only until the parser reads the next line (no per-line allocation).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost {

/// Numeric metrics with a canonical name that carries the unit. Order = output order.
enum class Metric : std::uint8_t {
  power_w,
  temp_c,
  mem_temp_c,
  sm_pct,
  mem_pct,
  enc_pct,
  dec_pct,
  jpg_pct,
  ofa_pct,
  mclk_mhz,
  pclk_mhz,
  fb_mib,
  fb_total_mib,
  bar1_mib,
  ccpm_mib,
  fan_pct,
  pviol_pct,
  tviol_pct,
  sbecc_count,
  dbecc_count,
  pcie_err_count,
  rxpci_mb_s,
  txpci_mb_s,
  pstate,
  power_limit_w,
  power_default_limit_w,
  power_max_limit_w,
  pclk_max_mhz,
  mclk_max_mhz,
  throttle_mask,
  pcie_gen,
  pcie_gen_max,
  pcie_width,
  pcie_width_max,
  pid,
  count_  // number of metrics; keep last
};

inline constexpr std::size_t kMetricCount = static_cast<std::size_t>(Metric::count_);
static_assert(kMetricCount <= 64, "Event::present is a 64-bit mask");

struct MetricInfo {
  std::string_view key;          ///< name in the event stream, unit as suffix
  std::string_view description;  ///< one line for docs/formats.md
};

/// Metadata of every Metric, indexed by the enum value.
extern const std::array<MetricInfo, kMetricCount> kMetricInfo;

/// Looks a metric up by its stream key ("power_w"); false when unknown.
bool metric_from_key(std::string_view key, Metric& out);

/// A non-metric field: text (name, uuid, command) or an unknown column kept by its name.
struct Field {
  std::string_view key;
  std::string_view value;
  bool numeric = false;  ///< value is a valid JSON number and is written unquoted
  bool extra = false;    ///< a column gpucost does not model: written under "extra"
};

struct Event {
  std::int64_t ts_ns = 0;   ///< nanoseconds since the Unix epoch, UTC
  std::string_view source;  ///< "dmon", "pmon", "query-csv", ...
  std::string_view host;
  std::int32_t gpu = -1;      ///< nvidia-smi index; -1 = not tied to a GPU
  std::string_view kind;      ///< "sample", "process", ...
  std::uint64_t present = 0;  ///< bit i set when values[i] holds a value
  std::array<double, kMetricCount> values{};
  /// Verbatim input text of values[i] when it is a valid JSON number in the canonical unit;
  /// written as is, so output keeps the tool's own digits. Empty means "format values[i]".
  std::array<std::string_view, kMetricCount> texts{};
  std::vector<Field> fields;  ///< capacity is reused across events

  void reset() {
    present = 0;
    fields.clear();
    m_owned_count = 0;
  }
  /// Copies `s` into storage owned by the event (for text built from several lines or looked
  /// up elsewhere) and returns a view that stays valid until reset(). Reuses capacity.
  std::string_view own(std::string_view s) {
    if (m_owned_count == m_owned.size()) m_owned.emplace_back();
    std::string& slot = m_owned[m_owned_count++];  // deque: other slots never move
    slot.assign(s);
    return slot;
  }
  /// Adds a text field; `copy` when the text does not outlive the current line.
  void add_text(std::string_view key, std::string_view value, bool copy = false) {
    fields.push_back(Field{key, copy ? own(value) : value, false, false});
  }
  /// Adds a numeric field from its decimal text (copied into the event).
  void add_number(std::string_view key, std::int64_t value) {
    fields.push_back(Field{key, own(std::to_string(value)), true, false});
  }
  [[nodiscard]] bool has(Metric m) const { return (present >> static_cast<unsigned>(m)) & 1U; }
  [[nodiscard]] double get(Metric m) const { return values[static_cast<std::size_t>(m)]; }
  void set(Metric m, double v, std::string_view text = {}) {
    const auto i = static_cast<std::size_t>(m);
    values[i] = v;
    texts[i] = text;
    present |= std::uint64_t{1} << i;
  }

 private:
  std::deque<std::string> m_owned;
  std::size_t m_owned_count = 0;
};

}  // namespace gpucost
