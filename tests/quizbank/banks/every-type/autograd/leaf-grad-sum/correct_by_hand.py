# Correct: the derivative of x**2 is 2x, written out without autograd.
import torch


def grad_of_square_sum(x: torch.Tensor) -> torch.Tensor:
    return 2 * x
