#include "cluster/messaging/responder.h"

#include <cassert>
#include <utility>

namespace keywise::cluster {

Responder::Responder(Responder&& other) noexcept
    : route_(std::move(other.route_)),
      request_id_(other.request_id_),
      verb_(other.verb_),
      expects_response_(other.expects_response_) {
  other.route_ = nullptr;
}

Responder& Responder::operator=(Responder&& other) noexcept {
  if (this != &other) {
    if (!answered()) {
      Answer(Status::ServerError("request dropped without an answer"));
    }
    route_ = std::move(other.route_);
    other.route_ = nullptr;
    request_id_ = other.request_id_;
    verb_ = other.verb_;
    expects_response_ = other.expects_response_;
  }
  return *this;
}

Responder::~Responder() {
  if (!answered()) {
    Answer(Status::ServerError("request dropped without an answer"));
  }
}

void Responder::Respond(std::string payload) {
  assert(!answered());
  if (answered()) return;
  Answer(std::move(payload));
}

void Responder::Fail(Status status) {
  assert(!answered());
  if (answered()) return;
  if (status.ok()) status = Status::ServerError("handler failed");
  Answer(std::move(status));
}

void Responder::Answer(Result<std::string> answer) {
  std::shared_ptr<AnswerRoute> route = std::move(route_);
  route_ = nullptr;
  route->Deliver(request_id_, verb_, expects_response_, std::move(answer));
}

}  // namespace keywise::cluster
