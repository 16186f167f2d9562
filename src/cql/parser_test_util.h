// Test helpers for parser tests: parse one statement and unwrap its kind.
//
// Contract: test-only; failures are reported through GoogleTest and yield a
// default-constructed statement so tests keep running.
#pragma once

#include <gtest/gtest.h>

#include <string_view>

#include "cql/parser.h"

namespace keywise::cql {

template <typename T>
T ParseAs(std::string_view text) {
  auto r = ParseStatement(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  if (!r.ok()) return T{};
  const T* s = std::get_if<T>(&*r);
  EXPECT_NE(s, nullptr) << text << ": wrong statement kind " << r->index();
  return s ? *s : T{};
}

// Returns the error message, or "" (with a test failure) if it parsed.
inline std::string ParseError(std::string_view text) {
  auto r = ParseStatement(text);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), ErrorCode::kSyntaxError) << text;
  return r.status().message();
}

}  // namespace keywise::cql
