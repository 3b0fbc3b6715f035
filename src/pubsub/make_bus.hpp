#pragma once
// The one place that turns server_options::pubsub into a bus, so the server
// (and a test) choose the same way and a bad value fails start() with words.

#include "pubsub/bus.hpp"

#include <stet/error.hpp>
#include <stet/server_options.hpp>

#include <memory>

namespace stet::detail {

struct bus_choice {
  std::unique_ptr<bus> chosen;  // null with no error: in-process (the caller's own bus)
  config_error error;           // e.g. "pubsub 'redis://h:0': the port is not a number from 1 to 65535"
};

/// Empty `options.pubsub`: nothing chosen (the in-process bus is the default);
/// `redis://HOST:PORT`: a Redis bus, not started (it connects on start() and
/// keeps trying while Redis is away); anything else: a config_error
/// (std::errc::invalid_argument) naming the value and the reason.
bus_choice make_bus(const server_options& options);

}  // namespace stet::detail
