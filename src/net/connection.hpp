#pragma once
// One client socket: read, parse, dispatch, queue the response, write. Owns the
// read buffer, the llhttp parser, the per-request arena and the output buffer;
// all are reused from request to request, so a keep-alive request allocates
// nothing once the connection is warm.

#include <stet/metrics.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>

#include "http/request_parser.hpp"
#include "net/asio.hpp"
#include "net/deadline_list.hpp"
#include "net/socket_read.hpp"
#include "route/pending_response.hpp"

#include <array>
#include <memory>
#include <memory_resource>
#include <optional>
#include <string>
#include <vector>

namespace stet::detail {

class worker;

class connection : public std::enable_shared_from_this<connection> {
 public:
  connection(worker& owner, tcp::socket socket, const tcp::endpoint& peer);
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection();

  void start();
  /// Graceful stop: close now if idle, otherwise after the current response.
  void drain();
  void close() noexcept;
  void on_timeout(timeout_kind kind);

 private:
  enum class phase : std::uint8_t { reading, writing, awaiting, lingering, closed };

  void read_more();
  void on_read(const boost::system::error_code& ec, std::size_t n);
  void process();
  void wait_for_input();
  bool on_head_complete();
  void on_message_complete();
  void answer(response&& r);
  void release_request();
  void await_answer();
  void on_answer();
  void abandon_answer();
  bool prepare_request();
  void queue_response(response&& r, bool head_request, bool close);
  void fail(stet::error e);
  void log_exchange(unsigned status, std::uint64_t bytes, bool parsed);
  void flush();
  void write_next();
  void send_gather();
  void drop_sent(std::size_t sent);
  void wait_writable(void (connection::*resume)());
  void send_file();
  void on_written();
  void after_write();
  void queue_stream(response&& r, bool head_request, bool close);
  void pump_stream();
  void end_stream();
  void linger();
  void discard_input();
  void make_room();
  std::size_t pending_output() const noexcept;

  worker& owner_;
  // Reset at close while an asynchronous handler still holds the request: the
  // connection may then outlive the io_context, the socket must not.
  std::optional<tcp::socket> socket_;
  socket_read read_;       // the request reads (not the lingering ones): see socket_read.hpp
  bool answered_ = false;  // a response went out since the last read completed
  tcp::endpoint peer_;
  std::string peer_text_;  // formatted on first use (only the access log needs it)
  phase phase_ = phase::reading;
  deadline_hook deadline_;

  // Read buffer: [begin_, end_) not yet parsed. The current message's head stays
  // in place from parser_.message_start() while the message is open.
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  request_parser parser_;
  std::string body_;

  std::unique_ptr<std::byte[]> arena_storage_;
  std::pmr::monotonic_buffer_resource arena_;
  std::vector<header_field> fields_;
  request request_;

  // Output: heads and small bodies are copied into out_; large bodies stay in
  // their response and are gathered into the same write.
  struct attached_body {
    std::size_t offset;  // where in out_ the body goes
    response owner;
  };
  std::string out_;
  std::vector<attached_body> attached_;
  std::size_t attached_bytes_ = 0;  // counts a file body as attach_threshold: it is not in memory
  std::size_t out_sent_ = 0;        // bytes of out_ written by the write in progress
  std::size_t next_attached_ = 0;   // first attached body not yet written
  std::uint64_t file_sent_ = 0;     // bytes of the current file body sent
  std::vector<asio::const_buffer> gather_;

  // The streamed response in progress (its head already queued), if any.
  response stream_;
  std::string chunk_;
  std::array<char, 24> chunk_size_line_{};
  bool stream_chunked_ = true;

  // Phase timing (only read when metrics, a tracer or Server-Timing want it).
  steady::time_point read_time_{};           // completion of the latest read
  steady::time_point message_start_time_{};  // the read that brought the message's first byte
  steady::time_point write_start_{};
  void record_phase(stet::phase p, steady::time_point start, steady::time_point end, const request* r) noexcept;
  void record_route(stet::status s, steady::duration handler_time);

  // The asynchronous answer awaited for the current request, if any. While it
  // is, nothing is read or parsed: the request's views must stay put.
  std::shared_ptr<pending_response> pending_;
  // The handler may still read the request after a timeout: its buffer is
  // kept here and lingering reads go to a fresh one.
  std::unique_ptr<char[]> lent_buffer_;
  bool keep_alive_ = true;              // of the request being answered
  steady::time_point handler_start_{};  // when its handler was called (timing only)

  std::size_t served_ = 0;
  bool close_after_write_ = false;
  bool draining_ = false;
};

}  // namespace stet::detail
