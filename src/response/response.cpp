#include <stet/response.hpp>

#include <stet/error.hpp>

#include "http/token.hpp"
#include "response/header_scan.hpp"

#include <unistd.h>

#include <array>
#include <stdexcept>

namespace stet {
namespace {

using detail::iequals;

// Fields the writer produces itself; letting a handler set them would allow a
// second, conflicting framing of the same response.
constexpr std::array<std::string_view, 5> reserved_fields = {"content-length", "transfer-encoding", "date", "server",
                                                             "connection"};

std::error_code check_field(std::string_view name, std::string_view value) noexcept {
  if (!detail::is_token(name)) return error::invalid_header_name;
  if (!detail::is_field_value(value)) return error::invalid_header_value;
  for (std::string_view reserved : reserved_fields) {
    if (iequals(name, reserved)) return error::reserved_header;
  }
  return {};
}

}  // namespace

response response::text(std::string_view body, stet::status s) { return typed("text/plain; charset=utf-8", body, s); }

response response::html(std::string_view body, stet::status s) { return typed("text/html; charset=utf-8", body, s); }

response response::json_text(std::string_view json, stet::status s) { return typed("application/json", json, s); }

// The factories' content types are constants known to be valid: they are
// appended as they are, not validated again on every response.
response response::typed(std::string_view content_type, std::string_view body, stet::status s) {
  response r(s);
  r.append_field("Content-Type", content_type);
  r.set_body(body);
  return r;
}

response response::redirect(stet::status s, std::string_view location) {
  response r(s);
  if (std::error_code ec = r.set_header("Location", location)) {
    r.set_status(stet::status::internal_server_error);
  }
  return r;
}

void response::append_field(std::string_view name, std::string_view value) {
  std::string& out = fields_.writable();
  out.append(name);
  out.append(": ");
  out.append(value);
  out.append("\r\n");
}

std::error_code response::add_header(std::string_view name, std::string_view value) {
  value = detail::trim_ows(value);
  if (std::error_code ec = check_field(name, value)) return ec;
  append_field(name, value);
  return {};
}

std::error_code response::set_header(std::string_view name, std::string_view value) {
  value = detail::trim_ows(value);
  if (std::error_code ec = check_field(name, value)) return ec;
  if (!fields_.str().empty()) {
    std::string& block = fields_.writable();
    std::size_t pos = 0;
    while (pos < block.size()) {
      const std::size_t eol = block.find("\r\n", pos) + 2;
      const std::size_t colon = block.find(':', pos);
      if (iequals(std::string_view(block).substr(pos, colon - pos), name)) {
        block.erase(pos, eol - pos);
      } else {
        pos = eol;
      }
    }
  }
  append_field(name, value);
  return {};
}

response& response::with_header(std::string_view name, std::string_view value) & {
  if (std::error_code ec = add_header(name, value)) {
    throw std::invalid_argument("stet::response: header '" + std::string(name) + "': " + ec.message());
  }
  return *this;
}

response&& response::with_header(std::string_view name, std::string_view value) && {
  return std::move(with_header(name, value));
}

std::optional<std::string_view> response::header(std::string_view name) const noexcept {
  std::optional<std::string_view> found;
  detail::for_each_field(fields_.str(), [&](std::string_view n, std::string_view v) {
    if (!iequals(n, name)) return false;
    found = v;
    return true;
  });
  return found;
}

file_source::~file_source() {
  if (fd_ >= 0) ::close(fd_);
}

response& response::set_stream(stream_producer producer) {
  shared_.reset();
  file_.reset();
  body_.adopt(std::string());
  producer_ = std::move(producer);
  return *this;
}

std::string& response::body_buffer() {
  producer_ = nullptr;
  shared_.reset();
  file_.reset();
  return body_.writable();
}

response& response::set_body(std::string_view bytes) {
  body_buffer().assign(bytes);
  return *this;
}

response& response::set_body(std::string&& bytes) noexcept {
  producer_ = nullptr;
  shared_.reset();
  file_.reset();
  body_.adopt(std::move(bytes));
  return *this;
}

response& response::set_shared_body(std::shared_ptr<const std::string> bytes) noexcept {
  producer_ = nullptr;
  file_.reset();
  body_.adopt(std::string());
  shared_ = std::move(bytes);
  return *this;
}

response& response::set_file(std::shared_ptr<const file_source> file, std::uint64_t offset,
                             std::uint64_t length) noexcept {
  producer_ = nullptr;
  shared_.reset();
  body_.adopt(std::string());
  file_ = std::move(file);
  file_offset_ = offset;
  file_length_ = length;
  return *this;
}

}  // namespace stet
