// tgc launch's own process starter: posix_spawn of every rank in a process group of its own
// (so that stopping a rank stops what it started, and a terminal's Ctrl-C reaches each rank
// once, forwarded by tgc), signals taken through a pipe their handler writes.
#include "frontend/cli/launch_processes.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include <fmt/core.h>

#include "runtime/error.h"

extern char** environ;

namespace tgc::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Rank {
  pid_t pid = -1;
  bool running = false;
  int status = 0;  // waitpid's, once it ended
};

std::string status_text(int status) {
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

int exit_code_of(int status) { return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status); }

bool failed(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

// Signals reach the supervisor through a pipe: libtgc's threads (OpenBLAS's pool) exist
// before main, so blocking a signal in this thread would leave it to another thread's default
// action; a handler runs wherever the signal lands and only writes its number.
int g_signal_pipe[2] = {-1, -1};

extern "C" void on_signal(int sig) {
  const int saved = errno;
  const char byte = char(sig);
  [[maybe_unused]] ssize_t n = write(g_signal_pipe[1], &byte, 1);
  errno = saved;
}

// Installs the handlers for the lifetime of a launch. A signal that tgc was started with
// ignored (SIGHUP under nohup, SIGINT in a script's background job) stays ignored, by tgc and
// by the ranks.
class SignalPipe {
 public:
  SignalPipe() {
    if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
      throw Error(fmt::format("cannot make a pipe: {}", std::strerror(errno)), "tgc launch", "");
    sigemptyset(&caught_);
    for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction action = {}, old = {};
      if (sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN && s != SIGCHLD) continue;
      action.sa_handler = on_signal;
      action.sa_flags = SA_RESTART | (s == SIGCHLD ? SA_NOCLDSTOP : 0);
      sigemptyset(&action.sa_mask);
      sigaction(s, &action, &old);
      saved_.push_back({s, old});
      sigaddset(&caught_, s);
    }
  }
  ~SignalPipe() {
    for (const auto& [s, old] : saved_) sigaction(s, &old, nullptr);
    close(g_signal_pipe[0]);
    close(g_signal_pipe[1]);
    g_signal_pipe[0] = g_signal_pipe[1] = -1;
  }
  // The signals the ranks start with at their default action (tgc's handlers are not theirs).
  const sigset_t& caught() const { return caught_; }
  // Waits up to `ms` for a signal; returns the signals that came (SIGCHLD among them).
  std::vector<int> wait(int ms) {
    pollfd p = {g_signal_pipe[0], POLLIN, 0};
    poll(&p, 1, ms);
    std::vector<int> sigs;
    char bytes[64];
    for (ssize_t n; (n = read(g_signal_pipe[0], bytes, sizeof bytes)) > 0;)
      for (ssize_t i = 0; i < n; ++i) sigs.push_back(bytes[i]);
    return sigs;
  }

 private:
  sigset_t caught_;
  std::vector<std::pair<int, struct sigaction>> saved_;
};

class Supervisor {
 public:
  explicit Supervisor(const LaunchPlan& plan) : plan_(plan), ranks_(size_t(plan.ranks)) {}
  ~Supervisor() {
    // An exception on the way out (a rank that could not start): nothing is left behind.
    signal_running(SIGKILL);
    while (reap(true)) {}
  }

  int run() {
    for (int r = 0; r < plan_.ranks; ++r) start(r);
    while (running_count() > 0) {
      reap(false);
      if (running_count() == 0) break;
      if (stopping_ && !killed_ && Clock::now() >= kill_at_) {
        signal_running(SIGKILL);  // the grace period is over
        killed_ = true;
      }
      // 100 ms: the granularity of the grace period; a rank's end wakes it at once.
      for (int sig : signals_.wait(100))
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) interrupt(sig);
    }
    if (first_failure_) {
      const auto& [rank, status] = *first_failure_;
      fmt::print(stderr, "tgc launch: rank {} of {} (pid {}) {}{}\n", rank, plan_.ranks, ranks_[size_t(rank)].pid,
                 status_text(status), plan_.ranks > 1 ? "; the other ranks were stopped" : "");
      return exit_code_of(status);
    }
    if (interrupted_) {
      fmt::print(stderr, "tgc launch: interrupted ({}); every rank was stopped\n", strsignal(interrupted_));
      return 128 + interrupted_;
    }
    return 0;
  }

 private:
  void start(int r) {
    std::vector<std::string> base;
    for (char** e = environ; *e; ++e) base.emplace_back(*e);
    std::vector<std::string> env = rank_environment(base, r, plan_.ranks);
    std::vector<char*> envp, argv;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = plan_.command;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);  // a group of its own, led by the rank
    posix_spawnattr_setsigdefault(&attr, &signals_.caught());
    // Only rank 0 may read stdin, and not from a terminal: the ranks are not the terminal's
    // foreground group, and a read there would stop them.
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    if (r != 0 || isatty(STDIN_FILENO)) posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid = -1;
    const int err = posix_spawnp(&pid, argv[0], &files, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    if (err != 0)
      throw Error(fmt::format("cannot start '{}' for rank {}: {}", plan_.command[0], r, std::strerror(err)),
                  "tgc launch", "give the program's path, or a program on the PATH, and check it is executable");
    ranks_[size_t(r)] = {pid, true, 0};
  }

  // Collects ended ranks; with `block`, waits for one. False when no child is left.
  bool reap(bool block) {
    for (;;) {
      int status = 0;
      const pid_t pid = waitpid(-1, &status, block ? 0 : WNOHANG);
      if (pid < 0 && errno == EINTR) continue;
      if (pid <= 0) return false;
      for (size_t r = 0; r < ranks_.size(); ++r) {
        if (ranks_[r].pid != pid || !ranks_[r].running) continue;
        ranks_[r].running = false;
        ranks_[r].status = status;
        // The first failure is the cause; ranks ending after tgc stopped them are its effect.
        if (failed(status) && !stopping_) {
          first_failure_ = {int(r), status};
          stop(SIGTERM);
        }
      }
      if (block) return true;
    }
  }

  void interrupt(int sig) {
    if (stopping_ && interrupted_) {
      signal_running(SIGKILL);  // a second Ctrl-C: no more grace
      killed_ = true;
      return;
    }
    interrupted_ = sig;
    stop(sig);
  }

  void stop(int sig) {
    stopping_ = true;
    kill_at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(plan_.grace_seconds));
    signal_running(sig);
  }

  // The whole group of each running rank: what a rank started (a shell's children) too.
  void signal_running(int sig) {
    for (const Rank& r : ranks_)
      if (r.running) kill(-r.pid, sig);
  }

  int running_count() const {
    int n = 0;
    for (const Rank& r : ranks_) n += r.running;
    return n;
  }

  const LaunchPlan& plan_;
  std::vector<Rank> ranks_;
  SignalPipe signals_;
  bool stopping_ = false, killed_ = false;
  int interrupted_ = 0;
  Clock::time_point kill_at_;
  std::optional<std::pair<int, int>> first_failure_;  // rank, status
};

bool has_key(const std::string& entry, std::string_view key) {
  return entry.size() > key.size() && entry.compare(0, key.size(), key) == 0 && entry[key.size()] == '=';
}

}  // namespace

std::vector<std::string> rank_environment(const std::vector<std::string>& base, int rank, int ranks) {
  std::vector<std::string> env;
  bool nvls_set = false;
  for (const std::string& e : base) {
    if (has_key(e, "TGC_RANK") || has_key(e, "TGC_WORLD_SIZE") || has_key(e, "TGC_LOCAL_RANK") ||
        has_key(e, "TGC_LOCAL_WORLD_SIZE") || e.starts_with("OMPI_COMM_WORLD_"))
      continue;
    nvls_set = nvls_set || has_key(e, "NCCL_NVLS_ENABLE");
    env.push_back(e);
  }
  env.push_back(fmt::format("TGC_RANK={}", rank));
  env.push_back(fmt::format("TGC_WORLD_SIZE={}", ranks));
  env.push_back(fmt::format("TGC_LOCAL_RANK={}", rank));
  env.push_back(fmt::format("TGC_LOCAL_WORLD_SIZE={}", ranks));
  if (!nvls_set) env.push_back("NCCL_NVLS_ENABLE=0");
  return env;
}

int run_ranks(const LaunchPlan& plan) { return Supervisor(plan).run(); }

}  // namespace tgc::cli
