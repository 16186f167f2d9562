#include "protocol/schema_change.h"

namespace keywise::protocol {
namespace {

bool HasName(const std::string& target) { return target != "KEYSPACE"; }
bool HasArguments(const std::string& target) {
  return target == "FUNCTION" || target == "AGGREGATE";
}

}  // namespace

void WriteSchemaChange(const SchemaChange& c, BodyWriter* out) {
  out->WriteReplyString(c.change);
  out->WriteReplyString(c.target);
  out->WriteReplyString(c.keyspace);
  if (!HasName(c.target)) return;
  out->WriteReplyString(c.name);
  if (HasArguments(c.target)) out->WriteReplyStringList(c.arg_types);
}

Status ReadSchemaChange(BodyReader* in, SchemaChange* c) {
  KW_RETURN_IF_ERROR(in->ReadString(&c->change));
  KW_RETURN_IF_ERROR(in->ReadString(&c->target));
  KW_RETURN_IF_ERROR(in->ReadString(&c->keyspace));
  if (!HasName(c->target)) return Status::OK();
  KW_RETURN_IF_ERROR(in->ReadString(&c->name));
  if (HasArguments(c->target)) {
    KW_RETURN_IF_ERROR(in->ReadStringList(&c->arg_types));
  }
  return Status::OK();
}

}  // namespace keywise::protocol
