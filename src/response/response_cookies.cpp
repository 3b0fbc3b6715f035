#include <stet/error.hpp>
#include <stet/json.hpp>
#include <stet/response.hpp>
#include <stet/signer.hpp>

#include "http/base64url.hpp"

namespace stet {

std::error_code response::set_cookie(std::string_view name, std::string_view value, const cookie_options& options) {
  std::string& out = fields_.writable();
  const std::size_t before = out.size();
  out.append("Set-Cookie: ");
  if (std::error_code ec = append_set_cookie(out, name, value, options)) {
    out.resize(before);
    return ec;
  }
  out.append("\r\n");
  return {};
}

std::error_code response::clear_cookie(std::string_view name, cookie_options options) {
  options.max_age = std::chrono::seconds(0);
  options.expires = std::chrono::system_clock::time_point();
  return set_cookie(name, "", options);
}

std::error_code response::set_signed_cookie(const signer& s, std::string_view name, std::string_view value,
                                            const cookie_options& options) {
  if (!is_cookie_name(name)) return error::invalid_cookie_name;
  std::string signed_value(detail::base64url_encoded_size(value.size()), '\0');
  detail::base64url_encode({reinterpret_cast<const unsigned char*>(value.data()), value.size()}, signed_value.data());
  std::string out;
  out.reserve(signed_value.size() + 12 + signer::signature_chars);
  s.sign_to(out, signed_value, std::chrono::system_clock::now());
  return set_cookie(name, out, options);
}

response response::json_error(std::error_code ec, std::string_view detail) {
  const stet::status s =
      ec.category() == error_category() ? http_status(static_cast<stet::error>(ec.value())) : status::bad_request;
  const std::string message = ec.message();
  return json(
      [&](stet::json::writer& w) {
        w.begin_object().member("error", message);
        if (!detail.empty()) w.member("detail", detail);
        w.end_object();
      },
      s);
}

}  // namespace stet
