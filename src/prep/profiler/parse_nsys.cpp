// Nsight Systems summaries: `nsys stats` / `nsys profile --stats=true` (docs/formats.md, "Nsight Systems summaries").
//   [6/8] Executing 'cuda_gpu_kern_sum' stats report          (or " ** ... (cuda_gpu_kern_sum):")
//
//    Time (%)  Total Time (ns)  Instances  Avg (ns)  ...  StdDev (ns)            Name
//    --------  ---------------  ---------  --------  ...  -----------  ------------------------
//       100.0        1,831,281      1,010   1,813.1  ...         93.3  vectorAdd(const float *, ...)
// Legacy 2020.x names its tables by section titles ("CUDA Kernel Statistics:") and prints
// "Time(%)", "Average", ... without units (ns; KiB in the by-size table); `--format csv` prints
// the same columns comma-separated. Columns are mapped by title, units come from the title, the
// last (free-text) column runs to the end of the line. Every line outside a table (progress,
// program output, SKIPPED, Generated:) is ignored. The summaries carry no clock: every event is
// at --start (else the relative clock's epoch).
#include "dash_rule.hpp"
#include "decimal.hpp"
#include "prep/parsers.hpp"
#include "prep/row_clock.hpp"

#include <gpucost/core/text.hpp>

#include <array>
#include <string>
#include <vector>

namespace gpucost::prep {

namespace {

enum class Report : std::uint8_t { none, kernel, mem_time, mem_size, api, nvtx, other };

struct ReportId {
  std::string_view id;
  Report report;
};

// Report script names of nsys >= 2022 and the 2021 spellings.
constexpr std::array<ReportId, 13> kReportIds = {{
    {"cuda_gpu_kern_sum", Report::kernel},
    {"gpukernsum", Report::kernel},
    {"cuda_gpu_mem_time_sum", Report::mem_time},
    {"gpumemtimesum", Report::mem_time},
    {"cuda_gpu_mem_size_sum", Report::mem_size},
    {"gpumemsizesum", Report::mem_size},
    {"cuda_api_sum", Report::api},
    {"cudaapisum", Report::api},
    {"nvtx_sum", Report::nvtx},
    {"nvtxsum", Report::nvtx},
    {"nvtx_pushpop_sum", Report::nvtx},
    {"nvtxppsum", Report::nvtx},
    {"nvtx_startend_sum", Report::nvtx},
}};

struct LegacyTitle {
  std::string_view title;
  std::string_view id;  ///< the report id of nsys >= 2022 for the same table
};

// nsys 2020.x section titles.
constexpr std::array<LegacyTitle, 7> kLegacyTitles = {{
    {"CUDA API Statistics:", "cuda_api_sum"},
    {"CUDA Kernel Statistics:", "cuda_gpu_kern_sum"},
    {"CUDA Memory Operation Statistics (by time):", "cuda_gpu_mem_time_sum"},
    {"CUDA Memory Operation Statistics (by size in KiB):", "cuda_gpu_mem_size_sum"},
    {"NVTX Push-Pop Range Statistics:", "nvtx_pushpop_sum"},
    {"NVTX Start-End Range Statistics:", "nvtx_startend_sum"},
    {"Operating System Runtime API Statistics:", "osrt_sum"},
}};

Report report_of(std::string_view id) {
  for (const ReportId& r : kReportIds)
    if (r.id == id) return r.report;
  return id.empty() ? Report::none : Report::other;
}

std::string_view kind_of(Report r) {
  switch (r) {
    case Report::kernel: return "nsys_kernel";
    case Report::mem_time: return "nsys_memop_time";
    case Report::mem_size: return "nsys_memop_size";
    case Report::api: return "nsys_api";
    case Report::nvtx: return "nsys_nvtx";
    case Report::none:
    case Report::other: break;
  }
  return "nsys_row";
}

bool is_report_id(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id)
    if (!((c >= 'a' && c <= 'z') || text::is_digit(c) || c == '_')) return false;
  return true;
}

// "/opt/nvidia/.../reports/cuda_gpu_kern_sum.py" -> "cuda_gpu_kern_sum".
std::string_view script_id(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  if (slash != std::string_view::npos) path = path.substr(slash + 1);
  if (path.ends_with(".py")) path.remove_suffix(3);
  const std::size_t space = path.find(' ');  // "Running [cudaapisum.py report.sqlite]"
  if (space != std::string_view::npos) path = path.substr(0, space);
  if (path.ends_with(".py")) path.remove_suffix(3);
  return path;
}

// The report a line announces, or empty: "[3/8] Executing 'nvtx_sum' stats report",
// " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):", "Processing [f.sqlite] with [r.py]...",
// "Running [r.py f.sqlite]...", a legacy section title.
std::string_view announced_report(std::string_view body) {
  if (body.front() == '[' && body.ends_with("' stats report")) {
    const std::size_t q = body.find("] Executing '");
    if (q == std::string_view::npos) return {};
    const std::size_t b = q + 13;
    return b + 14 <= body.size() ? body.substr(b, body.size() - 14 - b) : std::string_view{};
  }
  if (body.starts_with("** ") && body.ends_with("):")) {
    const std::size_t open = body.rfind('(');
    const std::string_view id = body.substr(open + 1, body.size() - 2 - (open + 1));
    return is_report_id(id) ? id : std::string_view{};
  }
  if (body.starts_with("Processing [")) {
    const std::size_t with = body.find("] with [");
    if (with == std::string_view::npos) return {};
    const std::size_t b = with + 8;
    const std::size_t e = body.find(']', b);
    return e == std::string_view::npos ? std::string_view{} : script_id(body.substr(b, e - b));
  }
  if (body.starts_with("Running [")) {
    const std::size_t e = body.find(']');
    return e == std::string_view::npos ? std::string_view{} : script_id(body.substr(9, e - 9));
  }
  for (const LegacyTitle& t : kLegacyTitles)
    if (body == t.title) return t.id;
  return {};
}

// ---- columns ----

enum class ColType : std::uint8_t { percent, time, size, count, text, unknown };

struct Column {
  ColType type = ColType::unknown;
  std::string_view key;  ///< static key; empty: the title is the key (an "extra" field)
  std::string title;
  int time_shift = 0;         ///< time columns: the unit's power of ten in ns (us = 3)
  std::int64_t byte_mul = 1;  ///< size columns: bytes per unit
  [[nodiscard]] std::string_view field_key() const { return key.empty() ? std::string_view(title) : key; }
};

enum class Stat : std::uint8_t { total, avg, med, min, max, stddev };
constexpr std::string_view kStatNs[] = {"total_ns", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns"};
constexpr std::string_view kStatBytes[] = {"total_bytes", "avg_bytes", "med_bytes",
                                           "min_bytes",   "max_bytes", "stddev_bytes"};

bool stat_of(std::string_view stem, Stat& out) {
  struct Name {
    std::string_view name;
    Stat stat;
  };
  constexpr Name kNames[] = {{"Total", Stat::total},   {"Avg", Stat::avg},       {"Average", Stat::avg},
                             {"Med", Stat::med},       {"Median", Stat::med},    {"Min", Stat::min},
                             {"Minimum", Stat::min},   {"Max", Stat::max},       {"Maximum", Stat::max},
                             {"StdDev", Stat::stddev}, {"Std Dev", Stat::stddev}};
  for (const Name& n : kNames) {
    if (n.name == stem) {
      out = n.stat;
      return true;
    }
  }
  return false;
}

bool time_unit(std::string_view unit, int& shift) {
  constexpr std::pair<std::string_view, int> kUnits[] = {{"ns", 0}, {"us", 3}, {"ms", 6}, {"s", 9}};
  for (const auto& [name, s] : kUnits) {
    if (unit == name) {
      shift = s;
      return true;
    }
  }
  return false;
}

bool size_unit(std::string_view unit, std::int64_t& mul) {
  constexpr std::pair<std::string_view, std::int64_t> kUnits[] = {
      {"B", 1},         {"KB", 1000},     {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
      {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}};
  for (const auto& [name, m] : kUnits) {
    if (unit == name) {
      mul = m;
      return true;
    }
  }
  return false;
}

// A title split into its words and the unit in parentheses: "Avg (ns)" -> "Avg", "ns";
// "Time(%)" -> "Time", "%".
void split_title(std::string_view title, std::string_view& stem, std::string_view& unit) {
  stem = title;
  unit = {};
  const std::size_t open = title.rfind('(');
  if (open != std::string_view::npos && title.ends_with(")")) {
    unit = text::trim(title.substr(open + 1, title.size() - 2 - open));
    stem = text::trim(title.substr(0, open));
  }
}

// Maps one title; `sizes_in_kib`: a unit-less size column (legacy by-size table) is KiB.
Column column_of(std::string_view title, bool sizes_in_kib) {
  Column col;
  std::string_view stem, unit;
  split_title(title, stem, unit);
  Stat stat = Stat::total;
  int shift = 0;
  std::int64_t mul = 1;
  if (stem == "Time" && unit == "%") {
    col.type = ColType::percent;
    col.key = "time_pct";
  } else if (stem == "Total Time" && (unit.empty() || time_unit(unit, shift))) {
    col.type = ColType::time;
    col.key = "total_ns";
    col.time_shift = shift;
  } else if (stat_of(stem, stat) && time_unit(unit, shift)) {
    col.type = ColType::time;
    col.key = kStatNs[static_cast<std::size_t>(stat)];
    col.time_shift = shift;
  } else if (stat_of(stem, stat) && (size_unit(unit, mul) || (unit.empty() && sizes_in_kib))) {
    col.type = ColType::size;
    col.key = kStatBytes[static_cast<std::size_t>(stat)];
    col.byte_mul = unit.empty() ? 1024 : mul;
  } else if (stat_of(stem, stat) && unit.empty() && stat != Stat::total) {  // legacy: ns
    col.type = ColType::time;
    col.key = kStatNs[static_cast<std::size_t>(stat)];
  } else if (unit.empty()) {
    constexpr std::pair<std::string_view, std::string_view> kCounts[] = {{"Instances", "instances"},
                                                                         {"Num Calls", "calls"},
                                                                         {"Calls", "calls"},
                                                                         {"Count", "count"},
                                                                         {"Operations", "count"}};
    constexpr std::pair<std::string_view, std::string_view> kTexts[] = {
        {"Name", "name"}, {"Operation", "operation"}, {"Range", "range"}, {"Style Range", "range"}, {"Style", "style"}};
    for (const auto& [t, k] : kCounts)
      if (stem == t) col.type = ColType::count, col.key = k;
    for (const auto& [t, k] : kTexts)
      if (stem == t) col.type = ColType::text, col.key = k;
  }
  if (col.type == ColType::unknown) col.title = std::string(title.empty() ? std::string_view("column") : title);
  return col;
}

// "[CUDA memcpy HtoD]", "[CUDA memcpy Host-to-Device]", "[CUDA memset]" -> h2d, ..., memset.
std::string_view direction_of(std::string_view op) {
  constexpr std::pair<std::string_view, std::string_view> kDirections[] = {
      {"HtoD", "h2d"}, {"Host-to-Device", "h2d"},   {"DtoH", "d2h"},     {"Device-to-Host", "d2h"},
      {"DtoD", "d2d"}, {"Device-to-Device", "d2d"}, {"HtoH", "h2h"},     {"Host-to-Host", "h2h"},
      {"PtoP", "p2p"}, {"Peer-to-Peer", "p2p"},     {"memset", "memset"}};
  for (const auto& [word, dir] : kDirections)
    if (op.find(word) != std::string_view::npos) return dir;
  return {};
}

// Splits one CSV line; a quoted cell may hold commas and doubled quotes ("" -> " is undone by
// the caller with `needs_unquote`). False on an unterminated quote.
bool split_csv(std::string_view line, std::vector<std::string_view>& cells, std::vector<bool>& escaped) {
  cells.clear();
  escaped.clear();
  std::size_t i = 0;
  for (;;) {
    if (i < line.size() && line[i] == '"') {
      const std::size_t b = ++i;
      bool doubled = false;
      for (;;) {
        const std::size_t q = line.find('"', i);
        if (q == std::string_view::npos) return false;
        if (q + 1 < line.size() && line[q + 1] == '"') {
          doubled = true;
          i = q + 2;
          continue;
        }
        cells.push_back(line.substr(b, q - b));
        escaped.push_back(doubled);
        i = q + 1;
        break;
      }
      while (i < line.size() && line[i] != ',') ++i;  // stray text after the quote: dropped
    } else {
      const std::size_t comma = line.find(',', i);
      const std::size_t e = comma == std::string_view::npos ? line.size() : comma;
      cells.push_back(text::trim(line.substr(i, e - i)));
      escaped.push_back(false);
      i = e;
    }
    if (i >= line.size()) return true;
    ++i;  // the comma
  }
}

class NsysParser final : public LineParser {
 public:
  explicit NsysParser(ParseContext& ctx) : m_clock(ctx.options, ctx.clock, ctx.stats) {}

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    const std::string_view body = text::trim(line);
    if (body.empty()) {
      m_table = Table::none;
      m_prev.clear();
      return LineResult::ignored;
    }
    const std::string_view announced = announced_report(body);
    if (!announced.empty()) {
      set_report(announced);
      return LineResult::ignored;
    }
    if (body.starts_with("SKIPPED:") || body.starts_with("Generated:")) {
      m_table = Table::none;
      return LineResult::ignored;
    }
    if (m_table == Table::text) return text_row(line, ctx);
    if (m_table == Table::csv && body.find(',') == std::string_view::npos) m_table = Table::none;
    if (body.find(',') != std::string_view::npos && csv_header(body)) return LineResult::ignored;
    if (m_table == Table::csv) return csv_row(body, ctx);
    if (!m_prev.empty() && parse_dash_rule(line, m_spans) && text_header()) return LineResult::ignored;
    m_prev.assign(line);  // a header when the next line is a rule; else program output, progress
    return LineResult::ignored;
  }

 private:
  enum class Table : std::uint8_t { none, text, csv };

  void set_report(std::string_view id) {
    m_report_id.assign(id);
    m_report = report_of(id);
    m_table = Table::none;
  }

  // ---- headers ----

  // The line before a dash rule, sliced by the rule's spans.
  bool text_header() {
    slice_by_spans(m_prev, m_spans, m_cells);
    if (!set_columns(m_cells)) return false;
    m_table = Table::text;
    m_prev.clear();
    return true;
  }

  bool csv_header(std::string_view body) {
    if (!split_csv(body, m_cells, m_escaped) || m_cells.size() < 3) return false;
    if (!set_columns(m_cells)) return false;
    m_table = Table::csv;
    return true;
  }

  // A header: at least three titles, most of them known, one a time or a size column.
  bool set_columns(const std::vector<std::string_view>& titles) {
    if (titles.size() < 3) return false;
    std::size_t known = 0;
    bool measure = false;
    m_pending.clear();
    for (const std::string_view t : titles) {
      m_pending.push_back(column_of(t, m_report == Report::mem_size));
      const Column& c = m_pending.back();
      known += c.type != ColType::unknown ? 1 : 0;
      measure = measure || c.type == ColType::time || c.type == ColType::size;
    }
    if (!measure || known * 2 < titles.size() + 1) return false;
    m_columns.swap(m_pending);
    m_kind_report = m_report;
    if (m_kind_report == Report::none || m_kind_report == Report::other) m_kind_report = infer_report();
    return true;
  }

  // A table without a known report id: its kind from its columns, where they tell.
  Report infer_report() const {
    bool operation = false, range = false, size = false;
    for (const Column& c : m_columns) {
      operation = operation || c.key == "operation";
      range = range || c.key == "range";
      size = size || c.type == ColType::size;
    }
    if (m_report == Report::other) return Report::other;
    if (operation) return size ? Report::mem_size : Report::mem_time;
    return range ? Report::nvtx : Report::none;
  }

  // ---- rows ----

  LineResult text_row(std::string_view line, ParseContext& ctx) {
    slice_by_spans(line, m_spans, m_cells);
    m_escaped.assign(m_cells.size(), false);
    return row(ctx);
  }

  LineResult csv_row(std::string_view body, ParseContext& ctx) {
    if (!split_csv(body, m_cells, m_escaped)) return ctx.malformed("nsys CSV row with an unterminated quote");
    if (m_cells.size() != m_columns.size()) {
      ctx.reason_buf = "expected " + std::to_string(m_columns.size()) + " CSV cells as in the header, found " +
                       std::to_string(m_cells.size());
      return ctx.malformed(ctx.reason_buf);
    }
    return row(ctx);
  }

  LineResult row(ParseContext& ctx) {
    Event& ev = ctx.event;
    ev.reset();
    ev.source = "nsys";
    ev.kind = kind_of(m_kind_report);
    ev.gpu = -1;
    if (!m_report_id.empty()) ev.add_text("report", m_report_id);
    for (std::size_t i = 0; i < m_columns.size(); ++i)
      if (!add_cell(m_columns[i], m_cells[i], m_escaped[i], ev, ctx)) return LineResult::malformed;
    if (m_kind_report == Report::mem_time || m_kind_report == Report::mem_size) {
      for (const Field& f : ev.fields) {
        if (f.key != "operation" && f.key != "name") continue;  // 2020.x memory tables say "Name"
        if (const std::string_view dir = direction_of(f.value); !dir.empty()) ev.add_text("direction", dir);
        break;
      }
    }
    ev.ts_ns = m_clock.start_ts();
    ctx.emit();
    return LineResult::event;
  }

  bool add_cell(const Column& col, std::string_view cell, bool escaped, Event& ev, ParseContext& ctx) {
    const std::string_view key = col.field_key();
    if (col.type == ColType::text || col.type == ColType::unknown) {
      if (cell.empty()) return true;
      const std::string_view value = escaped ? unquote(cell, ev) : cell;
      Decimal d;
      const bool number = col.type == ColType::unknown && parse_decimal(value, d, true) && decimal_text(d, 0, m_buf);
      ev.fields.push_back(number ? Field{key, ev.own(m_buf), true, true}
                                 : Field{key, value, false, col.type == ColType::unknown});
      return true;
    }
    Decimal d;
    if (!parse_decimal(cell, d, true)) return bad_cell(key, cell, ctx);
    switch (col.type) {
      case ColType::size: {
        std::int64_t bytes = 0;
        if (!scale_decimal(d, col.byte_mul, 1, bytes)) return bad_cell(key, cell, ctx);
        ev.add_number(key, bytes);
        return true;
      }
      case ColType::count:
        if (d.frac_digits != 0) return bad_cell(key, cell, ctx);
        ev.add_number(key, d.mantissa);
        return true;
      case ColType::time:
      case ColType::percent:
        if (!decimal_text(d, col.type == ColType::time ? col.time_shift : 0, m_buf)) return bad_cell(key, cell, ctx);
        ev.fields.push_back(Field{key, ev.own(m_buf), true, false});
        return true;
      case ColType::text:
      case ColType::unknown: break;
    }
    return true;
  }

  // A quoted CSV cell with doubled quotes, undone into storage of the event.
  std::string_view unquote(std::string_view cell, Event& ev) {
    m_buf.clear();
    for (std::size_t i = 0; i < cell.size(); ++i) {
      m_buf.push_back(cell[i]);
      if (cell[i] == '"' && i + 1 < cell.size() && cell[i + 1] == '"') ++i;
    }
    return ev.own(m_buf);
  }

  static bool bad_cell(std::string_view key, std::string_view cell, ParseContext& ctx) {
    ctx.reason_buf.clear();
    ctx.reason_buf.append("nsys ").append(key).append(" '").append(cell.substr(0, 40)).append("' is not a number");
    ctx.reason = ctx.reason_buf;
    return false;
  }

  RowClock m_clock;
  Table m_table = Table::none;
  Report m_report = Report::none;       ///< the report announced last
  Report m_kind_report = Report::none;  ///< the current table's report, inferred when unknown
  std::string m_report_id;
  std::string m_prev;  ///< the last non-blank line outside a table: a header if a rule follows
  std::string m_buf;
  std::vector<Span> m_spans;
  std::vector<Column> m_columns, m_pending;
  std::vector<std::string_view> m_cells;
  std::vector<bool> m_escaped;
};

// A header line of a summary table, text or CSV: "Time (%)  Total Time (ns) ...",
// "Time(%),Total Time (ns),...", "Total (MB),Count,...".
bool looks_like_header(std::string_view body) {
  return ((body.starts_with("Time (%)") || body.starts_with("Time(%)")) &&
          body.find("Total Time") != std::string_view::npos) ||
         body.starts_with("Total (MB)") || body.starts_with("Total (KiB)");
}

}  // namespace

Expected<std::unique_ptr<LineParser>> make_nsys_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<NsysParser>(ctx));
}

bool looks_like_nsys(std::string_view head) {
  std::size_t pos = 0;
  while (pos < head.size()) {
    const std::size_t nl = head.find('\n', pos);
    const std::string_view body = text::trim(head.substr(pos, nl == std::string_view::npos ? head.npos : nl - pos));
    if (!body.empty() && (!announced_report(body).empty() || looks_like_header(body) ||
                          body.find("/tmp/nsys-report-") != std::string_view::npos))
      return true;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return false;
}

}  // namespace gpucost::prep
