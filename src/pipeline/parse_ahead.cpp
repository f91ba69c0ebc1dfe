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
  return format && prep::format_traits(*format).whole_document;
}

std::vector<std::unique_ptr<ParsedAhead>> parse_ahead(const std::vector<AheadInput>& inputs,
                                                      const prep::PrepOptions& options, const LocalClock& clock) {
  std::vector<std::unique_ptr<ParsedAhead>> out;
  for (const AheadInput& in : inputs) {
    out.push_back(std::make_unique<ParsedAhead>());
    out.back()->stats.path = in.name;
  }
  parallel_for(options.jobs, inputs.size(), [&](std::size_t i) {
    const AheadInput& in = inputs[i];
    ParsedAhead& p = *out[i];
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
  return out;
}

}  // namespace gpucost::pipeline::detail
