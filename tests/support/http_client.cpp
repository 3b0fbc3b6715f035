#include "support/http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace stet::test {
namespace {

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// Parses a chunked body starting at `bytes`; returns bytes used or nullopt if incomplete.
std::optional<std::size_t> parse_chunked(std::string_view bytes, std::string& body) {
  std::size_t pos = 0;
  for (;;) {
    const std::size_t eol = bytes.find("\r\n", pos);
    if (eol == std::string_view::npos) return std::nullopt;
    std::size_t size = 0;
    const auto [end, ec] = std::from_chars(bytes.data() + pos, bytes.data() + eol, size, 16);
    if (ec != std::errc()) return std::nullopt;
    pos = eol + 2;
    if (size == 0) {
      const std::size_t trailer_end = bytes.find("\r\n", pos);
      if (trailer_end == std::string_view::npos) return std::nullopt;
      return trailer_end + 2;  // no trailers expected from stet
    }
    if (bytes.size() < pos + size + 2) return std::nullopt;
    body.append(bytes.substr(pos, size));
    pos += size + 2;
  }
}

}  // namespace

std::optional<std::string> http_response::header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (iequal(n, name)) return v;
  }
  return std::nullopt;
}

std::size_t http_response::count(std::string_view name) const {
  std::size_t n = 0;
  for (const auto& h : headers) n += iequal(h.first, name) ? 1 : 0;
  return n;
}

std::optional<http_response> parse_response(std::string_view bytes, std::size_t* consumed, bool head_only) {
  const std::size_t head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return std::nullopt;
  http_response r;
  std::string_view head = bytes.substr(0, head_end + 2);
  std::size_t eol = head.find("\r\n");
  const std::string_view status_line = head.substr(0, eol);
  if (status_line.size() < 12 || status_line.substr(0, 9) != "HTTP/1.1 ") return std::nullopt;
  std::from_chars(status_line.data() + 9, status_line.data() + 12, r.status);
  r.reason = std::string(status_line.substr(std::min<std::size_t>(13, status_line.size())));
  head.remove_prefix(eol + 2);
  while (!head.empty()) {
    eol = head.find("\r\n");
    const std::string_view line = head.substr(0, eol);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    r.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
    head.remove_prefix(eol + 2);
  }
  std::size_t used = head_end + 4;
  const bool bodiless = head_only || r.status == 204 || r.status == 304 || r.status < 200;
  if (!bodiless) {
    if (const auto length = r.header("content-length")) {
      const std::size_t n = std::stoull(*length);
      if (bytes.size() < used + n) return std::nullopt;
      r.body = std::string(bytes.substr(used, n));
      used += n;
    } else if (const auto te = r.header("transfer-encoding"); te && iequal(*te, "chunked")) {
      const auto chunked = parse_chunked(bytes.substr(used), r.body);
      if (!chunked) return std::nullopt;
      used += *chunked;
    } else {
      r.body = std::string(bytes.substr(used));  // delimited by close
      used = bytes.size();
    }
  }
  if (consumed != nullptr) *consumed = used;
  return r;
}

raw_client::raw_client(std::uint16_t port, std::string_view host, int receive_buffer) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return;
  if (receive_buffer > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  ::inet_pton(AF_INET, std::string(host).c_str(), &addr.sin_addr);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

raw_client::~raw_client() {
  if (fd_ >= 0) ::close(fd_);
}

bool raw_client::send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void raw_client::shutdown_write() { ::shutdown(fd_, SHUT_WR); }

bool raw_client::fill(std::chrono::steady_clock::time_point deadline) {
  if (eof_) return false;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
  char chunk[16384];
  const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) {
    eof_ = true;
    return false;
  }
  pending_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

std::optional<http_response> raw_client::read_response(bool head_only, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::size_t used = 0;
    // A body delimited by close is complete only at EOF.
    auto parsed = parse_response(pending_, &used, head_only);
    if (parsed) {
      const bool close_delimited = !head_only && !parsed->header("content-length") &&
                                   !parsed->header("transfer-encoding") && parsed->status >= 200 &&
                                   parsed->status != 204 && parsed->status != 304;
      if (!close_delimited || eof_) {
        pending_.erase(0, used);
        return parsed;
      }
    }
    if (!fill(deadline)) {
      if (eof_ && parsed) {
        pending_.clear();
        return parsed;
      }
      return std::nullopt;
    }
  }
}

std::string raw_client::read_until_close(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (fill(deadline)) {
  }
  return std::exchange(pending_, {});
}

bool raw_client::wait_closed(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (fill(deadline)) {
  }
  return eof_ && pending_.empty();
}

bool raw_client::quiet_for(std::chrono::milliseconds period) {
  if (!pending_.empty() || eof_) return false;
  return !fill(std::chrono::steady_clock::now() + period) && !eof_;
}

std::string raw_client::read_once(std::chrono::milliseconds timeout) {
  if (pending_.empty()) fill(std::chrono::steady_clock::now() + timeout);
  return std::exchange(pending_, {});
}

std::optional<http_response> raw_client::request(std::string_view method, std::string_view target,
                                                 std::string_view extra_headers, std::string_view body) {
  std::string bytes;
  bytes.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  bytes.append(extra_headers);
  if (!body.empty()) bytes.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  bytes.append("\r\n").append(body);
  if (!send(bytes)) return std::nullopt;
  return read_response(method == "HEAD");
}

}  // namespace stet::test
