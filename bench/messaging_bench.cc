// Messaging round trips between two MessagingServices on loopback: a
// closed loop keeps `in_flight` requests of `payload` bytes outstanding
// (each response sends the next request) for `seconds`, then prints round
// trips per second and latency percentiles.
//
// Usage: keywise_messaging_bench [seconds=5] [in_flight=64] [payload=1024]
//                                [io|pool]
// `pool` runs the echo handler on the handler pool instead of the I/O
// thread (the cost of one more thread hand-off each way).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/messaging/messaging_service.h"

namespace {

using keywise::Uuid;
using keywise::cluster::Endpoint;
using keywise::cluster::HandlerThread;
using keywise::cluster::IncomingMessage;
using keywise::cluster::MessagingOptions;
using keywise::cluster::MessagingService;
using keywise::cluster::Responder;
using keywise::cluster::Response;
using keywise::cluster::Verb;
using Clock = std::chrono::steady_clock;

constexpr Verb kBenchEcho{1};

struct Run {
  MessagingService* client = nullptr;
  Endpoint server;
  std::string payload;
  Clock::time_point end;
  std::mutex mu;
  std::vector<int64_t> latencies_ns;  // guarded by mu
  std::atomic<int64_t> errors{0};
  std::atomic<int> running{0};
  std::promise<void> finished;

  void SendOne() {
    const Clock::time_point start = Clock::now();
    client->Send(server, kBenchEcho, payload, std::chrono::milliseconds(5000),
                 [this, start](Response r) { OnResponse(start, r); });
  }

  void OnResponse(Clock::time_point start, const Response& r) {
    const Clock::time_point now = Clock::now();
    if (!r.ok()) {
      if (errors++ == 0) std::fprintf(stderr, "%s\n", r.ToString().c_str());
    } else {
      std::lock_guard<std::mutex> lock(mu);
      latencies_ns.push_back((now - start).count());
    }
    if (now < end) return SendOne();
    if (--running == 0) finished.set_value();
  }
};

MessagingOptions Options() {
  MessagingOptions options;
  options.listen_address = "127.0.0.1";
  options.port = 0;
  options.node_id = Uuid::Random();
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::atoi(argv[1]) : 5;
  const int in_flight = argc > 2 ? std::atoi(argv[2]) : 64;
  const size_t payload = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1024;
  const bool pool = argc > 4 && std::strcmp(argv[4], "pool") == 0;

  MessagingService server(Options());
  if (!server
           .RegisterHandler(
               kBenchEcho,
               pool ? HandlerThread::kPool : HandlerThread::kIoThread,
               [](IncomingMessage m, Responder r) {
                 r.Respond(std::move(m.payload));
               })
           .ok() ||
      !server.Start().ok()) {
    return 1;
  }
  MessagingService client(Options());
  if (!client.Start().ok()) return 1;

  Run run;
  run.client = &client;
  run.server = server.local_endpoint();
  run.payload.assign(payload, 'x');
  run.latencies_ns.reserve(4 << 20);
  // Warm up the connection before timing.
  std::promise<void> warm;
  client.Send(run.server, kBenchEcho, "warm", std::chrono::milliseconds(5000),
              [&warm](Response) { warm.set_value(); });
  warm.get_future().wait();

  const Clock::time_point start = Clock::now();
  run.end = start + std::chrono::seconds(seconds);
  run.running = in_flight;
  for (int i = 0; i < in_flight; ++i) run.SendOne();
  run.finished.get_future().wait();
  const double elapsed =
      std::chrono::duration<double>(Clock::now() - start).count();

  std::vector<int64_t>& l = run.latencies_ns;
  std::sort(l.begin(), l.end());
  auto pct = [&](double p) {
    if (l.empty()) return 0.0;
    return static_cast<double>(l[static_cast<size_t>(p * (l.size() - 1))]) /
           1000.0;
  };
  std::printf(
      "messaging round trips: payload %zu B, %d in flight, handler on %s, "
      "%.1f s\n"
      "  %zu round trips, %.0f per second, %lld errors\n"
      "  latency us: p50 %.0f  p90 %.0f  p99 %.0f  p99.9 %.0f  max %.0f\n",
      payload, in_flight, pool ? "pool" : "I/O thread", elapsed, l.size(),
      static_cast<double>(l.size()) / elapsed,
      static_cast<long long>(run.errors.load()), pct(0.5), pct(0.9), pct(0.99),
      pct(0.999), pct(1.0));
  client.Shutdown();
  server.Shutdown();
  return run.errors.load() == 0 ? 0 : 2;
}
