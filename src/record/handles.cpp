// record's gpu_handle scans (handles.hpp).
#include "handles.hpp"

#include <gpucost/core/input_stats.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/procs/handle_events.hpp>
#include <gpucost/procs/scan.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include <unistd.h>

namespace gpucost::record {

struct HandleRecorder::Impl {
  std::optional<procs::Scanner> scanner;
  std::FILE* file = nullptr;
  std::unique_ptr<io::EventWriter> writer;
  std::unique_ptr<procs::HandleTracker> tracker;
  std::string path, proc_path;
  std::int64_t interval_ns = 0, last_scan_ns = 0, first_scan_ns = 0;
  std::uint64_t scans = 0, failed_scans = 0;
  std::size_t most_unreadable = 0;
  std::string unreadable_example;  ///< the summary of the scan with the most unreadable processes
  std::string first_error;

  void scan_now() {
    const std::int64_t now = wall_clock_ns();
    last_scan_ns = now;
    auto result = scanner->scan();
    if (!result) {
      if (failed_scans++ == 0) first_error = result.error().message;
      return;
    }
    if (scans++ == 0) first_scan_ns = now;
    if (result->unreadable.size() > most_unreadable) {
      most_unreadable = result->unreadable.size();
      unreadable_example = fmt::format("{} of {}", most_unreadable, result->processes);
    }
    tracker->update(*result, now, *writer);
    writer->flush();  // a record killed on the way keeps what was seen
  }
};

HandleRecorder::HandleRecorder(const RecordOptions& o, const std::string& dir, std::vector<std::string>& notes)
    : m_impl(std::make_unique<Impl>()) {
  Impl& m = *m_impl;
  auto scanner = procs::Scanner::create(procs::ScanOptions{o.proc_root, o.device_patterns});
  if (!scanner) {
    notes.push_back(fmt::format("no scan of the processes holding the GPU: {}", scanner.error().message));
    return;
  }
  m.path = fmt::format("{}/{}", dir, kHandlesFile);
  auto fd = io::open_own_file(m.path, false);
  m.file = fd ? ::fdopen(*fd, "w") : nullptr;
  if (m.file == nullptr) {
    if (fd) ::close(*fd);
    notes.push_back(fmt::format("{}: no scan of the processes holding the GPU",
                                fd ? fmt::format("{}: cannot write", m.path) : fd.error().message));
    return;
  }
  const bool machine = o.proc_root.empty() || o.proc_root == "/";
  m.proc_path = machine ? std::string("/proc") : fmt::format("{}/proc", o.proc_root);
  m.scanner.emplace(std::move(*scanner));
  m.writer = std::make_unique<io::EventWriter>(m.file, io::StreamFormat::jsonl);
  m.writer->write_header("UTC", o.version);
  m.tracker = std::make_unique<procs::HandleTracker>(o.host, machine ? std::string("/") : o.proc_root, machine);
  m.tracker->set_self_pid(static_cast<int>(::getpid()));
  m.interval_ns = std::int64_t{o.interval_ms} * 1'000'000;
}

HandleRecorder::~HandleRecorder() {
  if (m_impl->writer) m_impl->writer.reset();
  if (m_impl->file != nullptr) std::fclose(m_impl->file);
}

void HandleRecorder::set_command_pid(pid_t pid) {
  if (m_impl->tracker) m_impl->tracker->set_command_pid(static_cast<int>(pid));
}

void HandleRecorder::tick(bool force) {
  Impl& m = *m_impl;
  if (!m.scanner) return;
  if (force || wall_clock_ns() - m.last_scan_ns >= m.interval_ns) m.scan_now();
}

bool HandleRecorder::finish(std::vector<std::string>& notes) {
  Impl& m = *m_impl;
  if (!m.scanner) return false;
  m.scan_now();
  const std::int64_t end_ns = wall_clock_ns();
  m.tracker->finish(end_ns, *m.writer);
  InputStats st;
  st.path = m.proc_path;
  st.events = m.tracker->events();
  st.time_basis = TimeBasis::absolute;  // the scans' own clock
  st.first_ts_ns = m.first_scan_ns;
  st.last_ts_ns = end_ns;
  st.notes.push_back(fmt::format("{} scans of {}", m.scans, m.proc_path));
  if (m.most_unreadable > 0) {
    const std::string note = fmt::format(
        "{} processes could not be read at one scan (their fd/ or maps; run record as root to see them): "
        "the GPUs they held are not in {}",
        m.unreadable_example, kHandlesFile);
    st.notes.push_back(note);
    notes.push_back(note);
  }
  if (m.failed_scans > 0) {
    const std::string note = fmt::format("{} of {} scans of {} failed: {}", m.failed_scans, m.scans + m.failed_scans,
                                         m.proc_path, m.first_error);
    st.notes.push_back(note);
    notes.push_back(note);
  }
  m.writer->write_summary({st});
  m.writer->flush();
  if (m.writer->failed()) {
    notes.push_back(fmt::format("{}: a write failed: the gpu_handle events are incomplete", m.path));
    return false;
  }
  return true;
}

}  // namespace gpucost::record
