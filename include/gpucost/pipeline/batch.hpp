// Batch mode for cron (`gpucost batch --state STATE`): each run reads only what is new in its
// inputs since the previous run. Files are known by identity, not name: device, inode and a
// hash of their first decompressed bytes, so a renamed or gzipped rotation is recognised and
// read on from where the previous run stopped. docs/cron.md describes the state file.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/prep/prep.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::pipeline {

inline constexpr std::string_view kBatchStateSchema = "gpucost.batch-state";
inline constexpr int kBatchStateVersion = 1;
/// Decompressed bytes at the start of a file that identify its content (fewer for a shorter read).
inline constexpr std::uint64_t kHeadBytes = 4096;
/// A file not seen for this long is forgotten (its rotations were deleted).
inline constexpr std::int64_t kForgetAfterNs = 30LL * 24 * 3600 * 1'000'000'000;

/// What batch mode remembers about one file it has read.
struct FileRecord {
  std::string path;                     ///< the name it was last read under (informational)
  std::uint64_t device = 0, inode = 0;  ///< stat() of the file
  std::uint64_t size = 0;               ///< its size on disk when last read (compressed size for .gz)
  std::uint64_t head_bytes = 0;         ///< decompressed bytes hashed: min(kHeadBytes, offset)
  std::string head_hash;                ///< FNV-1a 64 of those bytes, 16 hex digits
  std::uint64_t offset = 0;             ///< decompressed bytes read, always at a line boundary
  std::uint64_t lines = 0;              ///< lines read
  std::int64_t seen_ns = 0;             ///< the last run that saw it
};

struct BatchState {
  std::vector<FileRecord> files;
  /// End of the window the last run priced (0: none yet): the next window starts there when its
  /// first new sample follows within kContinueWindowNs, so that consecutive runs tile time.
  std::int64_t priced_to_ns = 0;
  static constexpr std::int64_t kContinueWindowNs = 600LL * 1'000'000'000;

  /// Reads the state file; a missing file is an empty state (the first run). A file that is
  /// not a state document fails (ErrorKind::usage) with a hint.
  static Expected<BatchState> load(const std::string& path);
  [[nodiscard]] std::string to_json() const;
  /// Writes the state atomically (temporary file + rename).
  [[nodiscard]] Status save(const std::string& path) const;
  /// Drops the records not seen since `now_ns - kForgetAfterNs`.
  void forget_old(std::int64_t now_ns);
};

/// An exclusive flock() on STATE.lock, held for the whole run: overlapping cron runs would
/// otherwise both read the same new lines.
class BatchLock {
 public:
  /// Fails (ErrorKind::io) when another run holds the lock, unless `wait`.
  static Expected<BatchLock> acquire(const std::string& state_path, bool wait);
  BatchLock(BatchLock&& other) noexcept;
  BatchLock& operator=(BatchLock&&) = delete;
  BatchLock(const BatchLock&) = delete;
  BatchLock& operator=(const BatchLock&) = delete;
  ~BatchLock();

 private:
  explicit BatchLock(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

/// How one input was read in this run.
struct BatchInput {
  std::string path;
  std::string how;  ///< "new", "resumed", "rotated copy of NAME", "unchanged", ...
  std::uint64_t from_offset = 0, from_line = 0, to_offset = 0, to_line = 0;
};

/// FNV-1a 64 of `bytes` as 16 hex digits (stable across builds, unlike std::hash).
std::string fnv1a64_hex(std::string_view bytes);

/// Parses what is new in each input into `sink` and advances `state` (in memory: save it once
/// the outputs are written). One InputStats per input, counting the new lines only.
Expected<std::vector<BatchInput>> read_new_data(const std::vector<ProbedInput>& inputs, BatchState& state,
                                                const prep::PrepOptions& options, LocalClock& clock, EventSink& sink,
                                                std::vector<InputStats>& stats, std::int64_t now_ns);

/// Each run prices its new samples; the window starts where the previous run's ended when the
/// first new sample follows on (within kContinueWindowNs), so that consecutive runs tile time
/// without gaps. A window start the user gave is kept.
void continue_window(const BatchState& state, std::int64_t first_sample_ns, extract::ExtractOptions& window);

}  // namespace gpucost::pipeline
