#include "net/loop_group.h"

#include <boost/asio/post.hpp>
#include <algorithm>
#include <exception>
#include <future>
#include <string>

#include "common/log.h"
#include "net/fiber.h"

namespace keywise::net {
namespace {

struct LoopIdentity {
  const LoopGroup* group = nullptr;
  int index = -1;
};
thread_local LoopIdentity this_loop;

}  // namespace

LoopGroup::LoopGroup(int threads) {
  if (threads <= 0) {
    threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  for (int i = 0; i < threads; ++i) {
    loops_.push_back(std::make_unique<boost::asio::io_context>(1));
    guards_.push_back(boost::asio::make_work_guard(*loops_.back()));
  }
}

LoopGroup::~LoopGroup() { Stop(); }

int LoopGroup::IndexOnThisThread() const {
  return this_loop.group == this ? this_loop.index : -1;
}

void LoopGroup::Start() {
  started_ = true;
  for (size_t i = 0; i < loops_.size(); ++i) {
    threads_.emplace_back([this, i] {
      this_loop = LoopIdentity{this, static_cast<int>(i)};
      boost::asio::io_context& loop = *loops_[i];
      while (!loop.stopped()) {
        try {
          loop.run();
        } catch (const std::exception& e) {
          LogError("net", std::string("I/O loop error: ") + e.what());
        }
      }
    });
  }
}

void LoopGroup::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (started_) {
    // Each loop lets its fibers finish, on its own thread.
    std::vector<std::future<void>> done;
    for (auto& loop : loops_) {
      auto promise = std::make_shared<std::promise<void>>();
      done.push_back(promise->get_future());
      boost::asio::post(*loop, [promise] {
        Fiber::CancelAllOnThisThread();
        promise->set_value();
      });
    }
    for (auto& d : done) d.wait();
  }
  for (auto& guard : guards_) guard.reset();
  for (auto& loop : loops_) loop->stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

}  // namespace keywise::net
