#include <stet/config.hpp>
#include <stet/versions.hpp>

#include <fmt/core.h>
#include <llhttp.h>
#include <openssl/crypto.h>
#include <simdjson.h>
#include <boost/version.hpp>

#include <array>
#include <string>

namespace stet {
namespace {

// SIMDJSON_VERSION is a bare token (3.0.1), not a string.
#define STET_STRINGIFY_VALUE(x) STET_STRINGIFY(x)
#define STET_STRINGIFY(x) #x
constexpr std::string_view simdjson_version = STET_STRINGIFY_VALUE(SIMDJSON_VERSION);

struct version_table {
  std::string llhttp = fmt::format("{}.{}.{}", LLHTTP_VERSION_MAJOR, LLHTTP_VERSION_MINOR, LLHTTP_VERSION_PATCH);
  std::string boost = fmt::format("{}.{}.{}", BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100);
  std::string fmt = fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100);
  std::string openssl = OpenSSL_version(OPENSSL_VERSION_STRING);
  std::array<component_version, 6> entries{{
      {"stet", version_string},
      {"llhttp", llhttp},
      {"boost", boost},
      {"simdjson", simdjson_version},
      {"fmt", fmt},
      {"openssl", openssl},
  }};
};

}  // namespace

std::span<const component_version> build_versions() noexcept {
  static const version_table table;
  return table.entries;
}

}  // namespace stet
