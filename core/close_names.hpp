// "Did you mean ...?": the names closest to a mistyped one, for unknown metric names (profile --metrics)
// and for the CLI's unknown subcommands and options.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpuperf {

// Edits turning `a` into `b`: an inserted, deleted or replaced character, or two neighbouring characters
// swapped, each count one (optimal string alignment), so "reprot" is one edit from "report".
std::size_t edit_distance(const std::string& a, const std::string& b);

// Names from `candidates` closest to `name` (edit distance, then shared substrings), best first; none that
// differ in more than 60% of their characters.
std::vector<std::string> close_names(const std::string& name, const std::vector<std::string>& candidates,
                                     std::size_t max_results = 5);

// The candidates equally closest to `name` (usually one; several when they tie), in the order given;
// empty when none is within fewer edits than half the longer name. What git names after "The most similar
// command is".
std::vector<std::string> most_similar(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace gpuperf
