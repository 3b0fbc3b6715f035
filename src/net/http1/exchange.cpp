#include "net/http1/exchange.hpp"

#include "request/request_access.hpp"

namespace stet::detail {
namespace {

// A body that grew past this for one large request is given back rather than
// kept by the pool.
constexpr std::size_t retained_body_bytes = 64 * 1024;

}  // namespace

exchange::exchange(const server_options& options)
    : buffer(new char[initial_buffer_bytes]),
      parser(parser_limits{options.max_header_bytes, options.max_target_bytes, options.max_header_count,
                           options.max_body_bytes}),
      arena_storage(new std::byte[arena_bytes]),
      arena(arena_storage.get(), arena_bytes),
      fields(options.max_header_count) {
  request_access::set_arena(request, arena);
}

void exchange::end_request() noexcept {
  arena.release();
  if (body.capacity() > retained_body_bytes) std::string().swap(body);
}

void exchange::recycle() noexcept {
  begin = end = 0;
  parser.reset();
  end_request();
  request_access::begin_request(request);
  output.clear();
  if (stream.is_stream()) stream = response();
  if (chunk.capacity() > 0) std::string().swap(chunk);
}

exchange_pool::exchange_pool(const server_options& options, std::size_t retained)
    : options_(options), retained_(retained), spares_(new exchange*[retained]) {}

exchange_pool::~exchange_pool() {
  for (std::size_t i = 0; i < count_; ++i) delete spares_[i];
}

std::unique_ptr<exchange> exchange_pool::create() {
  ++created_;
  return std::make_unique<exchange>(options_);
}

}  // namespace stet::detail
