// RunBench: the whole of `keywise bench`: creates the schema, prepares the
// statements, loads the rows a read or scan needs, runs the workload with a
// live progress line, and prints the report.
//
// Contract: blocking; call from a thread that is not a client io thread.
// Progress and diagnostics go to `err`, the report (text or JSON) to `out`.
// Returns the process exit status: 0 on a run without errors, 1 when the
// connection or the schema fails, 2 when some operations failed.
#pragma once

#include <cstdio>

#include "bench_tool/bench_options.h"

namespace keywise::bench {

int RunBench(const BenchOptions& options, std::FILE* out, std::FILE* err);

}  // namespace keywise::bench
