// The one result model of gpuperf: what a run measured, as it flows from the runner into the store,
// through import/export, and into the analysis and the reports.
//
//   Run ─ Machine
//    └─ Result (one benchmark instance: name + parameter point, and its disposition)
//         └─ Measurement (one metric: raw samples + their summary)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/source_lines.hpp"
#include "core/stats.hpp"

namespace gpuperf {

// What became of a benchmark instance (or one of its metrics). Kept apart as CUTLASS's profiler does:
// a kernel that failed is not a kernel that gave a wrong answer, and neither is "not supported".
enum class Status {
  ok,           // verified and measured
  incorrect,    // ran, but its output did not match the CPU reference: never a baseline
  failed,       // a CUDA/CUPTI error or exception stopped it
  unsupported,  // the device or configuration cannot run it
  skipped,      // deliberately not run (filtered, or a prerequisite failed)
};
const char* to_string(Status s);
// Throws InputError for an unknown name.
Status status_from_string(const std::string& s);

// One parameter value of a benchmark instance (an axis point).
using ParamValue = std::variant<std::int64_t, double, std::string>;
// Ordered by name, so the canonical key is stable.
using Params = std::map<std::string, ParamValue>;

// "n=1024,tile=16": canonical, sorted by name; used in UNIQUE(name, params_key).
std::string params_key(const Params& p);
// {"n":1024,"tile":16} as compact JSON with sorted keys.
std::string params_json(const Params& p);
// Parses params_json's output (and any flat JSON object of ints, doubles and strings).
Params params_from_json(const std::string& json);
std::string to_string(const ParamValue& v);

struct BenchmarkInstance {
  std::string name;  // "family/variant", e.g. "matmul/tiled"
  Params params;
  // "matmul/tiled[n=1024,tile=16]": the NVTX range name and what users filter on.
  std::string display_name() const;
};

// A benchmark name's part after its family, from the first '/' on: "matmul/tiled" -> "tiled"; a recorded
// kernel identity "<program>/<kernel>" -> its kernel ("a/b/c" -> "b/c"). A name without '/' is returned whole.
std::string benchmark_variant(std::string_view name);
// A benchmark name's family, up to its first '/': "matmul/tiled" -> "matmul"; a recorded kernel identity
// "<program>/<kernel>" -> its program. A name without '/' is returned whole.
std::string benchmark_family(std::string_view name);

// Static description of a metric; the traits table lives in metrics.hpp.
struct MetricInfo {
  std::string name;  // gpuperf name ("duration", "gld_efficiency") or a raw Perfworks name
  std::string unit;  // "ns", "%", "count", "bytes", "GB/s", ...
  bool higher_is_better = false;
  bool deterministic = false;  // hardware counters that do not vary run to run
};

struct Measurement {
  MetricInfo metric;
  Status status = Status::ok;
  std::string message;               // why, when status != ok
  std::vector<double> samples;       // raw values in the metric's unit, in measurement order
  std::vector<double> sm_clock_mhz;  // empty, or one SM clock reading per sample
  Summary summary;                   // of samples (a single value is a summary with n = 1)
};

// A result's source lines (core/source_lines.hpp) and how they were collected.
struct SourceLines {
  // ok: collected; unsupported: this chip, driver or program cannot (message says why); failed: an error
  // stopped the pass; skipped: not asked for, or a result from before source lines existed.
  Status status = Status::skipped;
  std::string message;
  std::int64_t launches = 0;     // instrumented launches the counters were divided by
  std::int64_t lines_total = 0;  // lines the kernel had before the size bound kept the heaviest
  std::vector<SourceLine> lines;
};

// What a result's kernel was (core/code_identity.hpp): a fingerprint of the function's SASS, free of build
// paths and of nvcc's build-dependent names, and its launch configuration. Empty where unknown (a result from
// before fingerprints, a kernel whose cubin the collector did not see).
struct CodeIdentity {
  std::string fingerprint;  // "sass:" + 16 hex digits
  std::string launch;       // "grid=1024x1x1 block=256x1x1 smem=0"
  bool empty() const { return fingerprint.empty() && launch.empty(); }
};

struct Result {
  BenchmarkInstance instance;
  // The benchmark this one is paired against in its family ("matmul/naive" for "matmul/tiled"); empty for
  // a family's baseline. An instance pairs with the baseline's instance that has the same values on the
  // axes both share (matmul/tiled[n=1024,tile=16] with matmul/naive[n=1024]).
  std::string baseline;
  Status status = Status::ok;
  std::string message;
  std::vector<Measurement> metrics;
  SourceLines source;  // per-line counters, when a source-line pass ran
  CodeIdentity code;   // the kernel's code and launch, when the collector saw them

  const Measurement* find(const std::string& metric_name) const;
};

struct Machine {
  std::string hostname;
  std::string gpu_name;
  std::string gpu_uuid;
  std::string cc;  // compute capability, "9.0"
  std::int64_t sm_count = 0;
  std::string driver;  // "580.159.04"
  std::string cuda;    // runtime version, "13.0"
  // One machine series per GPU: the UUID when known, else hostname + GPU name.
  std::string fingerprint() const;
};

// How every command names a machine (runs, compare, detect, report): "node1 (NVIDIA H200, GPU-4fc4ff4a)", its
// hostname and GPU, and the start of its GPU UUID, which tells apart the GPUs of one host. Parts that are
// unknown are left out ("NVIDIA H200 (GPU-4fc4ff4a)"); a fingerprint that is no GPU UUID (hostname/GPU name)
// adds nothing.
std::string machine_name(const std::string& hostname, const std::string& gpu_name, const std::string& fingerprint);
inline std::string machine_name(const Machine& m) { return machine_name(m.hostname, m.gpu_name, m.fingerprint()); }

struct Run {
  std::string uuid;
  std::string started_at;   // ISO 8601 UTC, "2026-11-01T02:00:00Z"
  std::string finished_at;  // empty while running
  std::string commit;
  std::string branch;
  std::string label;
  std::string tool_version;
  Status status = Status::ok;  // ok, or the worst instance status
  bool excluded = false;
  std::string exclude_reason;
  // A recorded run (`gpuperf record -- APP ARGS`): the program's command line as the user typed it,
  // arguments joined with spaces, each one with a space or shell metacharacter single-quoted (see
  // core/command_line.hpp). Empty for a benchmark run.
  std::string command;
  // How the recorded program ended: >= 0 its exit code, < 0 minus the number of the signal that killed it
  // (-9: SIGKILL). Empty for a benchmark run. Kept apart from `status`, which is about the kernels: a
  // program may exit 1 after every kernel it launched ran fine.
  std::optional<int> exit_status;
  // A recorded process's place in a distributed job, read from its environment (RANK, LOCAL_RANK and
  // WORLD_SIZE, as torchrun and most launchers set them). Empty for a benchmark run and for a process that is
  // not part of one.
  std::optional<int> rank;
  std::optional<int> local_rank;
  std::optional<int> world_size;
  Machine machine;
  // What the machine and the process ran with, beyond Machine (core/environment.hpp names the keys): driver
  // and runtime, the toolkit the bench was built with, clocks and power limit, ECC/MIG/persistence, a recorded
  // program's CUDA libraries and frameworks. Key -> value; a field that could not be read is absent.
  std::map<std::string, std::string> environment;
  std::vector<Result> results;
};

// The 64-bit FNV-1a hash of `s`: stable across machines and runs (keyed UUIDs, short names' hashes).
std::uint64_t fnv1a64(const std::string& s, std::uint64_t basis = 0xcbf29ce484222325ULL);
// A fresh random RFC 4122 version-4 UUID.
std::string make_uuid();
// A UUID that depends on `key` alone (RFC 9562 version 8, from two 64-bit FNV-1a hashes): the same key
// always names the same run, which makes a rerun of one night's job on one GPU idempotent.
std::string keyed_uuid(const std::string& key);
// The uuid of the run `gpuperf run --run-key KEY` stores on the machine with this fingerprint: one per GPU, so
// `run` finds a rerun's run and `runs --run-key` finds a night's runs by the same rule.
std::string run_key_uuid(const std::string& key, const std::string& machine_fingerprint);
// The current time as ISO 8601 UTC with seconds.
std::string now_iso8601();

}  // namespace gpuperf
