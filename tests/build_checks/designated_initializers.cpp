// Every option struct a user fills in takes C++20 designated initializers
// naming only the fields they change, without a -Wmissing-field-initializers
// warning under -Wall -Wextra (a member without a default initializer warns
// whenever it is left out). Built with -Werror by cmake/stet_check_headers.cmake:
// a new member without `{}` or `= value` fails the build here.
#include <stet/stet.hpp>

namespace {

[[maybe_unused]] void every_option_struct_takes_designated_initializers() {
  [[maybe_unused]] const stet::server_options server{.threads = 1};
  [[maybe_unused]] const stet::listen_options listen{.proxy_protocol = true};
  [[maybe_unused]] const stet::route_options route{.stream_body = true};
  [[maybe_unused]] const stet::router_options router{.redirect_trailing_slash = false};
  [[maybe_unused]] const stet::access_log_options access_log{.enabled = true};
  [[maybe_unused]] const stet::compression_options compression{.enabled = true};
  [[maybe_unused]] const stet::cookie_options cookie{.secure = true};
  [[maybe_unused]] const stet::cors_options cors{.credentials = true};
  [[maybe_unused]] const stet::hsts_options hsts{.preload = true};
  [[maybe_unused]] const stet::json::writer_options json{.max_depth = 8};
  [[maybe_unused]] const stet::multipart_options multipart{.max_parts = 8};
  [[maybe_unused]] const stet::multipart_form_options multipart_form{.max_field_bytes = 8};
  [[maybe_unused]] const stet::signer_options signer{.clock_skew = std::chrono::seconds(1)};
  [[maybe_unused]] const stet::static_options statics{.cache_budget = 1};
  [[maybe_unused]] const stet::status_page_options status_page{.refresh = std::chrono::seconds(1)};
  [[maybe_unused]] const stet::tls_certificate certificate{.certificate_file = "c.pem"};
  [[maybe_unused]] const stet::tls_options tls{.session_cache_size = 1};
  [[maybe_unused]] const stet::upload_file_options upload{.digest = false};
  [[maybe_unused]] const stet::websocket_compression_options ws_compression{.enabled = true};
  [[maybe_unused]] const stet::websocket_options websocket{.max_message_bytes = 1};
  [[maybe_unused]] const stet::websocket_handlers<> handlers{.message = {}};
}

// The fields #26 deprecated (server_options::host and port,
// static_options::url_prefix) warn only where they are named: building,
// copying, moving and destroying the structs that hold them stay quiet, as a
// [[deprecated]] data member would not.
[[maybe_unused]] void deprecated_fields_are_quiet_until_named() {
  stet::server_options server{.listeners = {{.address = "127.0.0.1:0"}}};
  stet::server_options copy = server;
  copy = server;
  [[maybe_unused]] const stet::server_options moved = std::move(copy);
  stet::static_options statics{.cache_budget = 1};
  stet::static_options statics_copy = statics;
  statics_copy = statics;
  [[maybe_unused]] const stet::static_options statics_moved = std::move(statics_copy);
}

}  // namespace
