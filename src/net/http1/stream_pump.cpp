#include "net/http1/stream_pump.hpp"

#include "events/stream_parking.hpp"
#include "http/response_writer.hpp"
#include "net/http1/exchange.hpp"
#include "net/server/worker.hpp"

#include <exception>

namespace stet::detail {
namespace {

constexpr std::size_t stream_chunk_bytes = 64 * 1024;

}  // namespace

pump_result pump_stream(exchange& x, bool chunked, const worker& owner, stream_parking* parking) {
  x.chunk.clear();
  bool more = false;
  try {
    stream_writer writer(x.chunk, stream_chunk_bytes);
    const scoped_stream_parking offered(parking);
    more = x.stream.producer()(writer);
  } catch (const std::exception& e) {
    owner.report_error("stream producer", {}, e.what());
    return pump_result::failed;
  } catch (...) {
    owner.report_error("stream producer", {}, "an exception not derived from std::exception");
    return pump_result::failed;
  }
  std::string& text = x.output.text();
  if (!x.chunk.empty()) {
    if (chunked) response_writer::begin_chunk(text, x.chunk.size());
    x.output.attach_view(x.chunk);
    if (chunked) response_writer::end_chunk(text);
  }
  if (!more) {
    if (chunked) response_writer::last_chunk(text);
    x.stream = response();
  }
  if (!x.output.empty()) return pump_result::piece;
  return more ? pump_result::nothing_yet : pump_result::ended;
}

}  // namespace stet::detail
