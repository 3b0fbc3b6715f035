// The names and forms #26 replaced, used as code written before it uses them:
// each must still compile, with one deprecation warning naming its replacement
// (deprecated_names.py compiles this with -Werror except for deprecations).
#include <stet/stet.hpp>

int main() {
  [[maybe_unused]] const stet::compression_settings compression{.enabled = true};
  [[maybe_unused]] const stet::json::settings json{.max_depth = 8};
  [[maybe_unused]] const stet::multipart_limits multipart{.max_parts = 8};
  [[maybe_unused]] const stet::multipart_form_limits multipart_form{.max_field_bytes = 8};
  [[maybe_unused]] const stet::websocket_compression ws_compression{.enabled = true};
  [[maybe_unused]] const stet::start_error failed{};
  [[maybe_unused]] const stet::response created =
      stet::response::json(stet::status::created, [](stet::json::writer& w) { w.value(1); });
  stet::server_options options{.host = "0.0.0.0"};
  options.port = 8081;
  [[maybe_unused]] const stet::static_options statics{.url_prefix = "/assets/"};
}
