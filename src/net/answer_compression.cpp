#include "net/answer_compression.hpp"

#include <stet/request.hpp>
#include <stet/response.hpp>

#include "http/token.hpp"
#include "net/exchange.hpp"
#include "request/request_access.hpp"
#include "response/compress/body_decoder.hpp"
#include "response/compress/response_compression.hpp"
#include "response/compress/variant.hpp"
#include "response/error_pages.hpp"

#include <algorithm>
#include <utility>

namespace stet::detail {
namespace {

constexpr std::size_t scratch_kept_bytes = 256 * 1024;

}  // namespace

answer_coding compress_answer(const compression_settings& s, const request& req, response& r) {
  const compression_plan plan = compress_response(req, r, s);
  if (plan.not_acceptable) {
    // The page is small (under min_bytes by default) and refused identity is
    // what brought us here: it goes as it is, like every error page.
    r = error_page(stet::status::not_acceptable, req);
    add_vary_accept_encoding(r);  // another Accept-Encoding gets the resource
    return {};
  }
  return {plan.omit_content_length};
}

std::optional<stet::error> decode_request_body(const compression_settings& s, exchange& x) {
  if (x.body.empty()) return std::nullopt;
  const std::size_t count = x.request.header_fields().size();
  const auto coded = std::find_if(x.fields.begin(), x.fields.begin() + static_cast<std::ptrdiff_t>(count),
                                  [](const header_field& f) { return iequals(f.name, "content-encoding"); });
  if (coded == x.fields.begin() + static_cast<std::ptrdiff_t>(count) || iequals(coded->value, "identity")) {
    return std::nullopt;
  }
  // Decoded into a per-thread scratch string that then trades buffers with the
  // body, so a steady stream of coded requests allocates nothing; a scratch
  // buffer grown large by one of them is let go.
  thread_local std::string decoded;
  decoded.clear();
  const std::error_code ec = decode_body(coded->value, x.body, s.max_decoded_body_bytes, decoded);
  if (!ec) {
    x.body.swap(decoded);
    request_access::set_body(x.request, x.body);
  }
  if (decoded.capacity() > scratch_kept_bytes) std::string().swap(decoded);
  if (ec) return ec.category() == error_category() ? static_cast<stet::error>(ec.value()) : error::bad_content_coding;
  std::rotate(coded, coded + 1, x.fields.begin() + static_cast<std::ptrdiff_t>(count));
  request_access::set_fields(x.request, std::span<const header_field>(x.fields.data(), count - 1));
  return std::nullopt;
}

}  // namespace stet::detail
