// When to stop taking timing samples of one benchmark instance.
//
// The estimate we report is the median, so we stop once the median is pinned down: the half-width of a
// distribution-free ~95% confidence interval of the median, relative to the median, must fall under a
// target. The interval comes from order statistics (the ranks n/2 - 0.98 sqrt(n) and 1 + n/2 + 0.98 sqrt(n), the normal
// approximation of the binomial with p = 1/2), so it needs no assumption about the shape of the
// distribution: kernel durations are skewed, with a long right tail, and a stdev-based rule would be
// dominated by that tail. A tight interval is not enough when the process drifts (a level shift while
// sampling, e.g. a power state settling), so the medians of the older and the newer half of the samples
// must also agree within twice the target. A minimum count guards against stopping on a lucky handful; a
// time cap and a maximum count bound a noisy instance.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpuperf {

struct StoppingCriteria {
  std::size_t min_samples = 25;      // never stop before this many
  std::size_t max_samples = 2000;    // always stop at this many
  double target_rel_spread = 0.005;  // stop when the median's relative CI half-width is below this
  double max_time_s = 1.0;           // stop when the instance has been sampled this long (wall seconds)
  // Never converge before sampling has lasted this long (wall seconds): 25 samples of a short kernel span
  // only ~2.5 ms, and on an H200 bandwidth-bound kernels showed level shifts of 1-4% lasting milliseconds;
  // a median over a longer window is not moved by them.
  double min_time_s = 0.05;
};

enum class StopReason {
  not_yet,      // keep sampling
  converged,    // the median's relative spread is under the target and it no longer drifts
  max_samples,  // the sample cap was reached before convergence
  time_cap,     // the time cap was reached before convergence
};
const char* to_string(StopReason r);

// Relative half-width of the ~95% distribution-free confidence interval of the median of `samples`:
// (x_(hi) - x_(lo)) / (2 * median), with ranks lo = floor(n/2 - 0.98 sqrt(n)), hi = ceil(1 + n/2 + 0.98 sqrt(n))
// clamped to the sample. Returns +infinity for fewer than 2 samples or a median of 0.
double median_relative_spread(std::vector<double> samples);

// |median(first half) - median(second half)| / median(all), the halves in measurement order (the middle
// sample of an odd count goes to neither). +infinity for fewer than 2 samples or a median of 0.
double median_drift(const std::vector<double>& samples);

// The decision after a batch of samples, `elapsed_s` wall seconds after sampling began. The minimum count
// wins over the time cap: an instance slower than the cap still gets min_samples samples. Convergence
// also needs elapsed_s >= min_time_s.
StopReason should_stop(const std::vector<double>& samples, double elapsed_s, const StoppingCriteria& c);

// Checks the criteria are usable (min <= max, target > 0, 0 <= min time <= cap); throws InputError naming
// the field.
void validate(const StoppingCriteria& c);

}  // namespace gpuperf
