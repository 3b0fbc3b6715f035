#include "http/response_writer.hpp"

#include <algorithm>
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
  preset_ = status_line(status::ok);
  ok_line_size_ = preset_.size();
  if (!server_name.empty()) {
    preset_ += "Server: ";
    preset_ += server_name;
    preset_ += "\r\n";
  }
  preset_ += "Date: ";
  date_offset_ = preset_.size();
  preset_.append(29, ' ');  // an IMF-fixdate's length; written by the first append_head()
  preset_ += "\r\n";
}

// Three copies per head: the preset lines, the handler's fields, and the
// framing lines gathered on the stack.
void response_writer::append_head(std::string& out, const response& r, const framing& how) {
  const std::string_view date = dates_.now();
  if (dates_.refreshes() != preset_refreshes_) {
    preset_refreshes_ = dates_.refreshes();
    preset_.replace(date_offset_, date.size(), date);
  }
  if (r.status() == status::ok) {
    out += preset_;
  } else {
    out += status_line(r.status());
    out.append(preset_, ok_line_size_);
  }
  out += r.header_block();

  std::array<char, 96> tail;  // the longest: Content-Length with 20 digits, keep-alive, the empty line
  char* p = tail.data();
  const auto put = [&p](std::string_view s) noexcept { p = std::copy(s.begin(), s.end(), p); };
  if (how.chunked) {
    put("Transfer-Encoding: chunked\r\n");
  } else if (!status_forbids_body(r.status()) && !r.is_stream() && !how.no_content_length) {
    put("Content-Length: ");
    p = std::to_chars(p, p + 20, r.content_length()).ptr;
    put("\r\n");
  }
  if (how.close) {
    put("Connection: close\r\n");
  } else if (how.keep_alive_http10) {
    put("Connection: keep-alive\r\n");
  }
  put("\r\n");
  out.append(tail.data(), p);
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
