#include "console/http_types.h"

namespace keywise::console {

HttpResponse TextResponse(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

std::string DumpJson(const nlohmann::json& json) {
  std::string text =
      json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // "</" only occurs inside strings in JSON text; "<\/" is the same string.
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      out += '\\';
    }
  }
  return out;
}

HttpResponse JsonResponse(int status, const nlohmann::json& body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json; charset=utf-8";
  r.body = DumpJson(body);
  return r;
}

HttpResponse JsonError(int status, const std::string& message) {
  return JsonResponse(status, nlohmann::json{{"error", message}});
}

}  // namespace keywise::console
