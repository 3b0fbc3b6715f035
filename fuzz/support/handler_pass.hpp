#pragma once
// Turning an io_context by hand without a system call per handler. Asio's
// scheduler asks its reactor (epoll_wait with a zero timeout) before each
// handler when handlers post handlers, as a connection's do: on this machine
// the system call costs more than the handler, and it found nothing ready
// almost every time. poll_handlers() runs what is queued with the reactor's
// zero-timeout asks answered "nothing ready" without asking the kernel;
// poll_reactor() then asks once, for real. A reactor event seen a few
// handlers late is one a real reactor may see as late (Asio promises no order
// between posted handlers and I/O completions), so nothing a target checks
// depends on it; what the reactor holds (timers, sockets) is still seen before
// a target decides the loop has gone quiet.

#include "net/asio.hpp"

#include <cstddef>

namespace stet::fuzz {

/// Runs handlers ready on `io` (at most `limit`) without asking the kernel
/// for reactor events; returns how many ran.
std::size_t poll_handlers(stet::detail::asio::io_context& io, std::size_t limit);

/// Runs at most one handler, after asking the reactor (timers, sockets).
std::size_t poll_reactor(stet::detail::asio::io_context& io);

}  // namespace stet::fuzz
