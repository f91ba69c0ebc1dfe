// User patterns (--pattern REGEX): RE2 regular expressions with named groups that turn matching
// lines of a training log into `pattern` events. Compiled once per input; RE2 stays out of this
// header. Internal to prep.
#pragma once

#include <gpucost/core/error.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prep {

/// What a named group of a user pattern means.
enum class GroupRole { ts, dur_ns, dur_us, dur_ms, dur_s, step, phase, loss, name, other };

struct PatternGroup {
  std::string name;
  GroupRole role = GroupRole::other;
  int index = 0;  ///< RE2 capture index (1-based)
};

class UserPatterns {
 public:
  /// Compiles every pattern; fails (ErrorKind::usage) naming the first bad one and why.
  static Expected<UserPatterns> compile(const std::vector<std::string>& patterns);

  UserPatterns();
  ~UserPatterns();
  UserPatterns(UserPatterns&&) noexcept;
  UserPatterns& operator=(UserPatterns&&) noexcept;
  UserPatterns(const UserPatterns&) = delete;
  UserPatterns& operator=(const UserPatterns&) = delete;

  [[nodiscard]] bool empty() const;
  /// Index of the first pattern found in `line` (unanchored search), -1 when none matches; the
  /// captures of that match stay readable through capture() until the next call.
  int match(std::string_view line);
  /// Named groups of pattern `p`, in the order of the pattern text.
  [[nodiscard]] const std::vector<PatternGroup>& groups(int p) const;
  /// Text of capture `index` of the last match; empty when that group did not take part.
  [[nodiscard]] std::string_view capture(int index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// The role a group name gives ("ts", "dur_ms", ...; anything else is `other`).
GroupRole group_role(std::string_view name);

/// Scales a decimal number of `unit_exp10`-nanosecond units ("0.012" ms, exp 6) to integer ns,
/// rounding half up; false when `text` is not a non-negative decimal or the result overflows.
bool decimal_to_ns(std::string_view text, int unit_exp10, std::int64_t& ns);

}  // namespace gpucost::prep
