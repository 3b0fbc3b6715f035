// Router dispatch: stet's frozen trie against what naive routers do (a linear
// scan trying one std::regex per route, captures copied into std::strings),
// for tables of 10, 100 and 1,000 REST routes with parameters.
//
//   ./build/bench/router_bench --benchmark_counters_tabular=true
#include <stet/router.hpp>
#include <stet/test_request.hpp>

#include "support/alloc_counter.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace {

using stet::method;
using stet::request;
using stet::response;

void report_allocations(benchmark::State& state, std::uint64_t before) {
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - before),
                                                   benchmark::Counter::kAvgIterations);
}

// Ten shapes per resource, as a JSON API has them: collection, item, nested
// collection and item, search and slug lookups; two typed parameters at most.
struct shape {
  method m;
  const char* pattern;  // "%" stands for the resource name
  const char* example;  // a request that matches it
};
constexpr std::array<shape, 10> shapes = {{
    {method::get, "/api/v1/%", "/api/v1/%"},
    {method::post, "/api/v1/%", "/api/v1/%"},
    {method::get, "/api/v1/%/{id:int}", "/api/v1/%/12345"},
    {method::put, "/api/v1/%/{id:int}", "/api/v1/%/42"},
    {method::delete_, "/api/v1/%/{id:int}", "/api/v1/%/7"},
    {method::get, "/api/v1/%/{id:int}/comments", "/api/v1/%/99/comments"},
    {method::get, "/api/v1/%/{id:int}/comments/{cid:int}", "/api/v1/%/99/comments/3"},
    {method::get, "/api/v1/%/search/{term}", "/api/v1/%/search/blue-shoes"},
    {method::get, "/api/v1/%/{id:int}/tags/{tag}", "/api/v1/%/5/tags/summer"},
    {method::get, "/api/v1/%/by-slug/{slug}", "/api/v1/%/by-slug/hello-world"},
}};

constexpr std::array<const char*, 20> nouns = {
    "users",  "posts",   "comments", "orders", "products", "carts", "invoices", "payments", "reviews",  "tags",
    "events", "tickets", "projects", "tasks",  "teams",    "files", "folders",  "messages", "channels", "reports"};

std::string resource_name(std::size_t i) {
  std::string name = nouns[i % nouns.size()];
  if (i >= nouns.size()) name += std::to_string(i / nouns.size());
  return name;
}

std::string fill(const char* text, const std::string& resource) {
  std::string out(text);
  out.replace(out.find('%'), 1, resource);
  return out;
}

struct route_spec {
  method m;
  std::string pattern;
  std::string example;
};

std::vector<route_spec> make_specs(std::size_t count) {
  std::vector<route_spec> specs;
  for (std::size_t i = 0; specs.size() < count; ++i) {
    const std::string resource = resource_name(i);
    for (const shape& s : shapes) {
      if (specs.size() == count) break;
      specs.push_back({s.m, fill(s.pattern, resource), fill(s.example, resource)});
    }
  }
  return specs;
}

// Requests in a fixed shuffled order, one per route, so every shape and every
// depth of the table is hit.
std::vector<const route_spec*> request_order(const std::vector<route_spec>& specs) {
  std::vector<const route_spec*> order;
  for (const route_spec& s : specs) order.push_back(&s);
  std::shuffle(order.begin(), order.end(), std::mt19937(12345));
  return order;
}

void BM_StetRouter(benchmark::State& state) {
  const std::vector<route_spec> specs = make_specs(static_cast<std::size_t>(state.range(0)));
  stet::router routes;
  for (const route_spec& s : specs) {
    // Handlers as users write them: typed arguments, converted by the router.
    if (s.pattern.ends_with("{cid:int}")) {
      routes.add(s.m, s.pattern, [](request&, std::int64_t id, std::int64_t cid) {
        benchmark::DoNotOptimize(id + cid);
        return response();
      });
    } else if (s.pattern.ends_with("{tag}")) {
      routes.add(s.m, s.pattern, [](request&, std::int64_t id, std::string_view tag) {
        benchmark::DoNotOptimize(id + static_cast<std::int64_t>(tag.size()));
        return response();
      });
    } else {
      routes.add(s.m, s.pattern, [](request& q) {
        benchmark::DoNotOptimize(q.params().size());
        return response();
      });
    }
  }
  routes.freeze();
  std::deque<stet::test_request> requests;
  for (const route_spec* s : request_order(specs)) requests.emplace_back(s->m, s->example);
  for (stet::test_request& q : requests) {
    if (routes.handle(q).status() != stet::status::ok) state.SkipWithError("a request was not routed");
  }

  std::size_t next = 0;
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    response r = routes.handle(requests[next]);
    benchmark::DoNotOptimize(r);
    if (++next == requests.size()) next = 0;
  }
  report_allocations(state, before);
}
BENCHMARK(BM_StetRouter)->Arg(10)->Arg(100)->Arg(1000);

// What choosing a handler form costs per request, on one typed route: a
// synchronous handler; an asynchronous one that sends before returning (the
// answer slot is allocated, then the answer used at once); one answered from
// another thread is not measured here (that is a thread hand-off, not dispatch).
void BM_HandlerForm(benchmark::State& state) {
  stet::router routes;
  if (state.range(0) == 0) {
    routes.add(method::get, "/users/{id:int}", [](request&, std::int64_t id) {
      benchmark::DoNotOptimize(id);
      return response();
    });
    state.SetLabel("sync: response(request&, int64)");
  } else {
    routes.add(method::get, "/users/{id:int}", [](request&, stet::responder out, std::int64_t id) {
      benchmark::DoNotOptimize(id);
      out.send(response());
    });
    state.SetLabel("async, sent at once: void(request&, responder, int64)");
  }
  routes.freeze();
  stet::test_request q(method::get, "/users/42");
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    response r = routes.handle(q);
    benchmark::DoNotOptimize(r);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_HandlerForm)->Arg(0)->Arg(1);

// The naive router: one std::regex per route, tried in order until one
// matches; captures copied out and converted per request.
struct regex_route {
  method m;
  std::regex re;
  std::vector<bool> is_int;
  int (*handler)(const std::vector<std::string>&, const std::vector<std::int64_t>&);
};

std::string to_regex(const std::string& pattern, std::vector<bool>& is_int) {
  std::string re;
  std::size_t i = 0;
  while (i < pattern.size()) {
    if (pattern[i] == '{') {
      const std::size_t close = pattern.find('}', i);
      const bool integer = pattern.compare(close - 4, 4, ":int") == 0;
      re += integer ? "(-?[0-9]+)" : "([^/]+)";
      is_int.push_back(integer);
      i = close + 1;
    } else {
      if (pattern[i] == '.' || pattern[i] == '-') re += '\\';
      re += pattern[i++];
    }
  }
  return re;
}

int naive_handler(const std::vector<std::string>& text, const std::vector<std::int64_t>& numbers) {
  return static_cast<int>(text.size() + numbers.size());
}

void BM_NaiveRegexScan(benchmark::State& state) {
  const std::vector<route_spec> specs = make_specs(static_cast<std::size_t>(state.range(0)));
  std::vector<regex_route> routes;
  for (const route_spec& s : specs) {
    regex_route r{s.m, {}, {}, naive_handler};
    r.re = std::regex(to_regex(s.pattern, r.is_int));
    routes.push_back(std::move(r));
  }
  std::vector<const route_spec*> order = request_order(specs);

  std::size_t next = 0;
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    const route_spec& q = *order[next];
    const std::string path = q.example;  // naive routers own their copy of the path
    int result = -1;
    for (const regex_route& r : routes) {
      std::smatch m;
      if (r.m != q.m || !std::regex_match(path, m, r.re)) continue;
      std::vector<std::string> text;
      std::vector<std::int64_t> numbers;
      for (std::size_t i = 1; i < m.size(); ++i) {
        text.push_back(m[i].str());
        if (r.is_int[i - 1]) numbers.push_back(std::stoll(text.back()));
      }
      result = r.handler(text, numbers);
      break;
    }
    if (result < 0) state.SkipWithError("a request was not routed");
    benchmark::DoNotOptimize(result);
    if (++next == order.size()) next = 0;
  }
  report_allocations(state, before);
}
BENCHMARK(BM_NaiveRegexScan)->Arg(10)->Arg(100)->Arg(1000);

}  // namespace

BENCHMARK_MAIN();
