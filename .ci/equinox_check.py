"""Train a small equinox MLP and print its losses (issue 25).

Run it under refjax (``python -m refjax.as_jax .ci/equinox_check.py
--out refjax.json``) and under JAX (``python .ci/equinox_check.py --out
jax.json``), then ``python .ci/equinox_check.py --compare refjax.json
jax.json`` exits non-zero unless the losses agree to float32 rounding.
"""
import argparse
import json
import sys

STEPS = 50


def train():
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import optax

    key, data_key = jax.random.split(jax.random.PRNGKey(0))
    model = eqx.nn.MLP(in_size=2, out_size=1, width_size=16, depth=2, key=key)
    x = jax.random.normal(data_key, (64, 2))
    y = jnp.sin(x[:, :1]) * jnp.cos(x[:, 1:])
    optim = optax.adam(1e-2)
    state = optim.init(eqx.filter(model, eqx.is_inexact_array))

    @eqx.filter_jit
    def step(model, state):
        def loss(m):
            return jnp.mean((jax.vmap(m)(x) - y) ** 2)
        value, grads = eqx.filter_value_and_grad(loss)(model)
        updates, state = optim.update(grads, state, eqx.filter(model, eqx.is_inexact_array))
        return eqx.apply_updates(model, updates), state, value

    losses = []
    for _ in range(STEPS):
        model, state, value = step(model, state)
        losses.append(float(value))
    return losses


def compare(path_a, path_b, rtol=1e-4, atol=1e-6):
    with open(path_a) as fa, open(path_b) as fb:
        a, b = json.load(fa), json.load(fb)
    bad = [(i, u, v) for i, (u, v) in enumerate(zip(a, b))
           if abs(u - v) > atol + rtol * abs(v)]
    if len(a) != len(b) or bad:
        print(f"losses differ ({len(a)} vs {len(b)} steps): {bad[:5]}")
        return 1
    print(f"{len(a)} losses agree (rtol={rtol}, atol={atol}); last {a[-1]:.6g}")
    return 0


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", help="write the losses to this JSON file")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    losses = train()
    print("\n".join(f"{i:3d} {v:.7g}" for i, v in enumerate(losses)))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(losses, f)
    return 0 if losses[-1] < losses[0] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
