#include "core/perfworks_spelling.hpp"

#include <map>

namespace gpuperf {

const std::vector<std::string>& perfworks_spellings(const std::string& perfworks_name) {
  static const std::map<std::string, std::vector<std::string>> spellings{
      {"dram__bytes_read.sum", {"dram__bytes_op_read.sum"}},
      {"dram__bytes_write.sum", {"dram__bytes_op_write.sum"}},
  };
  static const std::vector<std::string> none;
  const auto it = spellings.find(perfworks_name);
  return it == spellings.end() ? none : it->second;
}

std::string chip_spelling(const std::string& perfworks_name, const std::function<bool(const std::string&)>& accepts) {
  const auto& others = perfworks_spellings(perfworks_name);
  if (others.empty() || accepts(perfworks_name)) return perfworks_name;
  for (const std::string& other : others) {
    if (accepts(other)) return other;
  }
  return perfworks_name;
}

}  // namespace gpuperf
