# CMake generated Testfile for 
# Source directory: /work/main/tests/ops/shape
# Build directory: /work/main/build/tests/ops/shape
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
