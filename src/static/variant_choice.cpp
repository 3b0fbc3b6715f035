#include "static/variant_choice.hpp"

#include "response/compress/accept_encoding_memo.hpp"
#include "response/compress/policy.hpp"

namespace stet::detail {

variant_choice choose_variant(file_store& store, std::string_view relative, const file_store::lookup_result& file,
                              const static_request_fields& fields, const compression_options& s) {
  const file_entry& e = *file.entry;
  if (!e.compressible) return {};
  variant_choice out;
  out.vary = true;
  if (fields.conditions.range || !fields.accept_encoding) return out;
  // Identity refused with nothing acceptable is answered with identity, as
  // RFC 9110 12.5.3 allows: a file is better than a 406 page.
  const negotiation n = negotiate(cached_accept_encoding(*fields.accept_encoding), s.codings);
  if (n.coding == content_coding::identity) return out;
  out.coded = store.variant(relative, file.entry, n.coding, *file.counters);
  if (out.coded != nullptr) out.coding = coding_name(n.coding);
  return out;
}

}  // namespace stet::detail
