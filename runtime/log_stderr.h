// The default sink's writing (runtime/log.h), for a sink that handles some kinds itself and
// passes the others on as tgc always printed them: "tgc: warning: <text>" for warnings,
// "tgc: <text>" for notes, compile logs and profiles as they are, each message in one write.
#pragma once

#include <string>

#include "runtime/log.h"

namespace tgc {

void write_log_to_stderr(LogKind kind, const std::string& text);

}  // namespace tgc
