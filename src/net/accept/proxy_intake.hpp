#pragma once
// A connection on a PROXY protocol listener before it is one: reads the PROXY
// header (v1 or v2) off the raw socket, then hands the socket and the address
// the header carried to the worker, which starts the HTTP connection as for
// any other. It never reads past the header: it peeks at what arrived
// (MSG_PEEK) and takes only bytes that are header for certain (all of them
// while the header is incomplete, exactly its rest once it is), so the
// request behind it stays in the kernel for the transport (plain, or TLS
// whose ClientHello follows the header) and nothing is handed over. Taking
// the bytes of an incomplete header is also what lets the wait for the next
// ones sleep: bytes left in the kernel would keep the socket readable.
//
// Bounded like a request head: first_byte_timeout while nothing arrived, then
// header_timeout from the first byte; evictable at max_connections like a
// silent connection (or a partial head, once it holds part of the header).
// Anything that is not a valid header is closed silently and counted
// (close_reason::proxy_protocol).

#include <stet/endpoint.hpp>

#include "net/asio.hpp"
#include "net/server/deadline_list.hpp"

#include <boost/asio/local/stream_protocol.hpp>

#include <cstddef>
#include <memory>

namespace stet::detail {

class tls_service;
class worker;

/// What the worker keeps of each intake in progress (to close it at drain).
class proxy_intake_base : public deadline_target {
 public:
  /// Closes the socket now, counting nothing; the worker forgets it.
  virtual void close() noexcept = 0;

 protected:
  ~proxy_intake_base() = default;
};

/// Starts reading the PROXY header of `socket` (accepted from `peer`) on
/// `owner`'s thread; the worker adopts the connection once it is read, inside
/// a TLS session from `tls` when the listener has one (the ClientHello
/// follows the header), as it is otherwise.
void start_proxy_intake(worker& owner, tcp::socket socket, const endpoint& peer, tls_service* tls);
void start_proxy_intake(worker& owner, asio::local::stream_protocol::socket socket, const endpoint& peer,
                        tls_service* tls);

}  // namespace stet::detail
