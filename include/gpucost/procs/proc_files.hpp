// The files of /proc that `gpucost procs` reads, one parser each (docs/procs.md): stat (comm,
// parent, flags, start time), status (uid, pid in the container's namespace), cmdline, cgroup
// (with the container and Slurm job its path names), maps lines, and the device paths a
// process holds. Pure functions of the text: the scan (scan.hpp) opens the files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::procs {

/// The fields of /proc/PID/stat the scan uses.
struct ProcStat {
  int pid = 0;
  std::string comm;  ///< the name in parentheses: may hold spaces and ')'
  char state = '?';
  int ppid = 0;
  std::uint64_t flags = 0;        ///< field 9 (PF_* bits)
  std::uint64_t start_ticks = 0;  ///< field 22: start time in clock ticks since boot
};

/// Kernel threads (PF_KTHREAD) have no files of user space: the scan passes them by.
inline constexpr std::uint64_t kPfKthread = 0x00200000;

/// Parses a stat line: "PID (COMM) S PPID ... STARTTIME ...". COMM ends at the *last* ')' of
/// the line, since the name itself may hold ") ". Empty when the line is not one.
std::optional<ProcStat> parse_stat(std::string_view text);

/// "btime N" of /proc/stat: the boot time, seconds since the epoch.
std::optional<std::int64_t> parse_btime(std::string_view proc_stat);

/// A process's start, ns since the epoch: boot time + start ticks / ticks per second (USER_HZ),
/// in exact integer arithmetic (as ps computes its START column, but without truncating).
std::int64_t start_time_ns(std::int64_t btime_s, std::uint64_t start_ticks, long ticks_per_second);

/// The fields of /proc/PID/status the scan uses.
struct ProcStatus {
  std::optional<std::uint32_t> uid;  ///< the effective uid (the second value of Uid:), as ps's USER
  int ns_pid = -1;                   ///< the pid in the innermost pid namespace, when it differs (NSpid:)
};
ProcStatus parse_status(std::string_view text);

/// The NUL-separated arguments of /proc/PID/cmdline (empty for kernel threads and zombies).
std::vector<std::string> split_cmdline(std::string_view text);

/// What a cgroup path says of the process's container and job (rules in docs/procs.md).
struct CgroupInfo {
  std::string path;       ///< the cgroup chosen: v2's "0::" path unless it is "/", else memory's, else the first
  std::string runtime;    ///< docker, containerd, cri-o, podman, kubernetes (cgroupfs driver), or empty
  std::string container;  ///< the container id (hex) the runtime gave it
  std::string pod_uid;    ///< a Kubernetes pod's uid (dashes restored)
  std::string slurm_job;  ///< a Slurm job id (job_NNN)
};
/// Parses /proc/PID/cgroup (v2 "0::/path", v1 "N:controllers:/path", hybrid both).
CgroupInfo parse_cgroup(std::string_view text);

/// One line of /proc/PID/maps: "START-END PERMS OFFSET DEV INODE   PATHNAME".
struct MapsLine {
  std::uint64_t start = 0, end = 0;
  std::string_view path;  ///< may hold spaces; empty for anonymous mappings; without " (deleted)"
  bool deleted = false;
};
std::optional<MapsLine> parse_maps_line(std::string_view line);

/// The device files gpucost counts as holding the GPU.
enum class DeviceKind : std::uint8_t {
  gpu,           ///< /dev/nvidiaN: one GPU
  control,       ///< /dev/nvidiactl
  uvm,           ///< /dev/nvidia-uvm (CUDA's unified memory)
  uvm_tools,     ///< /dev/nvidia-uvm-tools
  modeset,       ///< /dev/nvidia-modeset
  caps,          ///< /dev/nvidia-caps/* (MIG access)
  nvswitch,      ///< /dev/nvidia-nvswitchN, nvidia-nvswitchctl (fabric manager)
  nvidia_other,  ///< any other /dev/nvidia* name
  drm_card,      ///< /dev/dri/cardN of an NVIDIA card
  drm_render,    ///< /dev/dri/renderDN of an NVIDIA card
  pattern,       ///< matched by --device-pattern and named like none of the above
};
std::string_view device_kind_name(DeviceKind kind);

/// A path's kind by the names of /dev (gpu: N of /dev/nvidiaN). DRM nodes are returned as
/// drm_card/drm_render; whether the card is NVIDIA's is the scan's question (sysfs).
struct DeviceClass {
  DeviceKind kind = DeviceKind::pattern;
  int gpu = -1;
};
std::optional<DeviceClass> classify_device_path(std::string_view path);

/// A path found by --device-pattern: classified by its file name as if it were in /dev
/// (".../nvidia0" is GPU 0), else kind pattern. DRM names are pattern (no sysfs to ask).
DeviceClass classify_pattern_path(std::string_view path);

/// A link target or maps path without its " (deleted)" suffix; `deleted` says whether it had one.
std::string_view strip_deleted(std::string_view path, bool& deleted);

}  // namespace gpucost::procs
