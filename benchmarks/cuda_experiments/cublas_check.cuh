// The cuBLAS / cuBLASLt status check the product experiments share (mlp_products.cu,
// lt_search.cu): a failed call prints itself, where it was made and its status, and exits.
#pragma once
#include <cublas_api.h>

#include <cstdio>
#include <cstdlib>

#define CB(x)                                                                       \
  do {                                                                              \
    cublasStatus_t s_ = (x);                                                        \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                              \
      printf("cuBLAS %s at %s:%d: status %d\n", #x, __FILE__, __LINE__, int(s_));   \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)
