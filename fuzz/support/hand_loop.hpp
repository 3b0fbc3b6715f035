#pragma once
// Turning a worker's io_context by hand on the fuzzer's thread, without a
// system call per handler. Asio's scheduler asks its reactor (epoll_wait with
// a zero timeout) before each handler when handlers post handlers, as a
// connection's do: on this machine the system call costs more than the
// handler, and it found nothing ready almost every time. poll_handlers() runs
// what is queued with the reactor's zero-timeout asks answered "nothing
// ready" without asking the kernel; poll_reactor() then asks once, for real.
// A reactor event seen a few handlers late is one a real reactor may see as
// late (Asio promises no order between posted handlers and I/O completions),
// so nothing a target checks depends on it; what the reactor holds (timers,
// sockets) is still seen before a target decides the loop has gone quiet.

#include "net/asio.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace stet::fuzz {

/// Handlers one quiet-making run may take: a server that keeps itself busy
/// with no new bytes arriving (a busy wait) burns a worker's CPU until a timeout.
inline constexpr std::size_t max_steps = 200'000;

/// Runs handlers ready on `io` (at most `limit`) without asking the kernel
/// for reactor events; returns how many ran.
std::size_t poll_handlers(stet::detail::asio::io_context& io, std::size_t limit);

/// Runs at most one handler, after asking the reactor (timers, sockets).
std::size_t poll_reactor(stet::detail::asio::io_context& io);

/// Passes of handlers, then the reactor, until it too has nothing; returns how
/// many handlers ran. A broken property (`payload` shown) past max_steps.
std::size_t run_until_quiet(stet::detail::asio::io_context& io, std::string_view payload);

/// Reads what the server wrote so far from the client's non-blocking end `fd`
/// into `into`; true at its end of stream (or a reset).
bool drain_client(int fd, std::string& into);

/// Turns the loop and reads the client's side until neither moves; true once
/// the server has closed. A broken property (`payload` shown) when they keep
/// moving without end.
bool pump(stet::detail::asio::io_context& io, int fd, std::string& into, std::string_view payload);

/// Blocks until the reactor has an event (a socket, a timer) and runs its
/// handler, or `most` passes.
void wait_for_reactor(stet::detail::asio::io_context& io, std::chrono::milliseconds most);

}  // namespace stet::fuzz
