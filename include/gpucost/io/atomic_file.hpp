// The one writer of every file gpucost writes (docs/security.md). A file is never opened in
// place: a temporary is created beside it (O_CREAT|O_EXCL, which follows no link) and renamed over
// the target, so a symbolic link, FIFO or device planted at the name in a shared directory is
// never written through. A target that exists and is not a regular file (or a link) is refused.
// Stdout is "-"; /dev/stdout, /dev/stderr and /dev/fd/N name descriptors of this process and are
// written to directly; /dev/null is accepted as a discard.
#pragma once

#include <gpucost/core/error.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace gpucost::io {

/// Who may read a file: `shared` files (reports, textfiles, event streams) are 0644 less the
/// umask, `private_` ones (the full cost configuration, a wrapped command's argv: the ledger,
/// run.json) are 0600. --mode overrides both.
enum class Readers { shared, private_ };

struct WriteOptions {
  std::optional<unsigned> mode;  ///< --mode: exactly these permission bits (at most 0777)
  Readers readers = Readers::shared;
  /// Renamed into place at open, then written as it grows (prep --follow -o): readers see the
  /// events as they come. Otherwise renamed only once everything was written (commit()).
  bool live = false;
};

class OutputFile {
 public:
  /// "-" or empty = stdout.
  static Expected<OutputFile> open(const std::string& path, const WriteOptions& options = {});
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  ~OutputFile();  ///< removes the temporary file when commit() was not reached

  [[nodiscard]] std::FILE* stream() const { return m_file; }
  /// Flushes, checks for write errors and renames into place.
  Status commit();

 private:
  OutputFile() = default;
  std::FILE* m_file = nullptr;
  std::string m_path, m_tmp;
  bool m_stdout = true;
  bool m_direct = false;  ///< one of our own descriptors or /dev/null: no temporary file
};

/// The checks open() makes before it creates anything: a directory, FIFO, socket or device at
/// the name is an error. Commands with several outputs check them all before writing the first.
Status check_output_target(const std::string& path);

/// The hint for a failed write with errno `err`: a closed stdout, a full disk, a file-size limit.
std::string write_failure_hint(int err);

/// Writes `text` to `path` ("-" = stdout) atomically: a temporary file, then rename.
Status write_file_atomically(const std::string& path, std::string_view text, const WriteOptions& options = {});

/// "0644", "644", "0o644": permission bits in octal (at most 0777).
std::optional<unsigned> parse_file_mode(std::string_view text);

/// The permission bits a new file gets: --mode, else the mode of the regular file it replaces
/// when that one is ours (same owner; setuid, setgid and sticky cleared), else 0644 (shared) or
/// 0600 (private) less the umask. `replaced_mode`/`replaced_is_ours` describe the old file.
unsigned chosen_file_mode(const WriteOptions& options, std::optional<unsigned> replaced_mode, bool replaced_is_ours);

/// Opens a file inside a folder gpucost made itself (a run folder) for writing: created when
/// missing, never through a symbolic link, refused when not a regular file. `append`: appended
/// to, else truncated. Returns the descriptor (close-on-exec) or an error naming the file.
Expected<int> open_own_file(const std::string& path, bool append, Readers readers = Readers::shared);

/// What a file that is not a regular one is, for messages: "a FIFO", "a socket", "a device",
/// "a directory", "a special file".
std::string_view file_kind(unsigned mode);

/// Appends what `fd` holds to `out`, to its end or `cap` bytes; `cut` when there was more. Returns 0,
/// or the errno of a failed read. Files of /proc report size 0: only reading tells their length.
int read_capped(int fd, std::size_t cap, std::string& out, bool& cut);

/// Reads a whole small file named by the user (a config, a token file, a price list): opened
/// without blocking (a FIFO there cannot hang the run or a reload), refused when it is not a
/// regular file or holds more than `max_bytes`. `what` names it in errors ("--config").
Expected<std::string> read_regular_file(const std::string& path, std::size_t max_bytes, std::string_view what);

}  // namespace gpucost::io
