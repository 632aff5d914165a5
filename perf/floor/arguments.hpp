// The command line of the perf/floor programs, flag by flag: each flag in
// turn, with the value that follows it, and help printed on -h or --help.

#pragma once

#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

namespace coupler_perf {

class Arguments {
 public:
  using Fail = void (*)(const std::string& problem);  // prints the problem and the usage, and exits

  Arguments(int argc, char** argv, const char* usage, Fail fail)
      : argc_(argc), argv_(argv), usage_(usage), fail_(fail) {}

  // Moves to the next flag; false once every argument is read. Prints the usage and exits on -h or --help.
  bool next() {
    if (++index_ >= argc_) return false;
    if (flag() == "-h" || flag() == "--help") {
      std::cout << usage_;
      std::exit(0);
    }
    return true;
  }

  std::string_view flag() const { return argv_[index_]; }

  // The argument after the current flag, which is its value; fails naming the flag when there is none.
  const char* value() {
    if (index_ + 1 >= argc_) fail_(std::string(flag()) + " needs a value");
    return argv_[++index_];
  }

  [[noreturn]] void unknown() const {
    fail_("unknown option '" + std::string(flag()) + "'");
    std::exit(2);
  }

 private:
  int argc_;
  char** argv_;
  const char* usage_;
  Fail fail_;
  int index_ = 0;
};

}  // namespace coupler_perf
