#pragma once
// Internal: not part of stet's API. include/stet/detail/ holds only what the
// public templates need to see (CONTRIBUTING.md, "Where a change goes").
// What the WebSocket templates of <stet/websocket.hpp> call through: the
// session behind a socket (implemented in src/), a route's type-erased
// callbacks, the per-connection user data, and the two steps of an upgrade.

#include <stet/endpoint.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/websocket_message.hpp>
#include <stet/websocket_options.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

namespace detail {

/// A socket's session, as the public templates see it. Every member but
/// post_send(), post_close(), is_open() and share() is for the session's own
/// worker thread (the callbacks run there).
class websocket_core {
 public:
  virtual send_status send(std::string_view payload, message_kind kind) = 0;
  virtual void close(std::uint16_t code, std::string_view reason) = 0;
  virtual void terminate() noexcept = 0;
  virtual bool subscribe(std::string_view topic) = 0;
  virtual bool unsubscribe(std::string_view topic) noexcept = 0;
  virtual bool is_subscribed(std::string_view topic) const noexcept = 0;
  virtual bool publish(std::string_view topic, std::string_view message, message_kind kind) = 0;
  virtual std::size_t buffered_amount() const noexcept = 0;
  virtual const endpoint& remote_endpoint() const noexcept = 0;
  virtual std::string_view protocol() const noexcept = 0;
  virtual bool compressed() const noexcept = 0;
  virtual void* user_data() noexcept = 0;

  // Any thread.
  virtual bool is_open() const noexcept = 0;
  virtual std::shared_ptr<websocket_core> share() = 0;
  virtual send_status post_send(std::string_view payload, message_kind kind) = 0;
  virtual void post_close(std::uint16_t code, std::string_view reason) = 0;

 protected:
  ~websocket_core() = default;
};

/// A route's callbacks, type-erased; websocket_route<T> (in <stet/websocket.hpp>) is the only kind.
class websocket_route_base {
 public:
  explicit websocket_route_base(websocket_options options);
  websocket_route_base(const websocket_route_base&) = delete;
  websocket_route_base& operator=(const websocket_route_base&) = delete;
  virtual ~websocket_route_base();

  virtual void on_open(websocket_core& ws) const = 0;
  virtual void on_message(websocket_core& ws, std::string_view message, message_kind kind) const = 0;
  virtual void on_drain(websocket_core& ws) const = 0;
  virtual void on_close(websocket_core& ws, std::uint16_t code, std::string_view reason) const = 0;

  const websocket_options& options() const noexcept { return options_; }
  /// options().subprotocols and allowed_origins as views (what the handshake functions take).
  const std::vector<std::string_view>& subprotocols() const noexcept { return subprotocols_; }
  const std::vector<std::string_view>& origins() const noexcept { return origins_; }
  /// What the route's connections hold now of options().max_total_message_bytes
  /// (counted, and kept under the budget, by their sessions on any worker).
  std::atomic<std::size_t>& message_bytes() const noexcept { return message_bytes_; }

 private:
  mutable std::atomic<std::size_t> message_bytes_{0};
  websocket_options options_;
  std::vector<std::string_view> subprotocols_;
  std::vector<std::string_view> origins_;
};

/// One connection's user data, owned by its session.
class websocket_user_data {
 public:
  virtual ~websocket_user_data() = default;
  virtual void* get() noexcept = 0;
};

template <class T>
class websocket_user_data_of final : public websocket_user_data {
 public:
  explicit websocket_user_data_of(T&& value) : value_(std::move(value)) {}
  void* get() noexcept override { return &value_; }

 private:
  T value_;
};

/// The answer to a request on a WebSocket route that is not an upgrade it
/// accepts: 426 (no upgrade, or a version other than 13, with Upgrade and
/// Sec-WebSocket-Version), 400 (a bad key, HTTP/1.0) or 403 (an Origin not
/// allowed); nullopt when the handshake may go on to the upgrade step.
std::optional<response> refuse_websocket_upgrade(const request& req, const websocket_route_base& route);

/// The 101 that hands the connection to a session of `route` holding `data`:
/// the subprotocol and permessage-deflate are negotiated here.
/// @throws std::bad_alloc
response accept_websocket_upgrade(const request& req, std::shared_ptr<const websocket_route_base> route,
                                  std::unique_ptr<websocket_user_data> data);

}  // namespace detail
}  // namespace stet
