#pragma once
// The two Lua scripts of the Redis bus. A script runs atomically in Redis, so
// the entry a publish adds to the stream and the message it publishes can
// never be interleaved with another instance's: every instance sees a
// topic's messages in the order of their ids.

#include <string_view>

namespace stet::detail::redis_scripts {

// KEYS[1] the topic's stream; ARGV: channel, data, history length, ttl (ms).
// Each entry also records the id before it ("p"), so a replay can tell a
// trimmed gap from an id that was simply the last one trimmed.
inline constexpr std::string_view publish = R"lua(
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local prev = ''
if last[1] then prev = last[1][1] end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', 'd', ARGV[2], 'p', prev)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PUBLISH', ARGV[1], id .. '\n' .. ARGV[2])
return id
)lua";

// KEYS[1] the topic's stream; ARGV: the last id seen (MS-SEQ), how many.
// Returns {the first entry (or none), the entries after the id}, read at one
// moment so the gap test and the events agree.
inline constexpr std::string_view replay = R"lua(
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
local events = redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])
return {first, events}
)lua";

}  // namespace stet::detail::redis_scripts
