// Where a library NVIDIA ships both system-wide and inside Python's wheels (NCCL, cuDNN) is
// looked for at run time: one list of candidate files and sonames, shared by the loaders of
// nccl_library.cpp and cudnn_library.cpp so that both search the same places in one order.
#pragma once

#include <string>
#include <vector>

namespace tgc::cuda {

struct LibrarySearch {
  std::string forced_env;   // "TGC_NCCL_LIBRARY": when set, its file is the only candidate
  std::string soname;       // "libnccl.so.2": LD_LIBRARY_PATH and the system's library cache
  std::string configured;   // the wheel's file CMake found at configure time ("" when none)
  std::string wheel_tail;   // "nvidia/nccl/lib/libnccl.so.2", under site-packages
};

// In order: $forced_env (then nothing else), the soname, the configured file, then the wheel
// under the site-packages folders of $VIRTUAL_ENV, $CONDA_PREFIX, the python3 programs on
// PATH, ~/.local, pyenv's versions, /opt/conda, /usr/local and /usr; each file once. Found
// without running Python, which a library must not do.
std::vector<std::string> library_candidates(const LibrarySearch& search);

}  // namespace tgc::cuda
