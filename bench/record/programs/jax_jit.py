"""A JAX `jit` program: matmul + tanh, called --calls times (20 by default) after one warm-up call.

    python3 jax_jit.py [--calls N] [--count]

Prints `launches N` last: with --count, the kernel executions jax.profiler saw (XLA's autotuning launches
while compiling included), the program's own count that `gpuperf record` must match; without it, 0.
"""
import argparse
import os
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import jax
import jax.numpy as jnp

parser = argparse.ArgumentParser()
parser.add_argument("--calls", type=int, default=20)
parser.add_argument("--count", action="store_true")
args = parser.parse_args()


@jax.jit
def step(a, b):
    return jnp.tanh(a @ b) * 0.5 + 1.0


def work():
    a = jax.random.normal(jax.random.PRNGKey(0), (1024, 1024), dtype=jnp.float32)
    b = jax.random.normal(jax.random.PRNGKey(1), (1024, 1024), dtype=jnp.float32)
    out = step(a, b).block_until_ready()
    for _ in range(args.calls):
        out = step(out, b)
    out.block_until_ready()
    print(f"sum {float(out.sum()):.3f}")


def count_kernels(folder):
    """Kernel executions in a jax.profiler trace: the events of the GPU plane's stream lines that are not
    copies or memsets."""
    import glob
    from jax.profiler import ProfileData
    kernels = 0
    for path in glob.glob(os.path.join(folder, "**", "*.xplane.pb"), recursive=True):
        for plane in ProfileData.from_file(path).planes:
            if not plane.name.startswith("/device:GPU"):
                continue
            for line in plane.lines:
                if not line.name.startswith("Stream"):
                    continue
                for event in line.events:
                    name = event.name.lower()
                    if not name.startswith(("memcpy", "memset")):
                        kernels += 1
    return kernels


if args.count:
    import tempfile
    folder = tempfile.mkdtemp()
    with jax.profiler.trace(folder):
        work()
    print(f"launches {count_kernels(folder)}")
else:
    work()
    print("launches 0")
