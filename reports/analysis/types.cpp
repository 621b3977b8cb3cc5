#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::same: return "same";
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::ambiguous: return "ambiguous";
    case Verdict::new_: return "new";
    case Verdict::missing: return "missing";
    case Verdict::failed: return "failed";
    case Verdict::not_enough_data: return "not enough data";
  }
  return "ambiguous";
}

const char* to_string(ChangeKind k) { return k == ChangeKind::regression ? "regression" : "improvement"; }

void add_note(CompareRow& row, const std::string& text) {
  if (text.empty()) return;
  if (!row.note.empty()) row.note += "; ";
  row.note += text;
}

}  // namespace gpuperf::analysis
