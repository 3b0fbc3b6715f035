#pragma once
// What a connection needs only while an exchange is in progress: the read
// buffer, the parser, the request with its arena and header list, the body,
// the output queue and a streamed response. A connection takes one from its
// worker's pool when bytes are ready to read and gives it back when its
// responses are written and nothing is left, so an idle keep-alive connection
// holds none of it (measured: docs/benchmarks.md, idle connections).

#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/server_options.hpp>

#include "http/request_parser.hpp"
#include "net/http1/output_queue.hpp"
#include "route/match.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

namespace stet::detail {

struct exchange {
  static constexpr std::size_t initial_buffer_bytes = 8 * 1024;
  static constexpr std::size_t arena_bytes = 4 * 1024;

  explicit exchange(const server_options& options);
  exchange(const exchange&) = delete;
  exchange& operator=(const exchange&) = delete;

  /// The request is answered: its arena is rewound, a body that grew for it trimmed.
  void end_request() noexcept;
  /// Ready for another connection or request: nothing buffered, no message
  /// open, and no buffer kept that one large request grew.
  void recycle() noexcept;

  // Read buffer: [begin, end) not yet parsed. The current message's head stays
  // in place from parser.message_start() while the message is open.
  std::unique_ptr<char[]> buffer;
  std::size_t capacity = initial_buffer_bytes;
  std::size_t begin = 0;
  std::size_t end = 0;
  request_parser parser;
  std::string body;

  std::unique_ptr<std::byte[]> arena_storage;
  std::pmr::monotonic_buffer_resource arena;
  std::vector<header_field> fields;
  stet::request request;
  route_match route;  // matched from the head, dispatched at the body's end

  // The minimum body rate's window being measured (a body's, so here and not
  // on the connection, which an idle keep-alive client holds).
  std::chrono::steady_clock::time_point rate_window_start{};
  std::uint64_t rate_window_bytes = 0;

  output_queue output;
  response stream;    // the streamed response in progress (its head already queued), if any
  std::string chunk;  // the stream's current piece
};

/// A worker's spare exchanges. Taking one is not a heap allocation once the
/// pool is warm; at most `retained` spares are kept, the rest are freed, so a
/// burst of busy connections does not pin its memory after it passes.
class exchange_pool {
 public:
  exchange_pool(const server_options& options, std::size_t retained);
  exchange_pool(const exchange_pool&) = delete;
  exchange_pool& operator=(const exchange_pool&) = delete;
  ~exchange_pool();

  /// Fills the empty `into` with a spare (or a new exchange).
  void take(std::unique_ptr<exchange>& into) {
    if (count_ == 0) {
      into = create();
      return;
    }
    into.reset(spares_[--count_]);
  }
  /// Empties `from`, which must be as recycle() leaves it: a keep-alive
  /// connection between messages hands it back so (nothing buffered, open or
  /// queued), and no reset is needed, which keeps the per-request round trip
  /// to a few stores.
  void give_back_clean(std::unique_ptr<exchange>& from) noexcept {
    // Freed here: beyond the spares kept, grown for one large head, or its
    // buffer lent away (capacity 0: the bytes read ahead of an upgrade).
    if (count_ < retained_ && from->capacity == exchange::initial_buffer_bytes) {
      spares_[count_++] = from.release();
    } else {
      from.reset();
    }
  }
  /// Any exchange (a closing connection's, mid-message or not): recycled first.
  void give_back(std::unique_ptr<exchange>& from) noexcept {
    from->recycle();
    give_back_clean(from);
  }

  std::size_t spares() const noexcept { return count_; }
  /// Exchanges ever created: the pool's misses.
  std::size_t created() const noexcept { return created_; }

 private:
  std::unique_ptr<exchange> create();

  const server_options& options_;
  std::size_t retained_;
  std::unique_ptr<exchange*[]> spares_;  // owned: [0, count_)
  std::size_t count_ = 0;
  std::size_t created_ = 0;
};

}  // namespace stet::detail
