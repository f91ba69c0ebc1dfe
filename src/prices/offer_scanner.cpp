#include <gpucost/prices/offer_scanner.hpp>

#include <fmt/format.h>

#include <utility>

namespace gpucost::prices {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_top_key_of_interest(std::string_view key) {
  return key == "publicationDate" || key == "offerCode" || key == "version" || key == "formatVersion" ||
         key == "regionCode";
}

}  // namespace

OfferScanner::OfferScanner(Handlers handlers, std::size_t max_object_bytes)
    : m_handlers(std::move(handlers)), m_max_object(max_object_bytes) {}

void OfferScanner::reset() {
  m_stack.clear();
  m_in_string = m_escape = m_string_is_key = m_collect_string = false;
  m_started = m_done = false;
  m_string.clear();
  m_capture = Capture::none;
  m_capture_depth = m_capture_from = 0;
  m_object.clear();
  m_offset = 0;
}

Error OfferScanner::malformed(std::string_view what) const {
  return make_error(ErrorKind::format, fmt::format("not an offer file: {} (near byte {})", what, m_offset));
}

Status OfferScanner::feed(std::string_view chunk) {
  const std::size_t n = chunk.size();
  std::size_t i = 0;
  while (i < n) {
    if (m_in_string) {
      // Up to the next quote or backslash in one step.
      std::size_t j = i;
      if (m_escape) {
        m_escape = false;
        ++j;
      }
      while (j < n && chunk[j] != '"' && chunk[j] != '\\') ++j;
      if (m_collect_string) m_string.append(chunk.substr(i, j - i));
      if (j == n) {
        i = j;
        break;
      }
      if (chunk[j] == '\\') {
        if (m_collect_string) m_string += '\\';
        m_escape = true;
        i = j + 1;
        continue;
      }
      m_in_string = false;  // the closing quote
      end_string();
      i = j + 1;
      continue;
    }
    const char c = chunk[i];
    if (is_ws(c)) {
      ++i;
      continue;
    }
    if (m_done) return malformed("text after the end of the document");
    GPUCOST_TRY(on_structural(c, i, chunk));
    ++i;
  }
  if (m_capture != Capture::none) {
    if (m_object.size() + (n - m_capture_from) > m_max_object)
      return malformed(fmt::format("an object larger than {} MiB", m_max_object >> 20));
    m_object.append(chunk.substr(m_capture_from));
    m_capture_from = 0;
  }
  m_offset += n;
  return {};
}

Status OfferScanner::on_structural(char c, std::size_t i, std::string_view chunk) {
  if (!m_started) {
    if (c != '{') return malformed("it does not start with '{'");
    m_started = true;
  }
  switch (c) {
    case '"':
      m_in_string = true;
      m_string_is_key = !m_stack.empty() && m_stack.back().object && m_stack.back().expect_key;
      m_collect_string = m_string_is_key || (m_stack.size() == 1 && is_top_key_of_interest(m_stack.back().key));
      m_string.clear();
      return {};
    case '{':
    case '[': return open(c, i);
    case '}':
    case ']': return close(c, i, chunk);
    case ':':
      if (m_stack.empty() || !m_stack.back().object || m_stack.back().expect_key) return malformed("a stray ':'");
      return {};
    case ',':
      if (m_stack.empty()) return malformed("a stray ','");
      if (m_stack.back().object) m_stack.back().expect_key = true;
      return {};
    default:
      // Numbers, true, false, null: their characters need no state.
      if (m_stack.empty()) return malformed("a value outside the document");
      return {};
  }
}

Status OfferScanner::open(char c, std::size_t i) {
  const std::size_t depth = m_stack.size();
  if (depth > 0 && m_stack.back().object && m_stack.back().expect_key) return malformed("a value where a key belongs");
  if (m_capture == Capture::none && c == '{') {
    // Depth 2 under "products": a product (a member keyed by its SKU in an offer file, an element
    // of an array in a savings plan's); depth 3 under "terms"."OnDemand"|"Reserved": a SKU's
    // terms, under "terms"."savingsPlan" (an array): one plan's term with its rates.
    if (depth == 2 && m_stack[0].key == "products") {
      m_capture = Capture::product;
      m_capture_sku = m_stack[1].key;
    } else if (depth == 3 && m_stack[0].key == "terms" &&
               (m_stack[1].key == "OnDemand" || m_stack[1].key == "Reserved" || m_stack[1].key == "savingsPlan") &&
               (!m_handlers.want_terms || m_handlers.want_terms(m_stack[2].key))) {
      m_capture = Capture::terms;
      m_capture_type = m_stack[1].key;
      m_capture_sku = m_stack[2].key;
    }
    if (m_capture != Capture::none) {
      m_capture_depth = depth;
      m_capture_from = i;
      m_object.clear();
    }
  }
  m_stack.push_back(Frame{c == '{', c == '{', {}});
  return {};
}

Status OfferScanner::close(char c, std::size_t i, std::string_view chunk) {
  if (m_stack.empty() || m_stack.back().object != (c == '}')) return malformed(fmt::format("an unmatched '{}'", c));
  if (m_stack.back().object && m_stack.back().expect_key && !m_stack.back().key.empty())
    return malformed("a ',' before '}'");
  m_stack.pop_back();
  if (m_stack.empty()) m_done = true;
  if (m_capture != Capture::none && m_stack.size() == m_capture_depth) {
    if (m_object.size() + (i + 1 - m_capture_from) > m_max_object)
      return malformed(fmt::format("an object larger than {} MiB", m_max_object >> 20));
    m_object.append(chunk.substr(m_capture_from, i + 1 - m_capture_from));
    Status st = emit();
    m_capture = Capture::none;
    return st;
  }
  return {};
}

void OfferScanner::end_string() {
  if (!m_collect_string) return;
  if (m_string_is_key) {
    Frame& f = m_stack.back();
    f.key = std::move(m_string);
    f.expect_key = false;
  } else if (m_handlers.top_string) {
    m_handlers.top_string(m_stack.back().key, m_string);
  }
  m_string.clear();
}

Status OfferScanner::emit() {
  if (m_capture == Capture::product) return m_handlers.product ? m_handlers.product(m_capture_sku, m_object) : Status{};
  return m_handlers.terms ? m_handlers.terms(m_capture_type, m_capture_sku, m_object) : Status{};
}

Status OfferScanner::finish() {
  if (!m_started) return malformed("empty");
  if (m_in_string || !m_stack.empty() || !m_done)
    return malformed(fmt::format("it ends inside the document ({} level{} open): truncated", m_stack.size(),
                                 m_stack.size() == 1 ? "" : "s"));
  return {};
}

}  // namespace gpucost::prices
