#pragma once
// What is recorded about an exchange, apart from doing it: the phase timings
// (metrics histograms, a tracer, the Server-Timing header), the per-route
// counters, the count by status and the access log line. The connection says
// what happened and when; the observer decides what, if anything, to record,
// so the state machine carries no clock and no log. It holds only its own
// state (an idle connection pays for every byte here): the worker it records
// into is passed in by the connection, which holds it anyway.

#include <stet/endpoint.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/tls.hpp>

#include "counters/counter_add.hpp"
#include "net/server/worker.hpp"

#include <chrono>
#include <cstdint>
#include <optional>

namespace stet::detail {

class exchange_observer {
 public:
  using clock = std::chrono::steady_clock;

  /// A read completed (its time is the start of any message it began).
  void read_completed(const worker& w) noexcept {
    if (w.timing()) read_time_ = clock::now();
  }
  /// The bytes about to be parsed begin a new message.
  void message_started() noexcept { message_start_time_ = read_time_; }
  /// The request goes to its handler now: the parse phase ends.
  void dispatching(worker& w, const request& req) noexcept {
    if (w.timing()) time_dispatch(w, req);
  }
  /// The handler's answer `r` (before compression): the handle phase, the
  /// route's counters, Server-Timing.
  void handled(worker& w, const request& req, response& r) {
    if (w.timing()) time_handler(w, req, r);
  }
  /// `r` is queued as the answer to `req` (null: a request that could not be
  /// parsed): the count by status and the access log line.
  /// `peer` and `tls`: the connection's, for the log line.
  void answered(worker& w, const request* req, const response& r, const endpoint& peer, const tls_info* tls) {
    single_writer_add(w.counters().requests_by_status[to_int(r.status()) % 600]);
    if (w.logging()) log(w, req, r, peer, tls);
  }
  void write_started(const worker& w) noexcept {
    if (w.timing()) write_start_ = clock::now();
  }
  /// A batch of answers (not a streamed piece, whose time is the stream's) is written.
  void batch_written(worker& w) noexcept {
    if (w.timing()) time_write(w);
  }

 private:
  void time_dispatch(worker& w, const request& req) noexcept;
  void time_handler(worker& w, const request& req, response& r);
  void time_write(worker& w) noexcept;
  void log(worker& w, const request* req, const response& r, const endpoint& peer, const tls_info* tls);
  static void count_route(worker& w, const request& req, stet::status s, std::optional<clock::duration> handler_time);

  clock::time_point read_time_{};           // completion of the latest read
  clock::time_point message_start_time_{};  // the read that brought the message's first byte
  clock::time_point handler_start_{};
  clock::time_point write_start_{};
};

}  // namespace stet::detail
