# CMake generated Testfile for 
# Source directory: /work/main/tests/frontend
# Build directory: /work/main/build/tests/frontend
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
