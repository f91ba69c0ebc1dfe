// Output to "-" (stdout) or to a file written atomically: a temporary file in the same
// directory, renamed over the target only when everything was written. A target that exists
// and is not a regular file (/dev/null, a FIFO) is written in place.
#pragma once

#include <gpucost/core/error.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace gpucost::io {

class OutputFile {
 public:
  /// "-" or empty = stdout.
  static Expected<OutputFile> open(const std::string& path);
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
Status write_file_atomically(const std::string& path, std::string_view text);

}  // namespace gpucost::io
