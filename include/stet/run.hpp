#pragma once
/// @file
/// stet::run_until_signal: a server's whole life in one call, from start to a
/// graceful stop on SIGINT or SIGTERM.

#include <stet/server.hpp>

#include <functional>

namespace stet {

/// What run_until_signal() does besides starting, waiting and stopping.
struct run_options {
  /// Called once the server is started (it is serving), on the calling
  /// thread: e.g. to print server::port() when port 0 was asked for.
  std::function<void(server&)> on_started{};
  /// Called on each SIGHUP, on the calling thread, while the server keeps
  /// running: e.g. server::reload_tls() for a renewed certificate, or
  /// server::reopen_access_log() after logrotate. Empty: SIGHUP is left alone
  /// (its default action ends the process).
  std::function<void(server&)> on_hangup{};
};

/// Starts `s`, waits for SIGINT or SIGTERM, then stops it in stages
/// (server::stop(): readiness off, drain_delay, accepting stops, in-flight
/// requests finish within drain_timeout) and waits for its workers.
///
/// The signals are taken by handlers installed for the duration of the call
/// (the previous ones are restored after), so they work whatever threads the
/// program already has and whatever their signal masks. A second SIGINT or
/// SIGTERM during the drain gets the disposition the program had before (by
/// default: it ends the process at once). Call it from one thread at a time
/// (a second call meanwhile returns std::errc::device_or_resource_busy), on a
/// server not started yet.
///
/// Returns the start error when start() failed (nothing is served then and
/// no signal handler is left behind; its message() names the address or file
/// and the reason, e.g. "listen on 127.0.0.1:8080: Address already in use"),
/// else an empty config_error once the server has stopped.
config_error run_until_signal(server& s, const run_options& options = {});

}  // namespace stet
