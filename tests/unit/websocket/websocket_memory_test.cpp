// What a WebSocket session holds (issue #24, scenarios 3 and 8a), driven by
// hand over ws::session: after any message an idle session holds at most
// idle_held_bytes, compressed or not; an unfinished message's bytes are held
// and counted against the route's max_total_message_bytes, and a message
// over that budget fails with 1013; max_message_bytes means the size after
// inflation, so one compressed frame and the same message in fragments are
// taken (or refused) alike.
#include "websocket/deflate_stream.hpp"
#include "websocket/session.hpp"
#include "websocket/upgrade.hpp"

#include "support/websocket_frames.hpp"

#include <stet/websocket.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace {

using namespace stet::detail::ws;
using stet::test::ws::frame_bytes;

constexpr std::size_t mib = std::size_t{1} << 20;

class test_env final : public session_env {
 public:
  topic_table& topics() noexcept override { return topics_; }
  void topic_opened(std::string_view) override {}
  void topic_closing(std::string_view) noexcept override {}
  bool publish(std::string_view, std::string_view, stet::message_kind) override { return false; }
  stet::detail::websocket_counters& counters() noexcept override { return counters_; }
  std::string& scratch() noexcept override { return scratch_; }
  void report_error(std::string_view) noexcept override {}

 private:
  topic_table topics_;
  stet::detail::websocket_counters counters_;
  std::string scratch_;
};

// What the route's callbacks saw.
struct tally {
  std::vector<std::size_t> sizes;  // of the messages received
  std::vector<std::uint16_t> closes;
};

using route_type = stet::detail::websocket_route<std::monostate>;

std::shared_ptr<const route_type> make_route(const stet::websocket_options& options, tally& seen, bool echo) {
  return std::make_shared<const route_type>(
      options,
      stet::websocket_handlers<>{
          .message =
              [&seen, echo](stet::websocket<>& ws, std::string_view m, stet::message_kind k) {
                seen.sizes.push_back(m.size());
                if (echo) ws.send(m, k);
              },
          .close = [&seen](stet::websocket<>&, std::uint16_t code, std::string_view) { seen.closes.push_back(code); }});
}

// A session with the transport side played by the test: output is taken by
// take_output(), input is fed in reads of at most one read block.
class test_session final : public session {
 public:
  test_session(stet::detail::websocket_upgrade& up, session_env& env) : session(up, env, stet::endpoint{}) { open(); }
  ~test_session() override {
    on_transport_end();
    release_callbacks();
  }

  std::shared_ptr<stet::detail::websocket_core> share() override { return nullptr; }
  stet::send_status post_send(std::string_view, stet::message_kind) override { return stet::send_status::closed; }
  void post_close(std::uint16_t, std::string_view) override {}

  // The bytes, as reads into a block of read_block_bytes whose unconsumed
  // bytes stay at its front; whatever is queued meanwhile is written (a peer
  // that reads), so back-pressure never stops the input for long.
  void feed(std::string_view bytes) {
    std::string block;
    std::size_t at = 0;
    while (!ended() && !finishing()) {
      const std::size_t n = std::min(read_block_bytes - block.size(), bytes.size() - at);
      block.append(bytes.substr(at, n));
      at += n;
      if (block.empty()) break;
      const input_result r = on_input({block.data(), block.size()});
      block.erase(0, r.consumed);
      written_ += take_output();
      if (n == 0 && r.consumed == 0) break;
    }
  }

  // Everything queued, written at once.
  std::string take_output() {
    std::string out;
    while (!output().empty()) {
      std::array<iovec, 16> pieces{};
      const std::size_t count = output().gather(pieces);
      std::size_t n = 0;
      for (std::size_t i = 0; i < count; ++i) {
        out.append(static_cast<const char*>(pieces[i].iov_base), pieces[i].iov_len);
        n += pieces[i].iov_len;
      }
      output().consume(n);
      on_output_written();
    }
    return out;
  }

  // The frames written so far: (opcode, payload size, close code).
  struct frame {
    int op;
    std::size_t size;
    std::uint16_t code;
  };
  std::vector<frame> frames() {
    std::vector<frame> out;
    std::size_t at = 0;
    while (written_.size() - at >= 2) {
      const auto b1 = static_cast<unsigned char>(written_[at + 1]);
      std::size_t head = 2;
      std::uint64_t length = b1 & 0x7f;
      if (length >= 126) {
        const std::size_t extra = length == 126 ? 2 : 8;
        length = 0;
        for (std::size_t i = 0; i < extra; ++i)
          length = (length << 8) | static_cast<unsigned char>(written_[at + 2 + i]);
        head += extra;
      }
      frame f{written_[at] & 0x0f, static_cast<std::size_t>(length), 0};
      if (f.op == 8 && length >= 2) {
        f.code = static_cast<std::uint16_t>((static_cast<unsigned char>(written_[at + head]) << 8) |
                                            static_cast<unsigned char>(written_[at + head + 1]));
      }
      out.push_back(f);
      at += head + length;
    }
    return out;
  }

 protected:
  void output_queued() noexcept override {}
  void end_now() noexcept override { on_transport_end(); }
  void arm_timer(clock::duration) noexcept override {}
  void input_unblocked() noexcept override {}

 private:
  std::string written_;
};

// A session of `route`, with permessage-deflate (no context takeover either way) when `deflate`.
std::unique_ptr<test_session> connect(const std::shared_ptr<const route_type>& route, test_env& env, bool deflate) {
  stet::detail::websocket_upgrade up;
  up.route = route;
  up.data = std::make_unique<stet::detail::websocket_user_data_of<std::monostate>>(std::monostate{});
  if (deflate) {
    deflate_agreement a;
    a.params.server_no_context_takeover = a.params.client_no_context_takeover = true;
    up.deflate = a;
  }
  return std::make_unique<test_session>(up, env);
}

// `message` as the client compresses it (no context takeover).
std::string deflated(std::string_view message, int mem_level = 8) {
  deflater compressor(15, 6, mem_level, true);
  std::string z;
  EXPECT_TRUE(compressor.compress(message, z));
  return z;
}

// Compressed bytes `z` as one message's frames: one frame, or frames of
// `fragment` bytes; the last one without FIN when `open`.
std::string frames_of(std::string_view z, std::size_t fragment = 0, bool open = false) {
  if (fragment == 0) fragment = std::max<std::size_t>(z.size(), 1);
  std::string out;
  std::size_t at = 0;
  do {
    const bool last = at + fragment >= z.size();
    const int first = (last && !open ? 0x80 : 0) | (at == 0 ? 0x42 : 0x00);
    out += frame_bytes(static_cast<std::uint8_t>(first), z.substr(at, fragment));
    at += fragment;
  } while (at < z.size());
  return out;
}

std::string compressed_frames(std::string_view message, std::size_t fragment = 0, bool open = false) {
  return frames_of(deflated(message), fragment, open);
}

std::string noise(std::size_t n) {
  std::string s(n, '\0');
  unsigned seed = 7;
  for (char& c : s) {
    seed = seed * 1103515245 + 12345;
    c = static_cast<char>(seed >> 23);
  }
  return s;
}

stet::websocket_options big_messages() {
  stet::websocket_options o;
  o.max_message_bytes = 16 * mib;
  o.compression.enabled = true;
  return o;
}

stet::websocket_options limited(std::size_t max_message) {
  stet::websocket_options o = big_messages();
  o.max_message_bytes = max_message;
  return o;
}

TEST(WebsocketMemory, AnIdleSessionHoldsAtMostItsRetainSizeAfterALargeMessage) {
  struct shape {
    const char* what;
    bool deflate;
    std::string frames;
    std::size_t size;
  };
  const std::string repetitive(15 * mib, 'a');
  const std::vector<shape> shapes = {
      {"uncompressed, one frame", false, frame_bytes(0x82, std::string(4 * mib, 'u')), 4 * mib},
      {"uncompressed, fragments", false,
       frame_bytes(0x02, std::string(2 * mib, 'u')) + frame_bytes(0x80, std::string(2 * mib, 'v')), 4 * mib},
      {"15 MiB inflated from one small frame", true, compressed_frames(repetitive), 15 * mib},
      {"15 MiB inflated from fragments", true, compressed_frames(repetitive, 1000), 15 * mib},
      {"incompressible, compressed", true, compressed_frames(noise(3 * mib)), 3 * mib},
  };
  for (const shape& s : shapes) {
    tally seen;
    test_env env;
    const auto route = make_route(big_messages(), seen, true);
    auto ws = connect(route, env, s.deflate);
    ws->feed(s.frames);
    ASSERT_EQ(seen.sizes, std::vector<std::size_t>{s.size}) << s.what;
    const auto frames = ws->frames();
    ASSERT_EQ(frames.size(), 1u) << s.what;
    EXPECT_EQ(frames[0].op, 2) << s.what;
    EXPECT_TRUE(ws->output().empty());
    EXPECT_LE(ws->held_bytes(), idle_held_bytes) << s.what;
    EXPECT_LE(env.scratch().capacity(), scratch_retain_bytes) << s.what;
    EXPECT_EQ(route->message_bytes().load(), 0u) << s.what;
  }
}

TEST(WebsocketMemory, TheBufferIsTrimmedEvenWhileInputWaitsForTheQueue) {
  // The echo goes over max_backpressure: reading stops at once, before the
  // reader is asked for the next event. The buffer is trimmed all the same.
  tally seen;
  test_env env;
  const auto route = make_route(big_messages(), seen, true);
  auto ws = connect(route, env, false);
  std::string frame = frame_bytes(0x82, std::string(4 * mib, 'u'));
  const session::input_result r = ws->on_input({frame.data(), frame.size()});
  ASSERT_EQ(r.consumed, frame.size());
  ASSERT_EQ(seen.sizes.size(), 1u);
  EXPECT_FALSE(ws->wants_input());
  EXPECT_LE(ws->held_bytes() - ws->output().held_bytes(), message_retain_bytes);
  ws->take_output();
  EXPECT_LE(ws->held_bytes(), idle_held_bytes);
}

TEST(WebsocketMemory, AnOpenCompressedFragmentIsHeldAndCountsAgainstTheBudget) {
  tally seen;
  test_env env;
  stet::websocket_options o = big_messages();
  o.max_total_message_bytes = 10 * mib;
  const auto route = make_route(o, seen, false);

  // 5 MiB inflated from a few KB, the message left open.
  auto a = connect(route, env, true);
  a->feed(compressed_frames(std::string(5 * mib, 'a'), 0, true));
  EXPECT_TRUE(seen.sizes.empty());
  EXPECT_GE(a->held_bytes(), 5 * mib);
  EXPECT_GE(route->message_bytes().load(), 5 * mib);
  EXPECT_LE(route->message_bytes().load(), a->held_bytes());

  // Another connection's 6 MiB message would go over the budget: 1013.
  auto b = connect(route, env, false);
  b->feed(frame_bytes(0x82, std::string(6 * mib, 'b')));
  EXPECT_EQ(seen.closes, std::vector<std::uint16_t>{1013});
  ASSERT_FALSE(b->frames().empty());
  EXPECT_EQ(b->frames().back().code, 1013);
  EXPECT_LE(b->held_bytes(), idle_held_bytes) << "a failed message is not kept";
  const std::size_t a_alone = route->message_bytes().load();
  EXPECT_GE(a_alone, 5 * mib);
  EXPECT_LE(a_alone, a->held_bytes());

  // The open message ends: its bytes go back.
  a->feed(frame_bytes(0x80, ""));
  EXPECT_EQ(seen.sizes, std::vector<std::size_t>{5 * mib});
  EXPECT_EQ(route->message_bytes().load(), 0u);
  EXPECT_LE(a->held_bytes(), idle_held_bytes);

  // Now the same 6 MiB fits.
  auto c = connect(route, env, false);
  c->feed(frame_bytes(0x82, std::string(6 * mib, 'c')));
  EXPECT_EQ(seen.sizes, (std::vector<std::size_t>{5 * mib, 6 * mib}));
  EXPECT_EQ(route->message_bytes().load(), 0u);

  // A connection that ends in the middle of a message gives its bytes back.
  auto d = connect(route, env, true);
  d->feed(compressed_frames(std::string(3 * mib, 'd'), 0, true));
  EXPECT_GE(route->message_bytes().load(), 3 * mib);
  d->on_transport_end();
  EXPECT_EQ(route->message_bytes().load(), 0u);
  EXPECT_LE(d->held_bytes(), idle_held_bytes);
}

TEST(WebsocketMemory, TheBudgetIsSharedByEveryConnectionOfTheRoute) {
  tally seen;
  test_env env;
  stet::websocket_options o = big_messages();
  o.max_total_message_bytes = 8 * mib;
  const auto route = make_route(o, seen, false);
  std::vector<std::unique_ptr<test_session>> open;
  // Each holds an unfinished 1 MiB message (its first frame): the budget runs
  // out after a few, and the first connection over it fails with 1013.
  for (int i = 0; i < 16 && seen.closes.empty(); ++i) {
    open.push_back(connect(route, env, false));
    open.back()->feed(frame_bytes(0x02, std::string(mib, 'x')));
    EXPECT_LE(route->message_bytes().load(), o.max_total_message_bytes);
  }
  EXPECT_EQ(seen.closes, std::vector<std::uint16_t>{1013});
  EXPECT_GE(open.size(), 4u);
  EXPECT_LE(open.size(), 9u);
  open.clear();
  EXPECT_EQ(route->message_bytes().load(), 0u);
}

TEST(WebsocketMemory, OneCompressedFrameAndFragmentsAgreeOnTheMessageLimit) {
  // Noise at the limit (4 MiB here, 16 MiB on stet-server) compresses to a little more: the limit is the
  // inflated size, so one frame is taken as its fragments are.
  const std::string at_limit = deflated(noise(4 * mib));
  ASSERT_GT(at_limit.size(), 4 * mib);
  for (const std::size_t fragment : {std::size_t{0}, mib}) {
    tally seen;
    test_env env;
    const auto route = make_route(limited(4 * mib), seen, false);
    auto ws = connect(route, env, true);
    ws->feed(frames_of(at_limit, fragment));
    EXPECT_EQ(seen.sizes, std::vector<std::size_t>{4 * mib}) << "fragment " << fragment;
    EXPECT_TRUE(seen.closes.empty()) << "fragment " << fragment;
  }
  // A client with little zlib memory ends a block every few hundred bytes:
  // more overhead, still within what the limit allows.
  const std::string small_blocks = deflated(noise(4 * mib), 1);
  ASSERT_GT(small_blocks.size(), 4 * mib + 4 * mib / 1024 + 1024);
  for (const std::size_t fragment : {std::size_t{0}, mib}) {
    tally seen;
    test_env env;
    const auto route = make_route(limited(4 * mib), seen, false);
    auto ws = connect(route, env, true);
    ws->feed(frames_of(small_blocks, fragment));
    EXPECT_EQ(seen.sizes, std::vector<std::size_t>{4 * mib}) << "memLevel 1, fragment " << fragment;
  }
  // One byte more is refused either way.
  const std::string over = deflated(noise(4 * mib) + "!");
  for (const std::size_t fragment : {std::size_t{0}, mib}) {
    tally seen;
    test_env env;
    const auto route = make_route(limited(4 * mib), seen, false);
    auto ws = connect(route, env, true);
    ws->feed(frames_of(over, fragment));
    EXPECT_TRUE(seen.sizes.empty()) << "fragment " << fragment;
    EXPECT_EQ(seen.closes, std::vector<std::uint16_t>{1009}) << "fragment " << fragment;
  }
  // Uncompressed, the limit is the payload's, one frame or several.
  for (const bool fragmented : {false, true}) {
    tally seen;
    test_env env;
    const auto route = make_route(limited(4 * mib), seen, false);
    auto ws = connect(route, env, true);
    const std::string frames =
        fragmented ? frame_bytes(0x02, std::string(2 * mib, 'u')) + frame_bytes(0x80, std::string(2 * mib + 1, 'v'))
                   : frame_bytes(0x82, std::string(4 * mib + 1, 'u'));
    ws->feed(frames);
    EXPECT_EQ(seen.closes, std::vector<std::uint16_t>{1009}) << "fragmented " << fragmented;
  }
}

}  // namespace
