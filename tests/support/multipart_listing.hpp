#pragma once
// A body sink that lists a streamed multipart body's parts, "name:size;"
// each: what the connection tests and the whole-server fuzz target answer on
// their multipart route.

#include <stet/body.hpp>
#include <stet/multipart.hpp>
#include <stet/response.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace stet::test {

class multipart_listing final : public body_sink {
 public:
  explicit multipart_listing(std::string_view content_type) : parser_(content_type) {}
  body_flow on_data(std::string_view piece) override {
    parser_.consume(piece, [this](const multipart_event& e) { on_event(e); });
    return body_flow::more;
  }
  response on_end() override {
    parser_.finish([this](const multipart_event& e) { on_event(e); });
    if (!parser_) return response::text(parser_.error().message(), parser_.error().status());
    return response::text(listing_);
  }
  void on_abort(std::error_code) noexcept override {}

 private:
  void on_event(const multipart_event& e) {
    if (e.kind == multipart_event_kind::part_begin) listing_ += std::string(parser_.part().name) + ":";
    if (e.kind == multipart_event_kind::part_data) size_ += e.data.size();
    if (e.kind == multipart_event_kind::part_end) listing_ += std::to_string(std::exchange(size_, 0)) + ";";
  }
  multipart_parser parser_;
  std::string listing_;
  std::size_t size_ = 0;
};

}  // namespace stet::test
