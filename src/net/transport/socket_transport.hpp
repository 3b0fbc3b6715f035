#pragma once
// A transport over a connected stream socket (TCP, or a unix-domain socket):
// reads through socket_read, writes with send/sendmsg/sendfile straight from
// the worker thread.

#include "net/asio.hpp"
#include "net/transport/socket_read.hpp"
#include "net/transport/transport.hpp"

#include <boost/asio/local/stream_protocol.hpp>

namespace stet::detail {

/// What the listener knows of a socket it accepted (socket_read::assume()).
struct accepted_as {
  bool inq_on = false;  ///< TCP_INQ is on (inherited from the listening socket)
  bool fresh = false;   ///< registered with the reactor in the handler that starts the first read
};

template <class Protocol>
class socket_transport final : public transport {
 public:
  using socket_type = typename Protocol::socket;

  /// Takes the socket and makes it non-blocking for the kernel and for Asio
  /// (unless it is already, as native_accept's sockets are): every write is
  /// tried from the worker thread first, and a full socket must make it give
  /// way, not wait (Asio's own synchronous write_some would poll).
  explicit socket_transport(socket_type socket, accepted_as facts = {});

  void start_read(const io_target& t, bool answered, std::shared_ptr<void>&& keep) override;
  std::size_t write_some(std::span<const iovec> pieces, boost::system::error_code& ec) noexcept override;
  std::size_t write_file(int fd, std::uint64_t offset, std::size_t length,
                         boost::system::error_code& ec) noexcept override;
  void wait_writable(const io_target& t, std::shared_ptr<void>&& keep) override;
  std::size_t available() noexcept override;
  void watch_peer(const io_target& t, std::shared_ptr<void>&& keep) override;
  void shutdown_send() noexcept override;
  void cancel() noexcept override;
  void close() noexcept override;

  /// System calls socket_read saved so far (see socket_read.hpp).
  std::size_t probes_skipped() const noexcept { return read_.probes_skipped(); }

 private:
  socket_type socket_;
  socket_read read_;
  bool sent_fin_ = false;  // shutdown_send() succeeded and no read started since
};

using tcp_transport = socket_transport<tcp>;
using unix_transport = socket_transport<asio::local::stream_protocol>;

extern template class socket_transport<tcp>;
extern template class socket_transport<asio::local::stream_protocol>;

}  // namespace stet::detail
