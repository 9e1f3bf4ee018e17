// The libmvec variant table (see libmvec_table.h). Names follow the x86 vector function ABI:
// _ZGV<isa>N<lanes><v per argument>_<name>, isa b = SSE, d = AVX2, e = AVX-512.
#include "backends/cpu/libmvec_table.h"

#include <sstream>

namespace tgc::cpu {

namespace {

struct Function {
  const char* name;
  int arity;
  bool in_llvm_table;  // LLVM 16 maps its b and d variants itself
};

constexpr Function kFunctions[] = {
    {"sin", 1, true},    {"cos", 1, true},   {"exp", 1, true},    {"log", 1, true},   {"pow", 2, true},
    {"exp2", 1, false},  {"expm1", 1, false}, {"log2", 1, false}, {"log10", 1, false}, {"log1p", 1, false},
    {"tan", 1, false},   {"tanh", 1, false}, {"sinh", 1, false},  {"cosh", 1, false}, {"asin", 1, false},
    {"acos", 1, false},  {"atan", 1, false}, {"erf", 1, false},   {"erfc", 1, false}, {"atan2", 2, false},
};

// Register bytes per isa; doubles fill bytes/8 lanes, floats bytes/4.
struct Isa {
  char letter;
  int bytes;
};

}  // namespace

std::vector<LibmvecVariant> libmvec_variants(bool avx512f) {
  std::vector<LibmvecVariant> table;
  const Isa isas[] = {{'b', 16}, {'d', 32}, {'e', 64}};
  for (const Function& f : kFunctions) {
    const std::string args(static_cast<size_t>(f.arity), 'v');
    for (const Isa& isa : isas) {
      if (isa.letter == 'e' && !avx512f) continue;
      if (isa.letter != 'e' && f.in_llvm_table) continue;
      for (bool single : {false, true}) {
        const int lanes = isa.bytes / (single ? 4 : 8);
        const std::string scalar = std::string(f.name) + (single ? "f" : "");
        table.push_back({scalar, "_ZGV" + std::string(1, isa.letter) + "N" + std::to_string(lanes) + args + "_" + scalar,
                         lanes});
      }
    }
  }
  return table;
}

bool has_avx512f(const std::string& features) {
  std::istringstream in(features);
  std::string feature;
  bool on = false;
  while (std::getline(in, feature, ','))
    if (feature == "+avx512f") on = true;
    else if (feature == "-avx512f") on = false;
  return on;
}

}  // namespace tgc::cpu
