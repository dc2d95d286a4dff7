"""A DataLoader with the default collate stacks token sequences of different lengths for an XLA training loop.

label: input_pipeline
family: batch_variable_length
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch
import torch_xla


class Tokens(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.arange(3 + i % 3)


device = torch_xla.device()
for batch in torch.utils.data.DataLoader(Tokens(), batch_size=4):
    print(batch.to(device).shape)
