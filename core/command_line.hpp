// A program's command line as one string, the way Run::command stores it for `gpuperf record`.
#pragma once

#include <string>
#include <vector>

namespace gpuperf {

// The arguments joined with single spaces; an argument that is empty or holds anything but letters, digits
// and @%+=:,./_- is single-quoted (a ' inside becomes '\''), as Python's shlex.quote does. A POSIX shell
// reads the result back as the same arguments, so a user can paste it to rerun the program.
std::string command_line(const std::vector<std::string>& argv);

// "exit 0", "exit 3", "signal 9": a Run::exit_status for people to read.
std::string describe_exit_status(int exit_status);

}  // namespace gpuperf
