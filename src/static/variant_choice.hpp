#pragma once
// Whether a static answer goes out as a compressed variant made from the cached
// file (static_options::compression), and which: decided per request from the
// entry and Accept-Encoding; the variant itself is made once (file_store::variant).

#include <stet/compression.hpp>

#include "static/file_response.hpp"
#include "static/file_store.hpp"

#include <string_view>

namespace stet::detail {

/// The outcome for one request.
struct variant_choice {
  const file_variant* coded = nullptr;  ///< null: send the identity bytes
  std::string_view coding;              ///< Content-Encoding of `coded` (static storage)
  bool vary = false;                    ///< another Accept-Encoding could have changed the answer
};

/// For the file `file` found at `relative`: nothing when `s` is off, the file
/// is not in memory, under s.min_bytes or not of a listed type; otherwise Vary,
/// and the variant of the coding negotiated among s.codings, unless the request
/// has a Range (206 stays on identity bytes) or no Accept-Encoding, or the
/// variant is not (yet) made.
variant_choice choose_variant(file_store& store, std::string_view relative, const file_store::lookup_result& file,
                              const static_request_fields& fields, const compression_options& s);

}  // namespace stet::detail
