#include "query/exec/schema_service.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

namespace keywise::query {
namespace {

constexpr char kConflict[] =
    "The cluster's schema changed while this statement ran; retrying";

}  // namespace

Status SchemaConflict() {
  return Status::ServerError(kConflict);
}

bool IsSchemaConflict(const Status& status) {
  return status.code() == ErrorCode::kServerError &&
         status.message() == kConflict;
}

void BackOffAfterConflict(int attempt) {
  thread_local std::minstd_rand rng(std::random_device{}());
  const int ceiling = 1 << std::clamp(attempt, 1, 6);
  std::uniform_int_distribution<int> ms(0, ceiling);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms(rng)));
}

}  // namespace keywise::query
