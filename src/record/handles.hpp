// record's scans of /proc for processes holding NVIDIA device files: at the start, every
// sampling interval while the command runs, and after it ended, written as gpu_handle events to
// the run folder's gpu-handles.jsonl (docs/record.md, docs/procs.md).
#pragma once

#include <gpucost/record/record.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

namespace gpucost::record {

class HandleRecorder {
 public:
  /// Makes the scanner and opens the events file; when either fails, a note says why and the
  /// recorder stays off (the command runs all the same).
  HandleRecorder(const RecordOptions& o, const std::string& dir, std::vector<std::string>& notes);
  ~HandleRecorder();
  HandleRecorder(const HandleRecorder&) = delete;
  HandleRecorder& operator=(const HandleRecorder&) = delete;

  /// The command's pid: it and its descendants get role `command`.
  void set_command_pid(pid_t pid);
  /// Scans when the interval has passed since the last scan (always with `force`).
  void tick(bool force = false);
  /// The last scan, `still_held` for what it saw, the summary line; a note when processes could
  /// not be read. Returns whether the file holds a stream.
  bool finish(std::vector<std::string>& notes);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace gpucost::record
