// A team's answers (db/answers.hpp) as JSON, one form for every output that carries them: `ack --list`,
// `annotate --list`, detect's JSON, the reports' JSON and the interchange file's optional
// "acknowledgements" and "annotations" arrays.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "db/answers.hpp"

namespace gpuperf::db {

// {"uuid", "machine", "benchmark", "params", "metric", "run", "commit", "reason", "link", "by", "at", "accepted",
//  "undone", and "undone_by", "undone_at" when undone}
nlohmann::json acknowledgement_json(const Acknowledgement& a);
nlohmann::json acknowledgements_json(const std::vector<Acknowledgement>& acks);
// {"uuid", "text", "by", "at", and "run" (uuid), or "commit", or "machine" (fingerprint) with "night"}
nlohmann::json annotation_json(const Annotation& n);
nlohmann::json annotations_json(const std::vector<Annotation>& notes);

// The interchange file's optional "acknowledgements" and "annotations" arrays read back (their JSON as above;
// "uuid", the references and the text or reason required), ids 0. InputError naming `source` and the JSON path
// ("runs.json: acknowledgements[2].reason: ...").
Answers answers_from_json(const nlohmann::ordered_json* acks, const nlohmann::ordered_json* notes,
                          const std::string& source);

}  // namespace gpuperf::db
