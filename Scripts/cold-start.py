#!/usr/bin/env python3
"""Cold start on simulated diners: strategies compared on the dishes in their first week.

What it does:
  From the bundled catalog (Data/catalog.json) it writes a menu where every seasonal limit is
  lifted (no weekdays, no date range) and NEW dishes (every 8th, from the 4th, in catalog order:
  14 of 109) arrive one every EVERY days from the first simulated day on (their `available.from`),
  so that the deck builder, which honours `available.from`, shows a dish only from its day. The
  config keeps the bundled deck rules and sets the simulation's `feature_appeal_spread` (an
  appeal per category and tag that every diner shares: what a model of the dishes' features can
  carry to a new dish). Then one run of

    menudeck compare --config DIR/config.json --users N --days D --start START \\
      --strategy S1 --strategy S2 ... --baseline BASELINE --new-dish-days 7 --format json

  serves the same seeded diners with every strategy on the same days with the same random
  numbers, and the script prints, per strategy, the like rate over all cards and over the cards
  of dishes in their first 7 days (`new_dish_like_rate`), each with its 95% bootstrap interval,
  and each one's paired difference from the baseline with its interval (resampled by diner).

With --seeds S1,S2,... it runs once per seed (each seed a different world: other diners, other
dish and feature appeals) and ends with, per strategy and metric, the mean of the per-seed
paired differences and its 95% t interval over the seeds (the seeds are independent runs).

Usage:
  Scripts/cold-start.py --menudeck .build/release/menudeck            # linucb, lints vs thompson
  Scripts/cold-start.py --strategies affinity,thompson --baseline thompson --users 300 --days 21
  Scripts/cold-start.py --strategy lints:v=0.1,samples=1 --strategy thompson
  Scripts/cold-start.py --seeds 1,2,3,4,5,6,20261207                  # 7 worlds, ~2 minutes

Exit status: 0 after printing; 1 when menudeck fails. Nothing outside the --out folder (a new
temporary folder by default) is written.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--menudeck", default=".build/release/menudeck")
    p.add_argument("--catalog", default="Data/catalog.json")
    p.add_argument("--strategies", default="linucb,lints,thompson",
                   help="comma-separated names (a variant with options: use --strategy)")
    p.add_argument("--strategy", action="append", default=[],
                   help="one strategy or variant NAME:key=value,... (repeat; replaces --strategies)")
    p.add_argument("--baseline", default="thompson")
    p.add_argument("--users", type=int, default=1000)
    p.add_argument("--days", type=int, default=42)
    p.add_argument("--every", type=int, default=3, help="days between two new dishes")
    p.add_argument("--start", default="2026-12-01")
    p.add_argument("--feature-appeal", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=20261207)
    p.add_argument("--seeds", help="comma-separated seeds: one run each, then the mean over them")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", help="folder for the menu, config and report (default: a new one)")
    args = p.parse_args()

    root = args.out or tempfile.mkdtemp(prefix="menudeck-cold-start-")
    seeds = [int(x) for x in args.seeds.split(",")] if args.seeds else [args.seed]
    results = []
    for seed in seeds:
        out = os.path.join(root, f"seed-{seed}") if args.seeds else root
        report = run(args, seed, out)
        if report is None:
            return 1
        results.append((seed, report))
    if args.seeds:
        summarize(args, results)
    return 0


# Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
METRICS = ("like_rate", "new_dish_like_rate")


def summarize(args, results):
    """Per strategy and metric: each seed's paired difference, their mean and t interval."""
    print(f"\nover {len(results)} seeds: paired difference from {args.baseline} per seed, then "
          "the mean and its 95% t interval over the seeds")
    arms = [d["arm"] for d in results[0][1]["differences"]]
    for arm in arms:
        for m in METRICS:
            values = []
            for _, report in results:
                e = next(d for d in report["differences"] if d["arm"] == arm)["estimates"].get(m)
                if e and e.get("value") is not None:
                    values.append(e["value"])
            if len(values) < 2:
                print(f"{arm}  {m}: fewer than 2 seeds with a value")
                continue
            n = len(values)
            mean = sum(values) / n
            sd = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5
            half = (T975[n - 2] if n - 1 <= len(T975) else 1.96) * sd / n ** 0.5
            per = ", ".join(f"{v:+.4f}" for v in values)
            below = sum(1 for v in values if v < 0)
            print(f"{arm}  {m}: {per}; mean {mean:+.4f} [{mean - half:+.4f}, {mean + half:+.4f}], "
                  f"{below} of {n} below 0")


def run(args, seed, out):
    """One comparison with `seed` in folder `out`; prints it and returns the report."""
    os.makedirs(out, exist_ok=True)
    with open(args.catalog, encoding="utf-8") as f:
        items = json.load(f)["items"]
    start = datetime.date.fromisoformat(args.start)
    new = []
    for n, item in enumerate(items):
        for key in ("weekdays", "available_from", "available_until", "available"):
            item.pop(key, None)
        if n % 8 == 3:
            day = start + datetime.timedelta(days=args.every * len(new))
            item["available"] = {"from": day.isoformat()}
            new.append((item["id"], day.isoformat()))
    with open(os.path.join(out, "catalog.json"), "w", encoding="utf-8") as f:
        json.dump({"items": items}, f, ensure_ascii=False, indent=1)
    config = {
        "catalog": "catalog.json",
        "seed": seed,
        "deck": {"size": 10, "max_per_category": 3, "avoid_adjacent_category": True},
        "simulation": {"feature_appeal_spread": args.feature_appeal},
    }
    with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1)
    print(f"menu: {len(items)} dishes, {len(new)} new ones, one every {args.every} days from "
          f"{new[0][1]} to {new[-1][1]} ({', '.join(i for i, _ in new)})")

    strategies = args.strategy or [s for s in args.strategies.split(",") if s]
    cmd = [args.menudeck, "compare", "--config", os.path.join(out, "config.json"),
           "--users", str(args.users), "--days", str(args.days), "--start", args.start,
           "--new-dish-days", "7", "--baseline", args.baseline, "--format", "json",
           "--jobs", str(args.jobs), "--out", os.path.join(out, "compare.json")]
    for s in strategies:
        cmd += ["--strategy", s]
    print("$ " + " ".join(cmd))
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        return None
    with open(os.path.join(out, "compare.json"), encoding="utf-8") as f:
        report = json.load(f)

    def interval(e):
        if not e or e.get("value") is None:
            return "undefined"
        return f"{e['value']:.4f} [{e['lower']:.4f}, {e['upper']:.4f}]"

    metrics = METRICS
    print(f"\nseed {seed}")
    print(f"\n{'strategy':<12}" + "".join(f"{m:<32}" for m in metrics))
    for arm in report["arms"]:
        print(f"{arm['arm']:<12}" + "".join(f"{interval(arm['estimates'].get(m)):<32}"
                                               for m in metrics))
    print(f"\npaired difference from {args.baseline} (95% bootstrap interval over diners):")
    for d in report["differences"]:
        print(f"{d['arm']:<12}" + "".join(f"{interval(d['estimates'].get(m)):<32}"
                                             for m in metrics))
    print(f"\nreport: {os.path.join(out, 'compare.json')}")
    return report


if __name__ == "__main__":
    sys.exit(main())
