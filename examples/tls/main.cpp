// tls: HTTPS with the certificate and key named on the command line, re-read
// on SIGHUP without a restart (a renewed certificate: `kill -HUP PID`).
// Run: tls PORT CERT KEY, e.g.
//   scripts/self-signed-cert.sh tls localhost && tls 8443 tls/cert.pem tls/key.pem
//   curl --cacert tls/cert.pem https://localhost:8443/
#include <stet/stet.hpp>

#include <cstdio>
#include <memory>
#include <string>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: tls PORT CERT KEY\n");
    return 2;
  }
  stet::router routes;
  routes.get("/", [](stet::request& req) {
    const stet::tls_info* tls = req.tls();  // never null here: this server has no plain listener
    return stet::response::text("Hello over " + std::string(tls->protocol) + " (" + std::string(tls->cipher) + ")\n");
  });

  // The files are read at start() and again at each reload_tls(); the OpenSSL
  // context is built from them then, not per connection.
  auto tls = std::make_shared<stet::tls_options>();
  stet::tls_certificate certificate;  // no key password; the SNI names are the certificate's own
  certificate.certificate_file = argv[2];
  certificate.key_file = argv[3];
  tls->certificates.push_back(std::move(certificate));
  stet::server_options options;
  options.listeners.push_back({.address = std::string("127.0.0.1:") + argv[1], .tls = tls});

  stet::server server(std::move(routes), options);
  stet::run_options run;
  run.on_hangup = [](stet::server& s) {
    // All or nothing: when a new file is bad the old certificate stays in
    // service. New handshakes get the new one; open connections keep theirs.
    const stet::config_error failed = s.reload_tls();
    std::fprintf(stderr, "tls: SIGHUP: %s\n", failed ? failed.message().c_str() : "certificate reloaded");
  };
  // SIGINT or SIGTERM: finish what is in flight, then exit.
  if (const stet::config_error failed = stet::run_until_signal(server, run)) {
    std::fprintf(stderr, "tls: %s\n", failed.message().c_str());  // names the file and the reason
    return 1;
  }
}
