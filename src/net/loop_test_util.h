// Test helper: runs a function on loop 0 of a LoopGroup and waits for it.
#pragma once

#include <boost/asio/post.hpp>
#include <future>

#include "net/loop_group.h"

namespace keywise::net {

template <typename Fn>
void OnLoop(LoopGroup& group, Fn fn) {
  std::promise<void> done;
  boost::asio::post(group.loop(0), [&] {
    fn();
    done.set_value();
  });
  done.get_future().wait();
}

}  // namespace keywise::net
