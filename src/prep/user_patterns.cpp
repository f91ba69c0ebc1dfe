// --pattern: RE2 with named groups (user_patterns.hpp). RE2 runs in linear time whatever the
// pattern, so a user regex cannot make prep hang on a long line.
#include "user_patterns.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/prep/prep.hpp>

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gpucost::prep {

struct UserPatterns::Impl {
  struct Compiled {
    std::unique_ptr<re2::RE2> re;
    std::vector<PatternGroup> groups;
    std::vector<re2::StringPiece> captures;  // sized once: matching allocates nothing of ours
  };
  std::vector<Compiled> patterns;
  int last = -1;
};

GroupRole group_role(std::string_view name) {
  struct Named {
    std::string_view name;
    GroupRole role;
  };
  static constexpr Named kRoles[] = {
      {"ts", GroupRole::ts},         {"dur_ns", GroupRole::dur_ns}, {"dur_us", GroupRole::dur_us},
      {"dur_ms", GroupRole::dur_ms}, {"dur_s", GroupRole::dur_s},   {"step", GroupRole::step},
      {"phase", GroupRole::phase},   {"loss", GroupRole::loss},     {"name", GroupRole::name},
  };
  for (const Named& n : kRoles)
    if (n.name == name) return n.role;
  return GroupRole::other;
}

Expected<UserPatterns> UserPatterns::compile(const std::vector<std::string>& patterns) {
  UserPatterns out;
  out.m_impl->patterns.reserve(patterns.size());
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const std::string& text = patterns[i];
    const std::string hint =
        "RE2 syntax (no backreferences or lookaround); name groups with (?P<name>...): ts, dur_ms, dur_us, dur_s, "
        "dur_ns, step, phase, loss, name, or any other name for a field";
    if (text.empty())
      return make_error(ErrorKind::usage, fmt::format("--pattern #{}: the pattern is empty", i + 1), hint);
    re2::RE2::Options opts;
    opts.set_log_errors(false);
    Impl::Compiled c;
    c.re = std::make_unique<re2::RE2>(text, opts);
    if (!c.re->ok())
      return make_error(ErrorKind::usage,
                        fmt::format("--pattern '{}': invalid regular expression: {}", text, c.re->error()), hint);
    for (const auto& [name, index] : c.re->NamedCapturingGroups())
      c.groups.push_back(PatternGroup{name, group_role(name), index});
    std::sort(c.groups.begin(), c.groups.end(),
              [](const PatternGroup& a, const PatternGroup& b) { return a.index < b.index; });
    c.captures.resize(static_cast<std::size_t>(c.re->NumberOfCapturingGroups()) + 1);
    out.m_impl->patterns.push_back(std::move(c));
  }
  return out;
}

UserPatterns::UserPatterns() : m_impl(std::make_unique<Impl>()) {}
UserPatterns::~UserPatterns() = default;
UserPatterns::UserPatterns(UserPatterns&&) noexcept = default;
UserPatterns& UserPatterns::operator=(UserPatterns&&) noexcept = default;

bool UserPatterns::empty() const { return m_impl->patterns.empty(); }

int UserPatterns::match(std::string_view line) {
  const re2::StringPiece text(line.data(), line.size());
  int p = 0;
  for (auto& c : m_impl->patterns) {
    if (c.re->Match(text, 0, text.size(), re2::RE2::UNANCHORED, c.captures.data(),
                    static_cast<int>(c.captures.size()))) {
      m_impl->last = p;
      return p;
    }
    ++p;
  }
  m_impl->last = -1;
  return -1;
}

const std::vector<PatternGroup>& UserPatterns::groups(int p) const {
  return m_impl->patterns[static_cast<std::size_t>(p)].groups;
}

std::string_view UserPatterns::capture(int index) const {
  if (m_impl->last < 0) return {};
  const auto& caps = m_impl->patterns[static_cast<std::size_t>(m_impl->last)].captures;
  if (index < 0 || static_cast<std::size_t>(index) >= caps.size()) return {};
  const re2::StringPiece& s = caps[static_cast<std::size_t>(index)];
  return s.data() == nullptr ? std::string_view() : std::string_view(s.data(), s.size());
}

Status check_patterns(const std::vector<std::string>& patterns) {
  auto compiled = UserPatterns::compile(patterns);
  if (!compiled) return compiled.error();
  return {};
}

namespace {

// "1.5e-3" and other shapes the exact path does not take: through a double.
bool scientific_to_ns(std::string_view text, int unit_exp10, std::int64_t& ns) {
  const auto v = text::parse_double(text);
  if (!v || !(*v >= 0)) return false;
  const double scaled = *v * std::pow(10.0, unit_exp10);
  if (!(scaled < 9.0e18)) return false;
  ns = std::llround(scaled);
  return true;
}

}  // namespace

bool decimal_to_ns(std::string_view text, int unit_exp10, std::int64_t& ns) {
  text = text::trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  if (text.find_first_of("eE") != std::string_view::npos) return scientific_to_ns(text, unit_exp10, ns);
  // Exact: shift the decimal point by unit_exp10 digits, round on the first dropped digit.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 10 - 10;
  std::int64_t v = 0;
  int frac_digits = -1;  // -1 until the point
  bool round_up = false, any = false;
  for (const char c : text) {
    if (c == '.') {
      if (frac_digits >= 0) return false;
      frac_digits = 0;
      continue;
    }
    if (!text::is_digit(c)) return false;
    any = true;
    if (frac_digits >= 0 && frac_digits >= unit_exp10) {  // below 1 ns
      if (frac_digits == unit_exp10 && c >= '5') round_up = true;
      ++frac_digits;
      continue;
    }
    if (v > kMax) return false;
    v = v * 10 + (c - '0');
    if (frac_digits >= 0) ++frac_digits;
  }
  if (!any) return false;
  const int used = frac_digits < 0 ? 0 : std::min(frac_digits, unit_exp10);
  for (int i = used; i < unit_exp10; ++i) {
    if (v > kMax) return false;
    v *= 10;
  }
  ns = v + (round_up ? 1 : 0);
  return true;
}

}  // namespace gpucost::prep
