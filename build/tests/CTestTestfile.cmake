# CMake generated Testfile for 
# Source directory: /work/main/tests
# Build directory: /work/main/build/tests
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("runtime")
subdirs("ops/elemwise")
subdirs("ops/reduce")
subdirs("ops/blas")
subdirs("ops/nn")
subdirs("ops/shape")
subdirs("ops/subtensor")
subdirs("ops/join")
subdirs("ops/alloc")
subdirs("ops/core")
subdirs("compiler")
subdirs("frontend")
subdirs("install")
subdirs("layering")
