# CMake generated Testfile for 
# Source directory: /work/main/tests/ops/reduce
# Build directory: /work/main/build/tests/ops/reduce
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
