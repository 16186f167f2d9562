#include "cql/literal_scan.h"

#include "cql/char_class.h"

namespace keywise::cql {
namespace {

char At(std::string_view text, size_t i) {
  return i < text.size() ? text[i] : '\0';
}
size_t SkipDigits(std::string_view text, size_t p) {
  while (IsDigit(At(text, p))) ++p;
  return p;
}

// Consumes "<digits><unit>" groups whose units appear in `units` (three
// designators, in order). Returns false on a digit run with a bad unit.
bool Designators(std::string_view text, size_t& at, const char* units,
                 bool* any) {
  int unit_index = 0;
  while (IsDigit(At(text, at))) {
    size_t e = SkipDigits(text, at);
    while (unit_index < 3 && units[unit_index] != At(text, e)) ++unit_index;
    if (unit_index == 3) return false;
    ++unit_index;
    at = e + 1;
    *any = true;
  }
  return true;
}

}  // namespace

size_t ScanUuid(std::string_view text, size_t p) {
  static constexpr int kGroups[] = {8, 4, 4, 4, 12};
  size_t q = p;
  for (int g = 0; g < 5; ++g) {
    if (g > 0) {
      if (At(text, q) != '-') return 0;
      ++q;
    }
    for (int i = 0; i < kGroups[g]; ++i, ++q) {
      if (!IsHex(At(text, q))) return 0;
    }
  }
  if (IsIdentChar(At(text, q))) return 0;
  return q - p;
}

size_t ScanDurationUnit(std::string_view text, size_t p) {
  char a = Lower(At(text, p));
  char b = Lower(At(text, p + 1));
  if (a == 'm' && (b == 'o' || b == 's')) return 2;
  if ((a == 'u' || a == 'n') && b == 's') return 2;
  if (static_cast<unsigned char>(At(text, p)) == 0xC2 &&
      static_cast<unsigned char>(At(text, p + 1)) == 0xB5 &&
      Lower(At(text, p + 2)) == 's') {
    return 3;  // µs (MICRO SIGN in UTF-8)
  }
  if (a == 'y' || a == 'w' || a == 'd' || a == 'h' || a == 's' || a == 'm') {
    return 1;
  }
  return 0;
}

size_t ScanIsoDuration(std::string_view text, size_t p) {
  if (At(text, p) != 'P') return 0;
  size_t q = p + 1;
  auto word_end = [&](size_t e) { return !IsIdentChar(At(text, e)); };
  // P<digits>W
  if (IsDigit(At(text, q))) {
    size_t e = SkipDigits(text, q);
    if (At(text, e) == 'W' && word_end(e + 1)) return e + 1 - p;
  }
  // Alternative format PYYYY-MM-DDTHH:MM:SS.
  {
    const char* pat = "dddd-dd-ddTdd:dd:dd";
    size_t e = q;
    bool ok = true;
    for (const char* c = pat; *c; ++c, ++e) {
      if (*c == 'd' ? !IsDigit(At(text, e)) : At(text, e) != *c) {
        ok = false;
        break;
      }
    }
    if (ok && word_end(e)) return e - p;
  }
  bool any = false;
  if (!Designators(text, q, "YMD", &any)) return 0;
  if (At(text, q) == 'T') {
    ++q;
    bool any_time = false;
    if (!Designators(text, q, "HMS", &any_time) || !any_time) return 0;
    any = true;
  }
  if (!any || !word_end(q)) return 0;
  return q - p;
}

}  // namespace keywise::cql
