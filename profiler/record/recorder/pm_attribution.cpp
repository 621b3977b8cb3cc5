#include "profiler/record/recorder/pm_attribution.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/metrics.hpp"
#include "profiler/record/pm_sampling.hpp"
#include "profiler/record/record_codec.hpp"

namespace gpuperf::record {

std::string parse_pm_line(char kind, std::string_view line, ProcessPm& pm) {
  switch (kind) {
    case kLineKind<PmMetricsLine>: {
      PmMetricsLine p;
      if (const char* why = decode(line, p)) return why;
      pm.metrics.insert(pm.metrics.end(), p.metrics.begin(), p.metrics.end());
      return pm.metrics.empty() ? "PM metrics line without metrics" : "";
    }
    case kLineKind<PmWindowRecord>: {
      PmWindowRecord w;
      if (const char* why = decode(line, w)) return why;
      pm.window = w;
      return "";
    }
    case kLineKind<PmSample>: {
      PmSample s;
      if (const char* why = decode(line, s)) return why;
      if (s.values.size() != pm.metrics.size()) return "PM sample values do not match the p line";
      pm.samples.push_back(std::move(s));
      return "";
    }
    default: return "not a PM sampling line";
  }
}

namespace {

// The device's launches that ran while the window was open, in start order, with the latest end so far.
struct Span {
  std::uint64_t start, end;
  LaunchRecord* launch;  // null: a launch that began before the window (it still marks concurrency)
};

std::vector<Span> device_spans(ProcessRecord& p, const PmWindowRecord& w) {
  std::vector<Span> spans;
  for (LaunchRecord& r : p.launches) {
    if (r.device != w.device || r.unfinished || r.end_ns <= r.start_ns) continue;
    if (r.end_ns <= w.start_ns || r.start_ns >= w.stop_ns) continue;
    const bool inside = r.start_ns >= w.start_ns && r.end_ns <= w.stop_ns;
    spans.push_back({r.start_ns, r.end_ns, inside ? &r : nullptr});
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  return spans;
}

}  // namespace

void attribute_pm(ProcessRecord& p) {
  if (!p.pm.window) return;
  const PmWindowRecord& w = *p.pm.window;
  const std::size_t nm = p.pm.metrics.size();
  std::vector<Span> spans = device_spans(p, w);
  // prefix_end[i]: the latest end among spans 0..i; a span overlaps an earlier one when that ends after it starts.
  std::vector<std::uint64_t> prefix_end(spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    prefix_end[i] = std::max(spans[i].end, i > 0 ? prefix_end[i - 1] : 0);
    LaunchRecord* r = spans[i].launch;
    if (r == nullptr) continue;
    const bool before = i > 0 && prefix_end[i - 1] > spans[i].start;
    const bool after = i + 1 < spans.size() && spans[i + 1].start < spans[i].end;
    r->pm.state = before || after ? LaunchPm::concurrent : LaunchPm::alone;
    r->pm.means.assign(nm, 0.0);
  }
  std::sort(p.pm.samples.begin(), p.pm.samples.end(),
            [](const PmSample& a, const PmSample& b) { return a.start_ns < b.start_ns; });
  PmCoverage& cov = p.pm.coverage;
  cov = PmCoverage{};
  for (std::size_t k = 0; k < p.pm.samples.size(); ++k) {
    const PmSample& s = p.pm.samples[k];
    if (k > 0 && w.interval_ns > 0) {
      const std::uint64_t prev = p.pm.samples[k - 1].end_ns;
      if (s.start_ns > prev && 2 * (s.start_ns - prev) > w.interval_ns)
        cov.lost += (s.start_ns - prev + w.interval_ns / 2) / w.interval_ns;
    }
    // Spans that start before the sample ends, scanned back while one of them may still reach into it.
    std::size_t j = std::upper_bound(spans.begin(), spans.end(), s.end_ns,
                                     [](std::uint64_t t, const Span& x) { return t <= x.start; }) -
                    spans.begin();
    std::size_t overlapping = 0;
    const Span* holder = nullptr;
    while (j-- > 0 && prefix_end[j] > s.start_ns) {
      if (spans[j].end <= s.start_ns) continue;
      ++overlapping;
      if (spans[j].start <= s.start_ns && s.end_ns <= spans[j].end) holder = &spans[j];
    }
    if (overlapping == 0) {
      ++cov.outside;
    } else if (holder == nullptr) {
      ++cov.straddling;
    } else if (overlapping > 1 || holder->launch == nullptr || holder->launch->pm.state != LaunchPm::alone) {
      ++cov.concurrent;
    } else {
      ++cov.attributed;
      LaunchPm& lp = holder->launch->pm;
      ++lp.samples;
      for (std::size_t m = 0; m < nm; ++m) lp.means[m] += s.values[m];
    }
  }
  for (LaunchRecord& r : p.launches) {
    if (r.pm.samples == 0) {
      r.pm.means.clear();
      continue;
    }
    for (double& v : r.pm.means) v /= r.pm.samples;
  }
  std::vector<PmSample>().swap(p.pm.samples);
}

void add_launch_pm(IdentityPm& acc, const LaunchRecord& launch, const std::vector<std::string>& metrics,
                   const std::vector<std::string>& order) {
  if (launch.pm.state == LaunchPm::none) return;
  ++acc.launches;
  if (launch.pm.state == LaunchPm::concurrent) ++acc.concurrent;
  if (launch.pm.samples == 0) return;
  ++acc.sampled;
  acc.per_launch.resize(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto it = std::find(metrics.begin(), metrics.end(), order[i]);
    if (it != metrics.end())
      acc.per_launch[i].push_back(launch.pm.means[static_cast<std::size_t>(it - metrics.begin())]);
  }
}

std::vector<Measurement> identity_pm_measurements(const IdentityPm& acc, const std::vector<std::string>& order,
                                                  std::uint64_t interval_ns) {
  std::vector<Measurement> out;
  const MetricInfo count{"", "count", false, false};
  const auto counted = [&](const char* name, std::uint64_t v) {
    MetricInfo info = count;
    info.name = name;
    out.push_back(single_value(info, static_cast<double>(v)));
  };
  counted("pm_launches_in_window", acc.launches);
  counted("pm_launches_sampled", acc.sampled);
  counted("pm_launches_concurrent", acc.concurrent);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const PmMetric* known = find_pm_metric(order[i]);
    Measurement m;
    m.metric =
        MetricInfo{known != nullptr ? known->name : "pm:" + order[i], known != nullptr ? known->unit : "", true, false};
    const double scale = known != nullptr ? known->scale : 1.0;
    if (i < acc.per_launch.size()) {
      for (double v : acc.per_launch[i]) m.samples.push_back(v * scale);
    }
    if (m.samples.empty()) {
      m.status = Status::skipped;
      m.message = acc.concurrent == acc.launches && acc.launches > 0
                      ? "every launch in the PM-sampling window overlapped another launch on the device (PM "
                        "sampling counts device-wide): no sample is its own"
                      : "no launch in the PM-sampling window held a whole sample (a launch needs about two "
                        "intervals, " +
                            std::to_string(2 * interval_ns) + " ns, to hold one)";
    } else {
      m.summary = summarize(m.samples);
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::string describe_pm(const std::vector<ProcessRecord>& processes) {
  std::string out;
  for (const ProcessRecord& p : processes) {
    if (!p.pm.window) continue;
    const PmWindowRecord& w = *p.pm.window;
    std::uint64_t launches = 0, sampled = 0, concurrent = 0;
    for (const LaunchRecord& r : p.launches) {
      if (r.pm.state == LaunchPm::none) continue;
      ++launches;
      sampled += r.pm.samples > 0 ? 1 : 0;
      concurrent += r.pm.state == LaunchPm::concurrent ? 1 : 0;
    }
    char text[512];
    std::snprintf(text, sizeof text,
                  "%swindow %.1f ms at %llu ns on GPU %u (process %u), %llu samples (%llu lost%s%s%s), %llu of %llu "
                  "launches with a sample (%llu concurrent), decode + evaluate %.2f s on the host (setup %.2f s)",
                  out.empty() ? "" : "; ", static_cast<double>(w.stop_ns - w.start_ns) * 1e-6,
                  static_cast<unsigned long long>(w.interval_ns), w.device, p.pid,
                  static_cast<unsigned long long>(w.samples), static_cast<unsigned long long>(p.pm.coverage.lost),
                  w.overflow ? ", hardware buffer overflowed" : "", w.image_full ? ", image full: the rest lost" : "",
                  w.invalid > 0 ? (", " + std::to_string(w.invalid) + " invalid").c_str() : "",
                  static_cast<unsigned long long>(sampled), static_cast<unsigned long long>(launches),
                  static_cast<unsigned long long>(concurrent), static_cast<double>(w.decode_ns + w.evaluate_ns) * 1e-9,
                  static_cast<double>(w.setup_ns) * 1e-9);
    out += text;
  }
  return out;
}

}  // namespace gpuperf::record
