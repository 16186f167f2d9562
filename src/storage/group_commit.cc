#include "storage/group_commit.h"

#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio/post.hpp>
#include <memory>
#include <vector>

#include "net/fiber.h"
#include "storage/rocks_status.h"

namespace keywise {
namespace {

// A group this large is written at once by the write that filled it, so a
// loop turn full of large batches does not build one huge write.
constexpr size_t kMaxGroupBytes = 4 << 20;

struct Waiter {
  std::shared_ptr<net::Fiber> fiber;
  uint64_t token = 0;
  Status* status = nullptr;
  bool* done = nullptr;
};

// The batch one loop is building for one database.
struct PendingGroup {
  rocksdb::DB* db = nullptr;
  rocksdb::WriteOptions options;
  rocksdb::WriteBatch batch;
  std::vector<Waiter> waiters;
  bool posted = false;  // a Commit handler is queued on the loop
};

// This thread's groups, one per database it writes to (tests run several
// engines on one loop). Entries are kept: a posted handler points to one.
thread_local std::vector<std::unique_ptr<PendingGroup>> thread_groups;

PendingGroup& GroupFor(rocksdb::DB* db) {
  for (const auto& g : thread_groups) {
    if (g->db == db) return *g;
  }
  thread_groups.push_back(std::make_unique<PendingGroup>());
  thread_groups.back()->db = db;
  return *thread_groups.back();
}

// Writes the group's batch and resumes its waiters with the status. On the
// loop's thread, in or outside a fiber; nothing else runs meanwhile.
void Commit(PendingGroup& group) {
  if (group.waiters.empty()) return;
  std::vector<Waiter> waiters = std::move(group.waiters);
  group.waiters.clear();
  Status status = FromRocks(group.db->Write(group.options, &group.batch));
  group.batch.Clear();
  for (Waiter& w : waiters) {
    *w.status = status;
    *w.done = true;
    w.fiber->Wake(w.token);
  }
}

Status WriteNow(rocksdb::DB* db, const rocksdb::WriteOptions& options,
                const BatchEncoder& encode) {
  rocksdb::WriteBatch batch;
  KW_RETURN_IF_ERROR(encode(&batch));
  if (batch.Count() == 0) return Status::OK();
  return FromRocks(db->Write(options, &batch));
}

}  // namespace

Status GroupWrite(rocksdb::DB* db, const rocksdb::WriteOptions& options,
                  const BatchEncoder& encode) {
  net::Fiber* fiber = net::Fiber::Current();
  if (fiber == nullptr) return WriteNow(db, options, encode);

  PendingGroup& group = GroupFor(db);
  if (group.waiters.empty()) group.options = options;
  const uint32_t count_before = group.batch.Count();
  group.batch.SetSavePoint();
  Status encoded = encode(&group.batch);
  if (!encoded.ok()) {
    (void)group.batch.RollbackToSavePoint();
    return encoded;
  }
  (void)group.batch.PopSavePoint();
  if (group.batch.Count() == count_before) return Status::OK();

  Status status;
  bool done = false;
  const uint64_t token = fiber->BeginWait();
  group.waiters.push_back(Waiter{fiber->Shared(), token, &status, &done});
  if (group.batch.GetDataSize() >= kMaxGroupBytes) {
    Commit(group);
  } else if (!group.posted) {
    group.posted = true;
    PendingGroup* pending = &group;
    boost::asio::post(fiber->loop(), [pending] {
      pending->posted = false;
      Commit(*pending);
    });
  }
  while (!done) {
    // Cancelled (the loop is stopping): its handlers may never run.
    if (!fiber->Suspend(token, net::Fiber::Clock::time_point::max()) &&
        !done) {
      Commit(group);
    }
  }
  return status;
}

}  // namespace keywise
