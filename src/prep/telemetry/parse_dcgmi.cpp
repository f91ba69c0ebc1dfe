// dcgmi dmon (docs/formats.md, "dcgmi dmon"): a header-driven table without timestamps, e.g.
//   #Entity   POWER             TMPTR        GPUTL             SMACT
//   ID        W                 C
//   GPU 0     245.300           65           98                0.871
// DCGM 2.x prints "# Entity  TENSO" and a right-aligned "      Id" unit line instead. A data row
// starts with the entity as two tokens (type and id: "GPU 0", "GPU-I 3", "GPU-CI 1", "Switch 0"),
// so it has one more whitespace token than the name line has names. Column short names are
// mapped to the gpucost metrics where they mean the same as nvidia-smi's (POWER = power.draw,
// GPUTL = utilization.gpu, ...); profiling ratios (SMACT, TENSO, DRAMA, ... 0-1) and other DCGM
// fields stay numeric fields named after the short name in lower case. Time = --start +
// cycle x --interval (dcgmi -d, default 1000 ms): a cycle ends when an entity repeats.
#include "prep/parsers.hpp"
#include "smi_table.hpp"

#include <gpucost/core/text.hpp>

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::prep {

namespace {

struct DcgmMetric {
  std::string_view name;  // DCGM short name (dcgmi dmon -l)
  Metric metric;
  int priority;  // 0 wins over 1 when both columns are present (EPLMT over PMLMT)
};

// Field ids in the comments (dcgm_fields.h).
constexpr std::array<DcgmMetric, 26> kDcgmMetrics = {{
    {"POWER", Metric::power_w, 0},                // 155 power_usage, W
    {"TMPTR", Metric::temp_c, 0},                 // 150 gpu_temp, C
    {"GTEMP", Metric::temp_c, 0},                 // alias seen in scripts
    {"MMTMP", Metric::mem_temp_c, 0},             // 140 memory_temp, C
    {"GPUTL", Metric::sm_pct, 0},                 // 203 gpu_utilization, % (= utilization.gpu)
    {"MCUTL", Metric::mem_pct, 0},                // 204 mem_copy_utilization, %
    {"ECUTL", Metric::enc_pct, 0},                // 206 enc_utilization, %
    {"DCUTL", Metric::dec_pct, 0},                // 207 dec_utilization, %
    {"SMCLK", Metric::pclk_mhz, 0},               // 100 sm_clock, MHz
    {"MMCLK", Metric::mclk_mhz, 0},               // 101 memory_clock, MHz
    {"SMMAX", Metric::pclk_max_mhz, 0},           // 110 sm_max_clock, MHz
    {"MMMAX", Metric::mclk_max_mhz, 0},           // 111 memory_max_clock, MHz
    {"FBUSD", Metric::fb_mib, 0},                 // 252 fb_used, MiB
    {"FBTTL", Metric::fb_total_mib, 0},           // 250 fb_total, MiB
    {"FANSP", Metric::fan_pct, 0},                // 191 fan_speed, %
    {"PSTAT", Metric::pstate, 0},                 // 190 pstate
    {"EPLMT", Metric::power_limit_w, 0},          // 164 enforced_power_limit, W
    {"PMLMT", Metric::power_limit_w, 1},          // 160 power_management_limit, W
    {"PMDEF", Metric::power_default_limit_w, 0},  // 163 power_management_limit_default, W
    {"PMMAX", Metric::power_max_limit_w, 0},      // 162 power_management_limit_max, W
    {"PCILG", Metric::pcie_gen, 0},               // 237 pcie_link_gen
    {"PCIMG", Metric::pcie_gen_max, 0},           // 235 pcie_max_link_gen
    {"PCILW", Metric::pcie_width, 0},             // 238 pcie_link_width
    {"PCIMW", Metric::pcie_width_max, 0},         // 236 pcie_max_link_width
    {"PWR", Metric::power_w, 0},                  // nvidia-smi style alias
    {"TEMP", Metric::temp_c, 0},                  // nvidia-smi style alias
}};

// DCGM fields kept as top-level numeric fields (lower-case short name) rather than under "extra":
// the profiling ratios 0-1 (1001-1008, 1013-), byte rates (1009-1012), energy and violations.
constexpr std::array<std::string_view, 20> kDcgmFields = {
    "GRACT", "SMACT", "SMOCC", "TENSO", "DRAMA", "FP64A", "FP32A", "FP16A", "PCITX", "PCIRX",
    "NVLTX", "NVLRX", "TIMMA", "THMMA", "TDFMA", "INTAC", "TOTEC", "PVIOL", "TVIOL", "XIDER",
};

struct DcgmColumn {
  std::string name;  ///< short name as printed
  std::string key;   ///< lower-case short name: the field key
  bool is_metric = false;
  Metric metric = Metric::count_;
  int priority = 0;
  bool known_field = false;
  std::size_t start = 0;  ///< byte offset of the name in the name line (for string cells)
};

bool is_entity_type(std::string_view t) {
  if (t.empty() || !((t.front() >= 'A' && t.front() <= 'Z') || (t.front() >= 'a' && t.front() <= 'z'))) return false;
  for (char c : t)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
      return false;
  return true;
}

std::uint64_t type_hash(std::string_view t) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : t) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

class DcgmiParser final : public LineParser {
 public:
  explicit DcgmiParser(ParseContext& ctx) : m_clock(ctx.options, ctx.clock, ctx.stats) {}

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    const std::string_view row = text::rtrim(line);
    const std::string_view body = text::trim(row);
    if (body.empty()) return LineResult::ignored;
    if (body.front() == '#') {
      on_hash_line(row);
      return LineResult::ignored;
    }
    split_tokens(body, false, m_tokens);
    const std::string_view first = m_tokens.front();
    if (text::iequals(first, "id")) return LineResult::ignored;            // unit line ("ID", "      Id")
    if (body.starts_with("dmon was stopped")) return LineResult::ignored;  // Ctrl-C; "do to"/"due to"
    if (m_tokens.size() >= 2 && is_entity_type(first) && text::parse_int(m_tokens[1]).has_value())
      return data_row(row, ctx);
    if (body.starts_with("Unable to get GPU topology") || body.starts_with("Unable to get list of GPUs")) {
      // A warning: dmon goes on, the entities may come unsorted.
      add_note(ctx.stats, "dcgmi warned: " + std::string(body.substr(0, 160)));
      return LineResult::ignored;
    }
    if (body.starts_with("Error") || body.starts_with("No data returned") || body.starts_with("Unable to") ||
        body.starts_with("Enable to")) {
      if (m_error_notes < 3) {
        ++m_error_notes;
        add_note(ctx.stats, "dcgmi reported an error instead of data: " + std::string(body.substr(0, 160)));
      }
      return ctx.malformed("dcgmi error message instead of data");
    }
    return ctx.malformed("not a dcgmi dmon row (expected an entity such as 'GPU 0' and its values)");
  }

 private:
  void on_hash_line(std::string_view row) {
    // "#Entity  NAME ..." / "# Entity  NAME ...": a new column map. Any other '#' line is a comment.
    const std::size_t hash = row.find('#');
    const std::string_view after = row.substr(hash + 1);
    std::size_t pos = 0;
    const std::string_view first = text::next_token(after, pos);
    if (!text::iequals(first, "entity")) return;
    m_columns.clear();
    for (std::string_view tok = text::next_token(after, pos); !tok.empty(); tok = text::next_token(after, pos)) {
      DcgmColumn col;
      col.name = std::string(tok);
      col.key.reserve(tok.size());
      for (char c : tok) col.key.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
      col.start = static_cast<std::size_t>(tok.data() - row.data());
      for (const DcgmMetric& m : kDcgmMetrics) {
        if (text::iequals(m.name, tok)) {
          col.is_metric = true;
          col.metric = m.metric;
          col.priority = m.priority;
          break;
        }
      }
      for (std::string_view f : kDcgmFields) col.known_field = col.known_field || text::iequals(f, tok);
      m_columns.push_back(std::move(col));
    }
    m_have_header = true;
  }

  // Cells of a row whose whitespace tokens do not match the header (a string field with spaces,
  // e.g. DVNAM): sliced at the columns' start offsets, which dcgmi aligns in name line and rows.
  bool slice_cells(std::string_view row) {
    m_cells.clear();
    if (m_columns.empty() || m_columns.front().start > row.size()) return false;
    split_tokens(row.substr(0, m_columns.front().start), false, m_entity);
    if (m_entity.size() != 2) return false;
    for (std::size_t i = 0; i < m_columns.size(); ++i) {
      const std::size_t b = m_columns[i].start;
      const std::size_t e = i + 1 < m_columns.size() ? m_columns[i + 1].start : row.size();
      if (b > row.size() || e < b) return false;
      const std::string_view cell = text::trim(row.substr(b, e - b));
      if (cell.empty()) return false;
      m_cells.push_back(cell);
    }
    return true;
  }

  LineResult data_row(std::string_view row, ParseContext& ctx) {
    if (!m_have_header) return ctx.malformed("data row before any '#Entity ...' header line");
    const std::string_view type = m_tokens[0];
    const std::string_view id_text = m_tokens[1];
    const auto id = text::parse_int(id_text);
    if (!id || *id < 0 || *id > 1'000'000) return ctx.malformed("entity id is not a number");
    if (m_tokens.size() == m_columns.size() + 2) {
      m_cells.assign(m_tokens.begin() + 2, m_tokens.end());
    } else if (!slice_cells(row)) {
      ctx.reason_buf = "expected " + std::to_string(m_columns.size()) + " values as in the header, found " +
                       std::to_string(m_tokens.size() - 2);
      return ctx.malformed(ctx.reason_buf);
    }

    Event& ev = ctx.event;
    ev.reset();
    ev.source = "dcgmi";
    const bool gpu_row = type == "GPU";
    if (gpu_row) {
      ev.kind = "sample";
      ev.gpu = static_cast<std::int32_t>(*id);
    } else {
      // MIG instances (GPU-I, GPU-CI) follow their GPU's row; other entities (Switch, Link,
      // CPU, vGPU) belong to no GPU. A kind of their own keeps them out of the GPU series.
      ev.kind = "entity_sample";
      const bool mig = type == "GPU-I" || type == "GPU-CI";
      ev.gpu = mig && m_last_gpu >= 0 ? static_cast<std::int32_t>(m_last_gpu) : -1;
      ev.add_text("entity", type);
      ev.fields.push_back(Field{"entity_id", id_text, true, false});
    }
    for (std::size_t i = 0; i < m_columns.size(); ++i) {
      const DcgmColumn& col = m_columns[i];
      const std::string_view cell = m_cells[i];
      if (col.is_metric) {
        // A fallback column (PMLMT) never overwrites the preferred one (EPLMT); the preferred one
        // overwrites a fallback written before it.
        if (col.priority > 0 && ev.has(col.metric)) continue;
        if (!set_metric_cell(ev, col.metric, cell)) {
          ctx.reason_buf = "column '" + col.name + "' is not a number";
          return ctx.malformed(ctx.reason_buf);
        }
        continue;
      }
      if (cell == "N/A") continue;
      ev.fields.push_back(Field{col.key, cell, text::is_json_number(cell), !col.known_field});
    }

    // A new sampling cycle starts when an entity shows up again.
    const std::pair<std::uint64_t, std::int64_t> key{type_hash(type), *id};
    for (const auto& k : m_seen) {
      if (k == key) {
        ++m_cycle;
        m_seen.clear();
        break;
      }
    }
    m_seen.push_back(key);
    if (gpu_row) m_last_gpu = *id;
    ev.ts_ns = m_clock.cycle_ts(m_cycle);
    ctx.emit();
    return LineResult::event;
  }

  RowClock m_clock;
  std::vector<DcgmColumn> m_columns;
  bool m_have_header = false;
  std::vector<std::string_view> m_tokens, m_cells, m_entity;
  std::vector<std::pair<std::uint64_t, std::int64_t>> m_seen;
  std::uint64_t m_cycle = 0;
  std::int64_t m_last_gpu = -1;
  int m_error_notes = 0;
};

}  // namespace

Expected<std::unique_ptr<LineParser>> make_dcgmi_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<DcgmiParser>(ctx));
}

}  // namespace gpucost::prep
