#pragma once
// Compressing a whole body at once, and a streamed body chunk by chunk, with a
// pooled compressor state; bytes in, bytes out and time are counted per coding
// in the thread's memo_stats.

#include "response/compress/encoder_pool.hpp"

#include <stet/stream.hpp>

#include <string>
#include <string_view>

namespace stet::detail {

/// Compresses `body` with `c` and appends the complete coded body to `out`.
/// False when the library failed (out then holds a partial result: discard it).
/// @throws std::bad_alloc when `out` cannot grow.
bool compress_body(content_coding c, const encoder_params& p, std::string_view body, std::string& out);

/// encoder::write() on a leased state, counted in the thread's metrics.
bool counted_write(encoder& e, std::string_view input, flush_kind flush, std::string& out);

/// A producer that runs `inner` and sends what it wrote compressed with `c`,
/// flushed at the end of every piece so a slow producer's rows reach the client
/// (decodable) as they are made; the last piece finishes the coded body. The
/// state is leased from the pool of the thread that calls this and held until
/// the producer is destroyed. Null when no state could be had (send identity).
/// @throws std::bad_alloc when out of memory.
stream_producer compress_stream(stream_producer inner, content_coding c, const encoder_params& p);

}  // namespace stet::detail
