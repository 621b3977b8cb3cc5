// Runs with an environment and code identities (schema 5), shared by the SQLite and PostgreSQL store tests.
#pragma once

#include <string>

#include "core/environment.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {

// make_run with an environment as `record` stores one, and a fingerprint and launch on the first result only
// (the second stays without: a kernel whose cubin the collector did not see).
inline Run make_identity_run(const std::string& uuid, const std::string& started_at,
                             const std::string& driver = "580.159.04") {
  Run run = make_run(uuid, started_at);
  run.machine.driver = driver;
  run.environment = {{env::kDriver, driver},
                     {env::kCudaRuntime, "13.0"},
                     {env::kPowerLimit, "700"},
                     {env::kEcc, "on"},
                     {"lib.cublas", "13.0.0.19"},
                     {"framework.torch", "2.9.0+cu130"},
                     {"odd key \t\\ with tab", "value\nwith newline"}};
  run.results[0].code = CodeIdentity{"sass:0123456789abcdef", "grid=64x64x1 block=16x16x1 smem=0"};
  return run;
}

}  // namespace gpuperf::testing
