#pragma once
// A streamed answer's body, one piece at a time: the producer is asked for the
// next piece only once the previous one is written, so a slow client slows it
// and a departed one stops it. Each piece is framed (chunked, or raw for
// HTTP/1.0, whose body ends at close) into the exchange's output queue.

#include <cstdint>

namespace stet::detail {

struct exchange;
class worker;
class stream_parking;

enum class pump_result : std::uint8_t {
  piece,        ///< a piece (and maybe the end) is queued: write it
  nothing_yet,  ///< the producer had nothing: ask again after other work
  ended,        ///< the body ended and nothing is left to write
  failed,       ///< the producer threw (reported): close
};

/// Asks x.stream's producer for its next piece and queues it.
/// `parking`: offered to the producer while it runs (current_stream_parking()).
pump_result pump_stream(exchange& x, bool chunked, const worker& owner, stream_parking* parking);

}  // namespace stet::detail
