// Scanners for the literal shapes whose extent needs lookahead: uuids,
// duration units and ISO 8601 durations. Internal to the lexer.
//
// Contract: pure functions over `text` starting at byte `p`; each returns
// the length of the match, or 0 when there is none. They never read past
// the end of `text`.
#pragma once

#include <cstddef>
#include <string_view>

namespace keywise::cql {

// 8-4-4-4-12 hex digits not followed by an identifier character.
size_t ScanUuid(std::string_view text, size_t p);

// One duration unit, case-insensitive: y mo w d h m s ms us µs ns.
size_t ScanDurationUnit(std::string_view text, size_t p);

// P1Y2M3DT4H5M6S, PT1H, P2W or P0001-02-03T04:05:06 (upper-case
// designators, as in Cassandra) spanning a whole word; p is at the 'P'.
size_t ScanIsoDuration(std::string_view text, size_t p);

}  // namespace keywise::cql
