"""``python -m conformance.differential``: the differential runner without
pytest (SPEC DIFF-2).

    python -m conformance.differential --impl refjax --reference jax \\
        [--examples N] [--seed S] [--families a,b] [--report-json FILE]
        [--shrink-seconds T]

Runs N programs (spread over the families) on both modules, prints one line
per family and the reproducer of each disagreement; exits 1 if any family
disagreed.
"""
import argparse
import json
import sys
import time

from .generate import FAMILIES
from .runner import (DEFAULT_EXAMPLES, DEFAULT_SEED, SHRINK_SECONDS, Pair, default_reference,
                     find_disagreement, load, per_family)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m conformance.differential",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--impl", default="refjax")
    parser.add_argument("--reference", default=None)
    parser.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--report-json", default=None)
    parser.add_argument("--shrink-seconds", type=float, default=SHRINK_SECONDS,
                        help="time Hypothesis may spend shrinking each disagreement")
    args = parser.parse_args(argv)
    families = args.families.split(",")
    reference = args.reference or default_reference(args.impl)
    pair = Pair(load(args.impl), load(reference))
    each = per_family(args.examples, families)
    results, start = {}, time.perf_counter()
    for family in families:
        t = time.perf_counter()
        found = find_disagreement(pair, family, each, args.seed, args.shrink_seconds)
        status = "agree" if found is None else "DISAGREE"
        print(f"{family:12s} {each:6d} programs  {status}  ({time.perf_counter() - t:.1f} s)",
              flush=True)
        if found is not None:
            print(found.report(), flush=True)
        results[family] = None if found is None else {
            "problem": found.problem, "reproducer": found.program.source()}
    failed = [f for f, r in results.items() if r]
    print(f"{args.impl} vs {reference}: {pair.count} programs run (seed {args.seed}), "
          f"{len(failed)} of {len(families)} families disagree, "
          f"{time.perf_counter() - start:.0f} s")
    if args.report_json:
        with open(args.report_json, "w") as f:
            json.dump({"impl": args.impl, "reference": reference, "seed": args.seed,
                       "programs": pair.count, "families": results}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
