// Slurm's accounting records, `sacct -P` (docs/formats.md, "Slurm jobs"): '|'-separated fields
// mapped by the header's names, or, without a header (`-n`), in the order of the documented list
//   JobID|JobName|User|Start|End|NodeList|AllocTRES|ConsumedEnergyRaw|State|ExitCode
//   4242|train|alice|2024-06-12T10:00:00|2024-06-12T12:00:00|node[01-02]|billing=16,cpu=16,gres/gpu=8,mem=64G,node=2||COMPLETED|0:0
//   4242.batch|batch||2024-06-12T10:00:00|2024-06-12T12:00:00|node01|cpu=8,gres/gpu=4,mem=32G,node=1|0|COMPLETED|0:0
// The allocation line is the job: one `job` event at its start. Its step lines (4242.batch,
// 4242.extern, 4242.0) follow it; they are ignored lines, counted in the event's `steps`, and
// give the job's energy when the allocation line has none (the extern step spans the whole
// allocation on every node; the batch step runs on the first node only).
#include "prep/parsers.hpp"
#include "slurm_fields.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <array>
#include <optional>

namespace gpucost::prep {

namespace {

enum Col : std::size_t { job_id, job_name, user, start, end, node_list, alloc_tres, energy, state, exit_code, count_ };

/// The columns of the documented --format list, in its order: a headerless input's.
constexpr std::array<std::string_view, count_> kColumnNames = {
    "JobID", "JobName", "User", "Start", "End", "NodeList", "AllocTRES", "ConsumedEnergyRaw", "State", "ExitCode"};

constexpr std::size_t kNoColumn = static_cast<std::size_t>(-1);

/// Splits a sacct -P line at '|'; -p's trailing '|' makes one empty cell more, dropped.
void split_cells(std::string_view line, std::vector<std::string_view>& cells) {
  cells.clear();
  std::size_t start = 0;
  for (;;) {
    const std::size_t bar = line.find('|', start);
    cells.push_back(line.substr(start, bar == std::string_view::npos ? line.npos : bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
}

bool is_header_line(std::string_view first_cell) {
  first_cell = text::trim(first_cell);
  return text::iequals(first_cell, "JobID") || text::iequals(first_cell, "JobIDRaw");
}

/// "Unknown" and "None": a job not started yet (Start) or still running (End).
bool no_time(std::string_view cell) { return cell == "Unknown" || cell == "None" || cell.empty(); }

/// One allocation line held until its steps are read.
struct HeldJob {
  std::uint64_t line = 0;
  std::int64_t start_ns = 0;
  std::optional<std::int64_t> end_ns;
  std::string id, name, user, node_list, nodes, tres, state, gpu_types, mem, excerpt;
  std::size_t node_count = 0;
  std::optional<std::int64_t> gpus, cpus, cancelled_by, exit_code, exit_signal;
  std::optional<std::uint64_t> energy_j, extern_energy_j, batch_energy_j;
  std::int64_t steps = 0;
};

class SacctParser final : public LineParser {
 public:
  explicit SacctParser(bool header_expected) : m_header_expected(header_expected) {
    if (!header_expected)
      for (std::size_t i = 0; i < count_; ++i) m_index[i] = i;
    m_columns = header_expected ? std::size_t{0} : std::size_t{count_};
  }

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    if (text::trim(line).empty()) return LineResult::ignored;
    split_cells(line, m_cells);
    if (is_header_line(m_cells.front())) return read_header(ctx);
    if (m_columns == 0) return ctx.malformed("data line before the header line (JobID|JobName|...)");
    if (m_cells.size() == m_columns + 1 && m_cells.back().empty()) m_cells.pop_back();  // sacct -p
    if (m_cells.size() != m_columns) {
      ctx.reason_buf =
          fmt::format("expected {} fields{}, found {}", m_columns,
                      m_header_expected ? " as in the header" : " (the documented --format list)", m_cells.size());
      return ctx.malformed(ctx.reason_buf);
    }
    const auto id = slurm::split_job_id(cell(job_id));
    if (!id) return ctx.malformed("JobID is not a Slurm job id (4242, 4242_7, 4242+1, 4242.batch)");
    if (id->is_step()) return read_step(*id, ctx);
    flush(ctx);
    return read_job(line, ctx);
  }

  void finish(ParseContext& ctx) override {
    flush(ctx);
    if (m_pending > 0)
      add_note(ctx.stats, fmt::format("{} not started (Start Unknown): no window, left out",
                                      text::counted(static_cast<long long>(m_pending), "job")));
    if (m_orphan_steps > 0)
      add_note(ctx.stats, fmt::format("{} without their job's line before them: ignored",
                                      text::counted(static_cast<long long>(m_orphan_steps), "step line")));
    if (ctx.stats.time_basis == TimeBasis::absolute) ctx.stats.logs_tz.clear();  // epoch or offset times only
  }

 private:
  [[nodiscard]] std::string_view cell(Col c) const {
    const std::size_t i = m_index[c];
    return i == kNoColumn ? std::string_view() : text::trim(m_cells[i]);
  }

  LineResult read_header(ParseContext& ctx) {
    m_index.fill(kNoColumn);
    for (std::size_t i = 0; i < m_cells.size(); ++i) {
      const std::string_view name = text::trim(m_cells[i]);
      for (std::size_t c = 0; c < count_; ++c)
        if (text::iequals(name, kColumnNames[c]) || (c == job_id && text::iequals(name, "JobIDRaw")))
          if (m_index[c] == kNoColumn) m_index[c] = i;
    }
    m_columns = m_cells.size();
    if (m_columns > 1 && text::trim(m_cells.back()).empty()) --m_columns;  // sacct -p
    if (m_index[start] == kNoColumn) {
      m_columns = 0;
      return ctx.malformed("sacct header without a Start column: give --format=JobID,...,Start,End,...");
    }
    return LineResult::ignored;
  }

  LineResult read_step(const slurm::JobId& id, ParseContext& ctx) {
    if (!m_held || m_held->id != id.job) {
      ++m_orphan_steps;
      return LineResult::ignored;
    }
    ++m_held->steps;
    const auto joules = energy_of(cell(energy));
    if (joules && *joules) {
      if (id.step == "extern") m_held->extern_energy_j = *joules;
      if (id.step == "batch") m_held->batch_energy_j = *joules;
    }
    (void)ctx;
    return LineResult::ignored;
  }

  /// ConsumedEnergyRaw in J; 0 and empty are "not measured" (no energy plugin). None: not a number.
  static std::optional<std::optional<std::uint64_t>> energy_of(std::string_view text_cell) {
    if (text_cell.empty()) return std::optional<std::uint64_t>{};
    for (const char c : text_cell)
      if (!text::is_digit(c)) return std::nullopt;
    const auto v = text::parse_int(text_cell);
    if (!v) return std::nullopt;
    return *v > 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*v)) : std::optional<std::uint64_t>{};
  }

  /// A Start or End: epoch seconds (SLURM_TIME_FORMAT=%s, as --slurm-job asks), ISO 8601 with a
  /// zone, or sacct's default local time without a zone (read in --tz).
  static bool time_of(std::string_view text_cell, ParseContext& ctx, std::int64_t& out) {
    bool digits = text_cell.size() >= 9 && text_cell.size() <= 12;
    for (const char c : text_cell) digits = digits && text::is_digit(c);
    if (digits) {
      out = *text::parse_int(text_cell) * kNsPerSecond;
      raise(ctx, TimeBasis::absolute);
      return true;
    }
    const auto iso = parse_iso8601(text_cell);
    if (!iso) return false;
    if (iso->offset_s) {
      out = iso->civil.as_utc_ns() - *iso->offset_s * kNsPerSecond;
      raise(ctx, TimeBasis::absolute);
    } else {
      out = ctx.clock.to_utc_ns(iso->civil.as_utc_ns());
      raise(ctx, TimeBasis::local);
    }
    return true;
  }

  static void raise(ParseContext& ctx, TimeBasis b) {
    if (static_cast<int>(b) > static_cast<int>(ctx.stats.time_basis)) ctx.stats.time_basis = b;
  }

  LineResult read_job(std::string_view line, ParseContext& ctx) {
    HeldJob job;
    job.line = ctx.line_no;
    job.id = std::string(cell(job_id));
    if (no_time(cell(start))) {
      ++m_pending;
      return LineResult::ignored;
    }
    if (!time_of(cell(start), ctx, job.start_ns))
      return ctx.malformed("Start is not a time (YYYY-MM-DDTHH:MM:SS, epoch seconds or Unknown)");
    if (!no_time(cell(end))) {
      std::int64_t end_ns = 0;
      if (!time_of(cell(end), ctx, end_ns))
        return ctx.malformed("End is not a time (YYYY-MM-DDTHH:MM:SS, epoch seconds, Unknown or None)");
      job.end_ns = end_ns;
    }
    if (m_index[state] != kNoColumn) {
      const auto st = slurm::parse_job_state(cell(state));
      if (!st) return ctx.malformed("State is not a Slurm job state (COMPLETED, CANCELLED by 1000, ...)");
      job.state = std::string(st->name);
      job.cancelled_by = st->cancelled_by;
    }
    if (m_index[exit_code] != kNoColumn) {
      const auto ec = slurm::parse_exit_code(cell(exit_code));
      if (!ec) return ctx.malformed("ExitCode is not N:M");
      job.exit_code = ec->code;
      job.exit_signal = ec->signal;
    }
    if (m_index[alloc_tres] != kNoColumn) {
      const auto tres = slurm::parse_alloc_tres(cell(alloc_tres));
      if (!tres) return ctx.malformed("AllocTRES is not a list of NAME=VALUE");
      job.tres = std::string(cell(alloc_tres));
      job.gpus = tres->gpus;
      job.gpu_types = tres->gpu_types;
      job.cpus = tres->cpus;
      job.mem = tres->mem;
    }
    if (m_index[node_list] != kNoColumn) {
      const auto hosts = slurm::expand_hostlist(cell(node_list));
      if (!hosts) return ctx.malformed("NodeList is not a Slurm host list (node[01-03,07])");
      job.node_list = std::string(cell(node_list));
      job.nodes = text::join(*hosts, ",");
      job.node_count = hosts->size();
    }
    const auto joules = energy_of(cell(energy));
    if (!joules) return ctx.malformed("ConsumedEnergyRaw is not a number of joules");
    job.energy_j = *joules;
    job.name = std::string(cell(job_name));
    job.user = std::string(cell(user));
    job.excerpt = std::string(line.substr(0, 120));
    m_held = std::move(job);
    return LineResult::deferred;
  }

  /// Emits the held job (its steps are all read): the allocation line becomes the `job` event.
  void flush(ParseContext& ctx) {
    if (!m_held) return;
    const HeldJob& j = *m_held;
    Event& ev = ctx.event;
    ev.reset();
    ev.source = "sacct";
    ev.kind = "job";
    ev.gpu = -1;
    ev.ts_ns = j.start_ns;  // host: --host or this machine's, as for telemetry; the nodes are a field
    ev.add_text("job_id", j.id);
    if (m_index[job_name] != kNoColumn) ev.add_text("job_name", j.name);
    if (m_index[user] != kNoColumn) ev.add_text("user", j.user);
    if (!j.state.empty()) ev.add_text("state", j.state);
    if (j.cancelled_by) ev.add_number("cancelled_by", *j.cancelled_by);
    if (j.exit_code) ev.add_number("exit_code", *j.exit_code);
    if (j.exit_signal) ev.add_number("exit_signal", *j.exit_signal);
    if (j.end_ns) ev.add_number("end_ns", *j.end_ns);
    if (m_index[node_list] != kNoColumn) {
      ev.add_text("nodelist", j.node_list);
      ev.add_text("nodes", j.nodes);
      ev.add_number("node_count", static_cast<std::int64_t>(j.node_count));
    }
    if (j.gpus) ev.add_number("gpus", *j.gpus);
    if (!j.gpu_types.empty()) ev.add_text("gpu_types", j.gpu_types);
    if (j.cpus) ev.add_number("cpus", *j.cpus);
    if (!j.mem.empty()) ev.add_text("mem", j.mem);
    if (m_index[alloc_tres] != kNoColumn) ev.add_text("alloc_tres", j.tres);
    const auto [energy_j, source] = j.energy_j          ? std::pair{j.energy_j, "job"}
                                    : j.extern_energy_j ? std::pair{j.extern_energy_j, "extern step"}
                                    : j.batch_energy_j  ? std::pair{j.batch_energy_j, "batch step"}
                                                        : std::pair{std::optional<std::uint64_t>{}, ""};
    if (energy_j) {
      ev.add_number("energy_j", static_cast<std::int64_t>(*energy_j));
      ev.add_text("energy_source", source);
    }
    ev.add_number("steps", j.steps);
    const std::uint64_t line_no = ctx.line_no;
    ctx.line_no = j.line;
    ctx.emit();
    ctx.line_no = line_no;
    ctx.settle(LineResult::event, 1, j.line);
    m_held.reset();
  }

  bool m_header_expected;
  std::array<std::size_t, count_> m_index{};
  std::size_t m_columns = 0;
  std::vector<std::string_view> m_cells;
  std::optional<HeldJob> m_held;
  std::uint64_t m_pending = 0, m_orphan_steps = 0;
};

}  // namespace

bool looks_like_sacct(std::string_view head) {
  const std::string_view line = first_nonblank_line(head);
  std::vector<std::string_view> cells;
  split_cells(line, cells);
  if (cells.size() < 2) return false;
  if (is_header_line(cells.front())) return true;
  // sacct -P -n with the documented --format list: ten fields, a job id first, a state ninth.
  if (cells.size() != count_ && !(cells.size() == count_ + 1 && cells.back().empty())) return false;
  return slurm::split_job_id(cells[job_id]).has_value() && slurm::parse_job_state(cells[state]).has_value() &&
         slurm::parse_exit_code(cells[exit_code]).has_value();
}

Expected<std::unique_ptr<LineParser>> make_sacct_parser(ParseContext& ctx, std::string_view head) {
  (void)ctx;
  std::vector<std::string_view> cells;
  split_cells(first_nonblank_line(head), cells);
  return std::unique_ptr<LineParser>(std::make_unique<SacctParser>(is_header_line(cells.front())));
}

}  // namespace gpucost::prep
