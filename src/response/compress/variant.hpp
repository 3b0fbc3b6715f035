#pragma once
// The compressed variant of a representation is a different representation
// (RFC 9110 8.8.3.3): it gets its own entity-tag, and Vary: Accept-Encoding
// tells caches the coding was chosen by that field.

#include <stet/compression.hpp>

#include <string>
#include <string_view>

namespace stet {
class response;
}

namespace stet::detail {

/// The entity-tag of the `c` variant of the representation tagged `etag`: the
/// coding's name appended inside the quotes (`"abc"` -> `"abc-br"`, `W/"abc"`
/// -> `W/"abc-br"`), written to `out` (replacing its contents); identity leaves
/// the tag as it is. False, with `out` untouched, when `etag` is not an
/// entity-tag (no quotes).
bool variant_etag(std::string_view etag, content_coding c, std::string& out);

/// Whether If-None-Match `list` matches the variant actually being served: the
/// `served` coding of the representation whose identity tag is `identity_etag`
/// (weak comparison, "*" matches). A tag of another variant does not match - a
/// cache holding only the gzip body must get the br one when br is chosen now -
/// which is what keeps a 304 from confirming the wrong bytes.
bool if_none_match_matches(std::string_view list, std::string_view identity_etag, content_coding served) noexcept;

/// Whether a Vary value already covers Accept-Encoding ("*" or the name, any case).
bool vary_lists_accept_encoding(std::string_view vary) noexcept;

/// Adds Accept-Encoding to `r`'s Vary: a new field when there is none, merged
/// into the existing ones otherwise, nothing when they already cover it.
/// @throws std::bad_alloc when out of memory.
void add_vary_accept_encoding(response& r);

}  // namespace stet::detail
