// Format detection: which format an input is, from its first bytes. The order of the checks
// matters where shapes overlap; each says why it comes where it does.
#include "parsers.hpp"
#include "prep/profiler/trace/trace.hpp"
#include "prep/telemetry/query_fields.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/prep/prep.hpp>

#include <fmt/format.h>

namespace gpucost::prep {

std::string_view first_nonblank_line(std::string_view head) {
  std::size_t pos = 0;
  while (pos < head.size()) {
    const std::size_t nl = head.find('\n', pos);
    const std::string_view line = text::trim(head.substr(pos, nl == std::string_view::npos ? head.npos : nl - pos));
    if (!line.empty()) return line;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return {};
}

bool HeadLines::next(std::string_view& line) {
  while (m_pos < m_head.size()) {
    const std::size_t nl = m_head.find('\n', m_pos);
    if (nl == std::string_view::npos && m_pos > 0 && m_head.size() >= 64 * 1024) return false;  // a cut last line
    line = m_head.substr(m_pos, nl == std::string_view::npos ? m_head.npos : nl - m_pos);
    m_pos = nl == std::string_view::npos ? m_head.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!text::trim(line).empty()) return true;
  }
  return false;
}

namespace {

// "name, power.draw [W], ..." -> true when every cell is a property name and one is known.
bool looks_like_query_header(std::string_view line) {
  std::size_t known = 0, cells = 0, start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    std::string_view cell = text::trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start));
    if (const std::size_t lb = cell.rfind(" ["); lb != std::string_view::npos && !cell.empty() && cell.back() == ']')
      cell = cell.substr(0, lb);
    ++cells;
    if (find_query_field(cell) != nullptr) ++known;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return known > 0 && known * 2 >= cells;
}

// The formats with a fixed shape; training logs are tried after them (detect_format).
Format detect_tool_format(std::string_view head, const PrepOptions& options) {
  const std::string_view line = first_nonblank_line(head);
  if (line.empty()) return Format::unknown;
  if (looks_like_bug_report(head)) return Format::bug_report;                   // before its sections' formats
  if (const Format smi = detect_smi(head); smi != Format::unknown) return smi;  // nvidia-smi -q, -q -x
  // An exporter's /metrics: `# HELP`/`# TYPE` lines, or a sample of a known series; before the
  // '#' header lines of dmon and dcgmi, whose first words (gpu, Date, Entity) it never has.
  if (looks_like_exposition(head)) return Format::exposition;
  if (line.front() == '#') {
    // dmon/pmon name line: "# gpu ...", "#Date Time gpu ..."; pmon has a pid column.
    std::string_view body = line.substr(1);
    std::size_t pos = 0;
    const std::string_view first = text::next_token(body, pos);
    const auto key = [](std::string_view t) {
      while (!t.empty() && t.back() == ',') t.remove_suffix(1);
      return t;
    };
    if (text::iequals(key(first), "gpu") || text::iequals(key(first), "date") || text::iequals(key(first), "time")) {
      for (std::string_view tok = first; !tok.empty(); tok = text::next_token(body, pos))
        if (text::iequals(key(tok), "pid")) return Format::pmon;
      return Format::dmon;
    }
    if (text::iequals(first, "entity")) return Format::dcgmi;  // dcgmi dmon: "#Entity ...", "# Entity ..."
    return Format::unknown;
  }
  // sacct -P: a header with JobID among field names, or delimited lines with a job id, a state and
  // an exit code or a time; no other format's first line has that shape.
  if (looks_like_sacct(head, options)) return Format::sacct;
  if (looks_like_prometheus_json(head)) return Format::prometheus_json;  // a JSON object, like the two below
  if (trace::looks_like_trace(head)) return Format::kineto;              // before journal JSON: both start with '{'
  if (line.front() == '{') {
    // journalctl -o json / json-pretty: journald's own fields in the first object.
    const std::string_view start = head.substr(0, 16 * 1024);
    if (start.find("\"__REALTIME_TIMESTAMP\"") != std::string_view::npos ||
        start.find("\"__CURSOR\"") != std::string_view::npos)
      return Format::journal_json;
  }
  // Profiler summaries: a dash-rule table with a "Name ..." header; nsys report banners or headers
  // (program output may come first). Before the kernel-log shapes, which they never have.
  if (looks_like_torch_table(head)) return Format::torch_table;
  if (looks_like_nsys(head)) return Format::nsys;
  if (looks_like_query_header(line)) return Format::query_csv;
  if (looks_like_python_logging(head)) return Format::trainlog;  // dmesg would take its asctime stamps
  if (const Format klog = detect_kernel_log(head); klog != Format::unknown) return klog;  // kern.log, dmesg, journal
  if (!options.fields.empty() && line.find(',') != std::string_view::npos) return Format::query_csv;
  return Format::unknown;
}

}  // namespace

Format detect_format(std::string_view head, const PrepOptions& options) {
  const Format tool = detect_tool_format(head, options);
  if (tool != Format::unknown) return tool;
  // Last: a training log is mostly free text, so it must not claim what a tool's parser reads.
  return looks_like_trainlog(head, options) ? Format::trainlog : Format::unknown;
}

Status check_format(std::string_view head, const PrepOptions& options, const std::string& path) {
  const Format detected = options.forced != Format::unknown ? options.forced : detect_format(head, options);
  return check_format(head, detected, options, path);
}

Status check_format(std::string_view head, Format detected, const PrepOptions& options, const std::string& path) {
  const std::string_view first = first_nonblank_line(head);
  if (options.forced == Format::query_csv) return check_query_csv_head(first, options, path);
  if (detected == Format::kineto) return check_kineto_head(head, path);
  if (detected == Format::sacct) return check_sacct_head(head, options, path);
  if (detected != Format::unknown) return {};
  if (first.empty()) return {};
  if (text::looks_binary(head))
    return make_error(ErrorKind::format, fmt::format("{}: binary data, not a log", path),
                      "gpucost reads text logs (plain, .gz or .zst) and trace JSON; force a format with "
                      "--input-format NAME to read it anyway (its lines are then reported as malformed)");
  // Shapes whose commas make no CSV: an exporter's lines of series gpucost does not map, JSON.
  if (looks_like_exposition_lines(head))
    return make_error(ErrorKind::format, fmt::format("{}: cannot recognise the format", path),
                      "this looks like an exporter's /metrics text (Prometheus exposition format) without a series "
                      "gpucost reads: it maps dcgm-exporter's DCGM_FI_* and nvidia_gpu_exporter's nvidia_smi_* "
                      "series; force --input-format exposition to read it anyway");
  if (const std::string hint = prometheus_json_hint(head); !hint.empty())
    return make_error(ErrorKind::format, fmt::format("{}: cannot recognise the format", path), hint);
  if (first.front() == '{' || first.front() == '[')
    return make_error(ErrorKind::format, fmt::format("{}: JSON of no format gpucost reads", path),
                      "gpucost reads Prometheus API answers (prometheus-json), journalctl -o json and PyTorch "
                      "profiler traces; force one with --input-format NAME");
  if (first.find('|') != std::string_view::npos)
    return make_error(ErrorKind::format, fmt::format("{}: cannot recognise the format", path),
                      "if this is sacct output without a header (-n), give its --format list with --sacct-format "
                      "LIST (and --sacct-delimiter STR for --delimiter), or save it with the header; or force a "
                      "format with --input-format " +
                          format_names());
  if (first.find(',') != std::string_view::npos)
    return make_error(ErrorKind::format, fmt::format("{}: cannot recognise the format", path),
                      "this looks like CSV: for `nvidia-smi --query-gpu=... --format=csv,noheader` pass "
                      "--fields with the --query-gpu list; or force one with --input-format " +
                          format_names());
  return make_error(ErrorKind::format, fmt::format("{}: cannot recognise the format", path),
                    "supported: " + format_names() +
                        "; force one with --input-format NAME, or describe the "
                        "lines with --pattern REGEX");
}

}  // namespace gpucost::prep
