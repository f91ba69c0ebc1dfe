// The one error type that crosses the gpucost_core API, and Expected<T> to carry it.
// Rule: library code returns Expected<T> for operational failures (missing file, bad config,
// unknown format); bad input *lines* are never errors, they are counted in InputStats.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace gpucost {

enum class ErrorKind { io, format, config, usage, schema, internal };

struct Error {
  ErrorKind kind = ErrorKind::internal;
  std::string message;  ///< "<subject>: <problem>", lowercase, no trailing period
  std::string hint;     ///< optional "how to fix"; printed as "  hint: ..."
};

inline Error make_error(ErrorKind kind, std::string message, std::string hint = {}) {
  return Error{kind, std::move(message), std::move(hint)};
}

/// A value or an Error (std::expected arrives only in C++23). [[nodiscard]]: a dropped result is
/// a dropped error.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : m_v(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : m_v(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool has_value() const { return m_v.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() { return std::get<0>(m_v); }
  const T& value() const { return std::get<0>(m_v); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(m_v); }

 private:
  std::variant<T, Error> m_v;
};

/// Expected<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : m_error(std::move(error)), m_ok(false) {}  // NOLINT
  explicit operator bool() const { return m_ok; }
  const Error& error() const { return m_error; }

 private:
  Error m_error;
  bool m_ok = true;
};

}  // namespace gpucost

/// Returns the error of `expr` (a Status or an Expected) from the enclosing function, which
/// returns a Status or an Expected; `expr`'s value, if any, is dropped:
///   GPUCOST_TRY(write_header(out));
#define GPUCOST_TRY(expr)                                                                                              \
  do {                                                                                                                 \
    if (auto gpucost_try_result_ = (expr); !gpucost_try_result_) return ::gpucost::Error(gpucost_try_result_.error()); \
  } while (false)
