// Summary statistics of raw samples. Plain functions, tested with known values.
#pragma once

#include <cstddef>
#include <vector>

namespace gpuperf {

struct Summary {
  std::size_t n = 0;
  double median = 0, mean = 0, min = 0, max = 0;
  double q1 = 0, q3 = 0;  // quartiles, linear interpolation between order statistics (R type 7)
  double stdev = 0;       // sample standard deviation (n - 1); 0 for n < 2
};

Summary summarize(std::vector<double> samples);
// Quantile q in [0, 1] of already sorted values, R type 7 (linear interpolation).
double quantile_sorted(const std::vector<double>& sorted, double q);
double median(std::vector<double> values);
double mean(const std::vector<double>& values);
double stdev(const std::vector<double>& values);

}  // namespace gpuperf
