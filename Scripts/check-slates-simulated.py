#!/usr/bin/env python3
"""Slate estimates of a simulated log against the target's simulated on-policy value.

For each seed: `menudeck simulate` writes a pick-mode log under a Plackett-Luce logging policy
(`plackett-luce`, temperature 0.3, deck rules that keep its order, so every card carries its
exact propensity and prefix propensity); `menudeck simulate` with the same seed runs the target
(`random`, which does not learn, so its on-policy value does not depend on the log) on the
same diners, and its likes per deck from the split on are the on-policy value; `menudeck
compare --ope -s random ...` on the logging policy's log gives iips, rips, sips and cascade_dr
with 95% intervals. Printed: per seed the on-policy value and the estimates, then how often
each interval covered the on-policy value and the mean error. The on-policy value is itself a
finite-sample figure (its own standard error is printed), so coverage is read against it.

Usage: Scripts/check-slates-simulated.py [--menudeck PATH] [--seeds N] [--days N]
Standard library only. Writes into a temporary directory, removed at the end.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ESTIMATORS = ("iips", "rips", "sips", "cascade_dr")


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[-400:]}")
    return r.stdout


def likes_per_deck(path, split):
    sessions = {}
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            if e["deck"] < split:
                continue
            key = (e["user"], e["deck"])
            sessions[key] = sessions.get(key, 0) + (e["swipe"] == "right")
    values = list(sessions.values())
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, (var / n) ** 0.5, n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--menudeck", default=os.path.join(REPO, ".build/release/menudeck"))
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--days", type=int, default=20)
    args = ap.parse_args()
    args.menudeck = os.path.abspath(args.menudeck)
    if not os.access(args.menudeck, os.X_OK):
        sys.exit(f"FAIL: no menudeck at {args.menudeck} (swift build -c release, or --menudeck)")
    start, split = "2026-11-01", "2026-11-06"
    # The bundled diners (their diets and allergens decide their candidates, in the simulation
    # and in the evaluation alike).
    users = os.path.join(REPO, "Data/users.json")
    covered = {k: 0 for k in ESTIMATORS}
    errors = {k: [] for k in ESTIMATORS}
    with tempfile.TemporaryDirectory(prefix="menudeck-slates-") as d:
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({
                "catalog": os.path.join(REPO, "Data/catalog.json"),
                "users": os.path.join(REPO, "Data/users.json"), "time_zone": "UTC",
                "deck": {"size": 5, "max_per_category": None, "avoid_adjacent_category": False,
                         "pinned": [], "excluded": [], "repeat_pick_days": 0,
                         "cooldown_days": 0, "reshow_days": 0},
                "strategies": {"logging": {"use": "plackett-luce",
                                           "options": {"temperature": 0.3}}}}, f)
        print(f"{args.seeds} seeds, the 48 diners of Data/users.json x {args.days} days from {start},"
              f" split {split}, pick mode, decks of 5; logging plackett-luce(temperature 0.3),"
              " target random")
        print(f"{'seed':>4} {'on-policy':>18} " + " ".join(f"{k:>26}" for k in ESTIMATORS))
        for seed in range(1, args.seeds + 1):
            common = ["--config", "config.json", "--users", users, "--days",
                      str(args.days), "--start", start, "--seed", str(seed), "--mode", "pick"]
            run([args.menudeck, "simulate", *common, "--strategy", "logging", "--events",
                 "log.jsonl"], d)
            run([args.menudeck, "simulate", *common, "--strategy", "random", "--events",
                 "on.jsonl"], d)
            truth, truth_se, _ = likes_per_deck(os.path.join(d, "on.jsonl"), split)
            report = json.loads(run(
                [args.menudeck, "compare", "--config", "config.json", "--split", split, "--ope",
                 "-s", "random", "-s", "popularity", "--seed", str(seed), "--resamples", "500",
                 "--format", "json", "log.jsonl"], d))
            estimates = next(a for a in report["arms"] if a["arm"] == "random")["estimates"]
            cells = []
            for k in ESTIMATORS:
                e = estimates[k]
                if e["lower"] <= truth <= e["upper"]:
                    covered[k] += 1
                errors[k].append(e["value"] - truth)
                cells.append(f"{e['value']:.3f} [{e['lower']:.3f}, {e['upper']:.3f}]")
            print(f"{seed:>4} {truth:>10.3f} ± {truth_se:.3f} " + " ".join(f"{c:>26}" for c in cells),
                  flush=True)
    print()
    for k in ESTIMATORS:
        mean = sum(errors[k]) / len(errors[k])
        print(f"{k:>10}: 95% interval covered the on-policy value {covered[k]}/{args.seeds},"
              f" mean error {mean:+.4f}")


if __name__ == "__main__":
    main()
