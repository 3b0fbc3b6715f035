#include "pubsub/make_bus.hpp"

#include "pubsub/redis_bus.hpp"
#include "pubsub/redis_url.hpp"

#include <fmt/format.h>

namespace stet::detail {

// The URL is read once: its error is the start error, its address the bus's.
bus_choice make_bus(const server_options& options) {
  if (options.pubsub.empty()) return {};
  redis_url url = parse_redis_url(options.pubsub);
  if (!url.why.empty()) {
    return {
        nullptr,
        {std::make_error_code(std::errc::invalid_argument), fmt::format("pubsub '{}': {}", options.pubsub, url.why)}};
  }
  redis_bus_options redis;
  redis.address = std::move(url.address);
  return {make_redis_bus(std::move(redis)), {}};
}

}  // namespace stet::detail
