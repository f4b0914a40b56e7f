import torch


def grad_of_square_sum(x: torch.Tensor) -> torch.Tensor:
    leaf = x.detach().clone().requires_grad_(True)
    (grad,) = torch.autograd.grad((leaf**2).sum(), leaf)
    return grad
