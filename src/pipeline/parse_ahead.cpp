#include "parse_ahead.hpp"

#include <gpucost/core/parallel.hpp>
#include <gpucost/io/line_reader.hpp>

namespace gpucost::pipeline::detail {

namespace {

/// Keeps every event of one parse.
class BufferSink final : public EventSink {
 public:
  explicit BufferSink(EventBuffer& buffer) : m_buffer(buffer) {}
  void on_event(const Event& event) override { m_buffer.add(event); }

 private:
  EventBuffer& m_buffer;
};

}  // namespace

bool parsed_whole(std::optional<Format> format, const prep::PrepOptions& options) {
  if (options.forced != Format::unknown) format = options.forced;
  return format && format_traits(*format).whole_document;
}

void parse_ahead(const std::vector<AheadInput>& batch, const prep::PrepOptions& options, const LocalClock& clock,
                 std::vector<std::unique_ptr<ParsedAhead>>& ahead) {
  if (batch.size() < 2) return;
  for (const AheadInput& in : batch) {
    ahead[in.index] = std::make_unique<ParsedAhead>();
    ahead[in.index]->stats.path = in.name;
  }
  parallel_for(options.jobs, batch.size(), [&](std::size_t i) {
    const AheadInput& in = batch[i];
    ParsedAhead& p = *ahead[in.index];
    p.clock = clock;
    auto reader = io::LineReader::open(in.path);
    if (!reader) {
      p.status = reader.error();
      return;
    }
    (*reader)->set_max_line(options.max_line);
    BufferSink sink(p.events);
    p.status = prep::run_prep_input(**reader, options, p.clock, sink, p.stats, in.format);
  });
}

}  // namespace gpucost::pipeline::detail
