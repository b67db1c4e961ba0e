#!/usr/bin/env python3
"""Checks "at least as strict as the reference" on every file of the fuzz corpus.

    differential.py CHECKER FOLDER...

CHECKER is the program built from safetensors_check_files.cpp (prints, per
file, whether flash_powder's parser accepts it). Each file also goes to
Python's safetensors (the reference Rust implementation). Prints the files
Python rejects but flash_powder accepts (must be none: exit status 1
otherwise) and counts those flash_powder rejects but Python accepts, by
flash_powder's reason.
"""

import collections
import re
import subprocess
import sys
from pathlib import Path

import safetensors


def python_accepts(data: bytes) -> bool:
    try:
        safetensors.deserialize(data)
        return True
    except Exception:
        return False


def flash_powder_verdicts(checker, files):
    verdicts = {}
    for start in range(0, len(files), 500):
        chunk = files[start:start + 500]
        output = subprocess.run([checker, *map(str, chunk)], check=True, capture_output=True,
                                text=True, errors="replace").stdout
        for line in output.splitlines():
            verdict, path, *message = line.split("\t")
            verdicts[path] = (verdict == "accept", message[0] if message else "")
    return verdicts


def reason(message: str) -> str:
    """The rule a message names, without the tensor names and numbers."""
    rule = message.split(": ", 2)[-1]
    rule = re.sub(r'"(?:[^"\\]|\\.)*"', '"…"', rule)
    return re.sub(r"\d+", "N", rule)[:90]


def main():
    checker, *folders = sys.argv[1:]
    files = sorted(p for folder in folders for p in Path(folder).iterdir() if p.is_file())
    verdicts = flash_powder_verdicts(checker, files)
    laxer, stricter = [], collections.Counter()
    for path in files:
        ours, message = verdicts[str(path)]
        theirs = python_accepts(path.read_bytes())
        if ours and not theirs:
            laxer.append(path)
        elif theirs and not ours:
            stricter[reason(message)] += 1
    print(f"differential: {len(files)} files; flash_powder rejects {sum(stricter.values())} "
          f"that Python accepts, accepts {len(laxer)} that Python rejects")
    for why, count in stricter.most_common():
        print(f"  stricter ({count}): {why}")
    for path in laxer:
        print(f"  LAXER THAN PYTHON: {path}")
    sys.exit(1 if laxer else 0)


if __name__ == "__main__":
    main()
