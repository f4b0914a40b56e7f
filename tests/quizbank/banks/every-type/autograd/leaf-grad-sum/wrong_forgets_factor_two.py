# Mistake: differentiates x**2 as x, dropping the factor 2.
import torch


def grad_of_square_sum(x: torch.Tensor) -> torch.Tensor:
    return x.clone()
