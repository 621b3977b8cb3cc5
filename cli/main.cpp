// main() of gpuperf::main and of the `gpuperf` executable: the CLI over whatever this executable registers.
#include "cli/app.hpp"

int main(int argc, char** argv) { return gpuperf::cli::main(argc, argv); }
