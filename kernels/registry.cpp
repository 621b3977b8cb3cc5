#include <regex>
#include <set>

#include "core/errors.hpp"
#include "kernels/benchmark.hpp"

namespace gpuperf {

std::string Benchmark::family() const { return name.substr(0, name.find('/')); }
std::string Benchmark::variant() const {
  auto slash = name.find('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

Registry& Registry::global() {
  static Registry registry;
  return registry;
}

namespace {
void validate_name(const std::string& name) {
  const auto slash = name.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == name.size() ||
      name.find('/', slash + 1) != std::string::npos) {
    throw InputError("benchmark name '" + name + "' must have the form family/variant");
  }
  for (char c : name) {
    if (c == '[' || c == ']' || c == ',' || c == '=' || c == ' ') {
      throw InputError("benchmark name '" + name + "' may not contain '" + std::string(1, c) + "'");
    }
  }
}
}  // namespace

const Benchmark& Registry::add(Benchmark b) {
  validate_name(b.name);
  if (find(b.name) != nullptr) throw InputError("benchmark '" + b.name + "' is registered twice");
  if (!b.make) throw InputError("benchmark '" + b.name + "' has no workload factory");
  std::set<std::string> axis_names;
  for (const auto& axis : b.axes) {
    if (axis.values.empty()) throw InputError("benchmark '" + b.name + "': axis '" + axis.name + "' has no values");
    if (!axis_names.insert(axis.name).second) {
      throw InputError("benchmark '" + b.name + "': axis '" + axis.name + "' is declared twice");
    }
  }
  benchmarks_.push_back(std::make_unique<Benchmark>(std::move(b)));
  return *benchmarks_.back();
}

BenchmarkBuilder& Registry::builder(std::string name,
                                    std::function<std::unique_ptr<Workload>(const Params&, std::uint64_t)> make) {
  Benchmark b;
  b.name = std::move(name);
  b.make = std::move(make);
  auto& added = const_cast<Benchmark&>(add(std::move(b)));
  builders_.push_back(std::make_unique<BenchmarkBuilder>(added));
  return *builders_.back();
}

BenchmarkBuilder& Registry::builder_at(std::string name,
                                       std::function<std::unique_ptr<Workload>(const Params&, std::uint64_t)> make,
                                       const char* file, int line) noexcept {
  const std::string where = std::string(file != nullptr ? file : "?") + ":" + std::to_string(line);
  try {
    if (const Benchmark* first = find(name); first != nullptr) {
      throw InputError("benchmark '" + name + "' is registered twice: at " + where + " and, first, at " +
                       (first->source.empty() ? std::string("gpuperf's built-in suite") : first->source));
    }
    BenchmarkBuilder& b = builder(name, std::move(make));
    const_cast<Benchmark&>(b.benchmark()).source = where;
    return b;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (msg.find(where) == std::string::npos) msg = where + ": " + msg;
    errors_.push_back(std::move(msg));
  }
  // The registration's chained calls still need something to edit.
  rejected_.push_back(std::make_unique<Benchmark>());
  rejected_.back()->name = std::move(name);
  builders_.push_back(std::make_unique<BenchmarkBuilder>(*rejected_.back()));
  return *builders_.back();
}

std::vector<const Benchmark*> Registry::benchmarks() const {
  std::vector<const Benchmark*> out;
  out.reserve(benchmarks_.size());
  for (const auto& b : benchmarks_) out.push_back(b.get());
  return out;
}

const Benchmark* Registry::find(const std::string& name) const {
  for (const auto& b : benchmarks_) {
    if (b->name == name) return b.get();
  }
  return nullptr;
}

std::vector<InstanceRef> Registry::instances(const std::string& filter) const {
  std::regex re;
  if (!filter.empty()) {
    try {
      re = std::regex(filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw InputError("--filter '" + filter + "' is not a valid regular expression: " + e.what());
    }
  }
  std::vector<InstanceRef> out;
  for (const auto& b : benchmarks_) {
    if (filter.empty() && !b->in_default_suite) continue;
    // Cross product of the axes, the first axis varying slowest.
    std::vector<Params> points{Params{}};
    for (const auto& axis : b->axes) {
      std::vector<Params> next;
      next.reserve(points.size() * axis.values.size());
      for (const auto& p : points) {
        for (const auto& v : axis.values) {
          Params q = p;
          q[axis.name] = v;
          next.push_back(std::move(q));
        }
      }
      points = std::move(next);
    }
    for (auto& p : points) {
      InstanceRef ref{b.get(), std::move(p)};
      if (filter.empty() || std::regex_search(ref.instance().display_name(), re)) out.push_back(std::move(ref));
    }
  }
  return out;
}

BenchmarkBuilder& BenchmarkBuilder::description(std::string text) {
  b_.description = std::move(text);
  return *this;
}
BenchmarkBuilder& BenchmarkBuilder::baseline(std::string benchmark_name) {
  b_.baseline = std::move(benchmark_name);
  return *this;
}
BenchmarkBuilder& BenchmarkBuilder::axis(std::string name, std::vector<std::int64_t> values) {
  Axis a{std::move(name), {}};
  for (auto v : values) a.values.emplace_back(v);
  if (a.values.empty()) throw InputError("benchmark '" + b_.name + "': axis '" + a.name + "' has no values");
  b_.axes.push_back(std::move(a));
  return *this;
}
BenchmarkBuilder& BenchmarkBuilder::string_axis(std::string name, std::vector<std::string> values) {
  Axis a{std::move(name), {}};
  for (auto& v : values) a.values.emplace_back(std::move(v));
  if (a.values.empty()) throw InputError("benchmark '" + b_.name + "': axis '" + a.name + "' has no values");
  b_.axes.push_back(std::move(a));
  return *this;
}
BenchmarkBuilder& BenchmarkBuilder::bytes(std::function<double(const Params&)> f) {
  b_.bytes = std::move(f);
  return *this;
}
BenchmarkBuilder& BenchmarkBuilder::flops(std::function<double(const Params&)> f) {
  b_.flops = std::move(f);
  return *this;
}
BenchmarkBuilder& BenchmarkBuilder::not_idempotent() {
  b_.idempotent = false;
  return *this;
}
BenchmarkBuilder& BenchmarkBuilder::opt_in() {
  b_.in_default_suite = false;
  return *this;
}

}  // namespace gpuperf
