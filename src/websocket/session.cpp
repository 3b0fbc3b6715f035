#include "websocket/session.hpp"

#include "counters/counter_add.hpp"
#include "websocket/frame_writer.hpp"
#include "websocket/upgrade.hpp"

#include <algorithm>
#include <exception>
#include <new>

namespace stet::detail::ws {

namespace {

reader_limits limits_of(const websocket_route_base& route) noexcept {
  const websocket_options& o = route.options();
  reader_limits l;
  l.max_message_bytes = o.max_message_bytes;
  l.max_frame_bytes = o.max_frame_bytes;
  l.in_place_bytes = read_block_bytes - max_frame_head;
  l.retain_bytes = message_retain_bytes;
  if (o.max_total_message_bytes != 0) {
    l.total_bytes = &route.message_bytes();
    l.max_total_bytes = o.max_total_message_bytes;
  }
  return l;
}

opcode opcode_of(message_kind k) noexcept { return k == message_kind::text ? opcode::text : opcode::binary; }

deflate_key key_of(const deflate_params& p, const websocket_compression_options& c) noexcept {
  return {p.server_max_window_bits, static_cast<std::int8_t>(std::clamp(c.level, 1, 9)),
          static_cast<std::int8_t>(std::clamp(c.mem_level, 1, 9))};
}

}  // namespace

session::session(websocket_upgrade& up, session_env& env, const endpoint& peer)
    : route_(std::move(up.route)),
      data_(std::move(up.data)),
      env_(env),
      peer_(peer),
      protocol_(up.protocol),
      owner_thread_(std::this_thread::get_id()),
      reader_(limits_of(*route_), nullptr, up.deflate.has_value()) {
  if (up.deflate) {
    deflate_ = true;
    deflate_params_ = up.deflate->params;
  }
  websocket_counters& c = env_.counters();
  single_writer_add(c.opened);
  single_writer_add(c.open);
}

session::~session() = default;

// The callbacks are the application's: one that throws fails the connection
// (1011) instead of unwinding into the event loop.
template <class F>
void session::guarded(F&& callback) noexcept {
  try {
    callback();
    return;
  } catch (const std::exception& e) {
    env_.report_error(e.what());
  } catch (...) {
    env_.report_error("an exception not derived from std::exception");
  }
  if (state_ == state::open || state_ == state::closing) fail(close_code::internal_error);
}

void session::open() {
  arm_idle();
  guarded([this] { route_->on_open(*this); });
}

void session::arm_idle() noexcept {
  const std::chrono::milliseconds idle = options().idle_timeout;
  if (idle.count() <= 0) return;
  heard_ = false;
  arm_timer(std::max<clock::duration>(idle / 2, std::chrono::milliseconds(1)));
}

bool session::wants_input() const noexcept {
  if (state_ == state::closing) return !reader_.closed() && !reader_.failed();
  return state_ == state::open && out_.size() <= options().max_backpressure;
}

session::input_result session::on_input(std::span<char> bytes) {
  heard_ = true;
  if (deflate_) lend_inflater();
  input_result out;
  while (wants_input()) {
    const message_reader::result r = reader_.feed(bytes.subspan(out.consumed));
    out.consumed += r.consumed;
    if (r.what == message_reader::event::need_more) {
      out.wanted = r.wanted;
      break;
    }
    if (!dispatch(r)) break;
  }
  if (!wants_input() && state_ == state::open) input_blocked_ = true;
  if (inflater_lent_ && !reader_.in_message()) return_inflater();
  return out;
}

// One event; false when nothing more is to be read.
bool session::dispatch(const message_reader::result& r) {
  using event = message_reader::event;
  switch (r.what) {
    case event::message:
      single_writer_add(env_.counters().messages_in);
      if (state_ == state::open) {  // after our close: ignored (RFC 6455 1.4)
        guarded([&] {
          route_->on_message(*this, r.payload, r.op == opcode::text ? message_kind::text : message_kind::binary);
        });
      }
      // Now, not at the next read: reading may stop here (the queue is full,
      // or the peer goes quiet) and the buffer would stay a message's size.
      reader_.message_handled();
      return !ended();
    case event::ping:
      if (state_ == state::open) queue_control(make_pong_frame(r.payload).view());
      return true;
    case event::pong: ping_outstanding_ = false; return true;
    case event::close: peer_closed(r.code, r.payload); return false;
    case event::failed: fail(r.code); return false;
    case event::need_more: break;
  }
  return false;
}

void session::lend_inflater() {
  if (reader_.current_inflater() != nullptr) return;
  if (!deflate_params_.client_no_context_takeover) {
    // Context takeover: the peer's window must survive between messages.
    if (!inflater_) inflater_ = std::make_unique<inflater>(deflate_params_.client_max_window_bits, false);
    reader_.set_inflater(inflater_->valid() ? inflater_.get() : nullptr);
    return;
  }
  inflater_ = lease_inflater(deflate_params_.client_max_window_bits);
  inflater_lent_ = inflater_ != nullptr;
  reader_.set_inflater(inflater_.get());
}

void session::return_inflater() noexcept {
  reader_.set_inflater(nullptr);
  if (!inflater_lent_) return;
  inflater_lent_ = false;
  if (reader_.in_message()) inflater_->reset();
  ws::return_inflater(std::move(inflater_), deflate_params_.client_max_window_bits);
}

std::size_t session::held_bytes() const noexcept {
  return reader_.held_bytes() + out_.held_bytes() + (inflater_ ? inflater_->held_bytes() : 0) +
         (deflater_ ? deflater_->held_bytes() : 0);
}

void session::on_output_written() {
  if (input_blocked_ && out_.size() <= options().max_backpressure) {
    input_blocked_ = false;
    if (wants_input()) input_unblocked();
  }
  if (over_bound_ && out_.empty() && state_ == state::open) {
    over_bound_ = false;
    guarded([this] { route_->on_drain(*this); });
  }
}

void session::on_timer() {
  switch (state_) {
    case state::open:
      if (heard_) {
        ping_outstanding_ = false;
      } else if (options().send_pings_automatically && !ping_outstanding_) {
        ping_outstanding_ = true;
        queue_control(make_ping_frame().view());
        output_queued();
      } else {
        close(stet::close_code::going_away, "idle timeout");
        return;
      }
      arm_idle();
      return;
    case state::closing:
    case state::finishing: end_now(); return;  // the peer did not answer, or does not close its side
    case state::ended: return;
  }
}

void session::on_transport_end() noexcept {
  if (state_ == state::ended) return;
  const bool reported = reported_;
  state_ = state::ended;
  out_.clear();
  if (!reported) report_close(static_cast<std::uint16_t>(close_code::abnormal), {});
  return_inflater();
  reader_.discard();  // before release_callbacks(): its budget is the route's
  inflater_.reset();
  deflater_.reset();
  single_writer_add(env_.counters().open, static_cast<std::uint64_t>(-1));
}

void session::release_callbacks() noexcept {
  data_.reset();
  route_.reset();
}

const websocket_options& session::ended_options() noexcept {
  static const websocket_options defaults;
  return defaults;
}

void session::deliver(const std::shared_ptr<const std::string>& frame) noexcept {
  if (state_ != state::open) return;
  websocket_counters& c = env_.counters();
  if (out_.size() > options().max_backpressure) {
    single_writer_add(c.dropped);
    over_bound_ = true;
    if (options().close_on_backpressure_limit) terminate_pending_ = true;
    output_queued();
    return;
  }
  try {
    out_.append_shared(frame);
  } catch (const std::bad_alloc&) {
    single_writer_add(c.dropped);
    return;
  }
  single_writer_add(c.messages_out);
  if (out_.size() > options().max_backpressure) over_bound_ = true;
  output_queued();
}

void session::drain() { close(stet::close_code::going_away, "server stopping"); }

send_status session::send(std::string_view payload, message_kind kind) {
  if (state_ != state::open) return send_status::closed;
  websocket_counters& c = env_.counters();
  if (out_.size() > options().max_backpressure) {
    single_writer_add(c.dropped);
    over_bound_ = true;
    if (options().close_on_backpressure_limit) terminate();
    return send_status::dropped;
  }
  queue_frame(opcode_of(kind), payload);
  single_writer_add(c.messages_out);
  output_queued();
  if (out_.size() <= options().max_backpressure) return send_status::sent;
  over_bound_ = true;
  return send_status::backpressure;
}

void session::queue_frame(opcode op, std::string_view payload) {
  if (deflate_ && payload.size() >= options().compression.min_bytes && queue_compressed(op, payload)) return;
  out_.append(make_frame_head(op, payload.size()).view(), payload);
}

// Into the worker's scratch buffer, then queued: the head's size depends on
// the compressed size. A compressor that fails is dropped and the message
// goes uncompressed (RSV1 is per message).
bool session::queue_compressed(opcode op, std::string_view payload) {
  const websocket_compression_options& settings = options().compression;
  const deflate_key key = key_of(deflate_params_, settings);
  std::unique_ptr<deflater> lent;
  deflater* d = nullptr;
  if (deflate_params_.server_no_context_takeover) {
    lent = lease_deflater(key);
    d = lent.get();
  } else {
    if (!deflater_) deflater_ = std::make_unique<deflater>(key.window_bits, key.level, key.mem_level, false);
    d = deflater_->valid() ? deflater_.get() : nullptr;
  }
  if (d == nullptr) return false;
  std::string& z = env_.scratch();
  z.clear();
  const bool ok = d->compress(payload, z);
  if (lent && ok) return_deflater(std::move(lent), key);
  if (ok) out_.append(make_frame_head(op, z.size(), true, true).view(), z);
  // The worker keeps room for a usual message, not for the largest one yet.
  if (z.capacity() > scratch_retain_bytes) std::string().swap(z);
  if (!ok && !lent) deflater_.reset();
  return ok;
}

void session::queue_control(std::string_view frame) {
  try {
    out_.append({}, frame);
  } catch (const std::bad_alloc&) {  // only a close could matter, and the end follows anyway
  }
}

void session::close(std::uint16_t code, std::string_view reason) {
  if (state_ != state::open) return;
  state_ = state::closing;
  open_.store(false, std::memory_order_release);
  leave_topics();
  queue_control(make_close_frame(code, reason).view());
  arm_timer(options().close_timeout);
  output_queued();
}

void session::peer_closed(close_code code, std::string_view reason) {
  // Echo the peer's code (RFC 6455 5.5.1), unless our close is already out.
  if (state_ == state::open) queue_control(make_close_frame(code).view());
  state_ = state::finishing;
  report_close(static_cast<std::uint16_t>(code), reason);
  arm_timer(options().close_timeout);
  output_queued();
}

void session::fail(close_code code) {
  if (state_ == state::open) queue_control(make_close_frame(code).view());
  state_ = state::finishing;
  report_close(static_cast<std::uint16_t>(code), {});
  arm_timer(options().close_timeout);
  output_queued();
}

void session::terminate() noexcept {
  if (state_ == state::ended) return;
  out_.clear();
  end_now();
}

void session::report_close(std::uint16_t code, std::string_view reason) noexcept {
  if (reported_) return;
  reported_ = true;
  open_.store(false, std::memory_order_release);
  leave_topics();
  single_writer_add(env_.counters().closes[websocket_counters::slot_of(code)]);
  try {
    route_->on_close(*this, code, reason);
  } catch (const std::exception& e) {
    env_.report_error(e.what());
  } catch (...) {
    env_.report_error("an exception not derived from std::exception");
  }
}

bool session::subscribe(std::string_view topic) {
  if (state_ != state::open || is_subscribed(topic)) return false;
  topics_.reserve(topics_.size() + 1);
  bool created = false;
  topic_table::topic& t = env_.topics().add(topic, this, created);
  topics_.push_back(&t);
  if (created) {
    try {
      env_.topic_opened(t.name);
    } catch (...) {
      unsubscribe(topic);
      throw;
    }
  }
  return true;
}

bool session::unsubscribe(std::string_view topic) noexcept {
  const auto it =
      std::find_if(topics_.begin(), topics_.end(), [topic](const topic_table::topic* t) { return t->name == topic; });
  if (it == topics_.end()) return false;
  topic_table::topic& t = **it;
  *it = topics_.back();
  topics_.pop_back();
  if (t.members.size() == 1) env_.topic_closing(t.name);
  env_.topics().remove(t, this);
  return true;
}

bool session::is_subscribed(std::string_view topic) const noexcept {
  return std::any_of(topics_.begin(), topics_.end(), [topic](const topic_table::topic* t) { return t->name == topic; });
}

void session::leave_topics() noexcept {
  while (!topics_.empty()) unsubscribe(topics_.back()->name);
  std::vector<topic_table::topic*>().swap(topics_);
}

bool session::publish(std::string_view topic, std::string_view message, message_kind kind) {
  single_writer_add(env_.counters().published);
  return env_.publish(topic, message, kind);
}

}  // namespace stet::detail::ws
