// Registers "dup/same"; dup_b.cpp registers it too: the CLI must name both places and exit 2.
#include <gpuperf/gpuperf.hpp>

namespace {
std::unique_ptr<gpuperf::Workload> never_made(const gpuperf::Params&, std::uint64_t) { return nullptr; }
}  // namespace

GPUPERF_BENCHMARK("dup/same", never_made).axis("n", {1});
