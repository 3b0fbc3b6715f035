#include "tls/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <string_view>

namespace stet::detail {
namespace {

// One ticket per handshake, full or resumed (on_ticket renews every TLS 1.3
// ticket it opens): a TLS 1.3 client uses a ticket once, so it always holds a
// fresh one. OpenSSL's default, two per full handshake and none after a
// resumption, costs a second session copy, encoding, encryption and key
// derivation (6 % of a full handshake) and has every third connection of such
// a client start over with a full handshake.
constexpr std::size_t tickets_per_handshake = 1;

constexpr std::chrono::seconds longest_sweep_interval{60};

constexpr std::array<unsigned char, 9> http11_alpn = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

config_error refused(std::string_view what, std::string_view value) {
  return {std::make_error_code(std::errc::invalid_argument),
          fmt::format("tls {} '{}': {}", what, value, openssl_error_text())};
}

// Sessions are only resumed by a listener with the same client-certificate
// requirements: the context id covers them (and is the same on every instance
// configured alike, so a shared ticket resumes across them).
std::vector<unsigned char> session_id_context(const tls_options& o, const std::vector<x509_ptr>& cas) {
  std::string seed = fmt::format("stet/{}", static_cast<int>(o.client_certificates));
  for (const x509_ptr& ca : cas) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int n = 0;
    if (X509_digest(ca.get(), EVP_sha256(), digest.data(), &n) == 1) {
      seed.append(reinterpret_cast<const char*>(digest.data()), n);
    }
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> id{};
  unsigned int n = 0;
  EVP_Digest(seed.data(), seed.size(), id.data(), &n, EVP_sha256(), nullptr);
  return {id.begin(), id.begin() + std::min<unsigned int>(n, SSL_MAX_SID_CTX_LENGTH)};
}

// Whether a TLS 1.3 handshake can be signed with `key`: RSA (PSS), EdDSA, or
// ECDSA on one of the curves TLS 1.3 has signature schemes for (RFC 8446 4.2.3).
bool signs_tls13(EVP_PKEY* key) {
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
    case EVP_PKEY_RSA_PSS:
    case EVP_PKEY_ED25519:
    case EVP_PKEY_ED448: return true;
    case EVP_PKEY_EC: {
      std::array<char, 64> group{};
      std::size_t n = 0;
      if (EVP_PKEY_get_group_name(key, group.data(), group.size(), &n) != 1) return false;
      const std::string_view name(group.data(), n);
      return name == "prime256v1" || name == "secp384r1" || name == "secp521r1";
    }
    default: return false;
  }
}

}  // namespace

session_cache_counts& session_cache_counts::operator+=(const session_cache_counts& o) noexcept {
  hits += o.hits;
  misses += o.misses;
  evictions += o.evictions;
  timeouts += o.timeouts;
  entries += o.entries;
  return *this;
}

std::shared_ptr<const tls_context> tls_context::build(const tls_options& options, std::shared_ptr<ticket_keys> keys,
                                                      std::shared_ptr<tls_stats> stats, config_error& error) {
  if (options.certificates.empty()) {
    error = {std::make_error_code(std::errc::invalid_argument),
             "tls: no certificate given (tls_options::certificates)"};
    return nullptr;
  }
  std::shared_ptr<tls_context> built(new tls_context());
  built->keys_ = std::move(keys);
  built->stats_ = std::move(stats);
  built->handshake_timeout_ = options.handshake_timeout;
  built->sweep_interval_ =
      std::clamp(options.session_lifetime, std::chrono::seconds(1), std::chrono::seconds(longest_sweep_interval));
  if (options.client_certificates != client_certificates::none) {
    std::optional<std::vector<x509_ptr>> cas = load_ca_file(options.client_ca_file, error);
    if (!cas) return nullptr;
    built->client_cas_ = std::move(*cas);
  }
  built->session_id_context_ = session_id_context(options, built->client_cas_);
  for (const tls_certificate& entry : options.certificates) {
    if (config_error failed = built->add_certificate(options, entry)) {
      error = std::move(failed);
      return nullptr;
    }
  }
  built->names_.freeze();
  // Only the context a handshake starts on asks for the name. With a callback
  // set, OpenSSL takes TLS 1.3 as possible without looking at the key; without
  // one it derives the key's curve through the provider on every handshake
  // (is_tls13_capable, asked for TLS 1.2's downgrade sentinel too), which is
  // what separated a resumed TLS 1.2 handshake from nginx's (docs/benchmarks.md,
  // HTTPS). So one certificate gets the callback too, when TLS 1.3 can sign
  // with its key (else TLS 1.3 clients must still fall back to 1.2); it also
  // keeps the name in TLS 1.2 sessions, so a resumption reports it.
  if (built->contexts_.size() > 1 || signs_tls13(SSL_CTX_get0_privatekey(built->contexts_.front()))) {
    // SSL_CTX_set_tlsext_servername_callback, without the macro's C cast.
    SSL_CTX_callback_ctrl(built->contexts_.front(), SSL_CTRL_SET_TLSEXT_SERVERNAME_CB,
                          reinterpret_cast<void (*)()>(&tls_context::on_server_name));
    SSL_CTX_set_tlsext_servername_arg(built->contexts_.front(), built.get());
  }
  return built;
}

tls_context::~tls_context() {
  for (SSL_CTX* ctx : contexts_) SSL_CTX_free(ctx);
}

config_error tls_context::add_certificate(const tls_options& options, const tls_certificate& entry) {
  config_error error;
  std::optional<certificate_chain> chain = load_certificate(entry, error);
  if (!chain) return error;
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return {std::make_error_code(std::errc::not_enough_memory), "tls: cannot create a context"};
  contexts_.push_back(ctx);
  if (SSL_CTX_use_certificate(ctx, chain->leaf.get()) != 1 || SSL_CTX_use_PrivateKey(ctx, chain->key.get()) != 1) {
    return refused("certificate", entry.certificate_file);
  }
  for (const x509_ptr& intermediate : chain->intermediates) {
    if (SSL_CTX_add1_chain_cert(ctx, intermediate.get()) != 1) return refused("certificate", entry.certificate_file);
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    return {std::make_error_code(std::errc::invalid_argument),
            fmt::format("tls key {}: does not match the certificate {}", entry.key_file, entry.certificate_file)};
  }
  for (const std::string& name : chain->names) names_.add(name, contexts_.size() - 1);
  return configure(ctx, options);
}

config_error tls_context::configure(SSL_CTX* ctx, const tls_options& options) {
  SSL_CTX_set_min_proto_version(ctx, options.min_version == tls_version::tls1_3 ? TLS1_3_VERSION : TLS1_2_VERSION);
  // Renegotiation is a denial-of-service lever and nothing HTTP/1.1 needs.
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  // Record buffers are freed whenever they are empty: an idle connection holds none.
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_read_ahead(ctx, 1);
  if (SSL_CTX_set_cipher_list(ctx, options.ciphers.c_str()) != 1) return refused("ciphers", options.ciphers);
  if (SSL_CTX_set_ciphersuites(ctx, options.ciphersuites.c_str()) != 1) {
    return refused("ciphersuites", options.ciphersuites);
  }
  SSL_CTX_set_alpn_select_cb(ctx, &tls_context::on_alpn, nullptr);
  SSL_CTX_set_app_data(ctx, this);
  SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, &tls_context::on_ticket);
  SSL_CTX_set_num_tickets(ctx, tickets_per_handshake);
  SSL_CTX_set_timeout(ctx, static_cast<long>(options.session_lifetime.count()));
  // OpenSSL would walk the whole cache every 255th handshake, under its write
  // lock; sweep_sessions_if_due() does it at most once per sweep_interval().
  SSL_CTX_set_session_cache_mode(
      ctx, options.session_cache_size > 0 ? SSL_SESS_CACHE_SERVER | SSL_SESS_CACHE_NO_AUTO_CLEAR : SSL_SESS_CACHE_OFF);
  SSL_CTX_sess_set_new_cb(ctx, &tls_context::on_new_session);
  SSL_CTX_sess_set_cache_size(ctx, static_cast<long>(options.session_cache_size));
  SSL_CTX_set_session_id_context(ctx, session_id_context_.data(),
                                 static_cast<unsigned int>(session_id_context_.size()));
  if (options.client_certificates == client_certificates::none) return {};
  int mode = SSL_VERIFY_PEER;
  if (options.client_certificates == client_certificates::required) mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  SSL_CTX_set_verify(ctx, mode, nullptr);
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  STACK_OF(X509_NAME)* hints = sk_X509_NAME_new_null();
  for (const x509_ptr& ca : client_cas_) {
    X509_STORE_add_cert(store, ca.get());
    if (hints != nullptr) sk_X509_NAME_push(hints, X509_NAME_dup(X509_get_subject_name(ca.get())));
  }
  if (hints != nullptr) SSL_CTX_set_client_CA_list(ctx, hints);
  ERR_clear_error();
  return {};
}

SSL* tls_context::new_session() const noexcept {
  SSL* ssl = SSL_new(contexts_.front());
  if (ssl != nullptr) SSL_set_accept_state(ssl);
  return ssl;
}

session_cache_counts tls_context::session_cache() const noexcept {
  // Sessions live in the context a handshake started on: the default one.
  SSL_CTX* ctx = contexts_.front();
  session_cache_counts c;
  c.hits = static_cast<std::uint64_t>(SSL_CTX_sess_hits(ctx));
  c.misses = static_cast<std::uint64_t>(SSL_CTX_sess_misses(ctx));
  c.evictions = static_cast<std::uint64_t>(SSL_CTX_sess_cache_full(ctx));
  c.timeouts = static_cast<std::uint64_t>(SSL_CTX_sess_timeouts(ctx));
  c.entries = static_cast<std::uint64_t>(SSL_CTX_sess_number(ctx));
  return c;
}

int tls_context::on_server_name(SSL* ssl, int* /*alert*/, void* arg) {
  const auto* self = static_cast<const tls_context*>(arg);
  const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  if (name == nullptr) return SSL_TLSEXT_ERR_NOACK;
  const std::optional<std::size_t> index = self->names_.find(name);
  // An unknown name gets the default certificate: the client decides whether it will do.
  if (index && *index != 0) SSL_set_SSL_CTX(ssl, self->contexts_[*index]);
  return SSL_TLSEXT_ERR_OK;
}

// Only http/1.1 is spoken. A client that offers ALPN without it (h2 only)
// gets a no_application_protocol alert at once rather than a connection it
// would misread; a client that offers no ALPN is not asked.
int tls_context::on_alpn(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
                         unsigned int in_length, void* /*arg*/) {
  unsigned char* chosen = nullptr;
  unsigned char chosen_length = 0;
  if (SSL_select_next_proto(&chosen, &chosen_length, http11_alpn.data(), http11_alpn.size(), in, in_length) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  }
  *out = chosen;
  *out_length = chosen_length;
  return SSL_TLSEXT_ERR_OK;
}

void tls_context::sweep_sessions_if_due() const noexcept {
  const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
  std::int64_t due = next_sweep_.load(std::memory_order_relaxed);
  if (now < due) return;
  const std::int64_t next =
      now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(sweep_interval_).count();
  // Whoever moves the deadline sweeps; the others go on with their handshakes.
  if (!next_sweep_.compare_exchange_strong(due, next, std::memory_order_relaxed)) return;
  SSL_CTX_flush_sessions(contexts_.front(), static_cast<long>(std::time(nullptr)));
}

// Called once a session is in the cache (it has its own reference: none is
// taken here, hence 0): the cache grew, so it may be time to sweep it.
int tls_context::on_new_session(SSL* ssl, SSL_SESSION* /*session*/) {
  const auto* self = static_cast<const tls_context*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  if (self != nullptr) self->sweep_sessions_if_due();
  return 0;
}

int tls_context::on_ticket(SSL* ssl, unsigned char* name, unsigned char* iv, EVP_CIPHER_CTX* cipher, EVP_MAC_CTX* mac,
                           int seal) {
  const auto* self = static_cast<const tls_context*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  if (self == nullptr || !self->keys_) return seal != 0 ? -1 : 0;
  const int result = self->keys_->seal_or_open(name, iv, cipher, mac, seal != 0, *self->stats_);
  // OpenSSL 3.0 sends a resumed TLS 1.3 connection no ticket unless the one
  // it came with is to be renewed; clients use a TLS 1.3 ticket once, so
  // without a new one every other connection would be a full handshake.
  if (seal == 0 && result == 1 && SSL_version(ssl) == TLS1_3_VERSION) return 2;
  return result;
}

}  // namespace stet::detail
