// Router: the console's paths and their handlers. A handler gets the
// request's decoded query parameters and returns a response, or an error
// answered with HttpStatusOf its code and its message: Invalid (a bad
// parameter) 400; BadCredentials 401; Unauthorized 403; the cluster
// unable to answer now (Unavailable, timeouts, overload) 503; anything
// else 500. The console's own CQL reads turn their
// Invalid into ServerError (query/internal_cql.h), so a 400 is always the
// URL's. Unknown paths answer 404, methods other than GET and HEAD 405, a
// target that does not parse 400. Under /api/ every answer, errors
// included, is JSON ({"error": message}); elsewhere plain text.
//
// Contract: Add every route before the first Route; Route is then
// thread-safe (the table is only read) and never throws: a handler that
// throws answers 500.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "common/status.h"
#include "console/http_types.h"
#include "console/request_target.h"

namespace keywise::console {

// The HTTP status of an error of `code` (the mapping above).
int HttpStatusOf(ErrorCode code);

class Router {
 public:
  using Handler = std::function<Result<HttpResponse>(const QueryParams&)>;

  // `path` is matched exactly (decoded, without the query string).
  void Add(std::string path, Handler handler);
  HttpResponse Route(const HttpRequest& request) const;

 private:
  std::map<std::string, Handler, std::less<>> routes_;
};

}  // namespace keywise::console
