// `keywise advise --keyspace K --table T --key KEY` (docs/advisor.md): reads
// a sample of the table's rows and where its tablets are, and prints how
// today's key and the proposed one (advisor/key_what_if.h) spread rows and
// recent writes over nodes and tablets.
//
// The sample holds whole partitions of today's key: every row whose token
// falls in 64 slices spread evenly over the ring, each covering the same
// share of its 64th. The share starts at all of it and shrinks until the
// sample holds at most `max_rows` rows (each pass stops reading once it
// holds more). Recent writes are the newest 10%
// of the sampled rows by the write time of the table's first regular
// column (every row, when it has none). Placement is the table's tablets
// and replicas from system.tablets; against a node that is not part of a
// multi-node cluster, 12 equal tablets on 3 simulated nodes.
//
// Contract: returns the report, or the reason there is none (a query's
// error, an unknown table, a proposed column the table does not have or
// that cannot be a key column).
#pragma once

#include <cstdint>
#include <string>

#include "client/session.h"
#include "common/status.h"

namespace keywise {

Result<std::string> KeyWhatIfReport(client::Session& session,
                                    const std::string& keyspace,
                                    const std::string& table,
                                    const std::string& key,
                                    uint64_t max_rows);

}  // namespace keywise
