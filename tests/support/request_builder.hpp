#pragma once
// Builds a stet::request the way the connection does (views into one buffer,
// a reusable arena, begin_request() before each request) without a socket.

#include <stet/request.hpp>

#include "request/request_access.hpp"

#include <array>
#include <cstddef>
#include <memory_resource>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stet::test {

class request_builder {
 public:
  request_builder() { detail::request_access::set_arena(request_, arena_); }
  request_builder(const request_builder&) = delete;
  request_builder& operator=(const request_builder&) = delete;

  /// Replaces the request with one carrying these fields, query and body; the
  /// text is copied into a buffer this builder owns (like a connection's).
  stet::request& load(const std::vector<std::pair<std::string, std::string>>& fields, std::string_view query = {},
                      std::string_view body = {}) {
    arena_.release();
    buffer_.clear();
    for (const auto& [name, value] : fields) buffer_ += name + value;
    buffer_ += query;
    buffer_ += body;
    fields_.clear();
    std::size_t at = 0;
    const auto take = [&](std::size_t n) {
      const std::string_view v(buffer_.data() + at, n);
      at += n;
      return v;
    };
    for (const auto& [name, value] : fields) {
      const std::string_view n = take(name.size());
      fields_.push_back(header_field{n, take(value.size())});
    }
    const std::string_view q = take(query.size());
    const std::string_view b = take(body.size());
    detail::request_access::begin_request(request_);
    detail::request_access::set_fields(request_, fields_);
    detail::request_access::set_target(request_, "/", "/", "/", q);
    detail::request_access::set_body(request_, b);
    return request_;
  }

  /// The next request on the same connection with the same bytes: arena
  /// released and memos forgotten, as connection::prepare_request() does.
  stet::request& again() {
    arena_.release();
    detail::request_access::begin_request(request_);
    return request_;
  }

  stet::request& get() noexcept { return request_; }

 private:
  std::string buffer_;
  std::vector<header_field> fields_;
  // The size connection.cpp gives its per-request arena.
  std::array<std::byte, 4 * 1024> storage_{};
  std::pmr::monotonic_buffer_resource arena_{storage_.data(), storage_.size()};
  stet::request request_;
};

}  // namespace stet::test
