# CMake generated Testfile for 
# Source directory: /work/main/tests/ops/core
# Build directory: /work/main/build/tests/ops/core
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
