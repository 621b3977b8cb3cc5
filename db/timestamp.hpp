// ISO 8601 timestamps as the store keeps them: UTC, "2026-11-01T02:00:00Z" (optionally with a fraction of a
// second). One form everywhere means text order is time order in SQL.
#pragma once

#include <ctime>
#include <optional>
#include <string>

namespace gpuperf::db {

// Accepts YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM) and returns it in UTC with a "Z" (the fraction
// kept as written). nullopt when it is not such a timestamp or a field is out of range.
std::optional<std::string> normalize_timestamp(const std::string& text);

// True when `text` is already in the stored form (UTC, "Z").
bool is_normalized_timestamp(const std::string& text);

// Time order of two stored-form timestamps (<0, 0, >0). Not plain text order: "02:00:00.5Z" is after
// "02:00:00Z" though '.' sorts before 'Z'.
int compare_timestamps(const std::string& a, const std::string& b);

// `t` in the stored form, "2026-11-01T02:00:00Z".
std::string utc_timestamp(std::time_t t);

}  // namespace gpuperf::db
