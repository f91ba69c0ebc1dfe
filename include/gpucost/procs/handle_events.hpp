// gpu_handle events (docs/formats.md, "gpu_handle"): `record` scans /proc every sampling cycle
// and a HandleTracker turns the scans into changes, so that the stream says which process held
// which GPU over which interval without an event per process and cycle:
//   held        first seen holding, or holding another set of devices than at the last scan
//   released    no longer seen holding (ended, or closed the files): the scan that missed it
//   still_held  seen by the last scan of the recording (the interval runs to its end)
// On this machine, each process's `role` says whether it is the recorded command (or one of its
// descendants), gpucost's own sampler, or another process: those hold the GPU beside the job.
// One event per GPU the process holds (gpu = N of /dev/nvidiaN), or one with no GPU when it
// holds only control, UVM, DRM or --device-pattern files; all of them carry every device.
#pragma once

#include <gpucost/core/event_sink.hpp>
#include <gpucost/procs/scan.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace gpucost::procs {

inline constexpr std::string_view kHandleSource = "procs";

class HandleTracker {
 public:
  /// `host` and `root` go into every event; `machine`: the scans read this machine's /proc, so
  /// the `role` can be told (a fixture tree's pids are not this machine's).
  HandleTracker(std::string host, std::string root, bool machine);
  /// role `command`: the recorded command (this pid) and its descendants.
  void set_command_pid(int pid) { m_command_pid = pid; }
  /// role `gpucost`: gpucost itself and its other children (the nvidia-smi sampler).
  void set_self_pid(int pid) { m_self_pid = pid; }
  /// Writes the changes since the previous scan, stamped `ts_ns`.
  void update(const ScanResult& scan, std::int64_t ts_ns, EventSink& sink);
  /// After the last update: `still_held` for every holder it saw.
  void finish(std::int64_t ts_ns, EventSink& sink);
  /// Events written so far.
  [[nodiscard]] std::uint64_t events() const { return m_events; }

 private:
  struct Seen {
    Holder holder;
    std::string devices;    ///< the device paths, comma-separated: a change of them is a new `held`
    std::string_view role;  ///< command, gpucost or other; empty when not `machine`
    std::int64_t last_seen_ns = 0;
  };
  void emit(const Seen& s, std::string_view state, std::int64_t ts_ns, EventSink& sink);
  [[nodiscard]] std::string_view role_of(const ScanResult& scan, int pid) const;

  std::string m_host, m_root;
  bool m_machine = false;
  int m_command_pid = -1, m_self_pid = -1;
  std::map<std::pair<int, std::uint64_t>, Seen> m_seen;  ///< by pid and start ticks (pids are reused)
  std::uint64_t m_events = 0;
};

}  // namespace gpucost::procs
