// Parses each file named on the command line and prints one line per file:
// "accept<TAB>path" or "reject<TAB>path<TAB>message". fuzz/differential.py
// compares that with Python's safetensors on the fuzzer's corpus.
#include <fstream>
#include <iostream>
#include <iterator>
#include <span>
#include <string>

#include "flash_powder/safetensors/format.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      fp::safetensors::parse(std::as_bytes(std::span(bytes.data(), bytes.size())), "file");
      std::cout << "accept\t" << argv[i] << "\n";
    } catch (const fp::Error& error) {
      std::string message = error.what();
      for (char& c : message) {
        if (c == '\n' || c == '\t') c = ' ';
      }
      std::cout << "reject\t" << argv[i] << "\t" << message << "\n";
    }
  }
  return 0;
}
