// nvidia-smi dmon (docs/formats.md, "nvidia-smi dmon"). Columns come from the most recent '#' name line, never
// from positions: e.g.
//   # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
//   # Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
//       0    631     63     57    100     10      0      0      0      0   2619   1980
#include "prep/parsers.hpp"
#include "smi_table.hpp"

#include <gpucost/core/text.hpp>

namespace gpucost::prep {

namespace {

class DmonParser final : public LineParser {
 public:
  DmonParser(ParseContext& ctx) : m_clock(ctx.options, ctx.clock, ctx.stats) {}

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    const std::string_view body = text::trim(line);
    if (body.empty()) return LineResult::ignored;
    if (body.front() == '#') {
      m_table.on_hash_line(body, false);
      return LineResult::ignored;
    }
    if (!m_table.has_header()) return ctx.malformed("data row before any '# gpu ...' header line");
    split_tokens(body, m_table.csv(), m_tokens);
    const auto& cols = m_table.columns();
    if (m_tokens.size() != cols.size()) {
      ctx.reason_buf = "expected " + std::to_string(cols.size()) + " columns as in the header, found " +
                       std::to_string(m_tokens.size());
      return ctx.malformed(ctx.reason_buf);
    }
    Event& ev = ctx.event;
    ev.reset();
    ev.source = "dmon";
    ev.kind = "sample";
    std::int64_t gpu = -1;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const Column& col = cols[i];
      const std::string_view cell = m_tokens[i];
      switch (col.role) {
        case ColumnRole::gpu: {
          const auto g = text::parse_int(cell);
          if (!g || *g < 0 || *g > 1'000'000) return ctx.malformed("gpu index is not a number");
          gpu = *g;
          break;
        }
        case ColumnRole::metric:
          if (!set_metric_cell(ev, col.metric, cell)) {
            ctx.reason_buf = "column '" + col.name + "' is not a number";
            return ctx.malformed(ctx.reason_buf);
          }
          break;
        case ColumnRole::extra:  // a column this version does not know: kept by its name
          if (cell != "-") ev.fields.push_back(Field{col.name, cell, text::is_json_number(cell), true});
          break;
        default: break;
      }
    }
    if (gpu < 0) return ctx.malformed("no gpu column");
    // A new sampling cycle starts when the GPU index does not increase (0..7, 0..7, ...).
    if (m_prev_gpu >= 0 && gpu <= m_prev_gpu) ++m_cycle;
    m_prev_gpu = gpu;
    if (!row_time(m_table, m_tokens, m_cycle, m_clock, ev.ts_ns)) return ctx.malformed("bad date or time");
    ev.gpu = static_cast<std::int32_t>(gpu);
    ctx.emit();
    return LineResult::event;
  }

 private:
  SmiTable m_table;
  RowClock m_clock;
  std::vector<std::string_view> m_tokens;
  std::uint64_t m_cycle = 0;
  std::int64_t m_prev_gpu = -1;
};

}  // namespace

Expected<std::unique_ptr<LineParser>> make_dmon_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<DmonParser>(ctx));
}

}  // namespace gpucost::prep
