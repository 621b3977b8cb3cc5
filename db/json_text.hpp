// Parsing JSON text for the interchange reader: malformed text becomes an InputError with the line and
// column, and numbers beyond the range of a double become marked strings so the validator can name their
// JSON path (nlohmann's parser stops at them without saying where).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpuperf::db {

// Parses `text`; errors start with `source` ("runs.json:14:52: malformed JSON: ..."). Throws InputError.
// Keeps object keys in file order.
nlohmann::ordered_json parse_json_text(const std::string& text, const std::string& source);

// True for a value that stood for a number out of range; overflow_literal() gives its text ("1e999").
bool is_overflow(const nlohmann::ordered_json& v);
std::string overflow_literal(const nlohmann::ordered_json& v);

}  // namespace gpuperf::db
