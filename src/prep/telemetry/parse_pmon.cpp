// nvidia-smi pmon (docs/formats.md, "nvidia-smi pmon"): one row per (GPU, process) per cycle; the command is the
// rest of the line and may contain spaces ("NVIDIA Share.exe"):
//   # gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command
//   # Idx           #    C/G      %      %      %      %      %      %    name
//       0      11345     C     99     10      -      -      -      -    gpu_burn
// A GPU without processes prints a row of '-': it becomes a "no_process" event.
#include "prep/parsers.hpp"
#include "smi_table.hpp"

#include <gpucost/core/text.hpp>

#include <algorithm>

namespace gpucost::prep {

namespace {

class PmonParser final : public LineParser {
 public:
  explicit PmonParser(ParseContext& ctx) : m_clock(ctx.options, ctx.clock, ctx.stats) {}

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    const std::string_view body = text::trim(line);
    if (m_table.read_non_data_line(body, true)) return LineResult::ignored;
    if (!m_table.has_header()) return ctx.malformed("data row before any '# gpu pid ...' header line");
    const auto& cols = m_table.columns();
    const bool has_command = !cols.empty() && cols.back().role == ColumnRole::command;
    if (!split_row(body, cols.size(), has_command)) return column_count_mismatch(ctx, cols.size(), m_tokens.size());
    Event& ev = ctx.event;
    ev.reset();
    ev.source = "pmon";
    std::int64_t gpu = -1;
    std::string_view pid_cell = "-";
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const Column& col = cols[i];
      const std::string_view cell = m_tokens[i];
      switch (col.role) {
        case ColumnRole::pid:
          pid_cell = cell;
          if (cell != "-" && !set_metric_cell(ev, Metric::pid, cell)) return ctx.malformed("pid is not a number");
          break;
        case ColumnRole::type:
          if (cell != "-") ev.fields.push_back(Field{"process_type", cell, false});
          break;
        case ColumnRole::command:
          if (cell != "-" && !cell.empty()) ev.fields.push_back(Field{"command", cell, false});
          break;
        default:
          if (!read_shared_cell(col, cell, ctx, gpu)) return LineResult::malformed;
          break;
      }
    }
    if (gpu < 0) return ctx.malformed("no gpu column");
    advance_cycle(gpu, pid_cell);
    if (!row_time(m_table, m_tokens, m_cycle, m_clock, ev.ts_ns)) return ctx.malformed("bad date or time");
    ev.gpu = static_cast<std::int32_t>(gpu);
    ev.kind = pid_cell == "-" ? "no_process" : "process";
    ctx.emit();
    return LineResult::event;
  }

 private:
  // Fixed columns from the left, the rest of the line is the command (it may hold spaces).
  bool split_row(std::string_view body, std::size_t ncols, bool has_command) {
    m_tokens.clear();
    if (m_table.csv()) {
      split_tokens(body, true, m_tokens);
      return m_tokens.size() == ncols;
    }
    std::size_t pos = 0;
    const std::size_t fixed = has_command ? ncols - 1 : ncols;
    for (std::size_t i = 0; i < fixed; ++i) {
      const std::string_view tok = text::next_token(body, pos);
      if (tok.empty()) return false;
      m_tokens.push_back(tok);
    }
    const std::string_view rest = text::trim(body.substr(std::min(pos, body.size())));
    if (has_command) {
      if (rest.empty()) return false;
      m_tokens.push_back(rest);
      return true;
    }
    return rest.empty();
  }

  // A new cycle starts when the GPU index goes down, or a process repeats on the same GPU. An
  // idle row ('-') is the only row of its GPU in a cycle, so it never shares one with another row.
  void advance_cycle(std::int64_t gpu, std::string_view pid) {
    const auto seen = [this](std::string_view p) { return std::find(m_pids.begin(), m_pids.end(), p) != m_pids.end(); };
    const bool repeat = gpu == m_prev_gpu && (pid == "-" || seen("-") || seen(pid));
    if (m_prev_gpu >= 0 && (gpu < m_prev_gpu || repeat)) {
      ++m_cycle;
      m_pids.clear();
    }
    if (gpu != m_prev_gpu) m_pids.clear();
    m_pids.emplace_back(pid);
    m_prev_gpu = gpu;
  }

  SmiTable m_table;
  RowClock m_clock;
  std::vector<std::string_view> m_tokens;
  std::vector<std::string> m_pids;  // pids seen on m_prev_gpu in the current cycle
  std::uint64_t m_cycle = 0;
  std::int64_t m_prev_gpu = -1;
};

}  // namespace

Expected<std::unique_ptr<LineParser>> make_pmon_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<PmonParser>(ctx));
}

}  // namespace gpucost::prep
