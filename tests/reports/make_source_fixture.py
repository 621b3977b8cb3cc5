#!/usr/bin/env python3
"""Writes fixture_source_lines.json: a small history with per-source-line counters, built by hand.

ci-h100-01 has 6 nightly runs of main. From the 5th on (commit "lose coalescing"), memory/coalesced's copy
is edited as bench/detect/patches/lose_coalescing.patch edits it: six lines are added above its load line, which
moves from kernels/memory_access.cu:23 to :29 and now reads 8 sectors per request against an ideal of 4;
duration 160 -> 290 us, gld_efficiency 100% -> 50%. Every line of copy_strided below it moves down six lines
with its counters unchanged (it must match by text and not be named). memory/strided[stride=32]'s load line
reads 32 sectors per request against 4 (8x its ideal) throughout. matmul/naive's inner loop line reads a row
and a column from global memory; matmul/tiled's reads its tiles from shared memory.
dev-a100-03, a machine whose source tree is elsewhere (/home/dev/...), has 2 runs: stored text, no files.
One user benchmark has a hostile name and a line whose text is HTML; one run's lines are unsupported.
Counters are per launch and exact (integers). Durations: a fixed seed; run it again and the file is the same.
"""
import hashlib
import json
import random
import sys

rng = random.Random(20261126)

N = 16777216
WARPS = N // 32  # one warp instruction per 32 elements


def sha(text):
    return hashlib.sha1(text.encode()).hexdigest()


def duration(level, rel=0.004, n=10):
    return {"unit": "ns", "samples": [round(level * (1 + rng.gauss(0, rel)), 1) for _ in range(n)]}


def value(v, unit):
    return {"unit": unit, "value": v}


def line(file, no, function, offset, text, inst, threads=None, **counters):
    out = {"file": file, "line": no, "function": function, "sass_offset": offset, "text": text,
           "inst_executed": inst, "thread_inst_executed": inst * 32 if threads is None else threads}
    out.update({k: v for k, v in counters.items() if v})
    return out


def coalesced_lines(src, lost):
    f = src + "kernels/memory_access.cu"
    fn = "copy_coalesced(const float *, float *, unsigned int)"
    if not lost:
        return [
            line(f, 22, fn, 0x0, "const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", 4 * WARPS),
            line(f, 23, fn, 0x60, "if (i < n) out[i] = in[i];", 5 * WARPS,
                 global_ld_requests=WARPS, global_ld_sectors=4 * WARPS, global_ld_sectors_ideal=4 * WARPS,
                 global_st_requests=WARPS, global_st_sectors=4 * WARPS, global_st_sectors_ideal=4 * WARPS),
            line(f, 24, fn, 0xd0, "}", WARPS),
        ]
    return [
        line(f, 22, fn, 0x0, "const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", 4 * WARPS),
        line(f, 27, fn, 0x40, "const unsigned half = n / 2;", 2 * WARPS),
        line(f, 28, fn, 0x60, "const unsigned j = i < half ? 2 * i : 2 * (i - half) + 1;", 4 * WARPS),
        line(f, 29, fn, 0xa0, "if (i < n) out[j] = in[j];", 5 * WARPS,
             global_ld_requests=WARPS, global_ld_sectors=8 * WARPS, global_ld_sectors_ideal=4 * WARPS,
             global_st_requests=WARPS, global_st_sectors=8 * WARPS, global_st_sectors_ideal=4 * WARPS),
        line(f, 30, fn, 0x110, "}", WARPS),
    ]


def strided_lines(src, shift):
    f = src + "kernels/memory_access.cu"
    fn = "copy_strided(const float *, float *, unsigned int, unsigned int, unsigned int)"
    return [
        line(f, 30 + shift, fn, 0x0, "const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", 4 * WARPS),
        line(f, 31 + shift, fn, 0x40, "if (i >= n) return;", 2 * WARPS),
        line(f, 32 + shift, fn, 0x60, "const unsigned src = ((i & ((1u << rows_log2) - 1u)) << stride_log2) + (i >> rows_log2);",
             6 * WARPS),
        # 32 threads 128 bytes apart: one sector each, against the 4 a coalesced warp needs (8x).
        line(f, 33 + shift, fn, 0xc0, "out[i] = in[src];", 4 * WARPS,
             global_ld_requests=WARPS, global_ld_sectors=32 * WARPS, global_ld_sectors_ideal=4 * WARPS,
             global_st_requests=WARPS, global_st_sectors=4 * WARPS, global_st_sectors_ideal=4 * WARPS),
        line(f, 34 + shift, fn, 0x120, "}", WARPS),
    ]


def matmul_naive_lines(src, n=1024):
    f = src + "kernels/matmul.cu"
    fn = "matmul_naive(const float *, const float *, float *, int)"
    warps = n * n // 32
    return [
        line(f, 22, fn, 0x0, "const int row = blockIdx.y * blockDim.y + threadIdx.y;", 3 * warps),
        line(f, 23, fn, 0x30, "const int col = blockIdx.x * blockDim.x + threadIdx.x;", 3 * warps),
        line(f, 24, fn, 0x60, "if (row >= n || col >= n) return;", 3 * warps),
        # A 16x16 block's warp is two rows of 16: a[row * n + k] is 2 addresses (2 sectors), b[k * n + col]
        # two 64-byte row pieces (4 sectors): 3 sectors per load against an ideal of 1.5 (the bytes used).
        line(f, 26, fn, 0xa0, "for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];", 6 * n * warps,
             global_ld_requests=2 * n * warps, global_ld_sectors=6 * n * warps,
             global_ld_sectors_ideal=3 * n * warps),
        line(f, 27, fn, 0x1f0, "c[row * n + col] = sum;", 2 * warps,
             global_st_requests=warps, global_st_sectors=4 * warps, global_st_sectors_ideal=4 * warps),
    ]


def matmul_tiled_lines(src, n=1024, tile=16):
    f = src + "kernels/matmul.cu"
    fn = "void matmul_tiled<16>(const float *, const float *, float *, int)"
    warps = n * n // 32
    steps = n // tile
    return [
        line(f, 40, fn, 0x80, "as[ty][tx] = (row < n && t + tx < n) ? a[row * n + t + tx] : 0.0f;", 5 * steps * warps,
             global_ld_requests=steps * warps, global_ld_sectors=4 * steps * warps,
             global_ld_sectors_ideal=4 * steps * warps,
             shared_wavefronts=steps * warps, shared_wavefronts_ideal=steps * warps),
        line(f, 41, fn, 0xe0, "bs[ty][tx] = (t + ty < n && col < n) ? b[(t + ty) * n + col] : 0.0f;", 5 * steps * warps,
             global_ld_requests=steps * warps, global_ld_sectors=4 * steps * warps,
             global_ld_sectors_ideal=4 * steps * warps,
             shared_wavefronts=steps * warps, shared_wavefronts_ideal=steps * warps),
        line(f, 42, fn, 0x140, "__syncthreads();", steps * warps),
        # as[ty][k] is a broadcast per half-warp, bs[k][tx] 16 consecutive words: one wavefront each.
        line(f, 45, fn, 0x160, "for (int k = 0; k < TILE; ++k) sum += as[ty][k] * bs[k][tx];", 3 * tile * steps * warps,
             shared_wavefronts=2 * tile * steps * warps, shared_wavefronts_ideal=2 * tile * steps * warps),
        line(f, 47, fn, 0x400, "if (row < n && col < n) c[row * n + col] = sum;", 3 * warps,
             global_st_requests=warps, global_st_sectors=4 * warps, global_st_sectors_ideal=4 * warps),
    ]


def source(lines, launches=3, status="ok", message=""):
    out = {"status": status}
    if message:
        out["message"] = message
    out["launches"] = launches if status == "ok" else 0
    out["lines_total"] = len(lines)
    out["lines"] = lines
    return out


def results(night, src="", unsupported=False):
    lost = night >= 4
    shift = 6 if lost else 0
    coalesced_source = source(coalesced_lines(src, lost))
    if unsupported:
        coalesced_source = source([], status="unsupported",
                                  message="SASS metrics need driver 525 or newer (this one: 470.82.01)")
    return [
        {"benchmark": "matmul/naive", "params": {"n": 1024}, "status": "ok",
         "metrics": {"duration": duration(1250000), "gld_efficiency": value(50.0, "%")},
         "source": source(matmul_naive_lines(src))},
        {"benchmark": "matmul/tiled", "params": {"n": 1024, "tile": 16}, "baseline": "matmul/naive", "status": "ok",
         "metrics": {"duration": duration(278000), "gld_efficiency": value(100.0, "%"),
                     "shared_bank_conflicts": value(0, "count")},
         "source": source(matmul_tiled_lines(src))},
        {"benchmark": "memory/coalesced", "params": {"n": N}, "status": "ok",
         "metrics": {"duration": duration(290000 if lost else 160000),
                     "gld_efficiency": value(50.0 if lost else 100.0, "%")},
         "source": coalesced_source},
        {"benchmark": "memory/strided", "params": {"n": N, "stride": 32}, "baseline": "memory/coalesced",
         "status": "ok",
         "metrics": {"duration": duration(1100000), "gld_efficiency": value(12.5, "%")},
         "source": source(strided_lines(src, shift))},
        {"benchmark": "user/<b>bold</b>&co", "params": {"label": "<script>alert(1)</script>"}, "status": "ok",
         "metrics": {"duration": duration(50000)},
         "source": source([line(src + "bench/<evil>.cu", 7, "kernel<&>", 0x0,
                                "if (a < b && c > d) s = \"<img src=x onerror=alert(1)>\";", 2 * 1024,
                                global_ld_requests=1024, global_ld_sectors=4096, global_ld_sectors_ideal=4096)])},
    ]


def run(i, night, host, gpu, uuid, src, commit_text, unsupported=False, cc="9.0", sm_count=132):
    return {
        "uuid": "%08x-0000-4000-8000-%012x" % (0x40000001 + i, i),
        "started_at": "2026-11-%02dT02:00:00Z" % (10 + night),
        "finished_at": "2026-11-%02dT02:20:00Z" % (10 + night),
        "commit": sha(commit_text),
        "branch": "main",
        "label": "nightly",
        "tool_version": "0.1.0",
        "machine": {"hostname": host, "gpu_name": gpu, "gpu_uuid": uuid, "cc": cc, "sm_count": sm_count,
                    "driver": "580.159.04", "cuda": "13.0"},
        "results": results(night, src, unsupported),
    }


def main():
    runs = []
    for night in range(6):
        commit = "lose coalescing" if night == 4 else "night %d" % night
        runs.append(run(len(runs), night, "ci-h100-01", "NVIDIA H100 80GB HBM3", "GPU-40a0-0001", "", commit))
    for night in range(2):
        runs.append(run(len(runs), night, "dev-a100-03", "NVIDIA A100-SXM4-80GB", "GPU-40a0-0002",
                        "/home/dev/src/gpuperf/", "dev %d" % night, unsupported=night == 1, cc="8.0", sm_count=108))
    doc = {"format": "gpuperf-results", "version": 1, "runs": runs}
    out = sys.argv[1] if len(sys.argv) > 1 else "fixture_source_lines.json"
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
