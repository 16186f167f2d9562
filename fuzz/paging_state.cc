// Fuzz target: the paging state a client sends back (query/exec/
// paging_state.h), decoded as the SELECT executor decodes it: the bytes
// alone, then checked against a table (PagingState::DecodeFor).
//
// Input: byte 0 picks the table (fuzz_tables.h); the rest is the paging
// state. Checks too that a state that decodes encodes back to the same
// bytes (the format has one spelling of each state).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_tables.h"
#include "query/exec/paging_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace keywise;
  if (size < 1) return 0;
  const TableDefPtr table = fuzz::FuzzTable(1 + data[0] % fuzz::kFuzzTableCount);
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);

  Result<query::PagingState> state = query::PagingState::Decode(in);
  if (state.ok() && state->Encode() != in) __builtin_trap();
  Result<query::PagingState> checked = query::PagingState::DecodeFor(*table, in);
  if (checked.ok() && !state.ok()) __builtin_trap();
  return 0;
}
