#include "http/response_writer.hpp"

#include <array>
#include <charconv>

namespace stet::detail {
namespace {

// "HTTP/1.1 NNN Reason\r\n" for every code 100..599, built once per process.
struct status_line_table {
  std::array<std::string, 500> lines;
  status_line_table() {
    for (unsigned code = 100; code < 600; ++code) {
      std::string& line = lines[code - 100];
      line = "HTTP/1.1 ";
      line += std::to_string(code);
      line += ' ';
      line += reason_phrase(static_cast<status>(code));
      line += "\r\n";
    }
  }
};

std::string_view status_line(status s) noexcept {
  static const status_line_table table;
  unsigned code = to_int(s);
  if (code < 100 || code > 599) code = 500;
  return table.lines[code - 100];
}

}  // namespace

response_writer::response_writer(std::string_view server_name) {
  if (!server_name.empty()) {
    server_line_ = "Server: ";
    server_line_ += server_name;
    server_line_ += "\r\n";
  }
}

void response_writer::append_head(std::string& out, const response& r, const framing& how) {
  out += status_line(r.status());
  out += server_line_;
  out += "Date: ";
  out += dates_.now();
  out += "\r\n";
  out += r.header_block();
  if (how.chunked) {
    out += "Transfer-Encoding: chunked\r\n";
  } else if (!status_forbids_body(r.status()) && !r.is_stream() && !how.no_content_length) {
    std::array<char, 24> digits{};
    const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), r.content_length());
    out += "Content-Length: ";
    out.append(digits.data(), end);
    out += "\r\n";
  }
  if (how.close) {
    out += "Connection: close\r\n";
  } else if (how.keep_alive_http10) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
}

void response_writer::begin_chunk(std::string& out, std::size_t size) {
  std::array<char, 20> line{};
  const auto [end, ec] = std::to_chars(line.data(), line.data() + line.size() - 2, size, 16);
  end[0] = '\r';
  end[1] = '\n';
  out.append(line.data(), end + 2);
}

void response_writer::append(std::string& out, const response& r, const framing& how) {
  append_head(out, r, how);
  if (sends_body(r, how)) out += r.body();  // callers attach file bodies themselves
}

}  // namespace stet::detail
