#include "response/compress/encoder.hpp"

namespace stet::detail {

std::unique_ptr<encoder> make_encoder(content_coding c) {
  switch (c) {
    case content_coding::gzip: return make_gzip_encoder();
    case content_coding::br: return make_brotli_encoder();
    case content_coding::zstd: return make_zstd_encoder();
    case content_coding::identity: break;
  }
  return nullptr;
}

}  // namespace stet::detail
