#include "response/compress/compress.hpp"

#include "counters/memo_stats.hpp"

#include <chrono>
#include <memory>
#include <stdexcept>

namespace stet::detail {

bool counted_write(encoder& e, std::string_view input, flush_kind flush, std::string& out) {
  const std::size_t before = out.size();
  const auto start = std::chrono::steady_clock::now();
  const bool ok = e.write(input, flush, out);
  const auto spent = std::chrono::steady_clock::now() - start;
  memo_stats& stats = this_thread_memo_stats();
  const std::size_t i = static_cast<std::size_t>(e.coding()) - 1;
  stats.compressed_bytes_in[i].set(stats.compressed_bytes_in[i].get() + input.size());
  stats.compressed_bytes_out[i].set(stats.compressed_bytes_out[i].get() + (out.size() - before));
  stats.compress_nanoseconds[i].set(stats.compress_nanoseconds[i].get() +
                                    static_cast<std::uint64_t>(std::chrono::nanoseconds(spent).count()));
  return ok;
}

bool compress_body(content_coding c, const encoder_params& p, std::string_view body, std::string& out) {
  encoder_lease lease = lease_encoder(c, p, body.size());
  return lease && counted_write(*lease, body, flush_kind::finish, out);
}

namespace {

// std::function needs a copyable callable; the lease is not, so the producer
// shares its state (one allocation per compressed stream, not per piece).
struct stream_state {
  stream_producer inner;
  encoder_lease lease;
  std::string plain;  // what `inner` wrote this round; keeps its capacity
};

}  // namespace

stream_producer compress_stream(stream_producer inner, content_coding c, const encoder_params& p) {
  encoder_lease lease = lease_encoder(c, p, 0);
  if (!lease) return nullptr;
  auto state = std::make_shared<stream_state>(stream_state{std::move(inner), std::move(lease), {}});
  return [state](stream_writer& out) {
    state->plain.clear();
    stream_writer plain(state->plain, out.target_bytes());
    const bool more = state->inner(plain);
    // A round that wrote nothing stays empty: an empty piece must not become
    // a flush block the client would read as progress.
    if (more && state->plain.empty()) return true;
    if (!counted_write(*state->lease, state->plain, more ? flush_kind::sync : flush_kind::finish, out.buffer())) {
      throw std::runtime_error("stet: compressing a streamed body failed");
    }
    return more;
  };
}

}  // namespace stet::detail
