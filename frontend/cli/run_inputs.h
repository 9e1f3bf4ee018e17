// tgc run's --input NAME=FILE.npy | NAME=EXPR: turning the given values into the function's
// arguments, with errors that name the input and show the function's signature.
#pragma once

#include <string>
#include <vector>

#include "frontend/lang/tg_program.h"

namespace tgc::cli {

// The arguments of `fn`, in its input order, from "NAME=VALUE" specs. VALUE ending in .npy
// is read as a file (its dtype must be the input's, or convert to it without loss); any
// other VALUE is a value expression of the language (randn(400, 784, seed=1), zeros(3),
// 2.5), converted to the input's dtype. Throws InputError for a malformed spec, an unknown,
// repeated or missing input, or a value of the wrong rank, dtype or static shape; IOError
// for a bad file; SourceError for a bad expression.
std::vector<Tensor> build_arguments(const lang::TgFunction& fn, const std::vector<std::string>& specs);

}  // namespace tgc::cli
