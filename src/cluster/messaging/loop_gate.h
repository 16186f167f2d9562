// LoopGate: lets threads outside an I/O loop post work to it for as long as
// the loop exists, and not after: a Responder answered on a storage thread
// after its service shut down must not touch a destroyed io_context.
//
// Contract: internal to messaging. Post and InLoop from any thread; Close
// once, before the loop is destroyed; after Close, Post does nothing.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <mutex>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

namespace keywise::cluster {

class LoopGate {
 public:
  explicit LoopGate(boost::asio::io_context::executor_type executor)
      : executor_(executor) {}

  // Whether the calling thread is running this loop.
  bool InLoop() const { return executor_.running_in_this_thread(); }

  // Posts `fn` to the loop; returns false (dropping it) once closed.
  template <typename Fn>
  bool Post(Fn&& fn) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return false;
    boost::asio::post(executor_, std::forward<Fn>(fn));
    return true;
  }

  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }

 private:
  const boost::asio::io_context::executor_type executor_;
  std::mutex mu_;
  bool closed_ = false;  // guarded by mu_
};

}  // namespace keywise::cluster
