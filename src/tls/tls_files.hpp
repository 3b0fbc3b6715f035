#pragma once
// Reads the files a tls_options names (certificate chains, private keys, the
// client CA file, ticket keys) into OpenSSL objects, with errors that name the
// file and say why in words: a missing file, a file with no PEM block of the
// right kind, a key that does not open or does not match its certificate, an
// expired certificate. Nothing here aborts or prompts (an encrypted key without
// its password is an error, not a question on the terminal).

#include <stet/server.hpp>
#include <stet/tls.hpp>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stet::detail {

struct x509_free {
  void operator()(X509* x) const noexcept { X509_free(x); }
};
struct pkey_free {
  void operator()(EVP_PKEY* k) const noexcept { EVP_PKEY_free(k); }
};
using x509_ptr = std::unique_ptr<X509, x509_free>;
using pkey_ptr = std::unique_ptr<EVP_PKEY, pkey_free>;

/// A certificate chain and its key, checked against each other.
struct certificate_chain {
  x509_ptr leaf;
  std::vector<x509_ptr> intermediates;
  pkey_ptr key;
  /// The names it serves, lower case: tls_certificate::server_names, or the
  /// leaf's subjectAltName DNS names (its CN when it has none).
  std::vector<std::string> names;
};

/// The whole of a small file (at most 1 MiB); nullopt with `error` set
/// ("tls WHAT PATH: reason") when it cannot be read.
std::optional<std::string> read_small_file(const std::string& path, std::string_view what, config_error& error);

/// Loads and checks one certificate entry; nullopt with `error` set when a
/// file is missing, holds no PEM certificate or key, the key does not open
/// (password) or does not match, or the leaf certificate has expired.
std::optional<certificate_chain> load_certificate(const tls_certificate& entry, config_error& error);

/// The certificates of a PEM CA file; nullopt with `error` set when it cannot
/// be read or holds none.
std::optional<std::vector<x509_ptr>> load_ca_file(const std::string& path, config_error& error);

/// The names a certificate serves: its subjectAltName DNS entries, or the
/// subject's CN when there are none; lower case.
std::vector<std::string> certificate_names(X509* cert);

/// The subject of `cert` in RFC 2253 form ("CN=alice,O=Example").
std::string subject_text(X509* cert);

/// The first error in OpenSSL's queue of this thread, in words, and clears the queue.
std::string openssl_error_text();

}  // namespace stet::detail
