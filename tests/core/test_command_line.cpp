// Run::command as `gpuperf record` stores it: arguments a POSIX shell reads back unchanged.
#include <gtest/gtest.h>

#include "core/command_line.hpp"

namespace gpuperf {
namespace {

TEST(CommandLine, PlainArgumentsAreJoinedWithSpaces) {
  EXPECT_EQ(command_line({"./app", "--n=1024", "-v", "data/in.bin", "a@b:c,d%e+f_g"}),
            "./app --n=1024 -v data/in.bin a@b:c,d%e+f_g");
  EXPECT_EQ(command_line({"./app"}), "./app");
  EXPECT_EQ(command_line({}), "");
}

TEST(CommandLine, SpacesAndShellMetacharactersAreSingleQuoted) {
  EXPECT_EQ(command_line({"python3", "train.py", "--name", "run 1"}), "python3 train.py --name 'run 1'");
  for (const char* arg : {"a|b", "a&b", "a;b", "a<b", "a>b", "(a)", "$HOME", "`x`", "a\\b", "\"x\"", "*.bin", "a?",
                          "[ab]", "#x", "~", "!x", "{a,b}", "a\tb", "a\nb"}) {
    EXPECT_EQ(command_line({"./app", arg}), std::string("./app '") + arg + "'") << arg;
  }
}

TEST(CommandLine, EmptyArgumentsAndQuotesSurviveTheShell) {
  EXPECT_EQ(command_line({"./app", ""}), "./app ''");
  // A ' cannot appear inside single quotes: close them, write \', open them again.
  EXPECT_EQ(command_line({"./app", "it's"}), "./app 'it'\\''s'");
  EXPECT_EQ(command_line({"./app", "'"}), "./app ''\\'''");
  // UTF-8 bytes are quoted, which is always safe.
  EXPECT_EQ(command_line({"./app", "caf\xc3\xa9"}), "./app 'caf\xc3\xa9'");
}

TEST(CommandLine, ExitStatusReadsAsExitOrSignal) {
  EXPECT_EQ(describe_exit_status(0), "exit 0");
  EXPECT_EQ(describe_exit_status(3), "exit 3");
  EXPECT_EQ(describe_exit_status(-9), "signal 9");
  EXPECT_EQ(describe_exit_status(-2147483647 - 1), "signal 2147483648");
}

}  // namespace
}  // namespace gpuperf
