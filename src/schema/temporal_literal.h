// Parsers for the string forms of timestamp, date, time and duration values
// that Cassandra accepts in CQL literals.
//
// Contract: pure, thread-safe. Times without a zone are taken as UTC (Keywise
// servers run in UTC; Cassandra would use the server's zone). Errors are
// Status::Invalid with Cassandra's messages.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/status.h"
#include "schema/value_codec.h"

namespace keywise {

// "2019-03-04", "2019-03-04 07:01", "2019-03-04T07:01:05.123+0100", or a
// string of digits (millis). Returns Unix millis.
Result<int64_t> ParseTimestampString(std::string_view text);
// "2019-03-04" -> days since epoch; a string of digits is the raw unsigned
// value (epoch at 2^31), as in Cassandra.
Result<int32_t> ParseDateString(std::string_view text);
// "07:01:05[.fffffffff]" -> nanos since midnight; digits are raw nanos.
Result<int64_t> ParseTimeString(std::string_view text);
// "1h30m", "-2d", "P1Y2M3DT4H5M6S", "P2W", "P0001-02-03T04:05:06".
Result<CqlDuration> ParseDurationString(std::string_view text);

}  // namespace keywise
