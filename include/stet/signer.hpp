#pragma once
/// @file
/// stet::signer: HMAC-SHA256 signed values (cookies, tokens) with key rotation.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

/// Why signer::verify() accepted or refused a value.
enum class verify_status : std::uint8_t {
  valid,          ///< the signature matches one of the secrets (and is young enough)
  absent,         ///< empty input: nothing to verify, no MAC computed
  malformed,      ///< not "payload.signature" with a 43-character signature; no MAC computed
  bad_signature,  ///< well-formed, but no secret produces this signature
  expired,        ///< timestamped, signature valid, but older than max_age or dated in the future
};

/// The outcome of signer::verify(): an error value, never an exception.
struct verified {
  verify_status status = verify_status::absent;  ///< why it was accepted or refused
  /// The signed value when `status` is valid, else empty. A view into the
  /// string passed to verify().
  std::string_view value;
  /// When a timestamped signature was made (also set for `expired`).
  std::optional<std::chrono::system_clock::time_point> signed_at;

  /// True when `status` is valid.
  explicit operator bool() const noexcept { return status == verify_status::valid; }
};

/// Settings of a signer.
struct signer_options {
  /// When set, signatures carry their signing time and verify() refuses those
  /// older than this (verify_status::expired).
  std::optional<std::chrono::seconds> max_age{};
  /// How far in the future a timestamp may lie (another server's clock) before
  /// it counts as expired.
  std::chrono::seconds clock_skew{60};
};

/// Signs values as "value.SIG" (or "value.TS.SIG" when timestamped), SIG being
/// the base64url (unpadded, 43 characters) HMAC-SHA256 of the value under a
/// secret and a purpose (the namespace, e.g. "actor-cookie"): a signature made
/// for one purpose never verifies for another. Key rotation: sign with the
/// first secret, accept any. The keyed MAC state of each (secret, purpose) is
/// derived once, at construction, and duplicated for every sign or verify.
/// Verification compares in constant time (CRYPTO_memcmp).
///
/// What is MACed, exactly: one mode byte ('p' plain, 't' timestamped), the
/// purpose, a NUL, then the text before the last '.' of the signed string. The
/// NUL and the mode byte keep purposes that are prefixes of each other, and the
/// two modes, from ever sharing a signature.
/// @note Immutable after construction and safe to share between threads:
/// every call duplicates a base context that is only ever read.
class signer {
 public:
  /// Characters of a signature.
  static constexpr std::size_t signature_chars = 43;

  /// A signer for `purpose` with `secrets` (the first signs; all verify).
  /// @throws std::invalid_argument when `secrets` is empty, a secret is empty,
  /// or `purpose` contains a NUL byte; std::runtime_error when OpenSSL cannot
  /// provide HMAC-SHA256.
  signer(const std::vector<std::string>& secrets, std::string_view purpose, signer_options options = {});
  /// Takes over `other`'s keys; `other` must not be used afterwards.
  signer(signer&& other) noexcept;
  /// Takes over `other`'s keys; `other` must not be used afterwards.
  signer& operator=(signer&& other) noexcept;
  ~signer();

  /// `value` with its signature appended (timestamped with the current time
  /// when max_age is set).
  /// @throws std::bad_alloc when out of memory.
  std::string sign(std::string_view value) const;
  /// sign() with an explicit signing time (tests, replays).
  std::string sign(std::string_view value, std::chrono::system_clock::time_point now) const;
  /// Appends sign(value, now) to `out`.
  void sign_to(std::string& out, std::string_view value, std::chrono::system_clock::time_point now) const;

  /// Checks `signed_value`; on success `value` views the part before the
  /// signature (and timestamp). Empty input is `absent` without any MAC work.
  /// Costs one MAC per secret tried.
  verified verify(std::string_view signed_value) const noexcept;
  /// verify() against an explicit current time.
  verified verify(std::string_view signed_value, std::chrono::system_clock::time_point now) const noexcept;

  /// Whether signatures carry their signing time (signer_options::max_age is set).
  bool timestamped() const noexcept;
  /// The purpose (namespace) given at construction.
  std::string_view purpose() const noexcept;
  /// Number of secrets (rotation depth).
  std::size_t secret_count() const noexcept;

 private:
  struct state;
  std::unique_ptr<const state> state_;
};

}  // namespace stet
