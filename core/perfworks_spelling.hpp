// Perfworks names a chip spells its own way: the same counter under another name (GB202, GDDR7:
// dram__bytes_op_read.sum for dram__bytes_read.sum, as CUPTI 13.0's host API lists it). One table, read by the
// collector's metric resolution, `gpuperf metrics` and the injected library of `record --metrics` (which compiles
// this file alone, without the rest of core).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gpuperf {

// The other spellings of a Perfworks name of the traits table; empty for most names.
const std::vector<std::string>& perfworks_spellings(const std::string& perfworks_name);

// The name as the chip that `accepts` it spells it: `perfworks_name` when accepted, else its first other spelling
// the chip accepts, else `perfworks_name` unchanged (the chip lacks the counter; its refusal then says so).
std::string chip_spelling(const std::string& perfworks_name, const std::function<bool(const std::string&)>& accepts);

}  // namespace gpuperf
