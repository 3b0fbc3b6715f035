#include "request/forwarded.hpp"

#include "http/host_syntax.hpp"
#include "http/token.hpp"

#include <algorithm>
#include <optional>

namespace stet::detail {
namespace {

// One hop of a forwarding chain: an address, a hidden client, or garbage.
struct node {
  enum class kind : std::uint8_t { invalid, ip, hidden } what = kind::invalid;
  stet::endpoint address;
  std::string_view hidden;  // the identifier as sent ("unknown", "_abc")
};

// One Forwarded element (RFC 7239 4): the parameters stet reads.
struct forwarded_element {
  node client{node::kind::hidden, {}, "unknown"};  // no `for`: the proxy did not say
  std::string_view proto;
  std::string_view host;
};

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr bool is_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// RFC 7239 6.3: obfnode / obfport = "_" 1*( ALPHA / DIGIT / "." / "_" / "-" ).
bool is_obfuscated(std::string_view s) noexcept {
  if (s.size() < 2 || s.front() != '_') return false;
  for (char c : s) {
    if (!is_alpha(c) && !is_digit(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

// "[v6]" or "[v6]:port": the address and what follows the bracket.
std::optional<stet::endpoint> bracketed(std::string_view s, std::string_view& after) noexcept {
  const std::size_t close = s.find(']');
  if (s.empty() || s.front() != '[' || close == std::string_view::npos) return std::nullopt;
  const std::string_view inner = s.substr(1, close - 1);
  after = s.substr(close + 1);
  // Brackets hold IPv6 only ("[192.0.2.1]" is no IP-literal); an IPv4-mapped one becomes IPv4.
  if (inner.find(':') == std::string_view::npos) return std::nullopt;
  const stet::endpoint e = stet::endpoint::parse(inner);
  if (!e.is_ip()) return std::nullopt;
  return e;
}

node ip_node(const stet::endpoint& e, std::uint16_t port) noexcept {
  const std::span<const std::uint8_t> bytes = e.address_bytes();
  stet::endpoint with_port =
      bytes.size() == 4 ? stet::endpoint::v4(bytes.first<4>(), port) : stet::endpoint::v6(bytes.first<16>(), port);
  return {node::kind::ip, with_port, {}};
}

// RFC 7239 6: node = nodename [ ":" node-port ]; nodename = IPv4address /
// "[" IPv6address "]" / "unknown" / obfnode; node-port = port / obfport.
node parse_forwarded_node(std::string_view s) noexcept {
  std::string_view name = s;
  std::string_view port_text;
  std::optional<stet::endpoint> ip;
  if (!s.empty() && s.front() == '[') {
    std::string_view after;
    ip = bracketed(s, after);
    if (!ip || (!after.empty() && after.front() != ':')) return {};
    port_text = after.empty() ? after : after.substr(1);
    if (!after.empty() && port_text.empty()) return {};
  } else {
    const std::size_t colon = s.find(':');
    name = s.substr(0, colon);
    if (colon != std::string_view::npos) {
      port_text = s.substr(colon + 1);
      if (port_text.empty()) return {};
    }
    if (name.find_first_not_of("0123456789.") == std::string_view::npos) {
      ip = stet::endpoint::parse(name);
      if (!ip || ip->kind() != stet::endpoint::family::ipv4) return {};
    }
  }
  const std::optional<std::uint16_t> port = port_text.empty() ? std::optional<std::uint16_t>(0) : parse_port(port_text);
  if (!port && !is_obfuscated(port_text)) return {};
  if (ip) return ip_node(*ip, port.value_or(0));
  if (iequals(name, "unknown") || is_obfuscated(name)) return {node::kind::hidden, {}, name};
  return {};
}

// An X-Forwarded-For entry: IPv4 or IPv6, bracketed or not, with a port only
// after IPv4 or brackets ("192.0.2.1:80", "[2001:db8::1]:80"). Nothing else.
node parse_x_forwarded_node(std::string_view s) noexcept {
  // endpoint::parse() reads text up to a NUL; an address holds none of these bytes.
  if (s.find_first_not_of("0123456789abcdefABCDEF:.[]") != std::string_view::npos) return {};
  if (!s.empty() && s.front() == '[') {
    std::string_view after;
    const std::optional<stet::endpoint> ip = bracketed(s, after);
    if (!ip) return {};
    if (after.empty()) return ip_node(*ip, 0);
    const std::optional<std::uint16_t> port = after.front() == ':' ? parse_port(after.substr(1)) : std::nullopt;
    return port ? ip_node(*ip, *port) : node{};
  }
  const std::size_t colon = s.find(':');
  if (colon != std::string_view::npos && s.find(':', colon + 1) == std::string_view::npos) {
    const stet::endpoint ip = stet::endpoint::parse(s.substr(0, colon));
    const std::optional<std::uint16_t> port = parse_port(s.substr(colon + 1));
    return ip.kind() == stet::endpoint::family::ipv4 && port ? ip_node(ip, *port) : node{};
  }
  const stet::endpoint ip = stet::endpoint::parse(s);
  return ip.is_ip() ? ip_node(ip, 0) : node{};
}

// RFC 3986 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ); http and
// https in any case come back as the literals.
std::optional<std::string_view> valid_scheme(std::string_view s) noexcept {
  if (iequals(s, "http")) return "http";
  if (iequals(s, "https")) return "https";
  if (s.empty() || !is_alpha(s.front())) return std::nullopt;
  for (char c : s) {
    if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.') return std::nullopt;
  }
  return s;
}

bool valid_forwarded_host(std::string_view s) noexcept { return !s.empty() && valid_host(s); }

// Reads the elements of Forwarded field values (RFC 7239 4) one at a time.
// OWS is taken around ';' as around ',' (some proxies write "for=a; proto=b").
class forwarded_reader {
 public:
  explicit forwarded_reader(std::string_view value) noexcept : rest_(value) {}

  /// The next element; nullopt at the end, or on a syntax error (then bad()).
  std::optional<forwarded_element> next() noexcept {
    for (skip_ows(); !rest_.empty() && rest_.front() == ','; skip_ows()) rest_.remove_prefix(1);
    if (rest_.empty()) return std::nullopt;
    forwarded_element e;
    unsigned seen = 0;
    while (true) {
      skip_ows();
      if (rest_.empty() || rest_.front() == ',') return e;
      if (rest_.front() == ';') {
        rest_.remove_prefix(1);
        continue;
      }
      if (!read_pair(e, seen)) {
        bad_ = true;
        return std::nullopt;
      }
    }
  }
  bool bad() const noexcept { return bad_; }

 private:
  enum parameter : unsigned { for_bit = 1, proto_bit = 2, host_bit = 4, by_bit = 8, extension = 0 };

  static parameter which(std::string_view name) noexcept {
    if (iequals(name, "for")) return for_bit;
    if (iequals(name, "proto")) return proto_bit;
    if (iequals(name, "host")) return host_bit;
    if (iequals(name, "by")) return by_bit;
    return extension;
  }

  // forwarded-pair = token "=" value, then OWS and ';' or ',' or the end. Each
  // of for, by, proto and host at most once per element (RFC 7239 4).
  bool read_pair(forwarded_element& e, unsigned& seen) noexcept {
    std::size_t name_end = 0;
    while (name_end < rest_.size() && is_tchar(rest_[name_end])) ++name_end;
    if (name_end == 0 || name_end == rest_.size() || rest_[name_end] != '=') return false;
    const parameter p = which(rest_.substr(0, name_end));
    rest_.remove_prefix(name_end + 1);
    bool escaped = false;
    const std::optional<std::string_view> value = read_value(escaped);
    if (!value || (seen & p) != 0) return false;
    seen |= p;
    skip_ows();
    if (!rest_.empty() && rest_.front() != ';' && rest_.front() != ',') return false;
    // No valid node, scheme or host needs a quoted-pair; one there is garbage.
    if (p != extension && p != by_bit && escaped) return false;
    switch (p) {
      case for_bit: e.client = parse_forwarded_node(*value); return e.client.what != node::kind::invalid;
      case proto_bit: {
        const std::optional<std::string_view> scheme = valid_scheme(*value);
        e.proto = scheme.value_or(std::string_view());
        return scheme.has_value();
      }
      case host_bit: e.host = *value; return valid_forwarded_host(*value);
      default: return true;
    }
  }

  // value = token / quoted-string; the content of a quoted-string without its
  // quotes (with any quoted-pairs still escaped: `escaped` says so).
  std::optional<std::string_view> read_value(bool& escaped) noexcept {
    if (rest_.empty() || rest_.front() != '"') {
      std::size_t n = 0;
      while (n < rest_.size() && is_tchar(rest_[n])) ++n;
      if (n == 0) return std::nullopt;
      const std::string_view token = rest_.substr(0, n);
      rest_.remove_prefix(n);
      return token;
    }
    for (std::size_t i = 1; i < rest_.size(); ++i) {
      const auto c = static_cast<unsigned char>(rest_[i]);
      if (c == '"') {
        const std::string_view content = rest_.substr(1, i - 1);
        rest_.remove_prefix(i + 1);
        return content;
      }
      if (c == '\\') {
        escaped = true;
        ++i;
        if (i == rest_.size() || !is_quoted_text(static_cast<unsigned char>(rest_[i]), true)) return std::nullopt;
      } else if (!is_quoted_text(c, false)) {
        return std::nullopt;
      }
    }
    return std::nullopt;  // no closing quote
  }

  // RFC 9110 5.6.4: qdtext, or the byte after '\' in a quoted-pair (which may also be '"' or '\').
  static bool is_quoted_text(unsigned char c, bool escaped) noexcept {
    if (c == '\t' || c == ' ' || c >= 0x80) return true;
    if (c < 0x21 || c == 0x7f) return false;
    return escaped || (c != '"' && c != '\\');
  }

  void skip_ows() noexcept {
    while (!rest_.empty() && (rest_.front() == ' ' || rest_.front() == '\t')) rest_.remove_prefix(1);
  }

  std::string_view rest_;
  bool bad_ = false;
};

// What the forwarded fields say; empty views and no client mean "the connection's".
struct origin_parts {
  std::optional<node> client;
  std::string_view scheme;
  std::string_view host;
  origin_source source = origin_source::peer;
};

// Calls visit(element) for each list element of every field named `name`, in arrival order.
template <class Visit>
void for_each_field_element(std::span<const header_field> fields, std::string_view name, Visit&& visit) {
  for (const header_field& f : fields) {
    if (iequals(f.name, name)) for_each_list_element(f.value, visit);
  }
}

// The element of the `name` lists `from_right` places from their right end
// (the left-most when they are shorter); empty when there is none.
std::string_view element_from_right(std::span<const header_field> fields, std::string_view name,
                                    std::size_t from_right) noexcept {
  std::size_t count = 0;
  for_each_field_element(fields, name, [&](std::string_view) { ++count; });
  const std::size_t wanted = count > from_right ? count - 1 - from_right : 0;
  std::size_t at = 0;
  std::string_view found;
  for_each_field_element(fields, name, [&](std::string_view e) {
    if (at++ == wanted) found = e;
  });
  return found;
}

// Walks a forwarding chain left to right and keeps the entry that is the
// client: the right-most whose node is not a trusted address, else the left-most.
template <class Entry>
class chain_walker {
 public:
  explicit chain_walker(const proxy_trust& trust) noexcept : trust_(trust) {}

  void add(const Entry& entry, const node& n) noexcept {
    const bool untrusted = n.what != node::kind::ip || !trust_.trusts(n.address);
    if (count_ == 0 || untrusted) {
      chosen_ = entry;
      chosen_at_ = count_;
    }
    ++count_;
  }
  /// nullopt when the chain is empty.
  const std::optional<Entry>& chosen() const noexcept { return chosen_; }
  /// How many entries lie right of the chosen one.
  std::size_t from_right() const noexcept { return count_ == 0 ? 0 : count_ - 1 - chosen_at_; }

 private:
  const proxy_trust& trust_;
  std::optional<Entry> chosen_;
  std::size_t chosen_at_ = 0;
  std::size_t count_ = 0;
};

std::optional<origin_parts> from_x_forwarded(std::span<const header_field> fields, const proxy_trust& trust) noexcept {
  chain_walker<node> chain(trust);
  for_each_field_element(fields, "x-forwarded-for", [&](std::string_view entry) {
    const node n = parse_x_forwarded_node(entry);
    chain.add(n, n);
  });
  if (chain.chosen() && chain.chosen()->what == node::kind::invalid) return std::nullopt;
  origin_parts parts{chain.chosen(), {}, {}, origin_source::x_forwarded};
  parts.scheme = valid_scheme(element_from_right(fields, "x-forwarded-proto", chain.from_right())).value_or("");
  const std::string_view host = element_from_right(fields, "x-forwarded-host", chain.from_right());
  if (valid_forwarded_host(host)) parts.host = host;
  if (!parts.client && parts.scheme.empty() && parts.host.empty()) return std::nullopt;
  return parts;
}

// Forwarded when the request has it (any syntax error in it: the peer), else X-Forwarded-*.
std::optional<origin_parts> from_fields(std::span<const header_field> fields, const proxy_trust& trust) noexcept {
  chain_walker<forwarded_element> chain(trust);
  for (const header_field& f : fields) {
    if (!iequals(f.name, "forwarded")) continue;
    forwarded_reader reader(f.value);
    while (const std::optional<forwarded_element> e = reader.next()) chain.add(*e, e->client);
    if (reader.bad()) return std::nullopt;
  }
  if (!chain.chosen()) return from_x_forwarded(fields, trust);
  const forwarded_element& e = *chain.chosen();
  return origin_parts{e.client, e.proto, e.host, origin_source::forwarded};
}

}  // namespace

void client_origin::set_address(const stet::endpoint& address) noexcept {
  address_ = address;
  hidden_ = {};
  const std::string_view text = address.address_text(text_);
  if (text.data() != text_.data()) std::copy(text.begin(), text.end(), text_.begin());  // "unix", "-"
  text_length_ = static_cast<std::uint8_t>(text.size());
}

client_origin resolve_client_origin(const origin_input& in, const proxy_trust& trust) noexcept {
  client_origin out;
  out.set_address(in.peer);
  out.scheme_ = in.scheme;
  out.host_ = in.host;
  if (trust.empty() || !trust.trusts(in.peer)) return out;
  const std::optional<origin_parts> parts = from_fields(in.fields, trust);
  if (!parts) return out;
  out.source_ = parts->source;
  if (parts->client && parts->client->what == node::kind::ip) {
    out.set_address(parts->client->address);
  } else if (parts->client) {
    out.address_ = {};
    out.hidden_ = parts->client->hidden;
  }
  if (!parts->scheme.empty()) out.scheme_ = parts->scheme;
  if (!parts->host.empty()) out.host_ = parts->host;
  return out;
}

}  // namespace stet::detail
