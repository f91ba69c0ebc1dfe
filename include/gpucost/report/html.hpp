// Text for HTML (and XML): escaping that keeps the report well-formed whatever the logs hold.
#pragma once

#include <string>
#include <string_view>

namespace gpucost::report {

/// `s` as HTML text or attribute value: & < > " ' as entities, control characters other than
/// tab and newline as U+FFFD (XML forbids them), bytes that are not UTF-8 as U+FFFD.
std::string html_escape(std::string_view s);

}  // namespace gpucost::report
