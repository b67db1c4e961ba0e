"""Writes the Transformer demo's checkpoint: a small Transformer encoder
classifier trained in a few seconds on synthetic sequences, a padded batch of
test sequences, their labels and PyTorch's logits for them under
torch.no_grad() in eval mode (where PyTorch runs the encoder on nested tensors
through its fused kernels), in one safetensors file. The C++ demo (main.cpp)
builds the same model, loads the weights unchanged and compares.

    python make_checkpoint.py OUT.safetensors

The task: a sequence of 4 to 12 tokens from 1..15 (0 pads it to 12); the
label says whether token 7 occurs more often than token 3.
"""
import sys

import torch
from safetensors.torch import save_file

VOCAB, LENGTH, DIM, HEADS, FEEDFORWARD, LAYERS = 16, 12, 32, 4, 64, 2


class Classifier(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tokens = torch.nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.positions = torch.nn.Embedding(LENGTH, DIM)
        layer = torch.nn.TransformerEncoderLayer(DIM, HEADS, FEEDFORWARD, dropout=0.0,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, LAYERS)
        self.head = torch.nn.Linear(DIM, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        padding = ids == 0
        x = self.tokens(ids) + self.positions(torch.arange(ids.size(1)))
        h = self.encoder(x, src_key_padding_mask=padding)
        keep = (~padding).float().unsqueeze(-1)
        pooled = (h * keep).sum(1) / keep.sum(1)
        return self.head(pooled)


def batch(size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Sequences sorted by length, longest first (left-aligned padding), and labels."""
    lengths = torch.randint(4, LENGTH + 1, (size,), generator=generator).sort(descending=True)[0]
    ids = torch.randint(1, VOCAB, (size, LENGTH), generator=generator)
    ids[torch.arange(LENGTH).expand(size, -1) >= lengths.unsqueeze(1)] = 0
    labels = ((ids == 7).sum(1) > (ids == 3).sum(1)).long()
    return ids, labels


def main() -> None:
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    model = Classifier()
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(150):
        ids, labels = batch(64, generator)
        loss = torch.nn.functional.cross_entropy(model(ids), labels)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    model.eval()
    ids, labels = batch(32, generator)
    with torch.no_grad():
        logits = model(ids)
    accuracy = (logits.argmax(1) == labels).float().mean().item()
    tensors = {f"model.{k}": v.contiguous() for k, v in model.state_dict().items()}
    tensors.update(ids=ids, labels=labels, expected=logits)
    save_file(tensors, sys.argv[1], metadata={"torch": torch.__version__})
    print(f"torch {torch.__version__}: accuracy {accuracy:.3f} on {len(labels)} test sequences")


if __name__ == "__main__":
    main()
