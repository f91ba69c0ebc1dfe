// PyTorch profiler tables, prof.key_averages().table(...) (docs/formats.md, "PyTorch profiler tables"):
//   -------------------------  ------------  ------------  ...  ------------
//                        Name    Self CPU %      Self CPU  ...    # of Calls
//   -------------------------  ------------  ------------  ...  ------------
//                aten::square         0.75%      12.979us  ...             1
//   -------------------------  ------------  ------------  ...  ------------
//   Self CPU time total: 1.720ms
//   Self CUDA time total: 1.763ms
// Column boundaries come from the dash rule (names may hold spaces); titles are matched by their
// words, not their position, because the legacy (torch <= 1.7, left-aligned, width 15) title
// "Self CPU total %" overflows its column. One profiler_op event per row (rows are never merged
// by name: the same name can be a CPU-side and a GPU-side row) and one profiler_total event per
// footer. A table has no clock: every event is at --start (else the relative clock's epoch).
#include "dash_rule.hpp"
#include "decimal.hpp"
#include "prep/parsers.hpp"
#include "prep/row_clock.hpp"

#include <gpucost/core/text.hpp>

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::prep {

namespace {

enum class CellType : std::uint8_t { name, text, time, percent, memory, integer, flops, unknown };

struct TitleSpec {
  std::string_view words;  ///< title words separated by one space; "DEV" = any device word
  CellType type;
  std::string_view key;  ///< field key
};

// Titles of torch.autograd.profiler_util._build_table (and the legacy <= 1.7 spellings).
constexpr std::array<TitleSpec, 28> kTitles = {{
    {"Name", CellType::name, "name"},
    {"Overload Name", CellType::text, "overload_name"},
    {"Self CPU %", CellType::percent, "self_cpu_pct"},
    {"Self CPU", CellType::time, "self_cpu_ns"},
    {"Self CPU total %", CellType::percent, "self_cpu_pct"},  // legacy
    {"Self CPU total", CellType::time, "self_cpu_ns"},        // legacy
    {"CPU total %", CellType::percent, "cpu_total_pct"},
    {"CPU total", CellType::time, "cpu_total_ns"},
    {"CPU time avg", CellType::time, "cpu_avg_ns"},
    {"CPU Mem", CellType::memory, "cpu_mem_bytes"},
    {"Self CPU Mem", CellType::memory, "self_cpu_mem_bytes"},
    {"Self DEV", CellType::time, "self_device_ns"},
    {"Self DEV %", CellType::percent, "self_device_pct"},
    {"Self DEV total %", CellType::percent, "self_device_pct"},  // legacy
    {"Self DEV total", CellType::time, "self_device_ns"},        // legacy
    {"DEV total %", CellType::percent, "device_total_pct"},
    {"DEV total", CellType::time, "device_total_ns"},
    {"DEV time avg", CellType::time, "device_avg_ns"},
    {"DEV Mem", CellType::memory, "device_mem_bytes"},
    {"Self DEV Mem", CellType::memory, "self_device_mem_bytes"},
    {"# of Calls", CellType::integer, "calls"},
    {"Number of Calls", CellType::integer, "calls"},  // legacy
    {"Node ID", CellType::integer, "node_id"},
    {"Input Shapes", CellType::text, "input_shapes"},
    {"Source Location", CellType::text, "source_location"},
    {"Total FLOPS", CellType::flops, "flops"},                // "FLOPS" = Total FLOPs, KFLOPs, ..., PFLOPs
    {"CPU Mem Total", CellType::memory, "cpu_mem_bytes"},     // legacy 1.6
    {"DEV Mem Total", CellType::memory, "device_mem_bytes"},  // legacy 1.6
}};

// A device word as torch prints it: use_device.upper() ("CUDA", "XPU", "MTIA", "PRIVATEUSE1").
bool is_device_word(std::string_view w) {
  if (w.empty() || w == "CPU") return false;
  for (char c : w)
    if (!((c >= 'A' && c <= 'Z') || text::is_digit(c) || c == '_')) return w == "None";
  return true;
}

// "FLOPs", "KFLOPs", ... "PFLOPs": the power of 1000 the column is scaled by, or -1.
int flops_power(std::string_view w) {
  constexpr std::string_view kPrefixes = "KMGTP";
  if (w == "FLOPs") return 0;
  if (w.size() != 6 || w.substr(1) != "FLOPs") return -1;
  const std::size_t p = kPrefixes.find(w[0]);
  return p == std::string_view::npos ? -1 : static_cast<int>(p) + 1;
}

struct Column {
  CellType type = CellType::unknown;
  std::string_view key;  ///< static key, or empty: use `title`
  std::string title;     ///< an unknown column's title, its field key under "extra"
  int flops_power = 0;
  [[nodiscard]] std::string_view field_key() const { return key.empty() ? std::string_view(title) : key; }
};

// How many words of `words` (from `at`) the spec matches, 0 when it does not; sets `device`.
std::size_t match_spec(const TitleSpec& spec, const std::vector<std::string_view>& words, std::size_t at,
                       std::string_view& device, int& power) {
  std::size_t pos = 0, n = 0;
  for (std::string_view w = text::next_token(spec.words, pos); !w.empty(); w = text::next_token(spec.words, pos), ++n) {
    if (at + n >= words.size()) return 0;
    const std::string_view got = words[at + n];
    if (w == "DEV") {
      if (!is_device_word(got)) return 0;
      device = got;
    } else if (w == "FLOPS") {
      power = flops_power(got);
      if (power < 0) return 0;
    } else if (w != got) {
      return 0;
    }
  }
  return n;
}

// Rows of key_averages() tables; several tables per input.
class TorchTableParser final : public LineParser {
 public:
  explicit TorchTableParser(ParseContext& ctx) : m_clock(ctx.options, ctx.clock, ctx.stats) {}

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    // A blank line between the closing rule and the footer keeps the footer open.
    const bool blank_before_footer = m_footer_lines == 0 && text::trim(line).empty();
    if (m_state == State::footer && !is_footer_line(line) && !blank_before_footer) flush_footer(ctx);
    switch (m_state) {
      case State::footer: return footer_line(line, ctx);
      case State::rows: return row_line(line, ctx);
      case State::header_rule:
        m_state = parse_dash_rule(line, m_rule) && m_rule.size() == m_columns.size() ? State::rows : State::outside;
        return LineResult::ignored;
      case State::top_rule:
        if (header_line(line)) return LineResult::ignored;
        break;
      case State::outside: break;
    }
    m_state = parse_dash_rule(line, m_spans) && line.front() == '-' ? State::top_rule : State::outside;
    return LineResult::ignored;  // banners, notes, program output, blank lines
  }

  void finish(ParseContext& ctx) override {
    if (m_state == State::footer) flush_footer(ctx);
  }

  // The run that read these lines emitted the footer open here at its end.
  void end_replay(ParseContext& ctx) override { finish(ctx); }

 private:
  enum class State : std::uint8_t { outside, top_rule, header_rule, rows, footer };

  // ---- header ----

  bool header_line(std::string_view line) {
    const std::string_view body = text::trim(line);
    if (body.substr(0, 4) != "Name") return false;
    m_columns.clear();
    m_device.clear();
    if (!columns_by_words(body) && !columns_by_spans(line)) return false;
    m_swap_flops_source = false;
    m_has_source_location = false;
    for (const Column& c : m_columns) m_has_source_location = m_has_source_location || c.key == "source_location";
    for (std::size_t i = 0; i + 1 < m_columns.size(); ++i)  // see row_line()
      m_swap_flops_source =
          m_swap_flops_source || (m_columns[i].key == "source_location" && m_columns[i + 1].type == CellType::flops);
    m_state = State::header_rule;
    ++m_table;
    m_row = 0;
    return true;
  }

  // Titles matched word by word, the longest known title first: one per span, else false.
  bool columns_by_words(std::string_view body) {
    m_words.clear();
    std::size_t pos = 0;
    for (std::string_view w = text::next_token(body, pos); !w.empty(); w = text::next_token(body, pos))
      m_words.push_back(w);
    for (std::size_t at = 0; at < m_words.size();) {
      const TitleSpec* best = nullptr;
      std::size_t best_len = 0;
      std::string_view device, best_device;
      int power = 0, best_power = 0;
      for (const TitleSpec& spec : kTitles) {
        const std::size_t n = match_spec(spec, m_words, at, device, power);
        if (n > best_len) {
          best = &spec;
          best_len = n;
          best_device = device;
          best_power = power;
        }
      }
      if (best == nullptr) return false;
      add_column(*best, best_device, best_power);
      at += best_len;
    }
    return m_columns.size() == m_spans.size() && m_columns.front().type == CellType::name;
  }

  // Fallback for a title gpucost does not know: the header sliced by the rule (modern tables
  // right-align titles inside their columns); unknown titles become "extra" fields.
  bool columns_by_spans(std::string_view line) {
    m_columns.clear();
    m_device.clear();
    slice_by_spans(line, m_spans, m_cells);
    for (const std::string_view title : m_cells) {
      m_words.clear();
      std::size_t pos = 0;
      for (std::string_view w = text::next_token(title, pos); !w.empty(); w = text::next_token(title, pos))
        m_words.push_back(w);
      const TitleSpec* found = nullptr;
      std::string_view device;
      int power = 0;
      for (const TitleSpec& spec : kTitles)
        if (found == nullptr && !m_words.empty() && match_spec(spec, m_words, 0, device, power) == m_words.size())
          found = &spec;
      if (found != nullptr) {
        add_column(*found, device, power);
      } else {
        Column col;
        col.title = std::string(title.empty() ? std::string_view("column") : title);
        m_columns.push_back(std::move(col));
      }
    }
    return !m_columns.empty() && m_columns.front().type == CellType::name;
  }

  void add_column(const TitleSpec& spec, std::string_view device, int power) {
    Column col;
    col.type = spec.type;
    col.key = spec.key;
    col.flops_power = power;
    m_columns.push_back(std::move(col));
    if (!device.empty() && m_device.empty()) m_device.assign(device);
  }

  // ---- rows ----

  LineResult row_line(std::string_view line, ParseContext& ctx) {
    if (parse_dash_rule(line, m_rule)) {  // the rule that closes the table
      m_state = State::footer;
      return LineResult::ignored;
    }
    if (text::trim(line).empty()) return LineResult::ignored;
    slice_by_spans(line, m_spans, m_cells);
    if (m_cells.front().empty()) return unnamed_row(ctx);
    // with_stack: Source Location comes before the FLOPs title but torch prints the FLOPs value
    // first; the cells are swapped back.
    if (m_swap_flops_source)
      for (std::size_t i = 0; i + 1 < m_columns.size(); ++i)
        if (m_columns[i].key == "source_location") std::swap(m_cells[i], m_cells[i + 1]);

    Event& ev = ctx.event;
    ev.reset();
    ev.source = "torch-table";
    ev.kind = "profiler_op";
    ev.gpu = -1;
    for (std::size_t i = 0; i < m_columns.size(); ++i)
      if (!add_cell(m_columns[i], m_cells[i], ev, ctx)) return LineResult::malformed;
    if (!m_device.empty()) ev.add_text("device_type", m_device);
    ev.add_number("row", static_cast<std::int64_t>(m_row++));
    ev.add_number("table", static_cast<std::int64_t>(m_table - 1));
    ev.ts_ns = m_clock.start_ts();
    ctx.emit();
    return LineResult::event;
  }

  // A row without a name: with_stack prints further frames of the row above (right-aligned
  // paths that may spill into the columns before) and a blank spacer row; else not a row.
  LineResult unnamed_row(ParseContext& ctx) {
    if (m_has_source_location) return LineResult::ignored;
    for (const std::string_view cell : m_cells)
      if (!cell.empty()) return ctx.malformed("profiler table row without a name");
    return LineResult::ignored;
  }

  bool add_cell(const Column& col, std::string_view cell, Event& ev, ParseContext& ctx) {
    const std::string_view key = col.field_key();
    switch (col.type) {
      case CellType::name: ev.add_text(key, cell); return true;
      case CellType::text:
        if (!cell.empty()) ev.add_text(key, cell);
        return true;
      case CellType::unknown:
        if (!cell.empty()) ev.fields.push_back(Field{key, cell, text::is_json_number(cell), true});
        return true;
      case CellType::time: return add_checked(ev, key, parse_duration_ns(cell), cell, "a duration (us, ms, s)", ctx);
      case CellType::memory:
        return add_checked(ev, key, parse_memory_bytes(cell), cell, "a memory size (b, Kb, Mb, Gb)", ctx);
      case CellType::flops:
        if (cell == "--") return true;  // no FLOPs counted for this op
        return add_checked(ev, key, parse_flops(cell, col.flops_power), cell, "a FLOPs count", ctx);
      case CellType::integer: {
        const std::int64_t v = text::parse_int(cell).value_or(kInvalid);
        return add_checked(ev, key, v, cell, "an integer", ctx);
      }
      case CellType::percent: return add_percent(ev, key, cell, ctx);
    }
    return true;
  }

  static constexpr std::int64_t kInvalid = INT64_MIN;  // sentinel: the cell did not parse

  static bool add_checked(Event& ev, std::string_view key, std::int64_t value, std::string_view cell,
                          std::string_view what, ParseContext& ctx) {
    if (value == kInvalid) return bad_cell(key, cell, what, ctx);
    ev.add_number(key, value);
    return true;
  }

  // "91.82%" -> 91.82 as written; "NaN" (a share of a zero total) -> no field; a plain number
  // (async events print 0) is taken as it is.
  static bool add_percent(Event& ev, std::string_view key, std::string_view cell, ParseContext& ctx) {
    if (cell == "NaN") return true;
    std::string_view number = cell;
    if (!number.empty() && number.back() == '%') number.remove_suffix(1);
    if (!text::is_json_number(number)) return bad_cell(key, cell, "a percentage", ctx);
    ev.fields.push_back(Field{key, number, true, false});
    return true;
  }

  static bool bad_cell(std::string_view key, std::string_view cell, std::string_view what, ParseContext& ctx) {
    ctx.reason_buf.clear();
    ctx.reason_buf.append(key).append(" '").append(cell.substr(0, 40)).append("' is not ").append(what);
    ctx.reason = ctx.reason_buf;
    return false;
  }

  // "12.979us", "1.579ms", "1.234s" -> ns, exactly.
  static std::int64_t parse_duration_ns(std::string_view cell) {
    struct Unit {
      std::string_view suffix;
      std::int64_t ns;
    };
    constexpr Unit kUnits[] = {{"ns", 1}, {"us", 1000}, {"ms", 1'000'000}, {"s", 1'000'000'000}};
    for (const Unit& u : kUnits) {
      if (cell.size() <= u.suffix.size() || cell.substr(cell.size() - u.suffix.size()) != u.suffix) continue;
      Decimal d;
      std::int64_t ns = 0;
      if (parse_decimal(cell.substr(0, cell.size() - u.suffix.size()), d) && scale_decimal(d, u.ns, 1, ns)) return ns;
      return kInvalid;
    }
    return kInvalid;
  }

  // "94.79 Mb", "19.53 Kb", "572 b", "-1.25 Gb" -> bytes; torch's Kb/Mb/Gb are KiB/MiB/GiB
  // (some forks print KB/MB/GB/B with the same meaning).
  static std::int64_t parse_memory_bytes(std::string_view cell) {
    const std::size_t sp = cell.rfind(' ');
    if (sp == std::string_view::npos) return kInvalid;
    const std::string_view unit = cell.substr(sp + 1);
    std::int64_t mul = 0;
    if (text::iequals(unit, "b")) mul = 1;
    if (text::iequals(unit, "kb")) mul = std::int64_t{1} << 10;
    if (text::iequals(unit, "mb")) mul = std::int64_t{1} << 20;
    if (text::iequals(unit, "gb")) mul = std::int64_t{1} << 30;
    Decimal d;
    std::int64_t bytes = 0;
    if (mul == 0 || !parse_decimal(text::trim(cell.substr(0, sp)), d) || !scale_decimal(d, mul, 1, bytes))
      return kInvalid;
    return bytes;
  }

  // "  49.152" in a "Total MFLOPs" column -> 49152000.
  static std::int64_t parse_flops(std::string_view cell, int power) {
    std::int64_t mul = 1;
    for (int i = 0; i < power; ++i) mul *= 1000;
    Decimal d;
    std::int64_t flops = 0;
    if (!parse_decimal(cell, d) || !scale_decimal(d, mul, 1, flops)) return kInvalid;
    return flops;
  }

  // ---- footer ----

  // "Self CPU time total: 1.720ms", "Self CUDA time total: ...", legacy "CUDA time total: ...".
  static bool is_footer_line(std::string_view line) {
    return text::trim(line).find(" time total: ") != std::string_view::npos;
  }

  LineResult footer_line(std::string_view line, ParseContext& ctx) {
    const std::string_view body = text::trim(line);
    const std::size_t colon = body.find(" time total: ");
    if (colon == std::string_view::npos) return LineResult::ignored;  // a blank line before the footer
    const std::string_view who = body.substr(0, colon);
    const std::int64_t ns = parse_duration_ns(text::trim(body.substr(colon + 13)));
    if (ns == kInvalid) return ctx.malformed("profiler footer total is not a duration (us, ms, s)");
    std::size_t pos = 0;
    const std::string_view first = text::next_token(who, pos);
    const std::string_view second = text::next_token(who, pos);
    if (first == "Self" && second == "CPU") {
      m_footer_self_cpu = ns;
    } else if (first == "Self" && is_device_word(second)) {
      m_footer_self_device = ns;
      m_footer_device.assign(second);
    } else if (second.empty() && is_device_word(first)) {  // legacy "CUDA time total"
      m_footer_device_total = ns;
      m_footer_device.assign(first);
    } else {
      return ctx.malformed("unknown profiler footer total");
    }
    if (m_footer_lines++ == 0) m_footer_first = ctx.line_no;
    return LineResult::deferred;
  }

  // One profiler_total event for the footer lines held so far.
  void flush_footer(ParseContext& ctx) {
    m_state = State::outside;
    if (m_footer_lines == 0) return;
    Event& ev = ctx.event;
    ev.reset();
    ev.source = "torch-table";
    ev.kind = "profiler_total";
    ev.gpu = -1;
    if (m_footer_self_cpu != kInvalid) ev.add_number("self_cpu_total_ns", m_footer_self_cpu);
    if (m_footer_self_device != kInvalid) ev.add_number("self_device_total_ns", m_footer_self_device);
    if (m_footer_device_total != kInvalid) ev.add_number("device_total_ns", m_footer_device_total);
    if (!m_footer_device.empty()) ev.add_text("device_type", m_footer_device);
    ev.add_number("table", static_cast<std::int64_t>(m_table > 0 ? m_table - 1 : 0));
    ev.ts_ns = m_clock.start_ts();
    ctx.emit();
    ctx.settle(LineResult::event, m_footer_lines, m_footer_first);
    m_footer_lines = 0;
    m_footer_self_cpu = m_footer_self_device = m_footer_device_total = kInvalid;
    m_footer_device.clear();
  }

  RowClock m_clock;
  State m_state = State::outside;
  std::vector<Span> m_spans, m_rule;
  std::vector<Column> m_columns;
  std::vector<std::string_view> m_words, m_cells;
  std::string m_device;  ///< device word of the current table's columns ("CUDA", "XPU")
  bool m_swap_flops_source = false;
  bool m_has_source_location = false;
  std::uint64_t m_table = 0, m_row = 0;
  std::uint64_t m_footer_lines = 0, m_footer_first = 0;
  std::int64_t m_footer_self_cpu = kInvalid, m_footer_self_device = kInvalid, m_footer_device_total = kInvalid;
  std::string m_footer_device;
};

bool is_table_rule(std::string_view line, std::vector<Span>& spans) {
  return !line.empty() && line.front() == '-' && parse_dash_rule(line, spans);
}

}  // namespace

Expected<std::unique_ptr<LineParser>> make_torch_table_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<TorchTableParser>(ctx));
}

bool looks_like_torch_table(std::string_view head) {
  // A dash rule of at least two columns, then a header "Name ... CPU ..." (or "... Calls").
  std::vector<Span> spans;
  bool after_rule = false;
  std::size_t pos = 0;
  while (pos < head.size()) {
    const std::size_t nl = head.find('\n', pos);
    const std::string_view line = head.substr(pos, nl == std::string_view::npos ? head.npos : nl - pos);
    if (after_rule) {
      const std::string_view body = text::trim(line);
      if (body.substr(0, 5) == "Name " &&
          (body.find(" CPU") != std::string_view::npos || body.find(" Calls") != std::string_view::npos))
        return true;
    }
    after_rule = is_table_rule(line, spans);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return false;
}

}  // namespace gpucost::prep
