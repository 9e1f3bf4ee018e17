// tgc launch's own process starter: posix_spawn of every rank in a process group of its own
// (so that stopping a rank stops what it started, and a terminal's Ctrl-C reaches each rank
// once, forwarded by tgc), signals taken synchronously with sigtimedwait.
#include "frontend/cli/launch_processes.h"

#include <fcntl.h>
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

// The signals the supervisor waits for instead of being interrupted by them.
sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  return set;
}

class Supervisor {
 public:
  explicit Supervisor(const LaunchPlan& plan) : plan_(plan), ranks_(size_t(plan.ranks)) {
    handled_ = handled_signals();
    pthread_sigmask(SIG_BLOCK, &handled_, &old_mask_);
  }
  ~Supervisor() {
    // An exception on the way out (a rank that could not start): nothing is left behind.
    signal_running(SIGKILL);
    while (reap(true)) {}
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
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
      timespec wait = {0, 100 * 1000 * 1000};  // also the granularity of the grace period
      siginfo_t info;
      const int sig = sigtimedwait(&handled_, &info, &wait);
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
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);        // a group of its own, led by the rank
    posix_spawnattr_setsigmask(&attr, &old_mask_);  // the rank sees the signals tgc was started with
    posix_spawnattr_setsigdefault(&attr, &handled_);
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
  sigset_t handled_, old_mask_;
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
