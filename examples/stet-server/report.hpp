#pragma once
// GET /report.json: the benchmark's dynamic body.

#include <stet/json.hpp>
#include <stet/router.hpp>

namespace stet_server {

/// Writes the report document (about 60 KB, the same bytes every call) through
/// `w`; what GET /report.json answers, and what bench/report_bench.cpp builds.
void write_report(stet::json::writer& w);

/// Adds GET /report.json: a deterministic JSON document of about 60 KB (nested
/// objects and arrays, strings that need escaping, integers and doubles),
/// written by stet::json::writer on every request - the same bytes each time
/// (with `options` from a response cache: on every miss).
void add_report_routes(stet::router& routes, const stet::route_options& options = {});

}  // namespace stet_server
