#include "smi_table.hpp"

#include "prep/cells.hpp"

#include <gpucost/core/text.hpp>

#include <array>
#include <utility>

namespace gpucost::prep {

void split_tokens(std::string_view line, bool csv, std::vector<std::string_view>& out) {
  if (!csv) {
    split_blank(line, out);
    return;
  }
  split_trimmed(line, ',', out);
  if (!out.empty() && out.back().empty()) out.pop_back();  // a trailing comma
}

std::string_view token_at(std::string_view line, bool csv, std::size_t index) {
  std::size_t pos = 0;
  if (!csv) {
    std::string_view tok;
    for (std::size_t i = 0; i <= index; ++i) tok = text::next_token(line, pos);
    return tok;
  }
  for (std::size_t i = 0; i < index; ++i) {
    pos = line.find(',', pos);
    if (pos == std::string_view::npos) return {};
    ++pos;
  }
  return text::trim(line.substr(pos, line.find(',', pos) - pos));
}

bool smi_column_metric(std::string_view name, Metric& out) {
  // dmon -s groups: p (pwr gtemp mtemp | old: pwr temp), u (sm mem enc dec [jpg ofa]),
  // c (mclk pclk), v (pviol tviol), m (fb bar1 [ccpm]), e (sbecc dbecc pci), t (rxpci txpci).
  static constexpr std::array<std::pair<std::string_view, Metric>, 22> kMap = {{
      {"pwr", Metric::power_w},       {"gtemp", Metric::temp_c},       {"temp", Metric::temp_c},
      {"mtemp", Metric::mem_temp_c},  {"sm", Metric::sm_pct},          {"mem", Metric::mem_pct},
      {"enc", Metric::enc_pct},       {"dec", Metric::dec_pct},        {"jpg", Metric::jpg_pct},
      {"ofa", Metric::ofa_pct},       {"mclk", Metric::mclk_mhz},      {"pclk", Metric::pclk_mhz},
      {"pviol", Metric::pviol_pct},   {"tviol", Metric::tviol_pct},    {"fb", Metric::fb_mib},
      {"bar1", Metric::bar1_mib},     {"ccpm", Metric::ccpm_mib},      {"sbecc", Metric::sbecc_count},
      {"dbecc", Metric::dbecc_count}, {"pci", Metric::pcie_err_count}, {"rxpci", Metric::rxpci_mb_s},
      {"txpci", Metric::txpci_mb_s},
  }};
  for (const auto& [key, metric] : kMap) {
    if (text::iequals(key, name)) {
      out = metric;
      return true;
    }
  }
  return false;
}

namespace {

bool is_name_line_start(std::string_view first) {
  return text::iequals(first, "gpu") || text::iequals(first, "date") || text::iequals(first, "time");
}
bool is_unit_line_start(std::string_view first) {
  return text::iequals(first, "idx") || first == "YYYYMMDD" || first == "HH:MM:SS";
}

}  // namespace

bool SmiTable::read_non_data_line(std::string_view body, bool pmon) {
  if (body.empty()) return true;
  if (body.front() != '#') return false;
  on_hash_line(body, pmon);
  return true;
}

void SmiTable::on_hash_line(std::string_view line, bool pmon) {
  std::string_view body = line.substr(line.find('#') + 1);
  const bool csv = body.find(',') != std::string_view::npos;
  std::vector<std::string_view> tokens;
  split_tokens(body, csv, tokens);
  if (tokens.empty()) return;
  if (is_name_line_start(tokens.front())) {
    m_columns.clear();
    m_csv = csv;
    m_date = m_time = m_gpu = -1;
    for (std::string_view tok : tokens) {
      Column col;
      col.name = std::string(tok);
      Metric m{};
      if (text::iequals(tok, "date")) {
        col.role = ColumnRole::date;
        m_date = static_cast<int>(m_columns.size());
      } else if (text::iequals(tok, "time")) {
        col.role = ColumnRole::time;
        m_time = static_cast<int>(m_columns.size());
      } else if (text::iequals(tok, "gpu")) {
        col.role = ColumnRole::gpu;
        if (m_gpu < 0) m_gpu = static_cast<int>(m_columns.size());
      } else if (pmon && text::iequals(tok, "pid")) {
        col.role = ColumnRole::pid;
      } else if (pmon && text::iequals(tok, "type")) {
        col.role = ColumnRole::type;
      } else if (pmon && text::iequals(tok, "command")) {
        col.role = ColumnRole::command;
      } else if (smi_column_metric(tok, m)) {
        col.role = ColumnRole::metric;
        col.metric = m;
      }
      m_columns.push_back(std::move(col));
    }
    m_expect_units = true;
    return;
  }
  if (is_unit_line_start(tokens.front())) {
    // A unit line belongs to the name line right before it; otherwise it is ignored.
    if (m_expect_units) {
      // pmon's unit line has "#" under pid and "name" under command: it has one token per column.
      for (std::size_t i = 0; i < tokens.size() && i < m_columns.size(); ++i)
        m_columns[i].unit = std::string(tokens[i]);
    }
    m_expect_units = false;
    return;
  }
  m_expect_units = false;  // any other '#' line is a comment
}

bool row_time(const SmiTable& table, const std::vector<std::string_view>& tokens, std::uint64_t cycle, RowClock& clock,
              std::int64_t& ts_ns) {
  const int dcol = table.date_col();
  const int tcol = table.time_col();
  if (dcol >= 0 && tcol >= 0) {
    auto date = parse_civil_date(tokens[static_cast<std::size_t>(dcol)]);
    if (!date || !parse_clock_time(tokens[static_cast<std::size_t>(tcol)], *date)) return false;
    ts_ns = clock.local_ts(*date);
    return true;
  }
  if (tcol >= 0) return clock.time_of_day_ts(tokens[static_cast<std::size_t>(tcol)], ts_ns);
  if (dcol >= 0) {
    const auto date = parse_civil_date(tokens[static_cast<std::size_t>(dcol)]);
    if (!date) return false;
    ts_ns = clock.date_cycle_ts(*date, cycle);
    return true;
  }
  ts_ns = clock.cycle_ts(cycle);
  return true;
}

LineResult column_count_mismatch(ParseContext& ctx, std::size_t header_columns, std::size_t row_cells) {
  ctx.reason_buf =
      "expected " + std::to_string(header_columns) + " columns as in the header, found " + std::to_string(row_cells);
  return ctx.malformed(ctx.reason_buf);
}

bool read_shared_cell(const Column& col, std::string_view cell, ParseContext& ctx, std::int64_t& gpu) {
  switch (col.role) {
    case ColumnRole::gpu: {
      const auto g = text::parse_int(cell);
      if (!g || *g < 0 || *g > 1'000'000) {
        ctx.malformed("gpu index is not a number");
        return false;
      }
      gpu = *g;
      return true;
    }
    case ColumnRole::metric:
      if (!set_metric_cell(ctx.event, col.metric, cell)) {
        ctx.reason_buf = "column '" + col.name + "' is not a number";
        ctx.malformed(ctx.reason_buf);
        return false;
      }
      return true;
    case ColumnRole::extra:  // a column this version does not know: kept by its name
      if (cell != "-") ctx.event.fields.push_back(Field{col.name, cell, text::is_json_number(cell), true});
      return true;
    default: return true;
  }
}

}  // namespace gpucost::prep
