#include "profiler/record/pm_sampling.hpp"

#include <algorithm>

namespace gpuperf::record {

namespace {
constexpr const char* kDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kSmActive = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kGpcClock = "gpc__cycles_elapsed.avg.per_second";
}  // namespace

const std::vector<PmMetric>& pm_metrics() {
  static const std::vector<PmMetric>* table = new std::vector<PmMetric>{
      {kTriageSm, "pm_sm_throughput", "%", 1.0},   {kTriageL1tex, "pm_l1tex_throughput", "%", 1.0},
      {kTriageLts, "pm_lts_throughput", "%", 1.0}, {kTriageDramc, "pm_dramc_throughput", "%", 1.0},
      {kDram, "pm_dram_throughput", "%", 1.0},     {kSmActive, "pm_sm_active", "%", 1.0},
      {kGpcClock, "pm_gpc_clock", "MHz", 1e-6},
  };
  return *table;
}

const PmMetric* find_pm_metric(const std::string& perfworks) {
  for (const PmMetric& m : pm_metrics()) {
    if (perfworks == m.perfworks) return &m;
  }
  return nullptr;
}

std::vector<std::string> choose_pm_metrics(const AcceptsMetric& accepts, const PassesOfList& passes) {
  const std::vector<std::vector<const char*>> sets = {
      {kTriageSm, kTriageL1tex, kTriageLts, kTriageDramc, kDram, kGpcClock},
      {kTriageLts, kTriageDramc, kDram, kGpcClock},
      {kDram, kSmActive, kGpcClock},
  };
  for (const auto& set : sets) {
    std::vector<std::string> kept;
    for (const char* m : set) {
      if (accepts(m)) kept.emplace_back(m);
    }
    if (!kept.empty() && kept.front() == set.front() && passes(kept) == 1) return kept;
  }
  return {};
}

PmWindow::Action PmWindow::before_launch() {
  if (state_ == State::open) {
    ++inside_;
    return Action::none;
  }
  if (state_ != State::waiting || !spec_.nvtx.empty() || seen_++ != spec_.launch_skip) return Action::none;
  if (spec_.launch_count == 0) {
    state_ = State::done;
    return Action::none;
  }
  state_ = State::open;
  ++inside_;
  return Action::open;
}

PmWindow::Action PmWindow::after_launch() {
  if (state_ != State::open || !spec_.nvtx.empty() || inside_ < spec_.launch_count) return Action::none;
  state_ = State::done;
  return Action::close;
}

PmWindow::Action PmWindow::on_push(const std::string& name, std::uint64_t thread, std::size_t depth) {
  if (state_ != State::waiting || spec_.nvtx.empty() || name != spec_.nvtx) return Action::none;
  state_ = State::open;
  thread_ = thread;
  depth_ = depth;
  return Action::open;
}

PmWindow::Action PmWindow::on_pop(std::uint64_t thread, std::size_t depth) {
  if (state_ != State::open || spec_.nvtx.empty() || thread != thread_ || depth != depth_) return Action::none;
  state_ = State::done;
  return Action::close;
}

PmWindow::Action PmWindow::force_close() {
  if (state_ == State::waiting) state_ = State::done;
  if (state_ != State::open) return Action::none;
  state_ = State::done;
  return Action::close;
}

}  // namespace gpuperf::record
