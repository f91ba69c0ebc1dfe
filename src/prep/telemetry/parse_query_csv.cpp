// nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits] (docs/formats.md, "nvidia-smi --query-gpu"):
//   timestamp, index, power.draw [W], utilization.gpu [%]
//   2024/06/12 14:22:18.123, 0, 245.32 W, 98 %
// Columns are mapped by header name; with noheader the names come from --fields.
#include "prep/cells.hpp"
#include "prep/parsers.hpp"
#include "prep/row_clock.hpp"
#include "query_fields.hpp"

#include <gpucost/core/civil_cache.hpp>
#include <gpucost/core/plain_decimal.hpp>
#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

namespace gpucost::prep {

namespace {

struct CsvColumn {
  std::string name;  // canonical property name
  std::string unit;  // from the header bracket, else the table's unit
  QueryRole role = QueryRole::other;
  Metric metric = Metric::count_;
  double scale = 1.0;   // header unit -> canonical unit
  int priority = 0;     // among the columns that feed one metric, the lowest wins
  bool primary = true;  // the best column of its metric in this header
  bool operator==(const CsvColumn&) const = default;
};

// Splits "power.draw [W]" into name and unit.
void split_header_cell(std::string_view cell, std::string_view& name, std::string_view& unit) {
  cell = text::trim(cell);
  unit = {};
  name = cell;
  const std::size_t lb = cell.rfind(" [");
  if (lb != std::string_view::npos && cell.back() == ']') {
    unit = cell.substr(lb + 2, cell.size() - lb - 3);
    name = text::trim(cell.substr(0, lb));
  }
}

// Factor from a header unit to the canonical unit of a metric; 0 when not convertible.
double unit_scale(std::string_view canonical, std::string_view unit) {
  if (unit.empty() || unit == canonical) return 1.0;
  if (canonical == "MiB") {
    if (unit == "KiB") return 1.0 / 1024;
    if (unit == "GiB") return 1024;
    if (unit == "MB") return 1.0;  // nvidia-smi's MB are MiB
  }
  if (canonical == "W" && unit == "mW") return 1e-3;
  if (canonical == "MHz" && unit == "GHz") return 1e3;
  if (canonical == "C" && unit == "°C") return 1.0;
  return 0.0;
}

bool is_null_marker(std::string_view v) {
  return v.empty() || v == "N/A" || (v.size() >= 2 && v.front() == '[' && v.back() == ']');
}

// Removes the unit nvidia-smi repeats after each value ("245.32 W", "11175 MiB", "0 us").
std::string_view strip_unit(std::string_view v, std::string_view unit) {
  const std::size_t n = unit.size();
  if (n == 0 || v.size() <= n + 1 || v[v.size() - n - 1] != ' ') return v;
  // Units are a few bytes: compared here rather than by a library call per cell.
  for (std::size_t i = 0; i < n; ++i)
    if (v[v.size() - n + i] != unit[i]) return v;
  return text::rtrim(v.substr(0, v.size() - n - 1));
}

bool looks_like_header_cell(std::string_view cell) {
  std::string_view name, unit;
  split_header_cell(cell, name, unit);
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || text::is_digit(c) || c == '.' || c == '_';
    if (!ok) return false;
  }
  return !text::is_digit(name.front());
}

void split_cells(std::string_view line, std::vector<std::string_view>& out) { split_trimmed(line, ',', out); }

// A header line: every cell is a property name ("power.draw [W]") and one is a known property.
// Before any column is known, a line of several name-like cells is taken as a header too.
bool looks_like_header(const std::vector<std::string_view>& cells, bool have_columns) {
  // Property names start with a letter; data rows mostly start with a digit (timestamp, index).
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (cells.empty() || cells[0].empty() || !letter(cells[0][0])) return false;
  std::size_t known = 0;
  for (std::string_view c : cells) {
    if (!looks_like_header_cell(c)) return false;
    std::string_view name, unit;
    split_header_cell(c, name, unit);
    if (find_query_field(name) != nullptr) ++known;
  }
  return known > 0 || (!have_columns && cells.size() > 1);
}

// Rows without a timestamp or an index: which GPU a row is and which sample it belongs to,
// from the identities (bus id, uuid, name) of the rows before.
struct RowIdentities {
  std::vector<std::string> seen, order;  // identities in this sample (the first seen_count) / in the file
  std::size_t seen_count = 0;
  std::uint64_t sample = 0;
  std::int32_t gpu_of_row = 0;  // the ordinal of the row's identity in order of first appearance

  // Sets gpu_of_row; a GPU identity seen twice starts a new sample.
  void note(std::string_view identity) {
    const auto seen_end = seen.begin() + static_cast<std::ptrdiff_t>(seen_count);
    if (identity.empty() || std::find(seen.begin(), seen_end, identity) != seen_end) {
      if (seen_count > 0) ++sample;
      seen_count = 0;
    }
    if (seen_count == seen.size()) seen.emplace_back();
    seen[seen_count++].assign(identity);  // reuses the string's capacity: no allocation
    auto it = std::find(order.begin(), order.end(), identity);
    if (it == order.end()) {
      order.emplace_back(identity);  // once per GPU
      it = order.end() - 1;
    }
    gpu_of_row = static_cast<std::int32_t>(it - order.begin());
  }
  // What the next row reads (gpu_of_row is written before it is read).
  bool operator==(const RowIdentities& o) const {
    return seen_count == o.seen_count && sample == o.sample && order == o.order &&
           std::equal(seen.begin(), seen.begin() + static_cast<std::ptrdiff_t>(seen_count), o.seen.begin());
  }
};

class QueryCsvParser final : public LineParser {
 public:
  QueryCsvParser(ParseContext& ctx) : m_clock(ctx.options, ctx.clock, ctx.stats) {}
  /// A chunk's copy (prep -j): the state of `o`, which it remembers as its start.
  QueryCsvParser(const QueryCsvParser& o, ParseContext& ctx)
      : m_clock(o.m_clock, ctx.options, ctx.clock, ctx.stats),
        m_cols(o.m_cols),
        m_ids(o.m_ids),
        m_has_timestamp(o.m_has_timestamp),
        m_start_cols(o.m_cols),
        m_start_ids(o.m_ids),
        m_start_has_timestamp(o.m_has_timestamp) {}

  [[nodiscard]] std::unique_ptr<LineParser> clone(ParseContext& ctx) const override {
    return std::make_unique<QueryCsvParser>(*this, ctx);
  }

  // The columns carry over (a header repeated inside the file is the same one); the identities
  // only when some row of the chunk had no timestamp or no index.
  bool continue_with(LineParser& other) override {
    auto& chunk = static_cast<QueryCsvParser&>(other);
    if (chunk.m_start_cols != m_cols || chunk.m_start_has_timestamp != m_has_timestamp) return false;
    if (chunk.m_ids_read && !(chunk.m_start_ids == m_ids)) return false;
    if (!m_clock.can_continue_with(chunk.m_clock)) return false;
    m_cols = std::move(chunk.m_cols);
    m_has_timestamp = chunk.m_has_timestamp;
    if (chunk.m_ids_read) m_ids = std::move(chunk.m_ids);
    m_clock.continue_with(chunk.m_clock);
    return true;
  }

  /// Builds the columns from a header line or a --fields list.
  void set_columns(std::string_view list, bool from_header) {
    m_cols.clear();
    m_has_timestamp = false;
    std::vector<std::string_view> cells;
    split_cells(list, cells);
    std::array<int, kMetricCount> best_priority;
    best_priority.fill(1 << 30);
    std::vector<const QueryField*> infos;
    for (std::string_view cell : cells) {
      std::string_view name, unit;
      split_header_cell(cell, name, unit);
      const QueryField* f = find_query_field(name);
      CsvColumn col;
      col.name = std::string(f != nullptr ? f->name : name);  // aliases print as canonical names
      col.unit = std::string(!unit.empty() || from_header ? unit : (f != nullptr ? f->unit : ""));
      if (f != nullptr) {
        col.role = f->role;
        col.metric = f->metric;
        if (f->role == QueryRole::metric) {
          col.scale = unit_scale(f->unit, unit);
          if (col.scale == 0.0) col.role = QueryRole::other;  // unknown unit: keep the raw value
        }
      }
      if (f != nullptr && col.role == QueryRole::metric) {
        col.priority = f->priority;
        auto& best = best_priority[static_cast<std::size_t>(f->metric)];
        best = std::min(best, f->priority);
      }
      infos.push_back(f);
      m_cols.push_back(std::move(col));
    }
    // Several properties can feed one metric (power.draw, power.draw.average, ...): the best
    // one in the header is the primary; the others are kept as plain fields and fill the metric
    // only in rows where the better ones are null.
    for (std::size_t i = 0; i < m_cols.size(); ++i) {
      CsvColumn& col = m_cols[i];
      if (col.role == QueryRole::metric)
        col.primary = infos[i]->priority == best_priority[static_cast<std::size_t>(col.metric)];
      if (col.role == QueryRole::timestamp) m_has_timestamp = true;
    }
  }

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    m_name_identity = {};
    const std::string_view body = text::rtrim(line);
    if (body.empty()) return LineResult::ignored;
    split_cells(body, m_cells);
    // The first line, or the header again when a loop is restarted into the same file.
    if (looks_like_header(m_cells, !m_cols.empty())) {
      set_columns(body, true);
      return LineResult::ignored;
    }
    if (m_cols.empty()) return ctx.malformed("no header line and no --fields");
    if (m_cells.size() != m_cols.size()) {
      ctx.reason_buf = fmt::format("expected {} as in the header, found {}",
                                   text::counted(static_cast<long long>(m_cols.size()), "field"), m_cells.size());
      return ctx.malformed(ctx.reason_buf);
    }
    Event& ev = ctx.event;
    ev.reset();
    ev.source = "query-csv";
    ev.kind = "sample";
    std::string_view identity, index_cell, ts_cell;
    for (std::size_t i = 0; i < m_cols.size(); ++i) {
      const CsvColumn& col = m_cols[i];
      std::string_view v = m_cells[i];
      if (is_null_marker(v)) continue;
      v = strip_unit(v, col.unit);
      switch (col.role) {
        case QueryRole::timestamp: ts_cell = v; break;
        case QueryRole::index:
          index_cell = v;
          identity = v;
          break;
        case QueryRole::bus_id:
          ev.fields.push_back(Field{"pci_bus_id", v, false});
          if (index_cell.empty()) identity = v;
          break;
        case QueryRole::uuid:
          ev.fields.push_back(Field{"uuid", v, false});
          if (index_cell.empty() && identity.empty()) identity = v;
          break;
        case QueryRole::name:
          ev.fields.push_back(Field{"name", v, false});
          if (identity.empty()) m_name_identity = v;
          Fingerprint::add(ctx.stats.fingerprint.gpus, v);  // the model prices the speed ratio
          break;
        case QueryRole::text:
          ev.fields.push_back(Field{col.name, v, false});
          if (col.name == "driver_version") Fingerprint::add(ctx.stats.fingerprint.drivers, v);
          break;
        case QueryRole::metric: {
          double d = 0;
          bool json = false;
          const bool is_number = text::parse_plain_decimal(v, d, json) || text::parse_number(v, d, json);
          if (!col.primary) ev.fields.push_back(Field{col.name, v, is_number && json, true});
          if (!is_number) {
            if (!col.primary) break;  // a fallback property: kept as text only
            ctx.reason_buf = fmt::format("'{}' is not a number", col.name);
            return ctx.malformed(ctx.reason_buf);
          }
          const auto m = static_cast<std::size_t>(col.metric);
          if (ev.has(col.metric) && m_row_priority[m] <= col.priority) break;
          m_row_priority[m] = col.priority;
          const bool verbatim = col.scale == 1.0 && json;
          ev.set(col.metric, d * col.scale, verbatim ? v : std::string_view{});
          break;
        }
        case QueryRole::pstate: {
          // "P0".."P15"; P0 is the highest performance state.
          const auto n = v.size() > 1 && (v[0] == 'P' || v[0] == 'p') ? text::parse_int(v.substr(1)) : std::nullopt;
          if (n)
            ev.set(Metric::pstate, static_cast<double>(*n), v.substr(1));
          else
            ev.fields.push_back(Field{col.name, v, false, true});
          break;
        }
        case QueryRole::hex_mask: {
          const auto mask = text::parse_hex(v);
          if (mask)
            ev.set(Metric::throttle_mask, static_cast<double>(*mask));
          else
            ev.fields.push_back(Field{col.name, v, false, true});
          break;
        }
        case QueryRole::other: ev.fields.push_back(Field{col.name, v, text::is_json_number(v), true}); break;
      }
    }
    if (identity.empty()) identity = m_name_identity;
    // GPU: the index column, else the order in which bus ids/uuids first appear, else the
    // position of the row within its sample.
    // (With both an index and a timestamp nothing needs tracking: the common fast case.)
    if (!m_has_timestamp || index_cell.empty()) {
      m_ids.note(identity);
      m_ids_read = true;
    }
    if (!index_cell.empty()) {
      const auto g = text::parse_int(index_cell);
      if (!g || *g < 0 || *g > 1'000'000) return ctx.malformed("index is not a GPU number");
      ev.gpu = static_cast<std::int32_t>(*g);
    } else {
      ev.gpu = m_ids.gpu_of_row;
    }
    if (m_has_timestamp) {
      if (ts_cell.empty()) return ctx.malformed("timestamp is missing");
      const auto wall_ns = m_stamps.wall_ns(ts_cell);
      if (!wall_ns) return ctx.malformed("bad timestamp (expected YYYY/MM/DD HH:MM:SS.mmm)");
      ev.ts_ns = m_clock.local_ts(*wall_ns);
    } else {
      ev.ts_ns = m_clock.cycle_ts(m_ids.sample);
    }
    ctx.emit();
    return LineResult::event;
  }

 private:
  RowClock m_clock;
  std::vector<CsvColumn> m_cols;
  RowIdentities m_ids;
  bool m_has_timestamp = false;
  // A chunk's copy (prep -j): the state it started from, and whether a row read the identities.
  std::vector<CsvColumn> m_start_cols;
  RowIdentities m_start_ids;
  bool m_start_has_timestamp = false;
  bool m_ids_read = false;
  // Scratch of one row.
  std::vector<std::string_view> m_cells;
  std::array<int, kMetricCount> m_row_priority{};  // priority of the column that set each metric
  std::string_view m_name_identity;
  CivilStampCache m_stamps;
};

}  // namespace

Status check_query_csv_head(std::string_view first_line, const PrepOptions& options, const std::string& path) {
  if (!options.fields.empty() || first_line.empty()) return {};
  std::vector<std::string_view> cells;
  split_cells(first_line, cells);
  if (looks_like_header(cells, false)) return {};
  return make_error(ErrorKind::format, fmt::format("{}: CSV without a header line and no --fields", path),
                    "for `nvidia-smi --query-gpu=... --format=csv,noheader` pass --fields with the "
                    "--query-gpu list, e.g. --fields timestamp,index,power.draw");
}

Expected<std::unique_ptr<LineParser>> make_query_csv_parser(ParseContext& ctx, std::string_view head) {
  GPUCOST_TRY(check_query_csv_head(first_nonblank_line(head), ctx.options, ctx.stats.path));
  auto parser = std::make_unique<QueryCsvParser>(ctx);
  if (!ctx.options.fields.empty()) parser->set_columns(ctx.options.fields, false);
  return std::unique_ptr<LineParser>(std::move(parser));
}

}  // namespace gpucost::prep
