#include <stet/signer.hpp>

#include "counters/memo_stats.hpp"
#include "crypto/hmac.hpp"
#include "http/base64url.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace {

using stet::signer;
using stet::verify_status;
using stet::detail::hmac_sha256_key;
using stet::detail::this_thread_memo_stats;
using namespace std::chrono_literals;
using clock_type = std::chrono::system_clock;

std::string hex(std::span<const unsigned char> bytes) {
  constexpr std::string_view digits = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

std::string unhex(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::string mac_hex(std::string_view key, std::string_view data) {
  const auto k = hmac_sha256_key::derive(key, "");
  EXPECT_TRUE(k);
  const auto mac = k->mac(data);
  EXPECT_TRUE(mac);
  return hex(*mac);
}

// RFC 4231 section 4: HMAC-SHA-256 test cases 1-7.
TEST(HmacSha256, Rfc4231TestVectors) {
  EXPECT_EQ(mac_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(mac_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(mac_hex(std::string(20, '\xaa'), std::string(50, '\xdd')),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  EXPECT_EQ(mac_hex(unhex("0102030405060708090a0b0c0d0e0f10111213141516171819"), std::string(50, '\xcd')),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  EXPECT_EQ(mac_hex(std::string(20, '\x0c'), "Test With Truncation").substr(0, 32), "a3b6167473100ee06e0c796c2955552b");
  EXPECT_EQ(mac_hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_EQ(mac_hex(std::string(131, '\xaa'),
                    "This is a test using a larger than block-size key and a larger than block-size data. The key "
                    "needs to be hashed before being used by the HMAC algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST(HmacSha256, DerivedKeyIsReusableAndPrefixIsAbsorbed) {
  const auto k = hmac_sha256_key::derive("Jefe", "what do ya ");
  ASSERT_TRUE(k);
  for (int i = 0; i < 3; ++i) {  // the base context is duplicated, never consumed
    EXPECT_EQ(hex(*k->mac("want for nothing?")), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  }
  EXPECT_FALSE(hmac_sha256_key::derive("", "x"));
}

TEST(Base64url, Rfc4648VectorsWithoutPadding) {
  const auto enc = [](std::string_view s) {
    std::string out(stet::detail::base64url_encoded_size(s.size()), '?');
    stet::detail::base64url_encode({reinterpret_cast<const unsigned char*>(s.data()), s.size()}, out.data());
    return out;
  };
  const auto dec = [](std::string_view s) -> std::optional<std::string> {
    const auto n = stet::detail::base64url_decoded_size(s.size());
    if (!n) return std::nullopt;
    std::string out(*n, '\0');
    if (!stet::detail::base64url_decode(s, reinterpret_cast<unsigned char*>(out.data()))) return std::nullopt;
    return out;
  };
  const std::pair<std::string_view, std::string_view> vectors[] = {
      {"", ""},           {"f", "Zg"},          {"fo", "Zm8"},          {"foo", "Zm9v"},
      {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}, {"\xfb\xff", "-_8"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(enc(plain), coded);
    EXPECT_EQ(dec(coded), std::string(plain));
  }
  EXPECT_FALSE(dec("Zh"));     // non-zero unused bits: not canonical
  EXPECT_FALSE(dec("Zm9v+"));  // standard-alphabet characters
  EXPECT_FALSE(dec("Zm9/"));
  EXPECT_FALSE(dec("Zm9vY"));  // impossible length
  EXPECT_FALSE(dec("Zg=="));   // padding is not part of base64url here
}

TEST(Signer, SignsValueDotSignature) {
  const signer s({"secret"}, "actor-cookie");
  const std::string token = s.sign("alice");
  ASSERT_EQ(token.size(), 5 + 1 + signer::signature_chars);
  EXPECT_EQ(token.substr(0, 6), "alice.");

  // The MAC covers: mode byte, purpose, NUL, value.
  unsigned char mac[32];
  unsigned int len = 0;
  const std::string input = std::string("pactor-cookie") + '\0' + "alice";
  HMAC(EVP_sha256(), "secret", 6, reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &len);
  std::string expected(signer::signature_chars, '?');
  stet::detail::base64url_encode({mac, 32}, expected.data());
  EXPECT_EQ(token.substr(6), expected);
}

TEST(Signer, VerifiesWhatItSigned) {
  const signer s({"secret"}, "p");
  const std::string value = std::string("any bytes: . ; \"\xff\0", 18);
  const std::string token = s.sign(value);
  const stet::verified v = s.verify(token);
  ASSERT_TRUE(v);
  EXPECT_EQ(v.status, verify_status::valid);
  EXPECT_EQ(v.value, value);
  EXPECT_EQ(v.value.data(), token.data());  // a view, no copy
  EXPECT_FALSE(v.signed_at);
  EXPECT_TRUE(s.verify(s.sign("")));  // an empty value signs and verifies
}

TEST(Signer, AbsentValueDoesNoMacWork) {
  const signer s({"secret"}, "p");
  const std::uint64_t macs = this_thread_memo_stats().macs;
  const stet::verified v = s.verify("");
  EXPECT_EQ(v.status, verify_status::absent);
  EXPECT_FALSE(v);
  EXPECT_TRUE(v.value.empty());
  EXPECT_EQ(this_thread_memo_stats().macs, macs);
}

TEST(Signer, MalformedValuesDoNoMacWork) {
  const signer s({"secret"}, "p");
  const std::string token = s.sign("alice");
  const std::uint64_t macs = this_thread_memo_stats().macs;
  EXPECT_EQ(s.verify("alice").status, verify_status::malformed);
  EXPECT_EQ(s.verify(".").status, verify_status::malformed);
  EXPECT_EQ(s.verify(token.substr(0, token.size() - 1)).status, verify_status::malformed);  // truncated
  EXPECT_EQ(s.verify(token + "A").status, verify_status::malformed);                        // extended
  EXPECT_EQ(s.verify(token.substr(6)).status, verify_status::malformed);                    // signature alone
  EXPECT_EQ(this_thread_memo_stats().macs, macs);
}

TEST(Signer, TamperingIsDetected) {
  const signer s({"secret"}, "p");
  const std::string token = s.sign("alice");
  std::string forged = token;
  forged[0] = 'A';
  EXPECT_EQ(s.verify(forged).status, verify_status::bad_signature);
  forged = token;
  forged.back() = forged.back() == 'A' ? 'B' : 'A';
  EXPECT_EQ(s.verify(forged).status, verify_status::bad_signature);
  EXPECT_EQ(s.verify("mallory" + token.substr(5)).status, verify_status::bad_signature);
  EXPECT_EQ(s.verify(token.substr(1)).status, verify_status::bad_signature);  // value truncated at the front
  EXPECT_EQ(s.verify("x." + token).status, verify_status::bad_signature);
  EXPECT_FALSE(s.verify(forged).value.size());
}

TEST(Signer, EveryKeyIsComparedInConstantTime) {
  const signer s({"new", "old", "older"}, "p");
  const std::uint64_t compares = this_thread_memo_stats().constant_time_compares;
  const std::uint64_t macs = this_thread_memo_stats().macs;
  EXPECT_EQ(s.verify("alice." + std::string(43, 'A')).status, verify_status::bad_signature);
  EXPECT_EQ(this_thread_memo_stats().constant_time_compares - compares, 3u);
  EXPECT_EQ(this_thread_memo_stats().macs - macs, 3u);
}

TEST(Signer, WrongPurposeOrSecretFails) {
  const signer actor({"secret"}, "actor");
  const signer session({"secret"}, "session");
  const signer other_secret({"other"}, "actor");
  const std::string token = actor.sign("alice");
  EXPECT_TRUE(actor.verify(token));
  EXPECT_EQ(session.verify(token).status, verify_status::bad_signature);
  EXPECT_EQ(other_secret.verify(token).status, verify_status::bad_signature);

  // A purpose that is a prefix of another never shares signatures with it.
  const signer user({"secret"}, "user");
  const signer users({"secret"}, "users");
  EXPECT_EQ(users.verify(user.sign("s1")).status, verify_status::bad_signature);
  EXPECT_EQ(user.verify(users.sign("1")).status, verify_status::bad_signature);
}

TEST(Signer, KeyRotationSignsWithFirstAndVerifiesWithAny) {
  const signer before({"k1"}, "p");
  const signer during({"k2", "k1"}, "p");
  const signer after({"k2"}, "p");
  const std::string old_token = before.sign("v");
  const std::string new_token = during.sign("v");
  EXPECT_EQ(during.secret_count(), 2u);
  EXPECT_TRUE(during.verify(old_token));
  EXPECT_TRUE(during.verify(new_token));
  EXPECT_TRUE(after.verify(new_token));
  EXPECT_FALSE(after.verify(old_token));
  EXPECT_FALSE(before.verify(new_token));
}

TEST(Signer, TimestampedSignaturesExpire) {
  const signer s({"secret"}, "p", {.max_age = 1h});
  EXPECT_TRUE(s.timestamped());
  const clock_type::time_point t0 = clock_type::from_time_t(1'700'000'000);
  const std::string token = s.sign("alice", t0);
  EXPECT_EQ(token.substr(0, 6), "alice.");

  const stet::verified fresh = s.verify(token, t0 + 59min);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh.value, "alice");
  EXPECT_EQ(fresh.signed_at, t0);

  const stet::verified old = s.verify(token, t0 + 61min);
  EXPECT_EQ(old.status, verify_status::expired);
  EXPECT_TRUE(old.value.empty());
  EXPECT_EQ(old.signed_at, t0);

  EXPECT_TRUE(s.verify(token, t0 - 30s));                                        // within clock skew
  EXPECT_EQ(s.verify(token, t0 - 5min).status, verify_status::expired);          // from the future
  EXPECT_EQ(s.verify(token, clock_type::now()).status, verify_status::expired);  // 2023 is long ago

  std::string forged = token;  // a later timestamp without the key
  const std::string later = s.sign("alice", t0 + 10h);
  forged.replace(6, 6, later.substr(6, 6));
  EXPECT_EQ(s.verify(forged, t0 + 10h).status, verify_status::bad_signature);
}

TEST(Signer, PlainAndTimestampedModesNeverCrossVerify) {
  const signer plain({"secret"}, "p");
  const signer timed({"secret"}, "p", {.max_age = 1h});
  const clock_type::time_point now = clock_type::now();
  EXPECT_EQ(timed.verify(plain.sign("a.AAAA"), now).status, verify_status::bad_signature);
  EXPECT_EQ(plain.verify(timed.sign("a", now)).status, verify_status::bad_signature);
  EXPECT_TRUE(timed.verify(timed.sign("a", now), now));
}

TEST(Signer, BadConfigurationThrowsAtConstruction) {
  EXPECT_THROW(signer({}, "p"), std::invalid_argument);
  EXPECT_THROW(signer({"ok", ""}, "p"), std::invalid_argument);
  EXPECT_THROW(signer({"ok"}, std::string_view("a\0b", 3)), std::invalid_argument);
}

TEST(Signer, MovesKeepTheKeys) {
  signer a({"secret"}, "p");
  const std::string token = a.sign("v");
  signer b = std::move(a);
  EXPECT_TRUE(b.verify(token));
  EXPECT_EQ(b.purpose(), "p");
}

TEST(Signer, SharedBetweenThreads) {
  const signer s({"new", "old"}, "p", {.max_age = 1h});
  const signer old({"old"}, "p", {.max_age = 1h});
  const std::string token = s.sign("alice");
  const std::string old_token = old.sign("bob");
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        if (!s.verify(token) || !s.verify(old_token) || s.verify(token + "x")) ++failures;
        if (!s.verify(s.sign("v" + std::to_string(i)))) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
