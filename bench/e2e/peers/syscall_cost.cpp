// syscall_cost: the CPU one system call costs on this machine, whatever it does.
// What removing a system call from the request path is worth depends on it
// (docs/benchmarks.md, "System call cost"). Each call is made N times in a
// loop and the process's CPU time (user + system) is divided by N.
//
//   c++ -std=c++20 -O2 -o /tmp/syscall_cost bench/e2e/peers/syscall_cost.cpp
//   taskset -c 1 /tmp/syscall_cost [N]        # N = 200000
//
// Prints one line per call: "name ns_per_call".

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// `calls` system calls per iteration.
void measure(const char* name, long n, int calls, const std::function<void()>& iteration) {
  const double start = cpu_seconds();
  for (long i = 0; i < n; ++i) iteration();
  std::printf("%s %.0f\n", name, (cpu_seconds() - start) * 1e9 / static_cast<double>(n * calls));
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 200000;
  std::array<int, 2> pair{};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pair.data()) != 0) return 1;
  const int ep = epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  char byte = 0;
  measure("getppid", n, 1, [] { (void)getppid(); });
  // Nothing to read: every call fails with EAGAIN, as a speculative read does.
  measure("recv_eagain", n, 1, [&] { (void)recv(pair[0], &byte, 1, 0); });
  measure("epoll_ctl", n, 2, [&] {
    (void)epoll_ctl(ep, EPOLL_CTL_ADD, pair[0], &ev);
    (void)epoll_ctl(ep, EPOLL_CTL_DEL, pair[0], nullptr);
  });
  std::array<epoll_event, 8> out{};
  measure("epoll_wait_0", n, 1, [&] { (void)epoll_wait(ep, out.data(), static_cast<int>(out.size()), 0); });
  close(ep);
  close(pair[0]);
  close(pair[1]);
  return 0;
}
