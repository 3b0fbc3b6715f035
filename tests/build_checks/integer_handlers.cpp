// Every integer type is a route handler parameter: signed ones take {x:int},
// unsigned ones {x:uint}, by value or by const reference, in plain,
// asynchronous and coroutine handlers, with string and "..."_route patterns.
// Compiled with -Werror by tests/build_checks/handler_types.py (ctest
// build_checks.handler_types), which also compiles the types refused.
#include <stet/stet.hpp>

#include <cstdint>
#include <string>

namespace {

using namespace stet::literals;

template <class T>
void add_routes() {
  stet::router routes;
  if constexpr (std::is_signed_v<T>) {
    routes.get("/by-value/{x:int}"_route, [](stet::request&, T x) { return stet::response::text(std::to_string(x)); });
    routes.get("/by-ref/{x:int}", [](stet::request&, const T& x) { return stet::response::text(std::to_string(x)); });
    routes.get("/async/{x:int}",
               [](stet::request&, stet::responder r, T x) { r.send(stet::response::text(std::to_string(x))); });
    routes.get("/task/{x:int}"_route, [](stet::request&, T x) -> stet::task<stet::response> {
      co_return stet::response::text(std::to_string(x));
    });
  } else {
    routes.get("/by-value/{x:uint}"_route, [](stet::request&, T x) { return stet::response::text(std::to_string(x)); });
    routes.get("/by-ref/{x:uint}", [](stet::request&, const T& x) { return stet::response::text(std::to_string(x)); });
    routes.get("/async/{x:uint}",
               [](stet::request&, stet::responder r, T x) { r.send(stet::response::text(std::to_string(x))); });
    routes.get("/task/{x:uint}"_route, [](stet::request&, T x) -> stet::task<stet::response> {
      co_return stet::response::text(std::to_string(x));
    });
  }
}

template <class... T>
[[maybe_unused]] void add_all() {
  (add_routes<T>(), ...);
}

[[maybe_unused]] void every_integer_type_is_a_route_parameter() {
  add_all<signed char, short, int, long, long long, unsigned char, unsigned short, unsigned, unsigned long,
          unsigned long long, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
          std::uint32_t, std::uint64_t>();
}

}  // namespace
