#include "net/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/context/fiber.hpp>
#include <cstdlib>
#include <unordered_set>
#include <vector>

// GCC defines __SANITIZE_ADDRESS__ under -fsanitize=address; clang 14 only
// answers __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define KEYWISE_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KEYWISE_FIBER_ASAN 1
#endif
#endif

#if KEYWISE_FIBER_ASAN
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom,
                                    size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save,
                                     const void** bottom_old,
                                     size_t* size_old);
void __asan_unpoison_memory_region(void const volatile* addr, size_t size);
}
#endif

namespace keywise::net {
namespace {

namespace ctx = boost::context;

// Under ASan, a stack handed out has no shadow left from earlier use: a
// fiber's outermost frames never return (it ends by switching away), so
// their redzones and out-of-scope marks stay poisoned, and a fresh mapping
// may reuse addresses whose shadow an unmapped stack left behind. The next
// fiber's deeper frames would trip over them (a false stack-use-after-scope).
void ClearShadow(const boost::context::stack_context& s) {
#if KEYWISE_FIBER_ASAN
  __asan_unpoison_memory_region(static_cast<char*>(s.sp) - s.size, s.size);
#else
  (void)s;
#endif
}

// Stacks of kStackBytes with a guard page below, kept for reuse by the
// thread that freed them (fibers start and end on their loop's thread), so
// a fiber costs no system call once the cache is warm.
class StackCache {
 public:
  ~StackCache() {
    for (const ctx::stack_context& s : free_) Unmap(s);
  }
  ctx::stack_context Take() {
    if (!free_.empty()) {
      ctx::stack_context s = free_.back();
      free_.pop_back();
      ClearShadow(s);
      return s;
    }
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t bytes = Fiber::kStackBytes + page;
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) std::abort();  // out of address space
    ::mprotect(base, page, PROT_NONE);     // the guard: overflow faults
    ctx::stack_context s;
    s.size = Fiber::kStackBytes;
    s.sp = static_cast<char*>(base) + bytes;  // stacks grow down
    ClearShadow(s);
    return s;
  }
  void Give(const ctx::stack_context& s) {
    if (free_.size() < kKeep) {
      free_.push_back(s);
    } else {
      Unmap(s);
    }
  }

 private:
  static constexpr size_t kKeep = 128;
  static void Unmap(const ctx::stack_context& s) {
    ClearShadow(s);
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    ::munmap(static_cast<char*>(s.sp) - s.size - page, s.size + page);
  }
  std::vector<ctx::stack_context> free_;
};

thread_local StackCache stack_cache;

// Boost.Context's stack allocator over the cache; tells where the stack
// is (for ASan).
struct CachedStack {
  const void** bottom;
  ctx::stack_context allocate() {
    ctx::stack_context s = stack_cache.Take();
    *bottom = static_cast<char*>(s.sp) - s.size;
    return s;
  }
  void deallocate(ctx::stack_context& s) noexcept { stack_cache.Give(s); }
};

class LoopFiber;

struct ThreadFibers {
  LoopFiber* current = nullptr;
  std::unordered_set<LoopFiber*> live;
  bool cancelled = false;
};
thread_local ThreadFibers thread_fibers;

class LoopFiber final : public Fiber,
                        public std::enable_shared_from_this<LoopFiber> {
 public:
  LoopFiber(boost::asio::io_context& loop, std::function<void()> body)
      : loop_(loop), timer_(loop), body_(std::move(body)) {}
  ~LoopFiber() override { thread_fibers.live.erase(this); }

  void Begin() {
    thread_fibers.live.insert(this);
    context_ = ctx::fiber(
        std::allocator_arg, CachedStack{&stack_bottom_},
        [this](ctx::fiber&& caller) {
          caller_ = std::move(caller);
          Arrived(nullptr);
          body_();
          body_ = nullptr;
          thread_fibers.live.erase(this);
#if KEYWISE_FIBER_ASAN
          // Leaving for good: ASan may free this fiber's fake stack.
          __sanitizer_start_switch_fiber(nullptr, loop_stack_bottom_,
                                         loop_stack_size_);
#endif
          return std::move(caller_);
        });
    Enter();
  }

  uint64_t BeginWait() override { return ++wait_; }

  bool Suspend(uint64_t token, Clock::time_point deadline) override {
    if (cancelled_ || thread_fibers.cancelled) return false;
    waiting_ = true;
    woken_ = false;
    timed_ = deadline != Clock::time_point::max();
    if (timed_) {
      timer_.expires_at(deadline);
      timer_.async_wait([self = shared_from_this(),
                         token](const boost::system::error_code& ec) {
        if (!ec) self->ResumeIf(token, false);
      });
    }
#if KEYWISE_FIBER_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, loop_stack_bottom_,
                                   loop_stack_size_);
    caller_ = std::move(caller_).resume();
    Arrived(fake);
#else
    caller_ = std::move(caller_).resume();
#endif
    return woken_;
  }

  void Wake(uint64_t token) override {
    boost::asio::post(loop_, [self = shared_from_this(), token] {
      self->ResumeIf(token, true);
    });
  }

  std::shared_ptr<Fiber> Shared() override { return shared_from_this(); }
  boost::asio::io_context& loop() override { return loop_; }

  // On the loop: resumes the fiber when it still waits in `token`.
  void ResumeIf(uint64_t token, bool woken) {
    if (!waiting_ || token != wait_) return;
    waiting_ = false;
    woken_ = woken;
    if (woken && timed_) timer_.cancel();
    Enter();
  }

  void Cancel() {
    cancelled_ = true;
    ResumeIf(wait_, false);
  }

 private:
  // From the loop into the fiber, until it waits or ends.
  void Enter() {
    LoopFiber* outer = thread_fibers.current;
    thread_fibers.current = this;
    auto keep = shared_from_this();  // the body may drop the last owner
#if KEYWISE_FIBER_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, stack_bottom_, Fiber::kStackBytes);
    context_ = std::move(context_).resume();
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
    context_ = std::move(context_).resume();
#endif
    thread_fibers.current = outer;
  }

  // In the fiber, right after a switch into it: tells ASan, and learns
  // the loop thread's stack it came from.
  void Arrived(void* fake) {
#if KEYWISE_FIBER_ASAN
    __sanitizer_finish_switch_fiber(fake, &loop_stack_bottom_,
                                    &loop_stack_size_);
#else
    (void)fake;
#endif
  }

  boost::asio::io_context& loop_;
  boost::asio::steady_timer timer_;
  std::function<void()> body_;
  ctx::fiber context_;  // the fiber, while it does not run
  ctx::fiber caller_;   // the loop, while the fiber runs
  uint64_t wait_ = 0;
  bool waiting_ = false;
  bool woken_ = false;
  bool timed_ = false;  // the current wait armed timer_
  bool cancelled_ = false;
  const void* stack_bottom_ = nullptr;
  const void* loop_stack_bottom_ = nullptr;
  size_t loop_stack_size_ = 0;
};

}  // namespace

void Fiber::Start(boost::asio::io_context& loop, std::function<void()> body) {
  auto fiber = std::make_shared<LoopFiber>(loop, std::move(body));
  fiber->Begin();
}

Fiber* Fiber::Current() { return thread_fibers.current; }

size_t Fiber::LiveOnThisThread() { return thread_fibers.live.size(); }

void Fiber::CancelAllOnThisThread() {
  thread_fibers.cancelled = true;
  // Resuming one may end others' waits too: take a copy each round.
  while (true) {
    std::vector<std::shared_ptr<LoopFiber>> live;
    for (LoopFiber* f : thread_fibers.live) {
      live.push_back(std::static_pointer_cast<LoopFiber>(f->Shared()));
    }
    if (live.empty()) return;
    for (const auto& f : live) f->Cancel();
    // Fibers that were running or finishing are done; the rest waited
    // again and were cancelled again: loop until none is left.
    bool progress = false;
    for (const auto& f : live) {
      if (!thread_fibers.live.contains(f.get())) progress = true;
    }
    if (!progress) return;  // stuck fibers: leave them (never resumed)
  }
}

}  // namespace keywise::net
