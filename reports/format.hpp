// Number, unit, date and sparkline formatting shared by the report writers. Deterministic (C locale,
// no clock), so golden outputs are stable.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/value_text.hpp"

namespace gpuperf::reports {

// One text of a metric value for every writer (core/value_text.hpp); the reports use its Unicode spelling.
using gpuperf::format_number;
using gpuperf::format_value;
using gpuperf::scale_for;
using gpuperf::UnitScale;
// "+12.3%", "-4.0%", "+0.0%" for a relative change given in percent.
std::string format_change_pct(double pct);
// "+1.6 ms", "-8 ms", "0 ns": a difference of a metric's values with its sign (none for 0), as format_value
// writes the value.
std::string format_signed_value(double v, const std::string& unit, UnitText text = UnitText::report);
// A change from `before` to `after` as the writers show it: format_change_pct of `pct`, or "new (was 0)"
// when `before` is 0 and a percentage means nothing.
std::string format_change(double before, double after, double pct);
// "4.29×" for a ratio.
std::string format_ratio(double r);
// A finding's state: "confirmed", or "unconfirmed (1 run)" while the runs after it are too few for the
// segmentation (analysis::ChangePoint::unconfirmed).
std::string format_state(bool unconfirmed, std::size_t runs_after);
// A team's answer to a finding (gpuperf ack), where the reports name it: "accepted: REASON" (the new level is the
// baseline) or "acknowledged: REASON".
std::string format_answer(bool accepted, const std::string& reason);
// What a finding of a counter that moved without a duration change says where hints go.
inline constexpr const char* kCounterOnly = "counter only: no duration change detected";
// Added to a counter-only finding whose metric is not in the default gate (analysis/gate.hpp): a nightly job
// lists it but does not fail on it.
inline constexpr const char* kNotGated = "; does not gate";

// The first 10 characters of a commit sha ("" stays "").
std::string short_commit(const std::string& sha);
// "2026-11-01 02:00" from "2026-11-01T02:00:00Z"; anything unparseable is returned as it is.
std::string format_datetime(const std::string& iso);
// "2026-11-01" from an ISO 8601 timestamp.
std::string format_date(const std::string& iso);

// A Unicode sparkline (▁▂▃▄▅▆▇█) of `values`, at most `width` characters: longer series are cut into
// `width` equal buckets, each drawn at its median. The drawn range spans at least 5% of the level, so noise
// stays low and a flat series sits at mid height.
std::string sparkline(const std::vector<double>& values, std::size_t width = 24);

}  // namespace gpuperf::reports
