// Listener: connections accepted onto the loops in turn, and none after
// Close.
#include "net/listener.h"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <future>
#include <mutex>
#include <vector>

namespace keywise::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

TEST(Listener, HandsConnectionsToTheLoopsInTurnUntilClosed) {
  LoopGroup loops(2);
  loops.Start();
  Listener listener(&loops, "test");
  ASSERT_FALSE(listener.Listen(tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)));
  const tcp::endpoint at = listener.local_endpoint();
  ASSERT_NE(at.port(), 0);
  std::mutex mu;
  std::vector<size_t> accepted;  // loop indexes
  std::vector<Listener::Socket> sockets;
  listener.Start([&](size_t loop, Listener::Socket socket) {
    EXPECT_EQ(loops.IndexOnThisThread(), 0);  // called on loop 0
    std::lock_guard<std::mutex> lock(mu);
    accepted.push_back(loop);
    sockets.push_back(std::move(socket));
  });
  asio::io_context client;
  std::vector<tcp::socket> clients;
  for (int i = 0; i < 4; ++i) {
    clients.emplace_back(client);
    clients.back().connect(at);
  }
  for (int tries = 0; tries < 500; ++tries) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (accepted.size() == 4) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(accepted, (std::vector<size_t>{0, 1, 0, 1}));
    sockets.clear();
  }
  std::promise<void> closed;
  asio::post(loops.loop(0), [&] {
    listener.Close();
    closed.set_value();
  });
  closed.get_future().wait();
  tcp::socket late(client);
  boost::system::error_code ec;
  late.connect(at, ec);
  EXPECT_TRUE(ec) << "connected after Close";
  // Closed, the port is free again for a new listener; taken, it is not.
  Listener again(&loops, "test");
  EXPECT_FALSE(again.Listen(at));
  Listener clash(&loops, "test");
  EXPECT_TRUE(clash.Listen(at));  // in use by `again`
  loops.Stop();
}

}  // namespace
}  // namespace keywise::net
