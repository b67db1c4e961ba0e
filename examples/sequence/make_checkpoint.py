"""Writes the sequence demo's checkpoint: a small bidirectional-LSTM line
recogniser trained with CTC in a few seconds on synthetic "scanlines", a padded
batch of test lines with their lengths, PyTorch's log-probabilities for them
under torch.no_grad() in eval mode, and PyTorch's greedy CTC decoding of them,
in one safetensors file. The C++ demo (main.cpp) builds the same model, loads
the weights unchanged and compares both.

    python make_checkpoint.py OUT.safetensors

The task: a line is 3 to 6 digits; each digit is drawn as 2 to 4 frames of its
own noisy 8-value pattern, with 0 to 2 blank frames between digits. The
recogniser reads the digits back.
"""
import sys

import torch
from safetensors.torch import save_file

FEATURES, HIDDEN, LAYERS, DIGITS = 8, 32, 2, 10
CLASSES = DIGITS + 1  # CTC's blank is class 0; digit d is class d + 1
MAX_FRAMES = 6 * 4 + 5 * 2


class Recogniser(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(FEATURES, HIDDEN, num_layers=LAYERS, bidirectional=True)
        self.head = torch.nn.Linear(2 * HIDDEN, CLASSES)

    def forward(self, frames: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """frames [time, batch, FEATURES], lengths [batch] -> log-probabilities [time, batch, CLASSES]."""
        packed = torch.nn.utils.rnn.pack_padded_sequence(frames, lengths, enforce_sorted=False)
        output, _ = self.lstm(packed)
        padded, _ = torch.nn.utils.rnn.pad_packed_sequence(output, total_length=frames.size(0))
        return self.head(padded).log_softmax(-1)


def greedy_decode(log_probs: torch.Tensor, lengths: torch.Tensor) -> list[str]:
    """Best class per frame, repeats merged, blanks dropped."""
    best = log_probs.argmax(-1)
    lines = []
    for b in range(best.size(1)):
        previous, digits = 0, []
        for c in best[: lengths[b], b].tolist():
            if c != previous and c != 0:
                digits.append(str(c - 1))
            previous = c
        lines.append("".join(digits))
    return lines


def lines(size: int, patterns: torch.Tensor, generator: torch.Generator):
    """A padded batch: frames [MAX_FRAMES, size, FEATURES], lengths, targets, target lengths."""
    frames = torch.zeros(MAX_FRAMES, size, FEATURES)
    lengths, targets, target_lengths = [], [], []
    for b in range(size):
        count = int(torch.randint(3, 7, (1,), generator=generator))
        digits = torch.randint(0, DIGITS, (count,), generator=generator)
        t = 0
        for d in digits.tolist():
            t += int(torch.randint(0, 3, (1,), generator=generator))
            width = int(torch.randint(2, 5, (1,), generator=generator))
            noise = 0.3 * torch.randn(width, FEATURES, generator=generator)
            frames[t : t + width, b] = patterns[d] + noise
            t += width
        lengths.append(t)
        targets.append(digits + 1)
        target_lengths.append(count)
    return frames, torch.tensor(lengths), torch.cat(targets), torch.tensor(target_lengths)


def main() -> None:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a model this small trains fastest on one thread
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    patterns = torch.randn(DIGITS, FEATURES, generator=generator)
    model = Recogniser()
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
    ctc = torch.nn.CTCLoss(blank=0)
    for _ in range(120):
        frames, lengths, targets, target_lengths = lines(32, patterns, generator)
        loss = ctc(model(frames, lengths), targets, lengths, target_lengths)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    model.eval()
    torch.set_num_threads(threads)  # the C++ demo runs with the default threads
    frames, lengths, targets, target_lengths = lines(16, patterns, generator)
    with torch.no_grad():
        log_probs = model(frames, lengths)
    decoded = greedy_decode(log_probs, lengths)
    truth = ["".join(str(int(c) - 1) for c in t) for t in targets.split(target_lengths.tolist())]
    correct = sum(d == t for d, t in zip(decoded, truth))
    tensors = {f"model.{k}": v.contiguous() for k, v in model.state_dict().items()}
    tensors.update(frames=frames, lengths=lengths, expected=log_probs,
                   decoded=torch.tensor(list("\n".join(decoded).encode()), dtype=torch.uint8))
    save_file(tensors, sys.argv[1], metadata={"torch": torch.__version__})
    print(f"torch {torch.__version__}: {correct} of {len(truth)} test lines read correctly")


if __name__ == "__main__":
    main()
