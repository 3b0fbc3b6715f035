#pragma once
// What dispatch hands its caller, said as what it is: an answer to queue now;
// a slot whose answer comes later (an asynchronous or suspended handler); a
// sink that takes the body before there is an answer (a streaming route,
// stet::read_body()); or an accepted WebSocket upgrade, its 101 and the
// session to start once the 101 is written. The connection switches on it and
// never asks a response what it stands for.

#include <stet/response.hpp>

#include "response/response_access.hpp"

#include <cstdint>
#include <memory>
#include <utility>

namespace stet::detail {

class pending_response;
struct websocket_upgrade;

struct dispatch_outcome {
  enum class kind : std::uint8_t { answer, pending, body_sink, upgrade };

  /// What `r`, as a handler or a sink returned it, stands for.
  static dispatch_outcome from(response&& r) {
    dispatch_outcome o{std::move(r), kind::answer, nullptr, nullptr};
    o.classify();
    return o;
  }
  /// Reads what `answer`, as it came from the handler, stands for. Handlers
  /// speak in responses (stet::read_body() and a responder's slot travel
  /// inside one); this is the one place that reads them out. (Dispatch builds
  /// the outcome around the handler's response and classifies it in place:
  /// no response is moved on the way.)
  void classify() noexcept {
    if (response_access::pending(answer) != nullptr || response_access::upgrades(answer)) classify_deferred();
  }

  response answer;  // kind::answer; kind::upgrade: the 101
  kind what = kind::answer;
  std::shared_ptr<pending_response> slot;      // kind::pending, kind::body_sink (its `body`)
  std::shared_ptr<websocket_upgrade> upgrade;  // kind::upgrade

 private:
  void classify_deferred() noexcept;
};

}  // namespace stet::detail
