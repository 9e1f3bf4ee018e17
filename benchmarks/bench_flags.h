// Command-line flags of the stand-alone benchmark drivers (rnn_bench, cnn_bench): "--name
// value" pairs after the program's name, without Google Benchmark's parser.
#pragma once

#include <cstring>
#include <string>

namespace tgc::bench {

// The integer after `name`, or `fallback` when the flag is absent.
inline long long flag(int argc, char** argv, const char* name, long long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::stoll(argv[i + 1]);
  return fallback;
}

// The word after `name`, or `fallback` when the flag is absent.
inline std::string word_flag(int argc, char** argv, const char* name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

}  // namespace tgc::bench
