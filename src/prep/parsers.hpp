// Factories of the per-format line parsers, all of one signature (ParserFactory), and the
// detection helpers each format's file gives detect.cpp. Internal to prep.
#pragma once

#include "line_parser.hpp"

#include <gpucost/core/error.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace gpucost::prep {

/// Creates the parser of one input; `head` is the start of the input (what detection saw). Fails
/// when the input cannot be read as that format: a query CSV without a header or --fields, a
/// --pattern that does not compile, JSON of another kind than a Kineto trace.
using ParserFactory = Expected<std::unique_ptr<LineParser>> (*)(ParseContext& ctx, std::string_view head);

Expected<std::unique_ptr<LineParser>> make_dmon_parser(ParseContext& ctx, std::string_view head);
Expected<std::unique_ptr<LineParser>> make_pmon_parser(ParseContext& ctx, std::string_view head);
/// Fails when the CSV has no header and no usable --fields list.
Expected<std::unique_ptr<LineParser>> make_query_csv_parser(ParseContext& ctx, std::string_view head);
/// Fails, with a hint naming --fields, when a query CSV starting with `first_line` has no header
/// and no --fields was given.
Status check_query_csv_head(std::string_view first_line, const PrepOptions& options, const std::string& path);
/// journalctl -o json / json-pretty (kernel/parse_journal_json.cpp).
Expected<std::unique_ptr<LineParser>> make_journal_json_parser(ParseContext& ctx, std::string_view head);
/// dcgmi dmon (telemetry/parse_dcgmi.cpp).
Expected<std::unique_ptr<LineParser>> make_dcgmi_parser(ParseContext& ctx, std::string_view head);
/// Prometheus HTTP API JSON, read whole (telemetry/parse_prometheus_json.cpp). Fails, with Prometheus'
/// message, when the input starts with an error response.
Expected<std::unique_ptr<LineParser>> make_prometheus_json_parser(ParseContext& ctx, std::string_view head);
/// True when `head` is a JSON object with "data":{"resultType":"matrix" (or "vector") in it, its
/// keys in any order, or that starts {"status":"error","errorType": (whitespace anywhere between
/// the tokens).
bool looks_like_prometheus_json(std::string_view head);
/// For a JSON object that is nearly a Prometheus answer (its data without the envelope, a status
/// without data), the hint naming what it lacks; empty otherwise.
std::string prometheus_json_hint(std::string_view head);
/// An exporter's /metrics text, the Prometheus text exposition format (telemetry/parse_exposition.cpp).
Expected<std::unique_ptr<LineParser>> make_exposition_parser(ParseContext& ctx, std::string_view head);
/// True when the first line of `head` that is not a scrape time (digits) is `# HELP NAME ...` or
/// `# TYPE NAME ...`, or a sample line of a series the Prometheus readers map
/// (`DCGM_FI_DEV_SM_CLOCK{gpu="0",...} 1410`).
bool looks_like_exposition(std::string_view head);
/// True when the first line that is no comment has the shape of an exposition sample line,
/// `name{label="v",...} value` or `name value`, whatever the series: for the hint of an input
/// that no format claims.
bool looks_like_exposition_lines(std::string_view head);
/// Slurm's accounting records, sacct -P with or without its header (jobs/parse_sacct.cpp).
Expected<std::unique_ptr<LineParser>> make_sacct_parser(ParseContext& ctx, std::string_view head);
/// True when the first line of `head` is a sacct -P header (JobID among field names, in any
/// order, with any delimiter), a headerless line of --sacct-format's list or of the documented
/// --format list (a job id, ..., a state, an exit code N:M), or a headerless line of another list
/// that shows sacct's signs (a job id, a state sacct prints, an exit code or a time).
bool looks_like_sacct(std::string_view head, const PrepOptions& options);
/// Fails, asking for --sacct-format, when a headerless sacct input has another number of fields
/// than the documented list and no --sacct-format was given; or when --sacct-format is not a list.
Status check_sacct_head(std::string_view head, const PrepOptions& options, const std::string& path);
/// nvidia-smi -q text and -q -x XML (telemetry/parse_smi_q.cpp, parse_smi_xml.cpp).
Expected<std::unique_ptr<LineParser>> make_smi_q_parser(ParseContext& ctx, std::string_view head);
Expected<std::unique_ptr<LineParser>> make_smi_xml_parser(ParseContext& ctx, std::string_view head);
/// smi_q / smi_xml when `head` starts like nvidia-smi -q / -q -x output, else unknown (telemetry/smi_common.cpp).
Format detect_smi(std::string_view head);

/// kern.log / syslog / messages, and the journalctl text modes (kernel/parse_syslog.cpp).
Expected<std::unique_ptr<LineParser>> make_syslog_parser(ParseContext& ctx, std::string_view head);
Expected<std::unique_ptr<LineParser>> make_journal_text_parser(ParseContext& ctx, std::string_view head);
/// dmesg and /dev/kmsg records (kernel/parse_dmesg.cpp).
Expected<std::unique_ptr<LineParser>> make_dmesg_parser(ParseContext& ctx, std::string_view head);

/// nvidia-bug-report.log: splits it into sections and feeds each to the parser of its format.
Expected<std::unique_ptr<LineParser>> make_bug_report_parser(ParseContext& ctx, std::string_view head);
bool looks_like_bug_report(std::string_view head);
/// syslog, journal_text or dmesg when the first lines of `head` have their shape, else unknown.
Format detect_kernel_log(std::string_view head);

/// Kineto trace JSON, read whole (profiler/trace/trace_events.cpp): the analyses' events. Fails like
/// check_kineto_head.
Expected<std::unique_ptr<LineParser>> make_kineto_parser(ParseContext& ctx, std::string_view head);
/// Fails, naming what it is, when a trace-like JSON input starting with `head` is not a Kineto
/// trace (a memory timeline, an execution trace).
Status check_kineto_head(std::string_view head, const std::string& path);
/// PyTorch profiler tables (profiler/parse_torch_table.cpp): a dash rule followed by a "Name ..." header.
Expected<std::unique_ptr<LineParser>> make_torch_table_parser(ParseContext& ctx, std::string_view head);
bool looks_like_torch_table(std::string_view head);
/// Nsight Systems summaries (profiler/parse_nsys.cpp): report banners, legacy section titles, CSV headers.
Expected<std::unique_ptr<LineParser>> make_nsys_parser(ParseContext& ctx, std::string_view head);
bool looks_like_nsys(std::string_view head);
/// Python training logs and --pattern lines (trainlog/trainlog_parser.cpp; detection in
/// trainlog_detect.cpp). Fails when a pattern does not compile.
Expected<std::unique_ptr<LineParser>> make_trainlog_parser(ParseContext& ctx, std::string_view head);
/// True when the first lines of `head` hold a training-log line shape, or match a --pattern.
bool looks_like_trainlog(std::string_view head, const PrepOptions& options);
/// True when one of the first lines is a Python logging line ("2024-06-12 08:00:00,001 - name -
/// INFO - msg"): checked before the kernel logs, whose ISO stamps look alike.
bool looks_like_python_logging(std::string_view head);

/// The first line of `head` that is not blank, trimmed (detect.cpp).
std::string_view first_nonblank_line(std::string_view head);

/// The whole lines of a detection head in order, for counting line shapes: blank lines skipped,
/// a trailing '\r' dropped, and a last line cut by the end of a full 64 KiB head left out.
class HeadLines {
 public:
  explicit HeadLines(std::string_view head) : m_head(head) {}
  /// Sets `line` to the next line; false when there is none.
  bool next(std::string_view& line);

 private:
  std::string_view m_head;
  std::size_t m_pos = 0;
};

}  // namespace gpucost::prep
