// A structural scanner for AWS offer files (hundreds of MB of JSON) and savings plan price
// files: fed the file in chunks of any size, it hands over the top-level string members, each
// product (a member of "products", or an element of it where it is an array) and each SKU of
// "terms"."OnDemand" / "terms"."Reserved" or element of "terms"."savingsPlan" as the text of one
// JSON object, so that only one such object is held at a time. It knows strings and their escapes and the nesting of objects
// and arrays; it checks that brackets match and that the document is closed at the end, and
// leaves the parse of each object to simdjson.
#pragma once

#include <gpucost/core/error.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prices {

class OfferScanner {
 public:
  struct Handlers {
    /// A top-level member whose value is a string ("publicationDate", "offerCode", ...); the value
    /// as written between its quotes (escapes kept).
    std::function<void(std::string_view key, std::string_view value)> top_string;
    /// One product: its key (the SKU; empty for an element of an array, which holds its own "sku")
    /// and its object's text.
    std::function<Status(std::string_view sku, std::string_view object)> product;
    /// Whether the terms of this SKU are wanted (false: skipped without being copied).
    std::function<bool(std::string_view sku)> want_terms;
    /// The terms of one SKU under "terms"."OnDemand" or "terms"."Reserved": the term type, the
    /// SKU and its object's text ({"SKU.OFFERTERMCODE": {...}, ...}); or one element of
    /// "terms"."savingsPlan" (type "savingsPlan", SKU empty: the object holds it).
    std::function<Status(std::string_view type, std::string_view sku, std::string_view object)> terms;
  };

  /// `max_object_bytes`: the largest object handed over (a larger one is an error, not memory).
  explicit OfferScanner(Handlers handlers, std::size_t max_object_bytes = std::size_t{64} << 20);

  /// The next piece of the file; an error stops the scan (malformed JSON, a handler's error).
  Status feed(std::string_view chunk);
  /// The end of the file: an error when it ends inside the document (a truncated transfer).
  Status finish();
  /// Back to the start of a file (a retried download).
  void reset();

  [[nodiscard]] std::uint64_t bytes() const { return m_offset; }

 private:
  struct Frame {
    bool object = true;       ///< '{' (else '[')
    bool expect_key = false;  ///< in an object: the next string is a key
    std::string key;          ///< the key of the member being read
  };
  enum class Capture { none, product, terms };

  Status on_structural(char c, std::size_t i, std::string_view chunk);
  Status open(char c, std::size_t i);
  Status close(char c, std::size_t i, std::string_view chunk);
  void end_string();
  Status emit();
  Error malformed(std::string_view what) const;

  Handlers m_handlers;
  std::size_t m_max_object;
  std::vector<Frame> m_stack;
  bool m_in_string = false, m_escape = false, m_string_is_key = false, m_collect_string = false;
  bool m_started = false, m_done = false;
  std::string m_string;  ///< the key (or top-level value) being read
  Capture m_capture = Capture::none;
  std::size_t m_capture_depth = 0;  ///< stack size when the captured object opened
  std::size_t m_capture_from = 0;   ///< where the capture continues in the current chunk
  std::string m_object, m_capture_sku, m_capture_type;
  std::uint64_t m_offset = 0;  ///< bytes before the current chunk
};

}  // namespace gpucost::prices
