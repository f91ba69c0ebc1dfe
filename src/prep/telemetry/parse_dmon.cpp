// nvidia-smi dmon (docs/formats.md, "nvidia-smi dmon"). Columns come from the most recent '#' name line, never
// from positions: e.g.
//   # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
//   # Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
//       0    631     63     57    100     10      0      0      0      0   2619   1980
#include "prep/cells.hpp"
#include "prep/parsers.hpp"
#include "smi_table.hpp"

#include <gpucost/core/text.hpp>

namespace gpucost::prep {

namespace {

class DmonParser final : public LineParser {
 public:
  DmonParser(ParseContext& ctx) : m_clock(ctx.options, ctx.clock, ctx.stats) {}
  /// A chunk's copy (prep -j): the state of `o`, which it remembers as its start.
  DmonParser(const DmonParser& o, ParseContext& ctx)
      : m_table(o.m_table),
        m_clock(o.m_clock, ctx.options, ctx.clock, ctx.stats),
        m_cycle(o.m_cycle),
        m_prev_gpu(o.m_prev_gpu),
        m_start_table(o.m_table),
        m_start_cycle(o.m_cycle),
        m_start_prev_gpu(o.m_prev_gpu) {}

  [[nodiscard]] std::unique_ptr<LineParser> clone(ParseContext& ctx) const override {
    return std::make_unique<DmonParser>(*this, ctx);
  }

  // The reading thread counts the cycles ahead of the parse, from the GPU column alone, so that
  // chunks of a table without times start right. A row it counts wrongly (a cut line: the parse
  // finds it malformed) is caught by continue_with() and set right by resync_skim().
  [[nodiscard]] bool skims() const override { return true; }
  void skim(std::string_view line) override {
    const std::string_view body = text::trim(line);
    if (m_table.read_non_data_line(body, false)) {
      m_plan.clear();
      return;
    }
    if (m_table.gpu_col() < 0) return;
    const std::string_view cell = token_at(body, m_table.csv(), static_cast<std::size_t>(m_table.gpu_col()));
    std::size_t pos = 0;
    std::uint64_t gpu = 0;
    if (!text::read_uint(cell, pos, 7, gpu) || pos != cell.size() || gpu > 1'000'000) return;
    count_cycle(static_cast<std::int64_t>(gpu));
  }
  void resync_skim(LineParser& skimmer_parser, const LineParser* next) const override {
    auto& skimmer = static_cast<DmonParser&>(skimmer_parser);
    if (next == nullptr) {  // the skimmer stands where this parser does
      skimmer.m_cycle = m_cycle;
      skimmer.m_prev_gpu = m_prev_gpu;
      return;
    }
    skimmer.m_cycle += m_cycle - static_cast<const DmonParser&>(*next).m_start_cycle;  // what it missed
  }

  // The header carries over (dmon repeats the same one); the cycle count is carried over exactly,
  // from the chunk's first GPU and the cycles it began after that, and must have been the true
  // one only when rows were placed by it (no time column).
  bool continue_with(LineParser& other) override {
    auto& chunk = static_cast<DmonParser&>(other);
    if (!(chunk.m_start_table == m_table) || !m_clock.can_continue_with(chunk.m_clock)) return false;
    if (chunk.m_cycle_read && (chunk.m_start_cycle != m_cycle || chunk.m_start_prev_gpu != m_prev_gpu)) return false;
    m_table = std::move(chunk.m_table);
    m_plan.clear();
    if (chunk.m_first_gpu >= 0) {
      m_cycle += (m_prev_gpu >= 0 && chunk.m_first_gpu <= m_prev_gpu ? 1 : 0) + chunk.m_later_cycles;
      m_prev_gpu = chunk.m_prev_gpu;
    }
    m_clock.continue_with(chunk.m_clock);
    return true;
  }

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    const std::string_view body = trimmed_cell(line.data(), line.data() + line.size());
    if (m_table.read_non_data_line(body, false)) {
      m_plan.clear();  // a name line may have changed the columns
      return LineResult::ignored;
    }
    if (!m_table.has_header()) return ctx.malformed("data row before any '# gpu ...' header line");
    Event& ev = ctx.event;
    ev.reset();
    ev.source = "dmon";
    ev.kind = "sample";
    std::int64_t gpu = -1;
    if (!read_plain_row(body, ev, gpu)) {
      ev.reset();  // what the one-pass read set is set again below
      split_tokens(body, m_table.csv(), m_tokens);
      const auto& cols = m_table.columns();
      if (m_tokens.size() != cols.size()) return column_count_mismatch(ctx, cols.size(), m_tokens.size());
      for (std::size_t i = 0; i < cols.size(); ++i) {
        // Metric cells, nearly all of them, read here without a call; the rest as pmon reads them.
        if (cols[i].role == ColumnRole::metric && set_metric_cell(ev, cols[i].metric, m_tokens[i])) continue;
        if (!read_shared_cell(cols[i], m_tokens[i], ctx, gpu)) return LineResult::malformed;
      }
      if (gpu < 0) return ctx.malformed("no gpu column");
    }
    count_cycle(gpu);
    m_cycle_read = m_cycle_read || times_by_cycle(m_table);
    if (!row_time(m_table, m_tokens, m_cycle, m_clock, ev.ts_ns)) return ctx.malformed("bad date or time");
    ev.gpu = static_cast<std::int32_t>(gpu);
    ctx.emit();
    return LineResult::event;
  }

 private:
  // How read_plain_row() takes each column of a whitespace table whose columns are metrics, the
  // GPU index, a date or a time; empty: not made yet for the current header, or `m_plan_usable`
  // is false (a CSV table, or another column).
  enum class PlainCell : std::uint8_t { metric, gpu, token };
  struct PlanCell {
    PlainCell what;
    Metric metric;
  };

  void make_plan() {
    m_plan.clear();
    m_plan_usable = !m_table.csv() && m_table.gpu_col() >= 0;
    for (const Column& col : m_table.columns()) {
      switch (col.role) {
        case ColumnRole::metric: m_plan.push_back({PlainCell::metric, col.metric}); break;
        case ColumnRole::gpu: m_plan.push_back({PlainCell::gpu, Metric{}}); break;
        case ColumnRole::date:
        case ColumnRole::time: m_plan.push_back({PlainCell::token, Metric{}}); break;
        default: m_plan_usable = false;
      }
    }
  }

  /// The common row in one pass over `body` (trimmed): a whitespace table whose cells are what
  /// their columns hold, a metric cell a number, "-" or "N/A" (set_metric_cell()), the GPU index
  /// at most 7 digits, the row 16 to 127 bytes (RowTokens). The cells land in m_tokens as
  /// split_tokens() would put them. False when the row needs the general path (another table,
  /// column or cell, fewer or more cells), which then reads it again from the start and says what
  /// is wrong with it.
  bool read_plain_row(std::string_view body, Event& ev, std::int64_t& gpu) {
    if (m_plan.empty()) make_plan();
    if (!m_plan_usable || !m_row.set(body) || m_row.count() != m_plan.size()) return false;
    m_tokens.resize(m_plan.size());  // the general path may have left another count
    for (std::size_t i = 0; i < m_plan.size(); ++i) {
      std::size_t begin = 0, end = 0;
      m_row.next(begin, end);
      const std::string_view cell(body.data() + begin, end - begin);
      m_tokens[i] = cell;
      switch (m_plan[i].what) {
        case PlainCell::metric:
          if (!set_metric_cell(ev, m_plan[i].metric, cell)) return false;
          break;
        case PlainCell::gpu: {
          std::size_t digits = 0;
          std::uint64_t g = 0;
          if (!text::read_uint(cell, digits, 7, g) || digits != cell.size() || g > 1'000'000) return false;
          gpu = static_cast<std::int64_t>(g);
          break;
        }
        case PlainCell::token: break;
      }
    }
    return true;
  }

  // A new sampling cycle starts when the GPU index does not increase (0..7, 0..7, ...).
  void count_cycle(std::int64_t gpu) {
    if (m_prev_gpu >= 0 && gpu <= m_prev_gpu) {
      ++m_cycle;
      if (m_first_gpu >= 0) ++m_later_cycles;
    }
    if (m_first_gpu < 0) m_first_gpu = gpu;
    m_prev_gpu = gpu;
  }

  SmiTable m_table;
  RowClock m_clock;
  std::vector<std::string_view> m_tokens;
  std::vector<PlanCell> m_plan;  // not copied with the parser: made again from its table
  RowTokens m_row;
  bool m_plan_usable = false;
  std::uint64_t m_cycle = 0;
  std::int64_t m_prev_gpu = -1;
  // A chunk's copy (prep -j): the state it started from; its first row's GPU, the cycles begun
  // after that row, and whether a row's time came from the cycle count.
  SmiTable m_start_table;
  std::uint64_t m_start_cycle = 0;
  std::int64_t m_start_prev_gpu = -1;
  std::int64_t m_first_gpu = -1;
  std::uint64_t m_later_cycles = 0;
  bool m_cycle_read = false;
};

}  // namespace

Expected<std::unique_ptr<LineParser>> make_dmon_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<DmonParser>(ctx));
}

}  // namespace gpucost::prep
