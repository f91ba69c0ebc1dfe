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
    if (m_table.read_non_data_line(body, false) || m_table.gpu_col() < 0) return;
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
    if (chunk.m_first_gpu >= 0) {
      m_cycle += (m_prev_gpu >= 0 && chunk.m_first_gpu <= m_prev_gpu ? 1 : 0) + chunk.m_later_cycles;
      m_prev_gpu = chunk.m_prev_gpu;
    }
    m_clock.continue_with(chunk.m_clock);
    return true;
  }

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    const std::string_view body = trimmed_cell(line.data(), line.data() + line.size());
    if (m_table.read_non_data_line(body, false)) return LineResult::ignored;
    if (!m_table.has_header()) return ctx.malformed("data row before any '# gpu ...' header line");
    split_tokens(body, m_table.csv(), m_tokens);
    const auto& cols = m_table.columns();
    if (m_tokens.size() != cols.size()) return column_count_mismatch(ctx, cols.size(), m_tokens.size());
    Event& ev = ctx.event;
    ev.reset();
    ev.source = "dmon";
    ev.kind = "sample";
    std::int64_t gpu = -1;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      // Metric cells, nearly all of them, read here without a call; the rest as pmon reads them.
      if (cols[i].role == ColumnRole::metric && set_metric_cell(ev, cols[i].metric, m_tokens[i])) continue;
      if (!read_shared_cell(cols[i], m_tokens[i], ctx, gpu)) return LineResult::malformed;
    }
    if (gpu < 0) return ctx.malformed("no gpu column");
    count_cycle(gpu);
    m_cycle_read = m_cycle_read || times_by_cycle(m_table);
    if (!row_time(m_table, m_tokens, m_cycle, m_clock, ev.ts_ns)) return ctx.malformed("bad date or time");
    ev.gpu = static_cast<std::int32_t>(gpu);
    ctx.emit();
    return LineResult::event;
  }

 private:
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
