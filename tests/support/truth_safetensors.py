"""Python helpers shared by the safetensors tests' Python blocks:
`from truth_safetensors import file_bytes, header_order`."""

import json
import os
import tempfile

import safetensors.torch


def file_bytes(tensors, metadata=None):
    """The bytes safetensors.torch.save_file writes, as a list of ints."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.safetensors")
        safetensors.torch.save_file(tensors, path, metadata=metadata)
        with open(path, "rb") as f:
            return list(f.read())


def header_order(data):
    """The tensor names in the order the file's header lists them."""
    length = int.from_bytes(bytes(data[:8]), "little")
    return [k for k in json.loads(bytes(data[8:8 + length])) if k != "__metadata__"]
