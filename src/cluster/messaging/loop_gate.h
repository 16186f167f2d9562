// LoopGate: lets threads outside an I/O loop post work to it for as long as
// the loop exists, and not after: a Responder answered on a storage thread
// after its service shut down must not touch a destroyed io_context.
//
// Contract: internal to messaging. Dispatch from any thread; Close once,
// before the loop is destroyed; after Close, Dispatch does nothing.
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

  // Runs `fn` now when the calling thread is running this loop, else posts
  // it there; drops it once closed. Returns whether it ran or was posted.
  template <typename Fn>
  bool Dispatch(Fn&& fn) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return false;  // the io_context may be gone: touch nothing
      if (!executor_.running_in_this_thread()) {
        boost::asio::post(executor_, std::forward<Fn>(fn));
        return true;
      }
    }
    // On the loop's own thread, so the loop outlives this call; run it
    // unlocked, as it may answer more messages.
    fn();
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
