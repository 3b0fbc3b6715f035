#include "support/tls_certs.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace stet::test {
namespace {

EVP_PKEY* new_key() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  if (key == nullptr) throw std::runtime_error("tls_fixture: EC key generation failed");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) throw std::runtime_error("tls_fixture: bad extension " + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

X509* new_certificate(EVP_PKEY* key, const std::string& cn, int from_days, int to_days) {
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  unsigned char serial[8];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
  BN_free(bn);
  X509_time_adj_ex(X509_getm_notBefore(cert), from_days, 0, nullptr);
  X509_time_adj_ex(X509_getm_notAfter(cert), to_days, 0, nullptr);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("stet tests"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  return cert;
}

std::string pem_of(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return out;
}

std::string pem_of(EVP_PKEY* key, const std::string& password) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (password.empty()) {
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  } else {
    PEM_write_bio_PKCS8PrivateKey(bio, key, EVP_aes_256_cbc(), password.data(), static_cast<int>(password.size()),
                                  nullptr, nullptr);
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return out;
}

}  // namespace

tls_fixture::tls_fixture(std::string_view ca_name) {
  std::string pattern = (std::filesystem::temp_directory_path() / "stet-tls-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("tls_fixture: mkdtemp failed");
  dir_ = pattern;
  EVP_PKEY* key = new_key();
  X509* cert = new_certificate(key, std::string(ca_name), -1, 365);
  X509_set_issuer_name(cert, X509_get_subject_name(cert));
  add_extension(cert, cert, NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(cert, cert, NID_subject_key_identifier, "hash");
  X509_sign(cert, key, EVP_sha256());
  ca_key_ = key;
  ca_cert_ = cert;
  ca_file_ = write("ca.pem", pem_of(cert));
}

tls_fixture::~tls_fixture() {
  EVP_PKEY_free(static_cast<EVP_PKEY*>(ca_key_));
  X509_free(static_cast<X509*>(ca_cert_));
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

cert_files tls_fixture::issue(std::string_view stem, const cert_request& request) {
  auto* ca = static_cast<X509*>(ca_cert_);
  EVP_PKEY* key = new_key();
  const std::string cn =
      !request.common_name.empty() ? request.common_name : (request.dns_names.empty() ? "stet" : request.dns_names[0]);
  X509* cert = new_certificate(key, cn, request.valid_from_days, request.valid_to_days);
  X509_set_issuer_name(cert, X509_get_subject_name(ca));
  add_extension(cert, ca, NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert, ca, NID_key_usage, "critical,digitalSignature");
  add_extension(cert, ca, NID_ext_key_usage, request.client ? "clientAuth" : "serverAuth");
  add_extension(cert, ca, NID_authority_key_identifier, "keyid");
  if (!request.dns_names.empty()) {
    std::string alt;
    for (const std::string& n : request.dns_names) alt += (alt.empty() ? "DNS:" : ",DNS:") + n;
    add_extension(cert, ca, NID_subject_alt_name, alt);
  }
  X509_sign(cert, static_cast<EVP_PKEY*>(ca_key_), EVP_sha256());
  cert_files files;
  files.certificate = write(std::string(stem) + ".pem", pem_of(cert) + pem_of(ca));
  files.key = write(std::string(stem) + ".key", pem_of(key, request.key_password));
  X509_free(cert);
  EVP_PKEY_free(key);
  return files;
}

std::string tls_fixture::write(std::string_view name, std::string_view bytes) const {
  const std::string path = dir_ + "/" + std::string(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("tls_fixture: cannot write " + path);
  return path;
}

std::string tls_fixture::ticket_keys(std::string_view name, unsigned char seed, int count) const {
  std::string bytes;
  for (int i = 0; i < count; ++i) bytes += std::string(80, static_cast<char>(seed + i));
  return write(name, bytes);
}

}  // namespace stet::test
