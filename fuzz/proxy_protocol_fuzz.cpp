// Target 8: the PROXY protocol header parser, fed the first bytes of a
// connection. The input is those bytes. Properties:
//   - the answer does not depend on how the bytes were cut into reads: every
//     prefix shorter than a complete header needs more, every longer one gives
//     the same header; once a prefix is invalid, every longer one is;
//   - a header is never longer than its version allows (107 bytes, or the
//     limit), and what it consumed lies inside the input;
//   - a complete header's addresses survive being written again: the header
//     a balancer would write for them parses to the same endpoints.

#include "net/accept/proxy_protocol.hpp"
#include "support/require.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using stet::detail::parse_proxy_header;
using stet::detail::proxy_header;
using stet::fuzz::require;
using status = proxy_header::status;

// Small, so that the fuzzer reaches the limit.
constexpr std::size_t limit = 600;

bool same(const proxy_header& a, const proxy_header& b) {
  return a.what == b.what && a.version == b.version && a.consumed == b.consumed && a.local == b.local &&
         a.source == b.source && a.destination == b.destination;
}

std::string v1_line(const proxy_header& h) {
  const bool v4 =
      h.source.kind() == stet::endpoint::family::ipv4 && h.destination.kind() == stet::endpoint::family::ipv4;
  return std::string("PROXY ") + (v4 ? "TCP4 " : "TCP6 ") + h.source.address_string() + " " +
         h.destination.address_string() + " " + std::to_string(h.source.port()) + " " +
         std::to_string(h.destination.port()) + "\r\n";
}

void put16(std::string& out, std::uint16_t v) {
  out += static_cast<char>(v >> 8);
  out += static_cast<char>(v & 0xff);
}

std::string v2_header(const proxy_header& h) {
  std::string out("\r\n\r\n\0\r\nQUIT\n\x21", 13);
  if (h.source.kind() == stet::endpoint::family::unix_socket) {
    out += '\x31';
    put16(out, 216);
    return out.append(216, '\0');
  }
  const bool v4 = h.source.kind() == stet::endpoint::family::ipv4;
  out += v4 ? '\x11' : '\x21';
  put16(out, v4 ? 12 : 36);
  for (const stet::endpoint* e : {&h.source, &h.destination}) {
    const auto bytes = e->address_bytes();
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  put16(out, h.source.port());
  put16(out, h.destination.port());
  return out;
}

void check_rewritten(const proxy_header& h) {
  if (h.what != status::done || h.local) return;
  // "TCP6 ::ffff:192.0.2.1 ::1" gives an IPv4 source (stet::endpoint unmaps) beside an IPv6 destination.
  if (h.source.kind() != h.destination.kind()) return;
  const std::string again = h.version == 1 ? v1_line(h) : v2_header(h);
  const proxy_header reparsed = parse_proxy_header(again, limit);
  require(reparsed.what == status::done && reparsed.consumed == again.size(), "a rewritten header parses", again);
  require(reparsed.source == h.source && reparsed.destination == h.destination,
          "a rewritten header carries the same endpoints", again);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const proxy_header whole = parse_proxy_header(input, limit);
  require(whole.consumed <= input.size(), "consumes only what it was given", input);
  if (whole.what == status::done) {
    require(whole.consumed > 0 && whole.consumed <= (whole.version == 1 ? stet::detail::proxy_v1_max_bytes : limit),
            "a header stays within its limit", input);
  } else {
    require(whole.consumed == 0, "only a complete header consumes", input);
  }
  if (whole.what == status::invalid) require(!whole.reason.empty(), "an invalid header says why", input);
  check_rewritten(whole);

  // Every prefix, up to a little past what the header could need.
  bool invalid_before = false;
  const std::size_t last = std::min(input.size(), limit + 8);
  for (std::size_t n = 0; n <= last; ++n) {
    const proxy_header h = parse_proxy_header(input.substr(0, n), limit);
    if (whole.what == status::done) {
      require(n < whole.consumed ? h.what == status::need_more : same(h, whole),
              "a prefix of a header needs more; a longer one is the same header", input);
    }
    if (whole.what == status::need_more) require(h.what == status::need_more, "a prefix of a start needs more", input);
    if (invalid_before) require(h.what == status::invalid, "invalid stays invalid", input);
    invalid_before = h.what == status::invalid;
  }
  return 0;
}
