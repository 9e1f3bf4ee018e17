// The tgc process runner of the CLI tests; see cli_runner.h.
#include "cli/cli_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace tgc::test {

namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  path_ = (fs::temp_directory_path() /
           ("tgc_cli_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++)))
              .string();
  fs::remove_all(path_);
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string ScratchDir::write(const std::string& name, const std::string& bytes) const {
  std::string path = (fs::path(path_) / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string example(const std::string& name) { return std::string(TGC_EXAMPLES_DIR) + "/" + name; }

namespace {

// run_tgc, and with `signal` != 0 that signal sent to tgc `delay_s` seconds after its start.
CliResult run(const std::vector<std::string>& args, const std::vector<std::string>& env,
              const std::string& stdin_path, int signal, double delay_s) {
  ScratchDir scratch;
  const std::string out_path = scratch.path() + "/stdout", err_path = scratch.path() + "/stderr";

  std::vector<std::string> argv_s = {TGC_CLI_PATH};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  // The kernel cache is shared by all runs of the suite (the home folder is not), so each
  // program is JIT-compiled once, not once per run; a test's own TGC_FLAGS come after it.
  std::string flags = "TGC_FLAGS=cache_dir=" TGC_CLI_TEST_CACHE;
  std::vector<std::string> env_s;
  // A variable the test sets replaces the inherited one (getenv would find the first).
  auto set_by_test = [&](const std::string& entry) {
    const std::string key = entry.substr(0, entry.find('=') + 1);
    for (const std::string& e : env)
      if (e.starts_with(key)) return true;
    return false;
  };
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (entry.starts_with("TGC_FLAGS=") || entry.starts_with("TGCRC=") || entry.starts_with("HOME="))
      continue;
    if (set_by_test(entry)) continue;
    env_s.push_back(entry);
  }
  env_s.push_back("HOME=" + scratch.path());
  for (const std::string& e : env) {
    if (e.starts_with("TGC_FLAGS="))
      flags += "," + e.substr(10);
    else
      env_s.push_back(e);
  }
  env_s.push_back(flags);
  std::vector<char*> envp;
  for (std::string& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!stdin_path.empty()) posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error(std::string("cannot start tgc: ") + std::strerror(rc));
  if (signal != 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
    kill(pid, signal);
  }
  int status = 0;
  waitpid(pid, &status, 0);

  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

}  // namespace

CliResult run_tgc(const std::vector<std::string>& args, const std::vector<std::string>& env,
                  const std::string& stdin_path) {
  return run(args, env, stdin_path, 0, 0);
}

CliResult run_tgc_signalled(const std::vector<std::string>& args, int signal, double delay_s) {
  return run(args, {}, "", signal, delay_s);
}

}  // namespace tgc::test
