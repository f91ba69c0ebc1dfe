// Slurm's accounting records, `sacct -P` (docs/formats.md, "Slurm jobs"): fields mapped by the
// header's names in any order, or, without a header (`-n`), by --sacct-format's list, else in the
// order of the documented list
//   JobID|JobName|User|Start|End|NodeList|AllocTRES|ConsumedEnergyRaw|State|ExitCode
//   4242|train|alice|2024-06-12T10:00:00|2024-06-12T12:00:00|node[01-02]|billing=16,cpu=16,gres/gpu=8,mem=64G,node=2||COMPLETED|0:0
//   4242.batch|batch||2024-06-12T10:00:00|2024-06-12T12:00:00|node01|cpu=8,gres/gpu=4,mem=32G,node=1|0|COMPLETED|0:0
// The delimiter is `|` (-P; -p adds one at the end of each line), --sacct-delimiter, or what
// sacct --delimiter=STR wrote: the separator between the header's names, else a multi-character
// string found the same number of times on every line.
// The allocation line is the job: one `job` event at its start. Its step lines (4242.batch,
// 4242.extern, 4242.0) follow it; they are ignored lines, counted in the event's `steps`, and
// give the job's energy when the allocation line has none (the extern step spans the whole
// allocation on every node; the batch step runs on the first node only).
#include "prep/parsers.hpp"
#include "slurm_fields.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

namespace gpucost::prep {

namespace {

enum Col : std::size_t {
  job_id,
  job_id_raw,
  job_name,
  user,
  start,
  end,
  elapsed,
  elapsed_raw,
  node_list,
  alloc_tres,
  req_tres,
  alloc_gres,
  tres_usage_in_tot,
  energy,
  state,
  exit_code,
  count_
};

/// The sacct fields read, by their names (as sacct --helpformat and the header spell them).
constexpr std::array<std::string_view, count_> kColumnNames = {
    "JobID",          "JobIDRaw",          "JobName",  "User",      "Start",   "End",
    "Elapsed",        "ElapsedRaw",        "NodeList", "AllocTRES", "ReqTRES", "AllocGRES",
    "TRESUsageInTot", "ConsumedEnergyRaw", "State",    "ExitCode"};

/// The documented --format list, in its order: a headerless input's without --sacct-format.
constexpr std::array<Col, 10> kDefaultList = {job_id,    job_name,   user,   start, end,
                                              node_list, alloc_tres, energy, state, exit_code};
constexpr std::string_view kDefaultListText =
    "JobID,JobName,User,Start,End,NodeList,AllocTRES,ConsumedEnergyRaw,State,ExitCode";

/// sacct's fields in the order of its table (sacct.c; --helpformat lists them): --format takes
/// the first whose name starts with what is given, case aside, as sacct does ("jobn" is JobName).
/// Names of Slurm versions old (AllocGRES, ReqGRES, BlockID: up to 20.02) and new (SubmitLine,
/// Planned, StdOut, ...) alike.
constexpr std::string_view kSacctFields =
    "Account AdminComment AllocCPUS AllocGRES AllocNodes AllocTRES AssocID AveCPU AveCPUFreq AveDiskRead "
    "AveDiskWrite AvePages AveRSS AveVMSize BlockID Cluster Comment Constraints ConsumedEnergy "
    "ConsumedEnergyRaw Container CPUTime CPUTimeRAW DBIndex DerivedExitCode Elapsed ElapsedRaw Eligible "
    "End ExitCode Extra FailedNode Flags GID Group JobID JobIDRaw JobName Layout Licenses MaxDiskRead "
    "MaxDiskReadNode MaxDiskReadTask MaxDiskWrite MaxDiskWriteNode MaxDiskWriteTask MaxPages "
    "MaxPagesNode MaxPagesTask MaxRSS MaxRSSNode MaxRSSTask MaxVMSize MaxVMSizeNode MaxVMSizeTask "
    "McsLabel MinCPU MinCPUNode MinCPUTask NCPUS NNodes NodeList NTasks Priority Partition Planned "
    "PlannedCPU PlannedCPURAW QOS QOSRAW Reason ReqCPUFreq ReqCPUFreqMin ReqCPUFreqMax ReqCPUFreqGov "
    "ReqCPUS ReqGRES ReqMem ReqNodes ReqTRES Reservation ReservationId Reserved ResvCPU ResvCPURAW Start "
    "State StdErr StdIn StdOut Submit SubmitLine Suspended SystemComment SystemCPU Timelimit "
    "TimelimitRaw TotalCPU TRESUsageInAve TRESUsageInMax TRESUsageInMaxNode TRESUsageInMaxTask "
    "TRESUsageInMin TRESUsageInMinNode TRESUsageInMinTask TRESUsageInTot TRESUsageOutAve TRESUsageOutMax "
    "TRESUsageOutMaxNode TRESUsageOutMaxTask TRESUsageOutMin TRESUsageOutMinNode TRESUsageOutMinTask "
    "TRESUsageOutTot UID User UserCPU WCKey WCKeyID WorkDir";

constexpr std::size_t kNoColumn = static_cast<std::size_t>(-1);

/// The column a field name stands for; count_ for a field gpucost does not read.
Col column_of(std::string_view name) {
  for (std::size_t c = 0; c < count_; ++c)
    if (text::iequals(name, kColumnNames[c])) return static_cast<Col>(c);
  return count_;
}

/// A --sacct-format list as sacct reads its --format: comma-separated names, each with an
/// optional %N width (ignored: -P prints whole values), a name standing for the first field of
/// sacct's table it starts, case aside. The columns, count_ for the fields not read.
Expected<std::vector<Col>> format_columns(std::string_view list) {
  std::vector<Col> out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = list.find(',', pos);
    std::string_view name = list.substr(pos, comma == std::string_view::npos ? list.npos : comma - pos);
    name = text::trim(name.substr(0, name.find('%')));
    if (name.empty())
      return make_error(
          ErrorKind::usage, fmt::format("--sacct-format: an empty field name in '{}'", list),
          "give the list sacct's --format was given, e.g. --sacct-format " + std::string(kDefaultListText));
    if (name.size() <= 3 && text::iequals(std::string_view("ALL").substr(0, name.size()), name))  // as sacct: a, al
      return make_error(ErrorKind::usage,
                        "--sacct-format: ALL stands for every field of the Slurm version that wrote it",
                        "name the fields one by one, or save sacct's output with its header (without -n)");
    Col col = column_of(name);
    std::size_t at = 0;  // an abbreviation: the first of sacct's fields it starts (read or not)
    for (std::string_view field = text::next_token(kSacctFields, at); col == count_ && !field.empty();
         field = text::next_token(kSacctFields, at))
      if (field.size() > name.size() && text::iequals(field.substr(0, name.size()), name)) {
        col = column_of(field);
        break;
      }
    out.push_back(col);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  const auto listed = [&out](Col c) { return std::find(out.begin(), out.end(), c) != out.end(); };
  if ((!listed(job_id) && !listed(job_id_raw)) || !listed(start))
    return make_error(ErrorKind::usage,
                      fmt::format("--sacct-format {}: no {} in the list", list,
                                  listed(job_id) || listed(job_id_raw) ? "Start" : "JobID"),
                      "gpucost needs the job's JobID and Start (End, NodeList, AllocTRES, State, ... as sacct "
                      "printed them); the list must be the one sacct's --format was given, in its order");
  return out;
}

/// Splits a sacct line at `delimiter`.
void split_cells(std::string_view line, std::string_view delimiter, std::vector<std::string_view>& cells) {
  cells.clear();
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = line.find(delimiter, start);
    cells.push_back(line.substr(start, at == std::string_view::npos ? line.npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + delimiter.size();
  }
}

bool is_name_char(char c) { return text::is_alpha(c) || text::is_digit(c); }

/// The delimiter of a header line: the one string between its field names (letters and digits),
/// after a JobID or JobIDRaw among them; none when the line is not a header.
std::optional<std::string_view> header_delimiter(std::string_view line) {
  line = text::trim(line);
  std::optional<std::string_view> delimiter;
  std::size_t names = 0, i = 0;
  bool job = false;
  while (i < line.size()) {
    std::size_t j = i;
    while (j < line.size() && is_name_char(line[j])) ++j;
    if (j == i) return std::nullopt;  // an empty name, or one with other characters
    const std::string_view name = line.substr(i, j - i);
    job = job || text::iequals(name, "JobID") || text::iequals(name, "JobIDRaw");
    ++names;
    if (j == line.size()) break;
    std::size_t k = j;
    while (k < line.size() && !is_name_char(line[k])) ++k;
    const std::string_view sep = line.substr(j, k - j);
    if (delimiter && *delimiter != sep) return std::nullopt;
    delimiter = sep;
    i = k;  // at the end: -p's delimiter after the last name
  }
  if (!job || names < 2 || !delimiter) return std::nullopt;
  return delimiter;
}

bool is_header(const std::vector<std::string_view>& cells) {
  bool job = false;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string_view name = text::trim(cells[i]);
    if (name.empty() && i + 1 == cells.size() && i > 0) continue;  // -p
    if (name.empty() || !std::all_of(name.begin(), name.end(), is_name_char)) return false;
    job = job || text::iequals(name, "JobID") || text::iequals(name, "JobIDRaw");
  }
  return job;
}

/// The complete lines at the start of `head` that are not blank, trimmed (at most `most`).
std::vector<std::string_view> head_lines(std::string_view head, std::size_t most) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < head.size() && out.size() < most) {
    const std::size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos && !out.empty()) break;  // cut by the head's end, perhaps
    const std::string_view line = text::trim(head.substr(pos, nl == std::string_view::npos ? head.npos : nl - pos));
    if (!line.empty()) out.push_back(line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

std::size_t occurrences(std::string_view line, std::string_view s) {
  std::size_t n = 0;
  for (std::size_t at = line.find(s); at != std::string_view::npos; at = line.find(s, at + s.size())) ++n;
  return n;
}

bool is_punct(char c) { return c > ' ' && c < 0x7f && !is_name_char(c); }

/// The delimiter of a sacct input: --sacct-delimiter; else a header's; else, among `|` and the
/// strings of 2 to 8 punctuation characters of the first line, one found the same number of
/// times (at least once) on every line of the head: the most often found, the longest of those
/// (`^|^` over its `|`), so that `|`-separated lines with empty fields (`||`) stay `|`.
std::string delimiter_of(std::string_view head, const PrepOptions& options) {
  if (!options.sacct_delimiter.empty()) return options.sacct_delimiter;
  const std::vector<std::string_view> lines = head_lines(head, 32);
  if (lines.empty()) return "|";
  if (const auto d = header_delimiter(lines.front())) return std::string(*d);
  // Bounded work on any input detection shows this (a minified JSON line): the candidates of
  // the first 8 KiB, each once, at most 128 of them.
  constexpr std::size_t kScanBytes = 8192, kMaxCandidates = 128;
  std::vector<std::string_view> candidates{"|"};
  const std::string_view first = lines.front(), scanned = first.substr(0, kScanBytes);
  for (std::size_t i = 0; i < scanned.size() && candidates.size() < 8 * kMaxCandidates;) {
    std::size_t j = i;
    while (j < scanned.size() && is_punct(scanned[j])) ++j;
    for (std::size_t a = i; a < j; ++a)
      for (std::size_t len = 2; len <= 8 && a + len <= j; ++len) candidates.push_back(scanned.substr(a, len));
    i = j == i ? i + 1 : j;
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  if (candidates.size() > kMaxCandidates) candidates.resize(kMaxCandidates);
  std::string_view best = "|";
  std::size_t best_count = 0;
  for (const std::string_view c : candidates) {
    const std::size_t n = occurrences(first, c);
    if (n == 0) continue;
    bool same = true;
    for (const std::string_view line : lines) same = same && occurrences(line, c) == n;
    if (same && (n > best_count || (n == best_count && c.size() > best.size()))) {
      best = c;
      best_count = n;
    }
  }
  return std::string(best);
}

/// "Unknown" and "None": a job not started yet (Start) or still running (End).
bool no_time(std::string_view cell) { return cell == "Unknown" || cell == "None" || cell.empty(); }

/// "Unknown", "None", "INVALID" or nothing: a field without a value.
bool no_value(std::string_view cell) { return no_time(cell) || cell == "INVALID"; }

/// A time YYYY-MM-DDTHH:MM:SS: a sign of sacct's lines for detection.
bool looks_like_time(std::string_view cell) {
  cell = text::trim(cell);
  return cell.size() >= 19 && cell[4] == '-' && cell[7] == '-' && cell[10] == 'T' && cell[13] == ':' &&
         text::is_digit(cell[0]) && text::is_digit(cell[18]);
}

/// One allocation line held until its steps are read.
struct HeldJob {
  std::uint64_t line = 0;
  std::int64_t start_ns = 0;
  std::optional<std::int64_t> end_ns, elapsed_s;
  bool end_from_elapsed = false;
  std::string id, name, user, node_list, nodes, tres, state, gpu_types, mem, excerpt;
  std::string_view gpus_from;  ///< the field the GPU count came from, when not AllocTRES
  std::size_t node_count = 0;
  std::optional<std::int64_t> gpus, cpus, cancelled_by, exit_code, exit_signal;
  std::optional<std::uint64_t> energy_j, extern_energy_j, batch_energy_j;
  std::int64_t steps = 0;
};

/// How the lines of one input are laid out: the delimiter, and the columns of a headerless input.
struct Layout {
  std::string delimiter = "|";
  bool header = false;       ///< the first line is a header
  std::vector<Col> columns;  ///< without a header: --sacct-format's, else the documented list
  bool listed = false;       ///< the columns are --sacct-format's
};

Expected<Layout> layout_of(std::string_view head, const PrepOptions& options) {
  Layout l;
  l.delimiter = delimiter_of(head, options);
  std::vector<std::string_view> cells;
  split_cells(first_nonblank_line(head), l.delimiter, cells);
  l.header = is_header(cells);
  if (!options.sacct_format.empty()) {
    auto cols = format_columns(options.sacct_format);
    if (!cols) return cols.error();
    l.columns = std::move(*cols);
    l.listed = true;
  } else {
    l.columns.assign(kDefaultList.begin(), kDefaultList.end());
  }
  return l;
}

class SacctParser final : public LineParser {
 public:
  explicit SacctParser(Layout layout) : m_layout(std::move(layout)) {
    m_index.fill(kNoColumn);
    if (m_layout.header) return;  // the header line sets the columns
    for (std::size_t i = 0; i < m_layout.columns.size(); ++i)
      if (m_layout.columns[i] != count_ && m_index[m_layout.columns[i]] == kNoColumn) m_index[m_layout.columns[i]] = i;
    m_columns = m_layout.columns.size();
  }

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    if (text::trim(line).empty()) return LineResult::ignored;
    split_cells(line, m_layout.delimiter, m_cells);
    if (is_header(m_cells)) return read_header(ctx);
    if (m_columns == 0) return ctx.malformed("data line before the header line (JobID|JobName|...)");
    if (m_cells.size() == m_columns + 1 && text::trim(m_cells.back()).empty()) m_cells.pop_back();  // sacct -p
    if (m_cells.size() != m_columns) {
      ctx.reason_buf = fmt::format("expected {} fields{}, found {}", m_columns,
                                   m_header_read     ? " as in the header"
                                   : m_layout.listed ? " (the --sacct-format list)"
                                                     : " (the documented --format list; another: --sacct-format LIST)",
                                   m_cells.size());
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
    if (m_ended_by_elapsed > 0)
      add_note(ctx.stats, fmt::format("{} ended (End Unknown): the end taken as Start + Elapsed",
                                      text::counted(static_cast<long long>(m_ended_by_elapsed), "job")));
    if (m_ended_open > 0)
      add_note(ctx.stats, fmt::format("{} ended (End Unknown) without an Elapsed to end {}: {} until the last sample",
                                      text::counted(static_cast<long long>(m_ended_open), "job"),
                                      m_ended_open == 1 ? "it" : "them",
                                      m_ended_open == 1 ? "its window runs" : "their windows run"));
    if (ctx.stats.time_basis == TimeBasis::absolute) ctx.stats.logs_tz.clear();  // epoch or offset times only
  }

 private:
  /// The cell of a column (JobID: JobIDRaw when only it is there); empty when it is not there.
  [[nodiscard]] std::string_view cell(Col c) const {
    std::size_t i = m_index[c];
    if (c == job_id && i == kNoColumn) i = m_index[job_id_raw];
    return i == kNoColumn ? std::string_view() : text::trim(m_cells[i]);
  }
  [[nodiscard]] bool has(Col c) const { return m_index[c] != kNoColumn; }

  LineResult read_header(ParseContext& ctx) {
    m_index.fill(kNoColumn);
    for (std::size_t i = 0; i < m_cells.size(); ++i) {
      const Col c = column_of(text::trim(m_cells[i]));
      if (c != count_ && m_index[c] == kNoColumn) m_index[c] = i;
    }
    m_columns = m_cells.size();
    if (m_columns > 1 && text::trim(m_cells.back()).empty()) --m_columns;  // sacct -p
    m_header_read = true;
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
    std::optional<std::uint64_t> joules;
    if (!line_energy(ctx, joules)) {  // a step's energy that does not read: not taken
      joules.reset();
      ctx.reason = {};
    }
    if (joules) {
      if (id.step == "extern") m_held->extern_energy_j = *joules;
      if (id.step == "batch") m_held->batch_energy_j = *joules;
    }
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

  /// The energy of the line in J: ConsumedEnergyRaw, else the energy TRES of TRESUsageInTot, else
  /// of AllocTRES (`energy=N`); none when none measured it. False (with the reason) when one of
  /// them does not read.
  bool line_energy(ParseContext& ctx, std::optional<std::uint64_t>& out) const {
    const auto raw = energy_of(cell(energy));
    if (!raw) {
      ctx.reason = "ConsumedEnergyRaw is not a number of joules";
      return false;
    }
    out = *raw;
    for (const Col c : {tres_usage_in_tot, alloc_tres}) {
      if (out || !has(c)) continue;
      const auto tres = slurm::parse_alloc_tres(cell(c));
      if (!tres) {
        ctx.reason = c == alloc_tres ? "AllocTRES is not a list of NAME=VALUE (energy=N in joules)"
                                     : "TRESUsageInTot is not a list of NAME=VALUE (energy=N in joules)";
        return false;
      }
      if (tres->energy_j && *tres->energy_j > 0) out = static_cast<std::uint64_t>(*tres->energy_j);
    }
    return true;
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

  /// The GPUs of the allocation when AllocTRES names none (a cluster whose AccountingStorageTRES
  /// lacks gres/gpu): AllocGRES (Slurm up to 20.02), else ReqTRES (what was asked: an --exclusive
  /// job may hold more). False when the field does not read.
  bool fallback_gpus(HeldJob& job, ParseContext& ctx) const {
    if (has(alloc_gres)) {
      const auto gres = slurm::parse_gres_gpus(cell(alloc_gres));
      if (!gres) {
        ctx.reason = "AllocGRES is not a GRES list (gpu:4, gpu:a100:4(IDX:0-3))";
        return false;
      }
      if (take_gpus(*gres, "AllocGRES", job)) return true;
    }
    if (has(req_tres)) {
      const auto tres = slurm::parse_alloc_tres(cell(req_tres));
      if (!tres) {
        ctx.reason = "ReqTRES is not a list of NAME=VALUE";
        return false;
      }
      take_gpus(*tres, "ReqTRES", job);
    }
    return true;
  }

  /// The GPUs of a GRES or TRES list read from the field `from`, when it counts some.
  template <class GpuList>
  static bool take_gpus(const GpuList& list, std::string_view from, HeldJob& job) {
    if (!list.gpus) return false;
    job.gpus = list.gpus;
    job.gpu_types = list.gpu_types;
    job.gpus_from = from;
    return true;
  }

  /// Elapsed in seconds: ElapsedRaw, else Elapsed ([D-]HH:MM:SS); none when neither has a value.
  bool elapsed_of(HeldJob& job, ParseContext& ctx) const {
    if (has(elapsed_raw) && !no_value(cell(elapsed_raw))) {
      const auto s = text::parse_int(cell(elapsed_raw));
      if (!s || *s < 0 || *s > slurm::kMaxTimeSpanS) {
        ctx.reason = "ElapsedRaw is not a number of seconds";
        return false;
      }
      job.elapsed_s = *s;
      return true;
    }
    if (has(elapsed) && !no_value(cell(elapsed))) {
      const auto s = slurm::parse_time_string(cell(elapsed));
      if (!s) {
        ctx.reason = "Elapsed is not a time span ([D-]HH:MM:SS, MM:SS, D-HH, ...)";
        return false;
      }
      job.elapsed_s = *s;
    }
    return true;
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
    if (has(state)) {
      const auto st = slurm::parse_job_state(cell(state));
      if (!st) return ctx.malformed("State is not a Slurm job state (COMPLETED, CANCELLED by 1000, ...)");
      job.state = std::string(st->name);
      job.cancelled_by = st->cancelled_by;
    }
    if (has(exit_code)) {
      const auto ec = slurm::parse_exit_code(cell(exit_code));
      if (!ec) return ctx.malformed("ExitCode is not N:M");
      job.exit_code = ec->code;
      job.exit_signal = ec->signal;
    }
    if (!elapsed_of(job, ctx)) return LineResult::malformed;
    if (has(alloc_tres)) {
      const auto tres = slurm::parse_alloc_tres(cell(alloc_tres));
      if (!tres) return ctx.malformed("AllocTRES is not a list of NAME=VALUE");
      job.tres = std::string(cell(alloc_tres));
      job.gpus = tres->gpus;
      job.gpu_types = tres->gpu_types;
      job.cpus = tres->cpus;
      job.mem = tres->mem;
    }
    if (!job.gpus && !fallback_gpus(job, ctx)) return LineResult::malformed;
    if (has(node_list)) {
      const auto hosts = slurm::expand_hostlist(cell(node_list));
      if (!hosts) return ctx.malformed("NodeList is not a Slurm host list (node[01-03,07])");
      job.node_list = std::string(cell(node_list));
      job.nodes = text::join(*hosts, ",");
      job.node_count = hosts->size();
    }
    if (!line_energy(ctx, job.energy_j)) return LineResult::malformed;
    // A job that ended without an End (sacct's Unknown after a controller's restart, a record
    // never closed): Start + Elapsed, never the end of the telemetry.
    if (!job.end_ns && slurm::is_ended_state(job.state)) {
      if (job.elapsed_s) {
        job.end_ns = job.start_ns + *job.elapsed_s * kNsPerSecond;
        job.end_from_elapsed = true;
        ++m_ended_by_elapsed;
      } else {
        ++m_ended_open;
      }
    }
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
    if (has(job_name)) ev.add_text("job_name", j.name);
    if (has(user)) ev.add_text("user", j.user);
    if (!j.state.empty()) ev.add_text("state", j.state);
    if (j.cancelled_by) ev.add_number("cancelled_by", *j.cancelled_by);
    if (j.exit_code) ev.add_number("exit_code", *j.exit_code);
    if (j.exit_signal) ev.add_number("exit_signal", *j.exit_signal);
    if (j.end_ns) ev.add_number("end_ns", *j.end_ns);
    if (j.end_from_elapsed) ev.add_text("end_from", "elapsed");
    if (j.elapsed_s) ev.add_number("elapsed_s", *j.elapsed_s);
    if (has(node_list)) {
      ev.add_text("nodelist", j.node_list);
      ev.add_text("nodes", j.nodes);
      ev.add_number("node_count", static_cast<std::int64_t>(j.node_count));
    }
    if (j.gpus) ev.add_number("gpus", *j.gpus);
    if (!j.gpus_from.empty()) ev.add_text("gpus_from", j.gpus_from);
    if (!j.gpu_types.empty()) ev.add_text("gpu_types", j.gpu_types);
    if (j.cpus) ev.add_number("cpus", *j.cpus);
    if (!j.mem.empty()) ev.add_text("mem", j.mem);
    if (has(alloc_tres)) ev.add_text("alloc_tres", j.tres);
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

  Layout m_layout;
  std::array<std::size_t, count_> m_index{};
  std::size_t m_columns = 0;
  bool m_header_read = false;
  std::vector<std::string_view> m_cells;
  std::optional<HeldJob> m_held;
  std::uint64_t m_pending = 0, m_orphan_steps = 0, m_ended_by_elapsed = 0, m_ended_open = 0;
};

/// A headerless line whose field list gpucost cannot tell: a job id, a state sacct prints, and
/// an exit code N:M or a time among at least three fields.
bool looks_like_sacct_line(const std::vector<std::string_view>& cells) {
  if (cells.size() < 3) return false;
  bool id = false, st = false, other = false;
  for (const std::string_view raw : cells) {
    const std::string_view c = text::trim(raw);
    if (c.empty()) continue;
    id = id || (text::is_digit(c.front()) && slurm::split_job_id(c).has_value());
    if (const auto s = slurm::parse_job_state(c)) st = st || slurm::is_known_state(s->name);
    other = other || looks_like_time(c) || (c.find(':') != std::string_view::npos && slurm::parse_exit_code(c));
  }
  return id && st && other;
}

}  // namespace

bool looks_like_sacct(std::string_view head, const PrepOptions& options) {
  const std::string_view line = first_nonblank_line(head);
  const std::string delimiter = delimiter_of(head, options);
  std::vector<std::string_view> cells;
  split_cells(line, delimiter, cells);
  if (cells.size() < 2) return false;
  if (is_header(cells)) return true;
  if (cells.size() > 1 && text::trim(cells.back()).empty()) cells.pop_back();  // sacct -p
  if (!options.sacct_format.empty()) {
    // sacct -n with the --sacct-format list: as many fields, a job id in JobID's.
    const auto cols = format_columns(options.sacct_format);
    if (!cols || cols->size() != cells.size()) return looks_like_sacct_line(cells);
    for (std::size_t i = 0; i < cols->size(); ++i) {
      if ((*cols)[i] == job_id || (*cols)[i] == job_id_raw) return slurm::split_job_id(cells[i]).has_value();
    }
    return looks_like_sacct_line(cells);
  }
  // sacct -P -n with the documented --format list: ten fields, a job id first, a state ninth.
  if (cells.size() == kDefaultList.size() && slurm::split_job_id(cells[0]).has_value() &&
      slurm::parse_job_state(cells[8]).has_value() && slurm::parse_exit_code(cells[9]).has_value())
    return true;
  return looks_like_sacct_line(cells);
}

Status check_sacct_head(std::string_view head, const PrepOptions& options, const std::string& path) {
  auto layout = layout_of(head, options);
  if (!layout) return layout.error();
  if (layout->header || layout->listed) return {};
  const std::string_view line = first_nonblank_line(head);
  if (line.empty()) return {};
  std::vector<std::string_view> cells;
  split_cells(line, layout->delimiter, cells);
  if (cells.size() > 1 && text::trim(cells.back()).empty()) cells.pop_back();  // sacct -p
  if (cells.size() == kDefaultList.size()) return {};
  return make_error(
      ErrorKind::format,
      fmt::format("{}: sacct output without a header (-n) of {} fields, not the {} of the documented list", path,
                  cells.size(), kDefaultList.size()),
      fmt::format("give the --format list it was written with, e.g. --sacct-format "
                  "Account,UID,User,JobID,Start,End,State (or save it without -n: the header names the fields); "
                  "the documented list is {}",
                  kDefaultListText));
}

Expected<std::unique_ptr<LineParser>> make_sacct_parser(ParseContext& ctx, std::string_view head) {
  GPUCOST_TRY(check_sacct_head(head, ctx.options, ctx.stats.path));
  auto layout = layout_of(head, ctx.options);
  if (!layout) return layout.error();
  return std::unique_ptr<LineParser>(std::make_unique<SacctParser>(std::move(*layout)));
}

}  // namespace gpucost::prep
