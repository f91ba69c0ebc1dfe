// prep -j N on one input (docs/performance.md, "Every core"): its lines, cut into chunks, are
// parsed side by side and joined in input order, byte for byte what one thread makes. Internal.
#pragma once

#include "line_parser.hpp"

#include <gpucost/core/event_sink.hpp>

namespace gpucost::prep {

/// Parses the rest of `reader` with `parser` in `ctx` on `jobs` threads, the events going to
/// `sink` (ctx.sink's forkable()). The first lines are parsed on this thread; then each chunk of
/// about a MiB is parsed by a copy of the parser as it stood when the chunk was handed out, and
/// joined when its turn comes: when what its lines read of that state is not the true state
/// there (LineParser::continue_with: a new header in the chunk before), it is parsed again here.
/// Returns false, having read nothing, when the format is read on one thread only.
bool parse_in_chunks(io::LineReader& reader, LineParser& parser, ParseContext& ctx, ForkableSink& sink, unsigned jobs);

}  // namespace gpucost::prep
