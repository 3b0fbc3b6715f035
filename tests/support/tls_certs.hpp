#pragma once
// Certificates made at test time with OpenSSL's API, in a temporary directory
// removed afterwards: a CA, certificates it signs (server or client, with DNS
// names, valid or expired, with a plain or an encrypted key), ticket key files.
// No key material is committed; EC P-256 keys keep it fast.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stet::test {

struct cert_files {
  std::string certificate;  ///< PEM: the leaf, then the CA (a full chain)
  std::string key;          ///< PEM private key
};

struct cert_request {
  std::vector<std::string> dns_names{"localhost"};  ///< subjectAltName; the first is also the CN
  std::string common_name;                          ///< overrides the CN (e.g. a client's user name)
  int valid_from_days = -1;                         ///< notBefore, relative to now
  int valid_to_days = 30;                           ///< notAfter, relative to now (negative: expired)
  bool client = false;                              ///< extendedKeyUsage clientAuth instead of serverAuth
  std::string key_password;                         ///< non-empty: the key file is encrypted with it
};

/// A server certificate for `names` (subjectAltName; the first is the CN).
inline cert_request for_names(std::vector<std::string> names) {
  cert_request r;
  r.dns_names = std::move(names);
  return r;
}
/// A client certificate (clientAuth) with CN `name` and no DNS names.
inline cert_request client_named(std::string name) {
  cert_request r;
  r.dns_names.clear();
  r.common_name = std::move(name);
  r.client = true;
  return r;
}
/// A server certificate for localhost valid from `from_days` to `to_days` (relative to now).
inline cert_request valid_between(int from_days, int to_days) {
  cert_request r;
  r.valid_from_days = from_days;
  r.valid_to_days = to_days;
  return r;
}
/// A server certificate for localhost whose key file is encrypted with `password`.
inline cert_request with_key_password(std::string password) {
  cert_request r;
  r.key_password = std::move(password);
  return r;
}

class tls_fixture {
 public:
  /// A fresh directory with a CA in it (ca.pem). `ca_name` is its CN.
  explicit tls_fixture(std::string_view ca_name = "stet test CA");
  ~tls_fixture();
  tls_fixture(const tls_fixture&) = delete;
  tls_fixture& operator=(const tls_fixture&) = delete;

  const std::string& dir() const noexcept { return dir_; }
  /// The CA's certificate file (what a client verifies the server against).
  const std::string& ca_file() const noexcept { return ca_file_; }
  /// A certificate signed by this fixture's CA, written to STEM.pem and STEM.key.
  cert_files issue(std::string_view stem, const cert_request& request = {});
  /// Writes `bytes` to a file named `name` in the directory; returns its path.
  std::string write(std::string_view name, std::string_view bytes) const;
  /// An 80-byte ticket key file: `count` keys, every byte of key i set to `seed + i`.
  std::string ticket_keys(std::string_view name, unsigned char seed, int count = 1) const;

 private:
  std::string dir_;
  std::string ca_file_;
  void* ca_key_ = nullptr;   // EVP_PKEY*
  void* ca_cert_ = nullptr;  // X509*
};

}  // namespace stet::test
