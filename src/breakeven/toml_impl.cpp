// toml++'s compiled part, built into gpucost in this one file (its documented TOML_IMPLEMENTATION
// mode, TOML_HEADER_ONLY=0 everywhere) rather than loaded from libtomlplusplus.so at every start
// (docs/performance.md, "Issue 39, round 3").
//
// The parser's preconditions are not checked here, neither by assert() nor as assumptions. toml++
// 3.3 (Debian 12) enters parse_key() on a malformed table header such as `[[[1]]]` or `[=` with a
// precondition it states as TOML_ASSERT_ASSUME (upstream PR marzer/tomlplusplus#301): with
// asserts on it aborts, and with NDEBUG it becomes __builtin_assume of something false, which is
// undefined behaviour. Without either, parse_key() reaches its own "expected bare key starting
// character" branch and the header is a parse_error like any other (tests/unit/test_breakeven_config.cpp).
#ifdef NDEBUG
#undef NDEBUG  // so that TOML_ASSERT_ASSUME is TOML_ASSERT below, never TOML_ASSUME
#endif
#define TOML_ASSERT(expr) static_assert(true)
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
