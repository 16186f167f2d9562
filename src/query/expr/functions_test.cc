#include "query/expr/functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cql/parser.h"
#include "query/expr/functions_number.h"
#include "schema/number_codec.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

CqlTypePtr T(TypeKind k) {
  return CqlType::Of(k);
}
Value I(int32_t v) {
  return Value::Of(EncodeInt(v));
}
Value L(int64_t v) {
  return Value::Of(EncodeBigint(v));
}
Value D(double v) {
  return Value::Of(EncodeDouble(v));
}
Value Dec(const char* s) {
  return Value::Of(*DecimalFromString(s));
}
Value Vi(const char* s) {
  return Value::Of(*VarintFromDecimalString(s));
}

cql::QualifiedName N(const char* name) {
  return {"", name};
}

Result<Value> Call(const char* name, std::vector<CqlTypePtr> types,
                   std::vector<Value> args, int64_t now_micros = 0) {
  KW_ASSIGN_OR_RETURN(FunctionPtr f, ResolveFunction(N(name), types));
  if (f->IsAggregate()) return Status::Invalid("aggregate");
  return static_cast<const ScalarFunction&>(*f).Execute(
      args, FunctionContext{now_micros});
}

Value MustCall(const char* name, std::vector<CqlTypePtr> types,
               std::vector<Value> args) {
  Result<Value> r = Call(name, std::move(types), std::move(args));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Value::Null();
}

Value Aggregate(const char* name, CqlTypePtr type, std::vector<Value> rows) {
  Result<FunctionPtr> f = ResolveFunction(N(name), {type});
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  auto state = static_cast<const AggregateFunction&>(**f).NewState();
  for (const Value& v : rows) EXPECT_TRUE(state->Add({&v, 1}).ok());
  return *state->Compute();
}

std::string TextOf(const Value& v) {
  return v.bytes;
}

TEST(FunctionResolution, MessagesMatchCassandra) {
  EXPECT_EQ(ResolveFunction(N("nope"), {}).status().message(),
            "Unknown function nope");
  EXPECT_EQ(ResolveFunction(N("now"), {T(TypeKind::kInt)}).status().message(),
            "Invalid number of arguments in call to function system.now: 0 "
            "required but 1 provided");
  EXPECT_EQ(
      ResolveFunction(N("mintimeuuid"), {T(TypeKind::kInt)}).status().message(),
      "Type error: int cannot be passed as argument 0 of function "
      "system.mintimeuuid of type timestamp");
  EXPECT_EQ(
      ResolveFunction(N("totimestamp"), {T(TypeKind::kInt)}).status().message(),
      "Invalid call to function totimestamp, none of its type signatures "
      "match (known type signatures: system.totimestamp : (timeuuid) -> "
      "timestamp, system.totimestamp : (date) -> timestamp)");
  EXPECT_EQ(ResolveFunction(N("tounixtimestamp"), {nullptr}).status().message(),
            "Ambiguous call to function tounixtimestamp (can be matched by "
            "following signatures: system.tounixtimestamp : (timeuuid) -> "
            "bigint, system.tounixtimestamp : (timestamp) -> bigint, "
            "system.tounixtimestamp : (date) -> bigint): use type casts to "
            "disambiguate");
  Result<FunctionPtr> f =
      ResolveFunction({"system", "totimestamp"}, {T(TypeKind::kDate)});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->Signature(), "system.totimestamp : (date) -> timestamp");
  EXPECT_EQ((*f)->ColumnName({"d"}), "system.totimestamp(d)");
  EXPECT_FALSE(ResolveFunction({"ks", "now"}, {}).ok());
}

TEST(FunctionResolution, ValueCompatibleArguments) {
  // bigint is value-compatible with timestamp, ascii with text.
  EXPECT_TRUE(ResolveFunction(N("mintimeuuid"), {T(TypeKind::kBigint)}).ok());
  EXPECT_TRUE(ResolveFunction(N("textasblob"), {T(TypeKind::kAscii)}).ok());
  // Anything fits a blob parameter.
  EXPECT_TRUE(ResolveFunction(N("blobasint"), {T(TypeKind::kInt)}).ok());
  EXPECT_FALSE(ResolveFunction(N("intasblob"), {T(TypeKind::kBigint)}).ok());
}

TEST(TimeFunctions, NowAndCurrent) {
  // Time-based uuids never go back within a process: use a clock later
  // than any other test's.
  const int64_t now = 4102444800000000;  // 2100-01-01 00:00:00 UTC
  Value ts = *Call("currenttimestamp", {}, {}, now);
  EXPECT_EQ(*DecodeTimestamp(ts.bytes), now / 1000);
  Value date = *Call("currentdate", {}, {}, now);
  EXPECT_EQ(FormatValue(*T(TypeKind::kDate), date.bytes), "2100-01-01");
  Value time = *Call("currenttime", {}, {}, now + 3723000000);
  EXPECT_EQ(*DecodeTime(time.bytes), int64_t{3723} * 1000000000);
  Value u1 = *Call("now", {}, {}, now);
  Value u2 = *Call("currenttimeuuid", {}, {}, now);
  EXPECT_NE(u1, u2);
  EXPECT_EQ(Uuid::FromBytes(u1.bytes)->version(), 1);
  EXPECT_EQ(
      *DecodeBigint(
          MustCall("tounixtimestamp", {T(TypeKind::kTimeuuid)}, {u1}).bytes),
      now / 1000);
  EXPECT_EQ(Uuid::FromBytes(Call("uuid", {}, {})->bytes)->version(), 4);
  auto now_fn = ResolveFunction(N("now"), {});
  EXPECT_FALSE((*now_fn)->IsPure());
}

TEST(TimeFunctions, Conversions) {
  const int64_t millis = 1432206182000;  // 2015-05-21 11:03:02 UTC
  Value ts = Value::Of(EncodeTimestamp(millis));
  Value date = MustCall("todate", {T(TypeKind::kTimestamp)}, {ts});
  EXPECT_EQ(FormatValue(*T(TypeKind::kDate), date.bytes), "2015-05-21");
  Value back = MustCall("totimestamp", {T(TypeKind::kDate)}, {date});
  EXPECT_EQ(*DecodeTimestamp(back.bytes), 1432166400000);
  EXPECT_EQ(
      *DecodeBigint(
          MustCall("tounixtimestamp", {T(TypeKind::kDate)}, {date}).bytes),
      1432166400000);
  EXPECT_EQ(
      *DecodeBigint(
          MustCall("tounixtimestamp", {T(TypeKind::kTimestamp)}, {ts}).bytes),
      millis);

  Value min = MustCall("mintimeuuid", {T(TypeKind::kTimestamp)}, {ts});
  Value max = MustCall("maxtimeuuid", {T(TypeKind::kTimestamp)}, {ts});
  Uuid umin = *Uuid::FromBytes(min.bytes), umax = *Uuid::FromBytes(max.bytes);
  EXPECT_EQ(umin.version(), 1);
  EXPECT_EQ(umin.Timestamp100ns() + 9999, umax.Timestamp100ns());
  EXPECT_EQ(umin.ToString().substr(19), "8080-808080808080");
  EXPECT_EQ(umax.ToString().substr(19), "7f7f-7f7f7f7f7f7f");
  for (const char* f : {"totimestamp", "dateof"}) {
    EXPECT_EQ(
        *DecodeTimestamp(MustCall(f, {T(TypeKind::kTimeuuid)}, {min}).bytes),
        millis);
  }
  EXPECT_EQ(
      *DecodeBigint(
          MustCall("unixtimestampof", {T(TypeKind::kTimeuuid)}, {max}).bytes),
      millis);
  EXPECT_EQ(
      FormatValue(*T(TypeKind::kDate),
                  MustCall("todate", {T(TypeKind::kTimeuuid)}, {max}).bytes),
      "2015-05-21");
  // Null and empty in, null out.
  EXPECT_TRUE(
      MustCall("todate", {T(TypeKind::kTimestamp)}, {Value::Null()}).is_null());
  EXPECT_TRUE(
      MustCall("todate", {T(TypeKind::kTimestamp)}, {Value::Of("")}).is_null());
}

TEST(BlobFunctions, RoundTripAndValidation) {
  EXPECT_EQ(MustCall("intasblob", {T(TypeKind::kInt)}, {I(7)}), I(7));
  EXPECT_EQ(MustCall("blobasint", {T(TypeKind::kBlob)}, {I(7)}), I(7));
  EXPECT_EQ(Call("blobasint", {T(TypeKind::kBlob)}, {Value::Of("\x01\x02")})
                .status()
                .message(),
            "In call to function blobasint, value 0x0102 is not a valid binary "
            "representation for type int");
  for (const char* name :
       {"textasblob", "blobastext", "varcharasblob", "blobasvarchar",
        "timeuuidasblob", "blobasdate", "counterasblob", "durationasblob"}) {
    EXPECT_TRUE(ResolveFunction(N(name), {nullptr}).ok()) << name;
  }
  EXPECT_FALSE(ResolveFunction(N("blobasblob"), {nullptr}).ok());
}

TEST(CastFunctions, NumericAsJava) {
  FunctionPtr f = FindCastFunction(*T(TypeKind::kDouble), *T(TypeKind::kInt));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->ColumnName({"f"}), "cast(f as int)");
  auto cast = [](TypeKind from, TypeKind to, Value v) {
    FunctionPtr fn = FindCastFunction(*T(from), *T(to));
    EXPECT_NE(fn, nullptr);
    return *static_cast<const ScalarFunction&>(*fn).Execute({&v, 1}, {});
  };
  EXPECT_EQ(cast(TypeKind::kDouble, TypeKind::kInt, D(6.3)), I(6));
  EXPECT_EQ(cast(TypeKind::kDouble, TypeKind::kInt, D(1e20)),
            I(std::numeric_limits<int32_t>::max()));
  EXPECT_EQ(cast(TypeKind::kDouble, TypeKind::kBigint, D(std::nan(""))), L(0));
  EXPECT_EQ(cast(TypeKind::kInt, TypeKind::kTinyint, I(300)),
            Value::Of(EncodeTinyint(44)));
  EXPECT_EQ(cast(TypeKind::kInt, TypeKind::kDecimal, I(1)), Dec("1.0"));
  EXPECT_EQ(
      cast(TypeKind::kFloat, TypeKind::kDecimal, Value::Of(EncodeFloat(5.2f))),
      Dec("5.199999809265137"));
  EXPECT_EQ(cast(TypeKind::kDecimal, TypeKind::kInt, Dec("6.9")), I(6));
  EXPECT_EQ(cast(TypeKind::kDecimal, TypeKind::kDouble, Dec("6.3")), D(6.3));
  EXPECT_EQ(
      cast(TypeKind::kVarint, TypeKind::kBigint, Vi("18446744073709551617")),
      L(1));
  EXPECT_EQ(cast(TypeKind::kCounter, TypeKind::kVarint, L(-5)), Vi("-5"));
  EXPECT_EQ(FindCastFunction(*T(TypeKind::kInt), *T(TypeKind::kBoolean)),
            nullptr);
  EXPECT_EQ(FindCastFunction(*T(TypeKind::kInt), *T(TypeKind::kInt)), nullptr);
}

TEST(CastFunctions, ToText) {
  auto text = [](TypeKind from, Value v) {
    FunctionPtr fn = FindCastFunction(*T(from), *T(TypeKind::kVarchar));
    EXPECT_NE(fn, nullptr);
    return TextOf(
        *static_cast<const ScalarFunction&>(*fn).Execute({&v, 1}, {}));
  };
  EXPECT_EQ(text(TypeKind::kFloat, Value::Of(EncodeFloat(5.2f))), "5.2");
  EXPECT_EQ(text(TypeKind::kDouble, D(6.3)), "6.3");
  EXPECT_EQ(text(TypeKind::kDouble, D(6.0)), "6.0");
  EXPECT_EQ(text(TypeKind::kDouble, D(1e10)), "1.0E10");
  EXPECT_EQ(text(TypeKind::kDouble, D(0.0001)), "1.0E-4");
  EXPECT_EQ(text(TypeKind::kDouble, D(1234567.5)), "1234567.5");
  EXPECT_EQ(text(TypeKind::kDecimal, Dec("6.30")), "6.30");
  EXPECT_EQ(text(TypeKind::kVarint, Vi("-12345678901234567890")),
            "-12345678901234567890");
  EXPECT_EQ(text(TypeKind::kBoolean, Value::Of(EncodeBoolean(true))), "true");
  EXPECT_EQ(text(TypeKind::kInet, Value::Of(*EncodeInet("127.0.0.1"))),
            "127.0.0.1");
  EXPECT_EQ(text(TypeKind::kInet, Value::Of(*EncodeInet("::1"))),
            "0:0:0:0:0:0:0:1");
  EXPECT_EQ(
      text(TypeKind::kTimestamp, Value::Of(EncodeTimestamp(1432206182000))),
      "2015-05-21T11:03:02.000Z");
  EXPECT_EQ(text(TypeKind::kDate, Value::Of(EncodeDate(16576))), "2015-05-21");
  EXPECT_EQ(
      text(TypeKind::kTime, Value::Of(EncodeTime(int64_t{39782} * 1000000000))),
      "11:03:02.000000000");
  EXPECT_EQ(text(TypeKind::kAscii, Value::Of("abc")), "abc");
}

TEST(Aggregates, IntegralSumWrapsAndAvgTruncates) {
  CqlTypePtr i = T(TypeKind::kInt);
  EXPECT_EQ(Aggregate("sum", i, {I(2147483647), I(1)}), I(-2147483647 - 1));
  EXPECT_EQ(Aggregate("avg", i, {I(2147483647), I(2147483647)}), I(2147483647));
  EXPECT_EQ(Aggregate("avg", i, {I(1), I(2)}), I(1));
  EXPECT_EQ(Aggregate("avg", i, {I(-1), I(-2)}), I(-1));
  EXPECT_EQ(Aggregate("avg", i, {}), I(0));
  EXPECT_EQ(Aggregate("sum", i, {}), I(0));
  EXPECT_EQ(Aggregate("sum", i, {I(3), Value::Null(), I(4)}), I(7));
  CqlTypePtr l = T(TypeKind::kBigint);
  int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Aggregate("avg", l, {L(max), L(max), L(max)}), L(max));
  EXPECT_EQ(Aggregate("sum", l, {L(max), L(1)}),
            L(std::numeric_limits<int64_t>::min()));
  CqlTypePtr t = T(TypeKind::kTinyint);
  EXPECT_EQ(
      Aggregate("sum", t,
                {Value::Of(EncodeTinyint(100)), Value::Of(EncodeTinyint(100))}),
      Value::Of(EncodeTinyint(-56)));
  EXPECT_EQ(
      Aggregate("avg", t,
                {Value::Of(EncodeTinyint(100)), Value::Of(EncodeTinyint(100))}),
      Value::Of(EncodeTinyint(100)));
  EXPECT_EQ(Aggregate("sum", T(TypeKind::kCounter), {L(2), L(3)}), L(5));
}

TEST(Aggregates, FloatingDecimalVarint) {
  CqlTypePtr d = T(TypeKind::kDouble);
  EXPECT_EQ(Aggregate("sum", d, {D(0.1), D(0.2), D(0.3)}), D(0.6));
  EXPECT_EQ(Aggregate("avg", d, {D(1), D(2)}), D(1.5));
  EXPECT_EQ(Aggregate("avg", d, {D(1.7e308), D(1.7e308)}), D(1.7e308));
  EXPECT_EQ(Aggregate("avg", d, {}), D(0));
  CqlTypePtr dec = T(TypeKind::kDecimal);
  EXPECT_EQ(Aggregate("sum", dec, {Dec("1.5"), Dec("2.25")}), Dec("3.75"));
  EXPECT_EQ(Aggregate("avg", dec, {Dec("1.0"), Dec("2.0")}), Dec("1.5"));
  // Cassandra's incremental average rounds HALF_EVEN at the input scale.
  EXPECT_EQ(Aggregate("avg", dec, {Dec("1"), Dec("2")}), Dec("1"));
  EXPECT_EQ(Aggregate("avg", dec, {}), Dec("0"));
  CqlTypePtr v = T(TypeKind::kVarint);
  EXPECT_EQ(Aggregate("sum", v, {Vi("18446744073709551615"), Vi("1")}),
            Vi("18446744073709551616"));
  EXPECT_EQ(Aggregate("avg", v, {Vi("-7"), Vi("2")}), Vi("-2"));
}

TEST(Aggregates, CountMinMax) {
  CqlTypePtr text = T(TypeKind::kVarchar);
  std::vector<Value> rows = {Value::Of("b"), Value::Null(), Value::Of("a"),
                             Value::Of("c")};
  EXPECT_EQ(Aggregate("count", text, rows), L(3));
  EXPECT_EQ(Aggregate("min", text, rows), Value::Of("a"));
  EXPECT_EQ(Aggregate("max", text, rows), Value::Of("c"));
  EXPECT_TRUE(Aggregate("max", text, {}).is_null());
  EXPECT_EQ(Aggregate("max", T(TypeKind::kInt), {I(-5), I(3), I(-7)}), I(3));
  auto count = CountRowsFunction();
  EXPECT_EQ(count->ColumnName({}), "count");
  auto state = static_cast<const AggregateFunction&>(*count).NewState();
  EXPECT_EQ(*state->Compute(), L(0));
  ASSERT_TRUE(state->Add({}).ok());
  EXPECT_EQ(*state->Compute(), L(1));
  Result<FunctionPtr> c = ResolveFunction(N("count"), {T(TypeKind::kInt)});
  EXPECT_EQ((*c)->ColumnName({"v"}), "system.count(v)");
}

TEST(TokenFunction, MatchesCassandra) {
  TableDef table;
  table.keyspace = "ks";
  table.name = "t";
  table.columns.push_back(ColumnDef{"k", T(TypeKind::kInt),
                                    ColumnKind::kPartitionKey, 0,
                                    SortOrder::kAsc, 0});
  FunctionPtr f = MakeTokenFunction(table);
  Value one = I(1);
  EXPECT_EQ(*static_cast<const ScalarFunction&>(*f).Execute({&one, 1}, {}),
            L(-4069959284402364209));
  EXPECT_EQ(f->ColumnName({"k"}), "system.token(k)");
}

// The first value term of an INSERT, parsed.
cql::Term ParseValue(const std::string& value_text) {
  auto st =
      cql::ParseStatement("INSERT INTO t (k) VALUES (" + value_text + ")");
  EXPECT_TRUE(st.ok()) << st.status().ToString();
  return std::get<cql::InsertStatement>(*st).values.at(0);
}

TEST(FunctionCallTerms, FoldsPureCallsWithConstants) {
  ColumnSpec receiver{"ks", "t", "t", T(TypeKind::kTimeuuid)};
  BindSpecs binds;
  auto term = PrepareFunctionCallTerm(
      ParseValue("maxTimeuuid('2013-01-01 00:05+0000')"), receiver, &binds);
  ASSERT_TRUE(term.ok()) << term.status().ToString();
  EXPECT_TRUE((*term)->IsConstant());
  Value v = *(*term)->Evaluate({});
  EXPECT_EQ(Uuid::FromBytes(v.bytes)->UnixMillis(), 1356998700000);

  auto now = PrepareFunctionCallTerm(ParseValue("now()"), receiver, &binds);
  ASSERT_TRUE(now.ok());
  EXPECT_FALSE((*now)->IsConstant());

  ColumnSpec ts{"ks", "t", "ts", T(TypeKind::kTimestamp)};
  auto nested =
      PrepareFunctionCallTerm(ParseValue("toTimestamp(now())"), ts, &binds);
  ASSERT_TRUE(nested.ok()) << nested.status().ToString();
  // (Time-based uuids never go back in a process: use a later clock.)
  EXPECT_EQ(
      *DecodeTimestamp(
          (*nested)->Evaluate(EvalContext{nullptr, 4133980800000000})->bytes),
      4133980800000);
  ColumnSpec big{"ks", "t", "b", T(TypeKind::kBigint)};
  EXPECT_TRUE(
      PrepareFunctionCallTerm(ParseValue("toUnixTimestamp(now())"), big, &binds)
          .ok());
}

TEST(FunctionCallTerms, Errors) {
  BindSpecs binds;
  ColumnSpec text{"ks", "t", "v", T(TypeKind::kVarchar)};
  // Overloads are filtered by return type first (FunctionResolver).
  EXPECT_EQ(PrepareFunctionCallTerm(ParseValue("toUnixTimestamp(now())"), text,
                                    &binds)
                .status()
                .message(),
            "Invalid call to function tounixtimestamp, none of its type "
            "signatures match (known type signatures: system.tounixtimestamp : "
            "(timeuuid) -> bigint, system.tounixtimestamp : (timestamp) -> "
            "bigint, system.tounixtimestamp : (date) -> bigint)");
  EXPECT_EQ(PrepareFunctionCallTerm(ParseValue("intAsBlob(1)"), text, &binds)
                .status()
                .message(),
            "Type error: cannot assign result of function system.intasblob "
            "(type blob) to v (type text)");
  EXPECT_EQ(PrepareFunctionCallTerm(ParseValue("foo(1)"), text, &binds)
                .status()
                .message(),
            "Unknown function foo called");
  ColumnSpec i{"ks", "t", "v", T(TypeKind::kInt)};
  EXPECT_EQ(PrepareFunctionCallTerm(ParseValue("max(1)"), i, &binds)
                .status()
                .message(),
            "Aggregation function are not supported in the where clause");
  EXPECT_EQ(PrepareFunctionCallTerm(ParseValue("blobAsInt('a')"), i, &binds)
                .status()
                .message(),
            "Type error: 'a' cannot be passed as argument 0 of function "
            "system.blobasint of type blob");
}

TEST(FunctionCallTerms, MarkersAndUnset) {
  BindSpecs binds(1);
  ColumnSpec i{"ks", "t", "k", T(TypeKind::kInt)};
  auto term = PrepareFunctionCallTerm(ParseValue("blobAsInt(?)"), i, &binds);
  ASSERT_TRUE(term.ok()) << term.status().ToString();
  EXPECT_EQ(binds[0].name, "arg0(system.blobasint)");
  EXPECT_EQ(binds[0].type->kind(), TypeKind::kBlob);
  QueryOptions options;
  options.values = {Value::Unset()};
  EXPECT_EQ((*term)->Evaluate(EvalContext{&options, 0}).status().message(),
            "Invalid unset value for argument in call to function blobasint");
  options.values = {I(9)};
  EXPECT_EQ(*(*term)->Evaluate(EvalContext{&options, 0}), I(9));
  options.values = {Value::Null()};
  EXPECT_TRUE((*term)->Evaluate(EvalContext{&options, 0})->is_null());
}

TEST(JavaNumbers, ToString) {
  EXPECT_EQ(JavaDoubleToString(1.0), "1.0");
  EXPECT_EQ(JavaDoubleToString(-0.0), "-0.0");
  EXPECT_EQ(JavaDoubleToString(100.0), "100.0");
  EXPECT_EQ(JavaDoubleToString(1e7), "1.0E7");
  EXPECT_EQ(JavaDoubleToString(0.001), "0.001");
  EXPECT_EQ(JavaDoubleToString(1.5e-7), "1.5E-7");
  EXPECT_EQ(JavaDoubleToString(INFINITY), "Infinity");
  EXPECT_EQ(JavaFloatToString(0.1f), "0.1");
  EXPECT_EQ(BigInt::FromVarint(BigInt::FromInt64(-129).ToVarint()).LowInt64(),
            -129);
  EXPECT_EQ(BigInt::FromInt64(-128).ToVarint(), std::string("\x80", 1));
  EXPECT_EQ(BigInt::FromInt64(128).ToVarint(), std::string("\x00\x80", 2));
}

}  // namespace
}  // namespace keywise::query
