import sys
from pathlib import Path

# The package from this checkout (its op library: $FP_SEGMENTATION_LIBRARY).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
