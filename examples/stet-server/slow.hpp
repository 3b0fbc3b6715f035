#pragma once
// GET /slow?ms=N: a stand-in for a blocking database call, on the offload pool.

#include <stet/router.hpp>

namespace stet_server {

/// Adds GET /slow?ms=N (N from 0 to 10000, else 400): blocks a thread of the
/// offload pool (never a worker) for N ms through stet::offload and answers
/// `{"slept_ms":N}`. With the pool's queue full the answer is 503 with
/// Retry-After, at once.
void add_slow_route(stet::router& routes);

}  // namespace stet_server
