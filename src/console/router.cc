#include "console/router.h"

#include <exception>

namespace keywise::console {
namespace {

bool IsApi(std::string_view path) {
  return path.starts_with("/api/");
}

HttpResponse Error(std::string_view path, int status,
                   const std::string& message) {
  if (IsApi(path)) return JsonError(status, message);
  return TextResponse(status, message + "\n");
}

}  // namespace

int HttpStatusOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalid:
    case ErrorCode::kSyntaxError:
      return 400;
    case ErrorCode::kBadCredentials:
      return 401;
    case ErrorCode::kUnauthorized:
      return 403;
    case ErrorCode::kUnavailable:
    case ErrorCode::kOverloaded:
    case ErrorCode::kIsBootstrapping:
    case ErrorCode::kReadTimeout:
    case ErrorCode::kWriteTimeout:
    case ErrorCode::kReadFailure:
    case ErrorCode::kWriteFailure:
      return 503;
    default:
      return 500;
  }
}

void Router::Add(std::string path, Handler handler) {
  routes_[std::move(path)] = std::move(handler);
}

HttpResponse Router::Route(const HttpRequest& request) const {
  const std::string_view raw(request.target);
  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse r = Error(raw, 405,
                           "Only GET and HEAD are served here: "
                           "the console is read-only.");
    r.allow = "GET, HEAD";
    return r;
  }
  Result<RequestTarget> target = ParseTarget(raw);
  if (!target.ok()) return Error(raw, 400, target.status().message());
  auto it = routes_.find(target->path);
  if (it == routes_.end()) {
    return Error(target->path, 404,
                 "Not found: " + target->path +
                     ". The console is at /, metrics at /metrics.");
  }
  try {
    Result<HttpResponse> answer = it->second(target->params);
    if (answer.ok()) return std::move(*answer);
    const Status& status = answer.status();
    return Error(target->path, HttpStatusOf(status.code()), status.message());
  } catch (const std::exception& e) {
    return Error(target->path, 500, std::string("internal error: ") + e.what());
  }
}

}  // namespace keywise::console
