#include <stet/signer.hpp>

#include "crypto/hmac.hpp"
#include "http/base64url.hpp"
#include "counters/memo_stats.hpp"

#include <openssl/crypto.h>

#include <array>
#include <stdexcept>

namespace stet {

struct signer::state {
  std::vector<detail::hmac_sha256_key> keys;  // keys[0] signs
  std::string purpose;
  signer_options options;
};

namespace {

using clock = std::chrono::system_clock;
using detail::base64url_encode;
using detail::base64url_encoded_size;

constexpr char plain_mode = 'p';
constexpr char timestamped_mode = 't';

std::uint64_t to_seconds(clock::time_point t) noexcept {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
  return s < 0 ? 0 : static_cast<std::uint64_t>(s);
}

// The timestamp as its minimal big-endian bytes in base64url (6 characters until 2106).
void append_timestamp(std::string& out, std::uint64_t seconds) {
  std::array<unsigned char, 8> be{};
  std::size_t first = be.size() - 1;
  for (std::size_t i = be.size(); i-- > 0; seconds >>= 8) {
    be[i] = static_cast<unsigned char>(seconds & 0xff);
    if (be[i] != 0) first = i;
  }
  const std::span<const unsigned char> digits(be.data() + first, be.size() - first);
  const std::size_t at = out.size();
  out.resize(at + base64url_encoded_size(digits.size()));
  base64url_encode(digits, out.data() + at);
}

std::optional<std::uint64_t> parse_timestamp(std::string_view text) noexcept {
  const std::optional<std::size_t> n = detail::base64url_decoded_size(text.size());
  if (!n || *n == 0 || *n > 8) return std::nullopt;
  std::array<unsigned char, 8> be{};
  if (!detail::base64url_decode(text, be.data())) return std::nullopt;
  std::uint64_t seconds = 0;
  for (std::size_t i = 0; i < *n; ++i) seconds = (seconds << 8) | be[i];
  return seconds;
}

using encoded_signature = std::array<char, signer::signature_chars>;

std::optional<encoded_signature> signature_of(const detail::hmac_sha256_key& key, std::string_view payload) noexcept {
  const std::optional<detail::hmac_sha256_digest> mac = key.mac(payload);
  if (!mac) return std::nullopt;
  encoded_signature out{};
  base64url_encode(*mac, out.data());
  return out;
}

}  // namespace

signer::signer(const std::vector<std::string>& secrets, std::string_view purpose, signer_options options) {
  if (secrets.empty()) throw std::invalid_argument("stet::signer: no secret");
  if (purpose.find('\0') != std::string_view::npos) throw std::invalid_argument("stet::signer: NUL in purpose");
  auto s = std::make_unique<state>();
  s->purpose.assign(purpose);
  s->options = options;
  std::string prefix;
  prefix.push_back(options.max_age ? timestamped_mode : plain_mode);
  prefix.append(purpose);
  prefix.push_back('\0');
  for (const std::string& secret : secrets) {
    if (secret.empty()) throw std::invalid_argument("stet::signer: empty secret");
    std::optional<detail::hmac_sha256_key> key = detail::hmac_sha256_key::derive(secret, prefix);
    if (!key) throw std::runtime_error("stet::signer: OpenSSL has no HMAC-SHA256");
    s->keys.push_back(std::move(*key));
  }
  state_ = std::move(s);
}

signer::signer(signer&&) noexcept = default;
signer& signer::operator=(signer&&) noexcept = default;
signer::~signer() = default;

bool signer::timestamped() const noexcept { return state_->options.max_age.has_value(); }
std::string_view signer::purpose() const noexcept { return state_->purpose; }
std::size_t signer::secret_count() const noexcept { return state_->keys.size(); }

std::string signer::sign(std::string_view value) const { return sign(value, clock::now()); }

std::string signer::sign(std::string_view value, clock::time_point now) const {
  std::string out;
  out.reserve(value.size() + 12 + signature_chars);
  sign_to(out, value, now);
  return out;
}

void signer::sign_to(std::string& out, std::string_view value, clock::time_point now) const {
  const std::size_t payload_at = out.size();
  out.append(value);
  if (timestamped()) {
    out.push_back('.');
    append_timestamp(out, to_seconds(now));
  }
  const std::optional<encoded_signature> sig =
      signature_of(state_->keys.front(), std::string_view(out).substr(payload_at));
  if (!sig) {
    out.resize(payload_at);
    throw std::bad_alloc();
  }
  out.push_back('.');
  out.append(sig->data(), sig->size());
}

verified signer::verify(std::string_view signed_value) const noexcept {
  if (signed_value.empty()) return {};
  return verify(signed_value, timestamped() ? clock::now() : clock::time_point());
}

verified signer::verify(std::string_view signed_value, clock::time_point now) const noexcept {
  if (signed_value.empty()) return {};
  const std::size_t dot = signed_value.rfind('.');
  if (dot == std::string_view::npos || signed_value.size() - dot - 1 != signature_chars) {
    return {verify_status::malformed, {}, {}};
  }
  const std::string_view payload = signed_value.substr(0, dot);
  const std::string_view sig = signed_value.substr(dot + 1);

  bool matched = false;
  for (const detail::hmac_sha256_key& key : state_->keys) {
    const std::optional<encoded_signature> expected = signature_of(key, payload);
    ++detail::this_thread_memo_stats().constant_time_compares;
    if (expected && CRYPTO_memcmp(expected->data(), sig.data(), signature_chars) == 0) {
      matched = true;
      break;
    }
  }
  if (!matched) return {verify_status::bad_signature, {}, {}};
  if (!timestamped()) return {verify_status::valid, payload, {}};

  // Only a payload the MAC vouches for gets its timestamp read.
  const std::size_t ts_dot = payload.rfind('.');
  if (ts_dot == std::string_view::npos) return {verify_status::malformed, {}, {}};
  const std::optional<std::uint64_t> seconds = parse_timestamp(payload.substr(ts_dot + 1));
  // Past 2262 a system_clock time_point (nanoseconds) would overflow.
  constexpr std::uint64_t latest_seconds = 9'000'000'000;
  if (!seconds || *seconds > latest_seconds) return {verify_status::malformed, {}, {}};
  const clock::time_point at{std::chrono::seconds(static_cast<std::int64_t>(*seconds))};
  const bool too_old = now - at > *state_->options.max_age;
  const bool too_new = at - now > state_->options.clock_skew;
  if (too_old || too_new) return {verify_status::expired, {}, at};
  return {verify_status::valid, payload.substr(0, ts_dot), at};
}

}  // namespace stet
