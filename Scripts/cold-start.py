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

Usage:
  Scripts/cold-start.py --menudeck .build/release/menudeck            # linucb, lints vs thompson
  Scripts/cold-start.py --strategies affinity,thompson --baseline thompson --users 300 --days 21
  Scripts/cold-start.py --strategy lints:v=0.1,samples=1 --strategy thompson

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
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", help="folder for the menu, config and report (default: a new one)")
    args = p.parse_args()

    out = args.out or tempfile.mkdtemp(prefix="menudeck-cold-start-")
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
        "seed": args.seed,
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
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        return 1
    with open(os.path.join(out, "compare.json"), encoding="utf-8") as f:
        report = json.load(f)

    def interval(e):
        if not e or e.get("value") is None:
            return "undefined"
        return f"{e['value']:.4f} [{e['lower']:.4f}, {e['upper']:.4f}]"

    metrics = ("like_rate", "new_dish_like_rate")
    print(f"\n{'strategy':<12}" + "".join(f"{m:<32}" for m in metrics))
    for arm in report["arms"]:
        print(f"{arm['arm']:<12}" + "".join(f"{interval(arm['estimates'].get(m)):<32}"
                                               for m in metrics))
    print(f"\npaired difference from {args.baseline} (95% bootstrap interval over diners):")
    for d in report["differences"]:
        print(f"{d['arm']:<12}" + "".join(f"{interval(d['estimates'].get(m)):<32}"
                                             for m in metrics))
    print(f"\nreport: {os.path.join(out, 'compare.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
