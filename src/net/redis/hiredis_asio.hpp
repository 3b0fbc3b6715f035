#pragma once
// hiredis's asynchronous API driven by an Asio io_context: hiredis says when it
// wants to read or write its socket (the ev.addRead/... hooks), and an Asio
// descriptor waits for that readiness on the io_context's reactor. hiredis
// ships adapters for libevent, libuv and others, not for Asio; this is the
// same few hooks (adapters/libuv.h is the model).

#include "net/asio.hpp"

#include <functional>

struct redisAsyncContext;

namespace stet::detail {

/// Makes `context`'s I/O run on `io` (its thread only). The hooks live until
/// hiredis frees the context (its cleanup hook). `heard` (may be empty) runs
/// after each read hiredis has handled while the context lives: Redis said
/// something, outside any hiredis callback. False when the context already
/// has an event library or its socket cannot be watched.
bool attach_hiredis(redisAsyncContext* context, asio::io_context& io, std::function<void()> heard = {});

}  // namespace stet::detail
