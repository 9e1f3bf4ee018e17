// Printing a failure for the user and choosing the exit code; see errors.h.
#include "frontend/cli/errors.h"

#include <fmt/core.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "frontend/lang/tg_program.h"
#include "runtime/error.h"
#include "runtime/interrupt.h"

namespace tgc::cli {

namespace {

int internal_error(std::string message) {
  // TGC_INTERNAL_CHECK's message already says what it is.
  const std::string prefix = "internal error: ";
  if (message.starts_with(prefix)) message.erase(0, prefix.size());
  fmt::print(stderr,
             "tgc: internal error: {}\n"
             "  this is a bug in tgc, not in your program: please report it with the command "
             "line and the .tg file\n",
             message);
  return kExitInternal;
}

}  // namespace

void finish_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw IOError("cannot write the output to stdout", "", "check the disk or the file stdout goes to");
}

int report_current_exception() {
  try {
    throw;
  } catch (const lang::SourceError& e) {
    // Already "file:line:col: error: ..." with the source line, a caret and a hint.
    fmt::print(stderr, "{}\n", e.what());
    return kExitUserError;
  } catch (const InternalError& e) {
    return internal_error(e.what());
  } catch (const InterruptedError& e) {
    fmt::print(stderr, "tgc: {}\n", e.what());
    return kExitInterrupted;
  } catch (const Error& e) {
    fmt::print(stderr, "tgc: error: {}\n", e.what());
    return kExitUserError;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr,
               "tgc: error: out of memory\n"
               "  hint: the program asks for more memory than this machine can give; use "
               "smaller shapes\n");
    return kExitUserError;
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("an unknown exception");
  }
}

}  // namespace tgc::cli
