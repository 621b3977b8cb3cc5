// The program a recorded command line names (profiler/record/recorder/program_name.hpp): scripts under their
// interpreters and launchers, options that take a value, and plain executables.
#include <gtest/gtest.h>

#include "profiler/record/recorder/program_name.hpp"

namespace gpuperf::record {
namespace {

struct NameCase {
  std::vector<std::string> argv;
  std::string program;
};

TEST(ProgramName, InterpretersNameTheirScript) {
  const std::vector<NameCase> cases = {
      {{"python3", "train.py"}, "train"},
      {{"/usr/bin/python3", "scripts/train.py", "--steps", "20"}, "train"},
      {{"python", "train.py"}, "train"},
      {{"python3.12", "infer.py"}, "infer"},
      {{"pypy3", "bench.py"}, "bench"},
      {{"python3", "-u", "-W", "ignore", "train.py"}, "train"},  // -W takes a value
      {{"python3", "-uWignore", "train.py"}, "train"},           // ... or holds it
      {{"python3", "-X", "faulthandler", "-O", "train.py"}, "train"},
      {{"python3", "--check-hash-based-pycs", "never", "train.py"}, "train"},
      {{"python3", "-m", "pkg.mod", "--lr", "3"}, "pkg.mod"},
      {{"python3", "-um", "pkg.mod"}, "pkg.mod"},
      {{"python3", "-mpkg.mod"}, "pkg.mod"},
      {{"python3", "-c", "import torch; torch.ones(1).cuda()"}, "python3-c"},
      {{"python3"}, "python3"},
      {{"python3", "-"}, "python3"},
      {{"python3", "--", "my.train.py"}, "my.train"},
      {{"bash", "run.sh"}, "run"},
      {{"bash", "-x", "-o", "pipefail", "run.sh", "-o", "x"}, "run"},
      {{"sh", "-c", "python3 train.py"}, "sh-c"},
      {{"zsh", "bench.zsh"}, "bench"},
      {{"node", "--inspect", "-r", "ts-node/register", "app.js"}, "app"},
      {{"node", "--eval", "1"}, "node-e"},
      {{"ruby", "-I", "lib", "gpu.rb"}, "gpu"},
      {{"perl", "-e", "print 1"}, "perl-e"},
      {{"perl", "-MData::Dumper", "tool.pl"}, "tool"},
  };
  for (const auto& c : cases) EXPECT_EQ(program_name(c.argv), c.program) << ::testing::PrintToString(c.argv);
}

TEST(ProgramName, LaunchersNameWhatTheyStart) {
  const std::vector<NameCase> cases = {
      {{"env", "CUDA_VISIBLE_DEVICES=1", "python3", "x.py"}, "x"},
      {{"env", "-u", "HOME", "A=1", "B=2", "python3", "-u", "x.py"}, "x"},
      {{"/usr/bin/env", "-S", "python3 -u", "x.py"}, "x"},
      {{"env", "./my_app", "--n", "4"}, "my_app"},
      {{"torchrun", "--nproc_per_node", "2", "train.py", "--epochs", "3"}, "train"},
      {{"torchrun", "--nproc-per-node=2", "--standalone", "train.py"}, "train"},
      {{"torchrun", "--standalone", "--nnodes", "1", "-m", "pkg.train"}, "pkg.train"},
      {{"torchrun", "--no-python", "./my_app"}, "my_app"},
      {{"python3", "-m", "torch.distributed.run", "--nproc_per_node", "4", "train.py"}, "train"},
      {{"python3", "-m", "torch.distributed.launch", "--use_env", "train.py"}, "train"},
      {{"accelerate", "launch", "--num_processes", "2", "--mixed_precision", "bf16", "train.py"}, "train"},
      {{"accelerate", "launch", "--multi_gpu", "train.py"}, "train"},
      {{"accelerate", "launch", "--some_new_flag", "train.py"}, "train"},  // an unknown flag before a script
      {{"deepspeed", "--num_gpus", "2", "train.py", "--deepspeed", "ds.json"}, "train"},
      {{"uv", "run", "python", "train.py"}, "train"},
      {{"uv", "run", "--with", "torch", "--frozen", "train.py"}, "train"},
      {{"uv", "run", "-m", "pkg.serve"}, "pkg.serve"},
      {{"mpirun", "-n", "4", "python3", "x.py"}, "x"},
      {{"mpirun", "-np", "2", "--oversubscribe", "--mca", "btl", "self", "-x", "NCCL_DEBUG", "./solver"}, "solver"},
      {{"srun", "-N", "1", "--ntasks=2", "-l", "python3", "x.py"}, "x"},
      {{"timeout", "-s", "KILL", "600", "python3", "x.py"}, "x"},
      {{"nohup", "nice", "-n", "5", "python3", "x.py"}, "x"},
      {{"time", "-p", "./bench"}, "bench"},
      {{"torchrun"}, "torchrun"},  // starts nothing: the launcher itself
      {{"env"}, "env"},
      {{"accelerate", "config"}, "accelerate"},  // not its launch subcommand
  };
  for (const auto& c : cases) EXPECT_EQ(program_name(c.argv), c.program) << ::testing::PrintToString(c.argv);
}

TEST(ProgramName, OtherProgramsAreTheExecutablesBaseName) {
  const std::vector<NameCase> cases = {
      {{"./build/my_app", "--size", "4096"}, "my_app"},
      {{"./train.py", "--steps", "3"}, "train"},  // a script run by its #! line
      {{"/opt/bin/solver.x"}, "solver.x"},
      {{"./my app[1]"}, "my_app_1_"},  // made safe as a family
      {{"pythonic_tool", "x.py"}, "pythonic_tool"},
      {{}, "program"},
  };
  for (const auto& c : cases) EXPECT_EQ(program_name(c.argv), c.program) << ::testing::PrintToString(c.argv);
}

}  // namespace
}  // namespace gpuperf::record
