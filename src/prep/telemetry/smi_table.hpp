// Shared pieces of the two scrolling nvidia-smi tables, dmon and pmon: '#' header pairs,
// whitespace (or, for `--format csv`, comma) tokenising, date/time key columns. Internal.
#pragma once

#include "prep/line_parser.hpp"
#include "prep/row_clock.hpp"

#include <gpucost/core/event.hpp>
#include <gpucost/core/plain_decimal.hpp>
#include <gpucost/core/text.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prep {

enum class ColumnRole { date, time, gpu, metric, pid, type, command, extra };

struct Column {
  std::string name;  ///< as printed in the name line
  std::string unit;  ///< from the unit line, when one followed
  ColumnRole role = ColumnRole::extra;
  Metric metric = Metric::count_;
  bool operator==(const Column&) const = default;
};

/// Splits a line into tokens on whitespace, or on commas (trimmed) in csv mode.
void split_tokens(std::string_view line, bool csv, std::vector<std::string_view>& out);

/// The token numbered `index` that split_tokens() would find, without splitting the whole line
/// (empty when there are fewer).
std::string_view token_at(std::string_view line, bool csv, std::size_t index);

/// The metric a dmon/pmon column name stands for ("pwr" -> power_w); false when unknown.
bool smi_column_metric(std::string_view name, Metric& out);

/// State of a header-driven table: the column map of the most recent name line.
class SmiTable {
 public:
  /// Handles a '#' line: a name line resets the columns, a unit line fills units, any other
  /// '#' line is a comment. Always an ignored line for the accounting.
  void on_hash_line(std::string_view line, bool pmon);
  /// Reads `body` (a trimmed line) when it is not a data row: a blank line, or a '#' line (see
  /// on_hash_line()). False for a data row, which is the caller's.
  bool read_non_data_line(std::string_view body, bool pmon);
  [[nodiscard]] bool has_header() const { return !m_columns.empty(); }
  [[nodiscard]] const std::vector<Column>& columns() const { return m_columns; }
  [[nodiscard]] bool csv() const { return m_csv; }
  [[nodiscard]] int date_col() const { return m_date; }
  [[nodiscard]] int time_col() const { return m_time; }
  [[nodiscard]] int gpu_col() const { return m_gpu; }
  bool operator==(const SmiTable&) const = default;

 private:
  std::vector<Column> m_columns;
  bool m_csv = false;
  bool m_expect_units = false;
  int m_date = -1, m_time = -1, m_gpu = -1;
};

/// True when row_time() places the table's rows by their cycle number (no time column).
inline bool times_by_cycle(const SmiTable& table) { return table.time_col() < 0; }

/// Computes the time of a row from its date/time tokens, or from its cycle number.
bool row_time(const SmiTable& table, const std::vector<std::string_view>& tokens, std::uint64_t cycle, RowClock& clock,
              std::int64_t& ts_ns);

/// The cell nearly every dmon and pmon cell is, 1 to 15 digits, set as the decimal reader below
/// would set it (its text kept when it is also a JSON number: no leading zero) by a plain digit
/// loop; false, nothing set, for any other cell.
inline bool set_digits_cell(Event& event, Metric metric, std::string_view cell) {
  if (cell.empty() || cell.size() > 15) return false;
  std::uint64_t v = 0;
  for (const char c : cell) {
    const unsigned d = static_cast<unsigned char>(c) - unsigned{'0'};  // wraps above 9 for a non-digit
    if (d > 9) return false;
    v = v * 10 + d;
  }
  event.set(metric, static_cast<double>(v), cell.size() > 1 && cell[0] == '0' ? std::string_view{} : cell);
  return true;
}

/// Parses a metric cell: "-" (or empty) = missing (returns true, nothing set), a number sets
/// the event's metric; anything else returns false. Inline: the hot loop of dmon and pmon.
inline bool set_metric_cell(Event& event, Metric metric, std::string_view cell) {
  if (set_digits_cell(event, metric, cell)) return true;
  // The markers are compared only when the first byte could start one.
  if (cell.empty() || ((cell[0] == '-' || cell[0] == 'N') && (cell == "-" || cell == "N/A"))) return true;
  double v = 0;
  bool json = false;
  if (!text::parse_plain_decimal(cell, v, json) && !text::parse_number(cell, v, json)) return false;
  event.set(metric, v, json ? cell : std::string_view{});
  return true;
}

/// A row whose cells do not match the header's columns: malformed, with both counts.
LineResult column_count_mismatch(ParseContext& ctx, std::size_t header_columns, std::size_t row_cells);

/// Reads a cell of a role dmon and pmon share: the GPU index into `gpu`, a metric into the
/// event, a column this version does not know kept by its name; other roles are the caller's.
/// False, with ctx.reason set, when the cell is not the number it should be.
bool read_shared_cell(const Column& col, std::string_view cell, ParseContext& ctx, std::int64_t& gpu);

}  // namespace gpucost::prep
