import sys
from pathlib import Path

# Lets the tests `import python_truth` from tools/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
