#include "cluster/view_backlog_table.h"

#include <map>
#include <vector>

#include "schema/value_codec.h"

namespace keywise::cluster {

ViewBacklogTable::ViewBacklogTable(Engine* engine,
                                   const PairedViewRouter* router,
                                   const HintStore* hints, std::string host_id,
                                   std::chrono::milliseconds period)
    : router_(router),
      hints_(hints),
      host_id_(std::move(host_id)),
      table_(engine, "view_backlog") {
  task_.Start("views", "Cannot write system_views.view_backlog",
              std::chrono::milliseconds(0), period,
              [this](bool*) { return Publish(); });
}

Status ViewBacklogTable::Publish() {
  const ViewBacklog b = router_->backlog();
  system::SchemaRow row;
  row.cells = {{"updates_in_flight", EncodeBigint(b.updates)},
               {"bytes_in_flight", EncodeBigint(b.bytes)},
               {"limit_bytes", EncodeBigint(b.limit_bytes)},
               {"writes_slowed", EncodeBigint(b.slowed_writes)},
               {"hints_pending", EncodeBigint(hints_->pending())}};
  return table_.Publish({{host_id_, {row}}});
}

}  // namespace keywise::cluster
