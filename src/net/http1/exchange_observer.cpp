#include "net/http1/exchange_observer.hpp"

#include "counters/counter_add.hpp"
#include "log/access_log.hpp"
#include "metrics/phase_record.hpp"
#include "request/request_access.hpp"
#include "response/response_access.hpp"
#include "route/params_access.hpp"

#include <array>
#include <cstdio>

namespace stet::detail {

void exchange_observer::time_dispatch(worker& w, const request& req) noexcept {
  handler_start_ = clock::now();
  record_phase(w.counters(), w.tracer(), stet::phase::parse, message_start_time_, handler_start_, &req);
}

void exchange_observer::time_handler(worker& w, const request& req, response& r) {
  const clock::time_point now = clock::now();
  record_phase(w.counters(), w.tracer(), stet::phase::handle, handler_start_, now, &req);
  const server_options& options = w.options();
  if (options.metrics)
    count_route(w, req, r.status(),
                response_access::from_cache(r) ? std::nullopt : std::optional(now - handler_start_));
  if (options.server_timing) {
    const std::chrono::duration<double, std::milli> parse_ms = handler_start_ - message_start_time_;
    const std::chrono::duration<double, std::milli> handler_ms = now - handler_start_;
    char value[96];
    const int n =
        std::snprintf(value, sizeof value, "parse;dur=%.3f, handler;dur=%.3f", parse_ms.count(), handler_ms.count());
    r.set_header("Server-Timing", std::string_view(value, static_cast<std::size_t>(n)));
  }
}

void exchange_observer::time_write(worker& w) noexcept {
  record_phase(w.counters(), w.tracer(), stet::phase::write, write_start_, clock::now(), nullptr);
}

// `req` is null for a request that could not be parsed (its error page's
// whole length is counted).
void exchange_observer::log(worker& w, const request* req, const response& answer, const endpoint& peer,
                            const tls_info* tls) {
  const bool sends_body =
      req == nullptr || (req->method() != stet::method::head && !status_forbids_body(answer.status()));
  access_record r;
  // Formatted per line into the stack, not kept: the access log alone needs
  // the text, and an idle connection's size is a stated budget (IdleBudget).
  std::array<char, endpoint::max_text> peer_text{};
  r.remote = req != nullptr && request_access::trusts_proxies(*req) ? req->client_address_text()
                                                                    : peer.address_text(peer_text);
  r.method = req != nullptr ? req->method_name() : "-";
  r.target = req != nullptr ? req->target() : "-";
  r.version = req != nullptr ? req->version() : 11;
  r.status = to_int(answer.status());
  r.bytes = sends_body ? answer.content_length() : 0;
  if (req != nullptr) {
    r.referer = req->header("referer").value_or("");
    r.user_agent = req->header("user-agent").value_or("");
  }
  if (tls != nullptr) {
    r.tls_protocol = tls->protocol;
    r.tls_cipher = tls->cipher;
  }
  w.log_access(r);
}

// Per-route counters: the route the router matched (none for its automatic
// answers, which only the totals count). The chunk holding a route's counters
// is allocated the first time that route answers on this worker.
// `handler_time` is empty for an answer a response cache gave: no handler ran.
void exchange_observer::count_route(worker& w, const request& req, stet::status s,
                                    std::optional<clock::duration> handler_time) {
  const std::uint32_t id = route_params_access::route_id(req.params());
  if (id == route_params_access::no_route) return;
  route_counters* c = w.counters().per_route.at(id);
  if (c == nullptr) return;
  const unsigned status_class = to_int(s) / 100;
  if (status_class >= 1 && status_class <= 5) single_writer_add(c->by_class[status_class - 1]);
  if (handler_time) c->handler.record(*handler_time);
}

}  // namespace stet::detail
