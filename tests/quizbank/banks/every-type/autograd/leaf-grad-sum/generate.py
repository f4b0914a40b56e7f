import random


def generate(rng: random.Random) -> dict[str, dict[str, int]]:
    scale = rng.choice([2, 3])
    return {"params": {"scale": scale}, "answers": {}}
