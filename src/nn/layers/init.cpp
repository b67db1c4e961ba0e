#include "flash_powder/nn/init.h"

#include "parameters.h"

namespace fp::nn {
namespace {

thread_local int skip_init_depth = 0;
thread_local std::optional<Device> default_device;

}  // namespace

SkipInit::SkipInit() {
  ++skip_init_depth;
}

SkipInit::~SkipInit() {
  --skip_init_depth;
}

bool SkipInit::active() {
  return skip_init_depth > 0;
}

DefaultDevice::DefaultDevice(Device device) : previous_(default_device) {
  default_device = device;
}

DefaultDevice::~DefaultDevice() {
  default_device = previous_;
}

std::optional<Device> DefaultDevice::current() {
  return default_device;
}

void manual_seed(std::uint64_t seed) {
  detail::reseed_init_generator(seed);
}

}  // namespace fp::nn
