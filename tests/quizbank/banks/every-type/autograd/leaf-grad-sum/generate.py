def generate(rng):
    scale = rng.choice([2, 3])
    return {"params": {"scale": scale}, "answers": {}}
