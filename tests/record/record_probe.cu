// A small CUDA program for `gpuperf record` on a GPU (bench/record/record_gpu.sh): several kernels (a template,
// an extern "C" one, one launched with two grid shapes), nested NVTX ranges, a child process, and its own
// CUDA-event timing of every launch, written to a file so the recording can be checked against it.
//
//   record_probe truth FILE [--exit N | --sigterm]   the checked program (child process included)
//   record_probe child FILE                          what the child does
//   record_probe overhead long|mid|tiny LAUNCHES [REPEATS [ab]]  kernels of ~50, ~10 or ~2 us back to back
//                                                    (time per launch), the timed loop REPEATS times (a line
//                                                    each); `ab`: gpuperf's own work on and off in turn
//   record_probe multigpu FILE                       launches on every GPU of the machine, from one process
//   record_probe threads N                           4 threads launch N kernels each; the last one calls exit()
//   record_probe exit-running N                      N kernels of ~20 ms queued, then exit() without waiting
//   record_probe steady SECONDS                      ~50 us kernels back to back, "launched N T" as it goes
//   record_probe graph REPLAYS                       a captured 3-kernel graph replayed, direct launches around
//   record_probe sol PAIRS                           a copy and an FMA loop in the NVTX range "sol"
//   (record_probe_sol.cu) record_probe hang N                              N kernels, a pause past the flush period, 10
//   more, then a
//                                                    kernel that never ends (the program hangs until killed)
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "record_probe: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(3);
  }
}

// Spins about `iterations` dependent multiply-adds per thread: a duration set by the launch, not by memory.
template <int Unroll>
__global__ void spin(float* out, int iterations) {
  float x = static_cast<float>(threadIdx.x);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < Unroll; ++u) x = x * 0.999f + 0.5f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// Each block stages 256 floats at a time, read at stride 2 (half of every sector fetched is used:
// gld_efficiency 50%), through shared memory and writes them back reversed: shared loads and stores a
// counter can see. 16 tiles per block, so a launch lasts tens of microseconds.
__global__ void stage(const float* in, float* out) {
  __shared__ float tile[256];
  for (unsigned t = 0; t < 16; ++t) {
    const unsigned block = blockIdx.x * 16 + t;
    tile[threadIdx.x] = in[block * 512 + 2 * threadIdx.x];
    __syncthreads();
    out[block * 256 + threadIdx.x] = tile[255 - threadIdx.x];
    __syncthreads();
  }
}

}  // namespace

// Waits for a flag nobody sets: the kernel of a program that hangs on the GPU (a deadlocked collective, a
// bug), for `record_probe hang`.
extern "C" __global__ void wait_forever(const volatile int* flag) {
  while (*flag == 0) {
  }
}

extern "C" __global__ void add_one(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 1.0f;
}

namespace {

struct Truth {
  std::FILE* f;
  cudaEvent_t a, b;
  // One launch timed with events on the default stream: "T <kernel> <nvtx> <grid> <block> <us>".
  template <typename Launch>
  void timed(const char* kernel, const char* nvtx, int grid, int block, Launch launch) {
    check(cudaEventRecord(a), "cudaEventRecord");
    launch();
    check(cudaGetLastError(), kernel);
    check(cudaEventRecord(b), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    std::fprintf(f, "T %s %s %dx1x1 %dx1x1 %.3f\n", kernel, nvtx, grid, block, ms * 1000.0);
  }
  // `count` launches back to back between two events: "B <kernel> <nvtx> <grid> <block> <count> <us>". One
  // event's own cost (~6 us on an H100) is shared by all of them, so the mean approaches the kernel's time.
  template <typename Launch>
  void batch(const char* kernel, const char* nvtx, int grid, int block, int count, Launch launch) {
    check(cudaEventRecord(a), "cudaEventRecord");
    for (int i = 0; i < count; ++i) launch();
    check(cudaGetLastError(), kernel);
    check(cudaEventRecord(b), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    std::fprintf(f, "B %s %s %dx1x1 %dx1x1 %d %.3f\n", kernel, nvtx, grid, block, count, ms * 1000.0);
  }
};

int truth(const char* file, int exit_code, bool sigterm, const char* self) {
  float* out = nullptr;
  constexpr int kAddN = 1 << 22;  // 16 MB: add_one runs ~10 us, long enough to time with events
  check(cudaMalloc(&out, kAddN * sizeof(float)), "cudaMalloc");
  Truth t{std::fopen(file, "w"), nullptr, nullptr};
  if (t.f == nullptr) return 2;
  check(cudaEventCreate(&t.a), "cudaEventCreate");
  check(cudaEventCreate(&t.b), "cudaEventCreate");
  nvtxRangePushA("phase1");
  // Kernels of 10-150 us: CUDA events around a launch also time its start on the GPU (a few us).
  for (int i = 0; i < 5; ++i) t.timed("spin<4>", "phase1", 128, 256, [&] { spin<4><<<128, 256>>>(out, 16000); });
  t.batch("spin<4>", "phase1", 128, 256, 15, [&] { spin<4><<<128, 256>>>(out, 16000); });
  // stage reads 2 x 512 x 16 x 256 floats of `out` (all of it) and writes `staged`.
  float* staged = nullptr;
  check(cudaMalloc(&staged, 512 * 16 * 256 * sizeof(float)), "cudaMalloc");
  t.timed("stage", "phase1", 512, 256, [&] { stage<<<512, 256>>>(out, staged); });
  t.batch("stage", "phase1", 512, 256, 4, [&] { stage<<<512, 256>>>(out, staged); });
  nvtxRangePushA("inner");
  for (int i = 0; i < 2; ++i) {
    t.timed("add_one", "phase1/inner", kAddN / 256, 256, [&] { add_one<<<kAddN / 256, 256>>>(out, kAddN); });
  }
  t.batch("add_one", "phase1/inner", kAddN / 256, 256, 8, [&] { add_one<<<kAddN / 256, 256>>>(out, kAddN); });
  nvtxRangePop();
  nvtxRangePop();
  t.timed("spin<1>", "-", 64, 128, [&] { spin<1><<<64, 128>>>(out, 60000); });
  t.batch("spin<1>", "-", 64, 128, 4, [&] { spin<1><<<64, 128>>>(out, 60000); });
  t.timed("spin<1>", "-", 128, 128, [&] { spin<1><<<128, 128>>>(out, 60000); });
  t.batch("spin<1>", "-", 128, 128, 4, [&] { spin<1><<<128, 128>>>(out, 60000); });
  std::fflush(t.f);
  // A child process, as a launcher's worker: it inherits the environment, so it is recorded too.
  const std::string child_file = std::string(file) + ".child";
  const pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, "child", child_file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 4;
  std::fclose(t.f);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (sigterm) std::raise(SIGTERM);
  return exit_code;
}

int child(const char* file) {
  float* out = nullptr;
  check(cudaMalloc(&out, 64 * 256 * sizeof(float)), "cudaMalloc");
  Truth t{std::fopen(file, "w"), nullptr, nullptr};
  check(cudaEventCreate(&t.a), "cudaEventCreate");
  check(cudaEventCreate(&t.b), "cudaEventCreate");
  nvtxRangePushA("child");
  for (int i = 0; i < 2; ++i) t.timed("spin<2>", "child", 64, 256, [&] { spin<2><<<64, 256>>>(out, 30000); });
  t.batch("spin<2>", "child", 64, 256, 5, [&] { spin<2><<<64, 256>>>(out, 30000); });
  nvtxRangePop();
  std::fclose(t.f);
  return 0;
}

// Back-to-back launches of one kernel: ~50 us (long), ~10 us (mid) or ~2 us (tiny). Prints the GPU time the
// launches took (CUDA events around them, after a warm-up) and the host wall time, in microseconds per
// launch: what a tracer adds per launch on the GPU, and in all.
// The loop is timed `repeats` times in one process, a line each, so a caller can take the median within a
// process: loop times vary more between processes (start-up, placement) than within one.
// `ab`: the repeats alternate gpuperf's own work on and off (on, off, off, on, ...: drift cancels in pairs)
// through the injection library's gpuperf_record_overhead_ours (profiler/record/inject/inject.cpp), and each line
// ends "ours on" or "ours off". Needs `gpuperf record` with GPUPERF_RECORD_OVERHEAD_AB set (all, or the parts to
// pause).
int overhead(const char* kind, int launches, int repeats, bool ab) {
  float* out = nullptr;
  check(cudaMalloc(&out, 132 * 4 * 256 * sizeof(float)), "cudaMalloc");
  const std::string k = kind;
  if (k != "long" && k != "mid" && k != "tiny") {
    std::fprintf(stderr, "record_probe: overhead: unknown kind '%s' (long, mid or tiny)\n", kind);
    return 2;
  }
  auto launch = [&] {
    if (k == "tiny") {
      add_one<<<1, 32>>>(out, 32);
    } else {
      spin<4><<<132 * 4, 256>>>(out, k == "long" ? 2500 : 500);
    }
  };
  for (int i = 0; i < 50; ++i) launch();
  using OursFn = int (*)(int);
  OursFn ours = nullptr;
  if (ab) {  // CUDA has loaded the injection library by now (the launches above initialised it)
    const char* path = std::getenv("CUDA_INJECTION64_PATH");
    void* lib = path != nullptr ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    ours = lib != nullptr ? reinterpret_cast<OursFn>(dlsym(lib, "gpuperf_record_overhead_ours")) : nullptr;
    if (ours == nullptr || ours(1) != 0) {
      std::fprintf(stderr,
                   "record_probe: overhead ab: no gpuperf_record_overhead_ours in CUDA_INJECTION64_PATH (%s), "
                   "or GPUPERF_RECORD_OVERHEAD_AB is unset or invalid\n",
                   path != nullptr ? path : "unset");
      return 2;
    }
  }
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");
  for (int r = 0; r < repeats; ++r) {
    const bool on = r % 4 == 0 || r % 4 == 3;
    if (ours != nullptr) ours(on ? 1 : 0);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    timespec t0{}, t1{};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    check(cudaEventRecord(begin), "cudaEventRecord");
    for (int i = 0; i < launches; ++i) launch();
    check(cudaEventRecord(end), "cudaEventRecord");
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    float gpu_ms = 0;
    check(cudaEventElapsedTime(&gpu_ms, begin, end), "cudaEventElapsedTime");
    const double wall_us = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) * 1e-3;
    std::printf("overhead %s %d gpu_us_per_launch %.3f wall_us_per_launch %.3f%s\n", kind, launches,
                1000.0 * gpu_ms / launches, wall_us / launches,
                ours == nullptr ? ""
                : on            ? " ours on"
                                : " ours off");
  }
  return 0;
}

// Every GPU of the machine, each through its own context (the device's primary context), from one
// process: device d gets 3 * (d + 1) launches of spin<1> and d + 1 of add_one. Writes "G <device> <pci bus>
// <spin launches> <add_one launches>" per device, so a recording can be checked per GPU.
int multigpu(const char* path) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr) {
    std::fprintf(stderr, "record_probe: cannot write %s\n", path);
    return 2;
  }
  std::vector<float*> buffers(static_cast<std::size_t>(count));
  for (int d = 0; d < count; ++d) {
    check(cudaSetDevice(d), "cudaSetDevice");
    check(cudaMalloc(&buffers[d], (1 << 20) * sizeof(float)), "cudaMalloc");
    nvtxRangePushA("device");
    for (int i = 0; i < 3 * (d + 1); ++i) spin<1><<<32, 128>>>(buffers[d], 20000);
    for (int i = 0; i < d + 1; ++i) add_one<<<(1 << 20) / 256, 256>>>(buffers[d], 1 << 20);
    nvtxRangePop();
    check(cudaGetLastError(), "launch");
  }
  for (int d = 0; d < count; ++d) {
    check(cudaSetDevice(d), "cudaSetDevice");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
    std::fprintf(f, "G %d %d %d %d\n", d, prop.pciBusID, 3 * (d + 1), d + 1);
  }
  std::fclose(f);
  return 0;
}

// A program that ends from a thread that is not the main one: four threads launch `per_thread` kernels each on
// streams of their own, in NVTX ranges; the last to finish prints "launches N" and calls exit(0) while the
// main thread still waits to join them.
int threads(int per_thread) {
  constexpr int kThreads = 4;
  float* out = nullptr;
  check(cudaMalloc(&out, kThreads * 128 * 128 * sizeof(float)), "cudaMalloc");
  std::atomic<int> finished{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      cudaStream_t stream = nullptr;
      check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
      nvtxRangePushA("worker");
      for (int i = 0; i < per_thread; ++i) spin<1><<<128, 128, 0, stream>>>(out + t * 128 * 128, 2000);
      nvtxRangePop();
      check(cudaGetLastError(), "launch");
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      if (finished.fetch_add(1) == kThreads - 1) {
        std::printf("launches %d\n", kThreads * per_thread);
        std::fflush(stdout);
        std::exit(0);
      }
    });
  }
  for (auto& w : workers) w.join();
  return 1;  // not reached: the last worker exits the process
}

// A program that exits while its kernels still run: `count` launches of ~20 ms each are queued, then exit(0)
// at once. The kernels were launched, so each is a launch the recording must keep.
int exit_running(int count) {
  float* out = nullptr;
  check(cudaMalloc(&out, 132 * 256 * sizeof(float)), "cudaMalloc");
  for (int i = 0; i < count; ++i) spin<4><<<132, 256>>>(out, 1000000);
  check(cudaGetLastError(), "launch");
  std::printf("launches %d\n", count);
  std::fflush(stdout);
  std::exit(0);
}

// Steady launches for `seconds` (or until killed): batches of 100 spin kernels of ~50 us, each batch waited
// for, then "launched N T" (N: kernels completed so far, T: seconds since the first launch, monotonic) on
// stdout, flushed, so a SIGKILL can be judged against what the program made before it: every launch up to
// its last line ran. "pid P" comes first, so whoever kills it kills this process and not a launcher.
int steady(double seconds) {
  float* out = nullptr;
  check(cudaMalloc(&out, 132 * 256 * sizeof(float)), "cudaMalloc");
  std::printf("pid %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  timespec t0{}, t{};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long long launched = 0;
  for (;;) {
    nvtxRangePushA("batch");
    for (int i = 0; i < 100; ++i) spin<4><<<132, 256>>>(out, 2500);
    nvtxRangePop();
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    launched += 100;
    clock_gettime(CLOCK_MONOTONIC, &t);
    const double elapsed = (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9;
    std::printf("launched %lld %.4f\n", launched, elapsed);
    std::fflush(stdout);
    if (elapsed >= seconds) break;
  }
  std::printf("launches %lld\n", launched);
  return 0;
}

// A CUDA graph captured from a stream (spin<1>, add_one, spin<1> at another grid) and replayed `replays`
// times, with direct launches before and after: under `record --metrics` the launches made during capture
// are not profiled (the capture must survive), and the direct launch after the replays still is, at its own
// identity. Prints "launches N": every kernel execution, the graph's nodes once per replay.
int graph(int replays) {
  float* out = nullptr;
  constexpr int n = 1 << 20;
  check(cudaMalloc(&out, n * sizeof(float)), "cudaMalloc");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  add_one<<<n / 256, 256, 0, stream>>>(out, n);  // direct: the same identity as the graph's add_one
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  spin<1><<<64, 128, 0, stream>>>(out, 2000);
  add_one<<<n / 256, 256, 0, stream>>>(out, n);
  spin<1><<<32, 128, 0, stream>>>(out, 2000);
  cudaGraph_t g = nullptr;
  check(cudaStreamEndCapture(stream, &g), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, g, 0), "cudaGraphInstantiate");
  nvtxRangePushA("replays");
  for (int i = 0; i < replays; ++i) check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
  nvtxRangePop();
  spin<1><<<64, 128, 0, stream>>>(out, 2000);  // direct, after the replays: the context still profiles
  check(cudaGetLastError(), "launch");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::printf("launches %d\n", 2 + 3 * replays);
  return 0;
}

// A program that hangs in its own kernel: N kernels (synchronized, then a pause of 2.5 s, so that the
// library's periodic flush has written them), 10 more, then a kernel that never ends and a synchronize that
// never returns. Prints "pid P", "launched N" after each group and "hanging" before it waits; what `gpuperf
// record` keeps of it when it is killed (SIGTERM, SIGKILL) is bench/record/record_gpu41.sh's check: the first
// N always, the 10 and the hanging launch (no end time) when the last flush could run.
int hang(int n) {
  float* out = nullptr;
  int* flag = nullptr;
  check(cudaMalloc(&out, 132 * 256 * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&flag, sizeof(int)), "cudaMalloc");
  check(cudaMemset(flag, 0, sizeof(int)), "cudaMemset");
  std::printf("pid %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  for (int i = 0; i < n; ++i) spin<4><<<132, 256>>>(out, 2500);
  check(cudaGetLastError(), "launch");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::printf("launched %d\n", n);
  std::fflush(stdout);
  usleep(2500 * 1000);
  for (int i = 0; i < 10; ++i) spin<4><<<132, 256>>>(out, 2500);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::printf("launched %d\n", n + 10);
  wait_forever<<<1, 32>>>(flag);
  check(cudaGetLastError(), "launch");
  std::printf("hanging\n");
  std::fflush(stdout);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // never returns
  return 0;
}

}  // namespace

int sol(int pairs);  // record_probe_sol.cu

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "truth") == 0) {
    int code = 0;
    bool sigterm = false;
    for (int i = 3; i < argc; ++i) {
      if (std::strcmp(argv[i], "--exit") == 0 && i + 1 < argc) code = std::atoi(argv[++i]);
      if (std::strcmp(argv[i], "--sigterm") == 0) sigterm = true;
    }
    return truth(argv[2], code, sigterm, "/proc/self/exe");
  }
  if (argc == 3 && std::strcmp(argv[1], "child") == 0) return child(argv[2]);
  if ((argc == 4 || argc == 5) && std::strcmp(argv[1], "overhead") == 0)
    return overhead(argv[2], std::atoi(argv[3]), argc == 5 ? std::max(1, std::atoi(argv[4])) : 1, false);
  if (argc == 6 && std::strcmp(argv[1], "overhead") == 0 && std::strcmp(argv[5], "ab") == 0)
    return overhead(argv[2], std::atoi(argv[3]), std::max(1, std::atoi(argv[4])), true);
  if (argc == 3 && std::strcmp(argv[1], "multigpu") == 0) return multigpu(argv[2]);
  if (argc == 2 && std::strcmp(argv[1], "nocuda") == 0) return 0;
  if (argc == 3 && std::strcmp(argv[1], "threads") == 0) return threads(std::atoi(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "exit-running") == 0) return exit_running(std::atoi(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "steady") == 0) return steady(std::atof(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "graph") == 0) return graph(std::atoi(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "hang") == 0) return hang(std::atoi(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "sol") == 0) return sol(std::max(1, std::atoi(argv[2])));
  std::fprintf(
      stderr,
      "usage: record_probe truth FILE [--exit N|--sigterm] | child FILE | overhead long|mid|tiny N [REPEATS [ab]] "
      "| multigpu "
      "FILE | nocuda | threads N | exit-running N | steady SECONDS | graph REPLAYS | hang N | sol PAIRS\n");
  return 2;
}
