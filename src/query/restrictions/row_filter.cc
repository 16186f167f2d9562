#include "query/restrictions/row_filter.h"

#include <utility>

#include "query/restrictions/restriction_values.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

// Lexicographic comparison of the first n values in value order.
int CompareTuple(const std::vector<const ColumnDef*>& columns,
                 const std::vector<std::string>& a,
                 const std::vector<std::string>& b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    int c = CompareValues(*columns[i]->type, a[i], b[i]);
    if (c != 0) return c;
  }
  return 0;
}

}  // namespace

std::string RowFilter::Text() const {
  std::string out;
  for (const auto& r : checks_) {
    if (!out.empty()) out += " AND ";
    out += r->Text();
  }
  return out;
}

Result<BoundRowFilter> RowFilter::Bind(const EvalContext& ctx) const {
  BoundRowFilter out;
  for (const auto& r : checks_) {
    BoundRowFilter::Check c;
    c.r = r.get();
    switch (r->kind) {
      case RestrictionKind::kEq:
      case RestrictionKind::kIn: {
        KW_ASSIGN_OR_RETURN(c.values, EvaluateValues(*r, ctx));
        break;
      }
      case RestrictionKind::kSlice:
        if (r->lower.size > 0) {
          KW_ASSIGN_OR_RETURN(c.lower, EvaluateTuple(r->lower.value, r->columns,
                                                     r->lower.size, ctx));
        }
        if (r->upper.size > 0) {
          KW_ASSIGN_OR_RETURN(c.upper, EvaluateTuple(r->upper.value, r->columns,
                                                     r->upper.size, ctx));
        }
        break;
      case RestrictionKind::kContains: {
        const ColumnDef& name = r->first();
        for (const PreparedTerm& t : r->contains) {
          KW_ASSIGN_OR_RETURN(std::string v, EvaluateValue(t, name, ctx));
          c.contains.push_back(std::move(v));
        }
        for (const PreparedTerm& t : r->contains_key) {
          KW_ASSIGN_OR_RETURN(std::string v, EvaluateValue(t, name, ctx));
          c.contains_key.push_back(std::move(v));
        }
        for (const auto& [k, v] : r->entries) {
          KW_ASSIGN_OR_RETURN(std::string key, EvaluateValue(k, name, ctx));
          KW_ASSIGN_OR_RETURN(std::string value, EvaluateValue(v, name, ctx));
          c.entries.emplace_back(std::move(key), std::move(value));
        }
        break;
      }
    }
    out.checks_.push_back(std::move(c));
  }
  (void)table_;
  return out;
}

bool BoundRowFilter::Matches(const RowView& view) const {
  for (const Check& c : checks_) {
    if (!MatchesCheck(c, view)) return false;
  }
  return true;
}

bool BoundRowFilter::MatchesCheck(const Check& c, const RowView& view) const {
  const Restriction& r = *c.r;
  std::vector<std::string> row;
  row.reserve(r.columns.size());
  for (const ColumnDef* col : r.columns) {
    std::optional<std::string> v = ColumnValue(view, *col);
    if (!v) return false;
    row.push_back(std::move(*v));
  }
  switch (r.kind) {
    case RestrictionKind::kEq:
    case RestrictionKind::kIn:
      for (const auto& values : c.values) {
        if (CompareTuple(r.columns, row, values, values.size()) == 0) {
          return true;
        }
      }
      return false;
    case RestrictionKind::kSlice:
      if (r.lower.size > 0) {
        int cmp = CompareTuple(r.columns, row, c.lower, r.lower.size);
        if (r.lower.inclusive ? cmp < 0 : cmp <= 0) return false;
      }
      if (r.upper.size > 0) {
        int cmp = CompareTuple(r.columns, row, c.upper, r.upper.size);
        if (r.upper.inclusive ? cmp > 0 : cmp >= 0) return false;
      }
      return true;
    case RestrictionKind::kContains: {
      const CqlType& type = *r.first().type;
      const std::string& bytes = row[0];
      std::vector<std::string> elements;
      std::vector<std::pair<std::string, std::string>> entries;
      if (type.kind() == TypeKind::kMap) {
        auto m = DecodeMap(bytes);
        if (!m.ok()) return false;
        entries = std::move(*m);
      } else {
        auto l = type.kind() == TypeKind::kList ? DecodeList(bytes)
                                                : DecodeSet(bytes);
        if (!l.ok()) return false;
        elements = std::move(*l);
      }
      const CqlType& first = *type.params()[0];
      const CqlType& value_type =
          type.kind() == TypeKind::kMap ? *type.params()[1] : first;
      for (const std::string& want : c.contains) {
        bool found = false;
        for (const auto& e : elements) {
          found = found || CompareValues(value_type, e, want) == 0;
        }
        for (const auto& e : entries) {
          found = found || CompareValues(value_type, e.second, want) == 0;
        }
        if (!found) return false;
      }
      for (const std::string& want : c.contains_key) {
        bool found = false;
        for (const auto& e : entries) {
          found = found || CompareValues(first, e.first, want) == 0;
        }
        if (!found) return false;
      }
      for (const auto& [k, v] : c.entries) {
        bool found = false;
        for (const auto& e : entries) {
          found = found || (CompareValues(first, e.first, k) == 0 &&
                            CompareValues(value_type, e.second, v) == 0);
        }
        if (!found) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace keywise::query
