#include "slow.hpp"

#include <stet/json.hpp>
#include <stet/offload.hpp>
#include <stet/response.hpp>
#include <stet/task.hpp>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <thread>

namespace stet_server {
namespace {

constexpr std::uint32_t max_ms = 10'000;

// The ms parameter, if it is a plain decimal from 0 to max_ms.
std::optional<std::uint32_t> sleep_ms(const stet::request& req) {
  const std::optional<std::string_view> text = req.query().get("ms");
  if (!text || text->empty()) return std::nullopt;
  std::uint32_t ms = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), ms);
  if (ec != std::errc() || end != text->data() + text->size() || ms > max_ms) return std::nullopt;
  return ms;
}

stet::task<stet::response> slow(stet::request& req) {
  const std::optional<std::uint32_t> ms = sleep_ms(req);
  if (!ms) {
    co_return stet::response::json(
        [](stet::json::writer& w) {
          w.begin_object().member("error", "ms must be an integer from 0 to 10000").end_object();
        },
        stet::status::bad_request);
  }
  // The blocking call: on a pool thread, while this worker serves others.
  co_await stet::offload([n = *ms] { std::this_thread::sleep_for(std::chrono::milliseconds(n)); });
  co_return stet::response::json(
      [n = *ms](stet::json::writer& w) { w.begin_object().member("slept_ms", std::uint64_t{n}).end_object(); });
}

}  // namespace

void add_slow_route(stet::router& routes) { routes.get("/slow", slow); }

}  // namespace stet_server
