// The HTTP exchange as the console's handlers see it: a request (method and
// target as sent) and the response they build. The node's HTTP server
// (server/metrics_http.h) owns the sockets and turns these into bytes.
//
// Contract: plain values; the helpers are pure. JSON bodies are rendered
// with every string escaped and invalid UTF-8 replaced by U+FFFD, so a
// response is always valid JSON whatever a table name or key holds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace keywise::console {

struct HttpRequest {
  std::string method;  // "GET", "HEAD", ...
  std::string target;  // path and query string, still %-encoded
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Extra header "Allow" for 405 answers (empty: none).
  std::string allow;
};

// A text/plain answer.
HttpResponse TextResponse(int status, std::string body);
// An application/json answer of `body`.
HttpResponse JsonResponse(int status, const nlohmann::json& body);
// {"error": message} with `status` (400, 404, 500...).
HttpResponse JsonError(int status, const std::string& message);
// `json` as text: escaped, invalid UTF-8 replaced, nothing that could end
// a <script> element ("</" is written "<\/").
std::string DumpJson(const nlohmann::json& json);

}  // namespace keywise::console
