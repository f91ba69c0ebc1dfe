// Output to "-" (stdout) or to a file written atomically: a temporary file in the same
// directory, renamed over the target only when everything was written. A target that exists
// and is not a regular file (/dev/null, a FIFO) is written in place.
#pragma once

#include <gpucost/core/error.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace gpucost::io {

class OutputFile {
 public:
  /// "-" or empty = stdout. `mode`: the new file's permission bits (e.g. 0644); none = the
  /// umask's (0666 less it), or the mode of the file it replaces.
  static Expected<OutputFile> open(const std::string& path, std::optional<unsigned> mode = std::nullopt);
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
  bool m_direct = false;  ///< written in place (a device or FIFO), no temporary file
};

/// The hint for a failed write with errno `err`: a closed stdout, a full disk, a file-size limit.
std::string write_failure_hint(int err);

/// Writes `text` to `path` ("-" = stdout) atomically: a temporary file, then rename.
Status write_file_atomically(const std::string& path, std::string_view text,
                             std::optional<unsigned> mode = std::nullopt);

/// "0644", "644", "0o644": permission bits in octal (at most 0777).
std::optional<unsigned> parse_file_mode(std::string_view text);

}  // namespace gpucost::io
