// Runs the built tgc binary for the CLI tests: its exit code, stdout and stderr, in a clean
// environment (HOME in a scratch folder so no ~/.tgcrc is read; TGC_FLAGS only naming the
// suite's kernel cache, plus what a test asks for).
#pragma once

#include <string>
#include <vector>

namespace tgc::test {

struct CliResult {
  int exit_code = -1;  // the process's exit status; 128 + N when killed by signal N
  std::string out;
  std::string err;
};

// Runs `tgc args...` with `env` ("KEY=VALUE") added to the clean environment (replacing an
// inherited KEY); a "TGC_FLAGS=..." entry is appended to the suite's own flags. With
// `stdin_path`, that file is the program's standard input.
CliResult run_tgc(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                  const std::string& stdin_path = "");

// run_tgc, sending `signal` (SIGINT: a Ctrl-C) to tgc `delay_s` seconds after it started.
CliResult run_tgc_signalled(const std::vector<std::string>& args, int signal, double delay_s);

// A fresh empty folder under the system's temporary folder, removed when the object dies.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `bytes` to path()/name and returns the file's path.
  std::string write(const std::string& name, const std::string& bytes) const;

 private:
  std::string path_;
};

// The path of examples/<name>.
std::string example(const std::string& name);

}  // namespace tgc::test
