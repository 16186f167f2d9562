// LoopGroup: a node's I/O loops (Asio io_contexts), one thread each, shared
// by the native transport and node-to-node messaging: a statement, the
// replica requests it sends and their answers then stay on one loop and one
// thread, with no hand-off between threads (ScyllaDB's shard per core).
//
// Contract: construct, Start once, Stop (also run by the destructor) from a
// thread that is not one of the loops. loop(i) and size() are thread-safe;
// IndexOnThisThread tells a loop's own thread which loop it runs. Stop
// first lets every fiber of each loop end (their waits end as if timed
// out: Fiber::CancelAllOnThisThread), then stops and joins the threads.
#pragma once

#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

namespace keywise::net {

class LoopGroup {
 public:
  // `threads` loops; 0 or less: one per core.
  explicit LoopGroup(int threads);
  ~LoopGroup();
  LoopGroup(const LoopGroup&) = delete;
  LoopGroup& operator=(const LoopGroup&) = delete;

  size_t size() const { return loops_.size(); }
  boost::asio::io_context& loop(size_t i) { return *loops_[i]; }
  // The index of the loop of this group this thread runs, or -1.
  int IndexOnThisThread() const;

  void Start();
  void Stop();

 private:
  using Guard =
      boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  std::vector<std::unique_ptr<boost::asio::io_context>> loops_;
  std::vector<Guard> guards_;
  std::vector<std::thread> threads_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace keywise::net
