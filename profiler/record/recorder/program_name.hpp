// The program a recorded command line names (`gpuperf record -- APP ARGS`): the family its kernels are stored
// under. Plain string work on the arguments; nothing is run or looked up.
#pragma once

#include <string>
#include <vector>

namespace gpuperf::record {

// The program of `argv` (README.md, "Recording a program"), made safe as a family by program_family:
// - an interpreter (python, python3, python3.12, pypy3, bash, sh, zsh, node, ruby, perl, ...) running a script:
//   the script's base name without its extension ("python3 -u -W ignore train.py" -> "train");
//   a module: its name ("python3 -m pkg.mod" -> "pkg.mod"); code given inline: the interpreter and the
//   option ("python3 -c '...'" -> "python3-c", "node -e ..." -> "node-e"); nothing (a prompt, stdin): the
//   interpreter;
// - a launcher (env, torchrun, python -m torch.distributed.run, accelerate launch, deepspeed, uv run,
//   mpirun/mpiexec/srun, nsys profile, time, nohup, ...): the program it starts, by these same rules
//   ("torchrun --nproc_per_node 2 train.py" -> "train", "env CUDA_VISIBLE_DEVICES=1 python3 x.py" -> "x");
// - anything else: the executable's base name ("./build/my_app" -> "my_app").
// Options that take a value are skipped with it ("-W ignore", "--nproc_per_node 2", "-n 4"; "--opt=value" is
// one argument). "program" for an empty command line.
std::string program_name(const std::vector<std::string>& argv);

}  // namespace gpuperf::record
