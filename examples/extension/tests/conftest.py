import os
import re
import sys
from pathlib import Path

from torch._inductor.runtime.cache_dir_utils import default_cache_dir

# With $FP_SEGMENTATION_LIBRARY (a build tree's op library), the package from
# this checkout; without, the installed one.
if os.environ.get("FP_SEGMENTATION_LIBRARY"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# One Inductor cache per CPU capability. Inductor picks the vector instruction
# set of the code it generates from ATEN_CPU_CAPABILITY, as eager's kernels do
# (torch/_inductor/cpu_vec_isa.py, pick_vec_isa: `default` means no vectors),
# but its FX graph cache leaves that choice out of the key (codecache.py,
# FxGraphHashDetails, torch 2.11 to 2.15 at least), and the cache lives in one
# folder per user. So a run under one capability loads the generated C++ of
# another and compiles it with its own flags: AVX-512 code built without
# CPU_CAPABILITY_AVX512, under which cpp_prefix.h leaves out ATen/cpu/vec
# ("'at::vec' has not been declared"), or scalar code where the capability
# means vectors (no longer bit for bit eager's). A folder of its own per
# capability gives each run exactly the code a cold cache under its settings
# would, so the test checks what Inductor does with those settings, as users
# with them get it.
_capability = re.sub(r"\W", "_", os.environ.get("ATEN_CPU_CAPABILITY") or "native")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(
    os.environ.get("TORCHINDUCTOR_CACHE_DIR") or default_cache_dir(), f"cpu-{_capability}")
