#pragma once
// What dispatch hands its caller, said as what it is: an answer to queue now;
// a slot whose answer comes later (an asynchronous or suspended handler); a
// sink that takes the body before there is an answer (a streaming route,
// stet::read_body()); or an accepted WebSocket upgrade, its 101 and the
// session to start once the 101 is written. The connection switches on it and
// never asks a response what it stands for.

#include <stet/response.hpp>

#include <cstdint>
#include <memory>

namespace stet::detail {

class pending_response;
struct websocket_upgrade;

struct dispatch_outcome {
  enum class kind : std::uint8_t { answer, pending, body_sink, upgrade };

  /// What `r`, as a handler or a sink returned it, stands for. Handlers speak
  /// in responses (stet::read_body() and a responder's slot travel inside
  /// one); this is the one place that reads them out.
  static dispatch_outcome from(response&& r);

  kind what = kind::answer;
  response answer;                              // kind::answer; kind::upgrade: the 101
  std::shared_ptr<pending_response> slot;       // kind::pending, kind::body_sink (its `body`)
  std::shared_ptr<websocket_upgrade> upgrade;   // kind::upgrade
};

}  // namespace stet::detail
