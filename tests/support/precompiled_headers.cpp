// The translation unit of fp_test_headers (tests/CMakeLists.txt), the target
// whose precompiled header every test program's cases reuse.
