#include "tls/tls_files.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace stet::detail {
namespace {

constexpr std::size_t max_file_bytes = std::size_t{1} << 20;

struct bio_free {
  void operator()(BIO* b) const noexcept { BIO_free(b); }
};
using bio_ptr = std::unique_ptr<BIO, bio_free>;

config_error invalid(std::string_view what, const std::string& path, std::string_view why) {
  return {std::make_error_code(std::errc::invalid_argument), fmt::format("tls {} {}: {}", what, path, why)};
}

bio_ptr memory_bio(const std::string& bytes) {
  return bio_ptr(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
}

// Never prompts: an encrypted key without a password simply fails to open.
int password_callback(char* buffer, int size, int /*rwflag*/, void* user) {
  const auto* password = static_cast<const std::string*>(user);
  if (password == nullptr || password->empty() || size <= 0) return 0;
  const auto n = std::min<std::size_t>(password->size(), static_cast<std::size_t>(size));
  std::memcpy(buffer, password->data(), n);
  return static_cast<int>(n);
}

std::vector<x509_ptr> read_certificates(const std::string& pem) {
  std::vector<x509_ptr> out;
  const bio_ptr bio = memory_bio(pem);
  while (bio) {
    X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
    if (cert == nullptr) break;
    out.emplace_back(cert);
  }
  ERR_clear_error();  // the end of the file reads as "no start line"
  return out;
}

std::string time_text(const ASN1_TIME* t) {
  const bio_ptr bio(BIO_new(BIO_s_mem()));
  if (!bio || ASN1_TIME_print(bio.get(), t) != 1) return "an unreadable date";
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(std::max(n, 0L)));
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  return out;
}

bool key_error_is_password(unsigned long e) {
  const int reason = ERR_GET_REASON(e);
  return reason == EVP_R_BAD_DECRYPT || reason == PEM_R_BAD_DECRYPT || reason == PEM_R_BAD_PASSWORD_READ ||
         reason == PEM_R_PROBLEMS_GETTING_PASSWORD;
}

std::optional<pkey_ptr> load_key(const tls_certificate& entry, config_error& error) {
  const std::optional<std::string> pem = read_small_file(entry.key_file, "key", error);
  if (!pem) return std::nullopt;
  ERR_clear_error();
  const bio_ptr bio = memory_bio(*pem);
  EVP_PKEY* key = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, password_callback,
                                                const_cast<std::string*>(&entry.key_password))  // NOLINT: read only
                      : nullptr;
  if (key != nullptr) return pkey_ptr(key);
  const unsigned long e = ERR_peek_last_error();
  ERR_clear_error();
  if (pem->find("ENCRYPTED") != std::string::npos || key_error_is_password(e)) {
    error = invalid("key", entry.key_file,
                    entry.key_password.empty() ? "the key is encrypted and no key_password was given"
                                               : "the key cannot be decrypted with key_password");
  } else {
    error = invalid("key", entry.key_file, "no PEM private key in it");
  }
  return std::nullopt;
}

}  // namespace

std::string openssl_error_text() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(e, text, sizeof text);
  const char* reason = ERR_reason_error_string(e);
  return reason != nullptr ? std::string(reason) : std::string(text);
}

std::optional<std::string> read_small_file(const std::string& path, std::string_view what, config_error& error) {
  if (path.empty()) {
    error = {std::make_error_code(std::errc::invalid_argument), fmt::format("tls {}: no file given", what)};
    return std::nullopt;
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const std::error_code ec(errno, std::system_category());
    error = {ec, fmt::format("tls {} {}: {}", what, path, ec.message())};
    return std::nullopt;
  }
  std::string bytes;
  char chunk[16 * 1024];
  std::size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0 && bytes.size() <= max_file_bytes) bytes.append(chunk, n);
  const bool failed = std::ferror(f) != 0;
  const int read_errno = errno;
  std::fclose(f);
  if (failed) {
    const std::error_code ec(read_errno, std::system_category());
    error = {ec, fmt::format("tls {} {}: {}", what, path, ec.message())};
    return std::nullopt;
  }
  if (bytes.size() > max_file_bytes) {
    error = invalid(what, path, "larger than 1 MiB");
    return std::nullopt;
  }
  return bytes;
}

std::vector<std::string> certificate_names(X509* cert) {
  std::vector<std::string> names;
  auto* alt = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (alt != nullptr) {
    for (int i = 0; i < sk_GENERAL_NAME_num(alt); ++i) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(alt, i);
      if (name->type != GEN_DNS) continue;
      const ASN1_IA5STRING* dns = name->d.dNSName;
      names.push_back(lower({reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                             static_cast<std::size_t>(ASN1_STRING_length(dns))}));
    }
    GENERAL_NAMES_free(alt);
  }
  if (names.empty()) {
    char cn[256];
    const int n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn);
    if (n > 0) names.push_back(lower({cn, static_cast<std::size_t>(n)}));
  }
  return names;
}

std::string subject_text(X509* cert) {
  const bio_ptr bio(BIO_new(BIO_s_mem()));
  if (!bio || X509_NAME_print_ex(bio.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253) < 0) return {};
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(std::max(n, 0L)));
}

std::optional<certificate_chain> load_certificate(const tls_certificate& entry, config_error& error) {
  const std::optional<std::string> pem = read_small_file(entry.certificate_file, "certificate", error);
  if (!pem) return std::nullopt;
  std::vector<x509_ptr> certs = read_certificates(*pem);
  if (certs.empty()) {
    error = invalid("certificate", entry.certificate_file, "no PEM certificate in it");
    return std::nullopt;
  }
  certificate_chain chain;
  chain.leaf = std::move(certs.front());
  for (std::size_t i = 1; i < certs.size(); ++i) chain.intermediates.push_back(std::move(certs[i]));
  if (X509_cmp_current_time(X509_get0_notAfter(chain.leaf.get())) < 0) {
    error = invalid("certificate", entry.certificate_file,
                    fmt::format("expired on {}", time_text(X509_get0_notAfter(chain.leaf.get()))));
    return std::nullopt;
  }
  std::optional<pkey_ptr> key = load_key(entry, error);
  if (!key) return std::nullopt;
  if (X509_check_private_key(chain.leaf.get(), key->get()) != 1) {
    ERR_clear_error();
    error = invalid("key", entry.key_file, fmt::format("does not match the certificate {}", entry.certificate_file));
    return std::nullopt;
  }
  chain.key = std::move(*key);
  if (entry.server_names.empty()) {
    chain.names = certificate_names(chain.leaf.get());
  } else {
    for (const std::string& name : entry.server_names) chain.names.push_back(lower(name));
  }
  return chain;
}

std::optional<std::vector<x509_ptr>> load_ca_file(const std::string& path, config_error& error) {
  const std::optional<std::string> pem = read_small_file(path, "client CA file", error);
  if (!pem) return std::nullopt;
  std::vector<x509_ptr> certs = read_certificates(*pem);
  if (certs.empty()) {
    error = invalid("client CA file", path, "no PEM certificate in it");
    return std::nullopt;
  }
  return certs;
}

}  // namespace stet::detail
