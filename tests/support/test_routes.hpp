#pragma once
// The routes most integration tests share, and builders for raw request bytes.

#include <stet/router.hpp>

#include <atomic>
#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>

namespace stet::test {

/// A type-erased handler, for tables of test routes.
using handler = std::function<response(request&)>;

inline constexpr std::string_view hello_body = "Hello, World!";

/// `n` bytes of a fixed pattern, so a receiver can check every byte arrived in place.
inline std::string pattern_bytes(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
  return s;
}

/// A small application whose handlers count the requests that reach them:
///   GET  /plaintext  "Hello, World!"
///   POST /echo       the request body
///   GET  /query      the raw query string
///   GET  /host       request::host()
///   GET  /header     the value of the header named by the query ("/header?X-Name"); POST too
///   GET  /bytes      pattern_bytes(N) for "/bytes?N"
class test_app {
 public:
  router routes() {
    router r;
    r.get("/plaintext", counted([](request&) { return response::text(hello_body); }));
    r.post("/echo", counted([](request& req) { return response::text(req.body()); }));
    r.get("/query", counted([](request& req) { return response::text(req.query_string()); }));
    r.get("/host", counted([](request& req) { return response::text(req.host()); }));
    const handler header_value =
        counted([](request& req) { return response::text(req.header(req.query_string()).value_or("")); });
    r.get("/header", header_value);
    r.post("/header", header_value);
    r.get("/bytes", counted([](request& req) {
            std::size_t n = 0;
            const std::string_view q = req.query_string();
            std::from_chars(q.data(), q.data() + q.size(), n);
            return response::text(pattern_bytes(n));
          }));
    return r;
  }

  /// Requests that reached a handler so far.
  std::size_t handled() const noexcept { return handled_.load(); }

 private:
  template <typename F>
  handler counted(F f) {
    return [this, f](request& req) {
      ++handled_;
      return f(req);
    };
  }

  std::atomic<std::size_t> handled_{0};
};

/// "GET target HTTP/1.1" with Host, then `extra_headers` (each ending in CRLF).
inline std::string get_request(std::string_view target, std::string_view extra_headers = {}) {
  std::string s = "GET ";
  s.append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n").append(extra_headers).append("\r\n");
  return s;
}

/// A POST with Content-Length and the whole body.
inline std::string post_request(std::string_view target, std::string_view body, std::string_view extra_headers = {}) {
  std::string s = "POST ";
  s.append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ");
  s.append(std::to_string(body.size())).append("\r\n").append(extra_headers).append("\r\n").append(body);
  return s;
}

/// One chunk of a chunked body ("" makes the last chunk, with the final CRLF).
inline std::string chunk(std::string_view data) {
  char size[17];
  const auto end = std::to_chars(size, size + sizeof size, data.size(), 16).ptr;
  std::string s(size, end);
  s.append("\r\n").append(data).append("\r\n");
  return s;
}

/// The head of a chunked POST; the chunks follow separately.
inline std::string chunked_head(std::string_view target, std::string_view extra_headers = {}) {
  std::string s = "POST ";
  s.append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n");
  s.append(extra_headers).append("\r\n");
  return s;
}

}  // namespace stet::test
