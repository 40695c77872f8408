#!/usr/bin/env python3
"""menudeck end to end against DuckDB, polars and numpy on a realistic log, in alternating rounds.

What it measures (issue 14, "a benchmark that measures what users see"):

  1. ingest + one deck: `menudeck deck --history LOG --user ONE` on a realistic log (many diners,
     interleaved sessions, UTC times, no deck field), CSV and JSON Lines, against DuckDB and
     polars doing the same aggregation (per diner x dish: right swipes, left swipes, last time)
     from the same file.
  2. decks: `menudeck deck` for every diner with no history, against a numpy kernel that does
     the least a deck needs (one score per diner x dish, the top `size` of each row in order).

Every measurement runs in a child process of its own (so each tool starts cold and its CPU time
is the child's, from getrusage), the tools alternate within each round, and the script prints
the median of each and the ratios peer / menudeck (above 1: menudeck is faster): CPU seconds for
one thread, wall seconds for every core. menudeck runs with `--jobs 1` for the one-thread
columns and with its default (every core) for the wall columns, when its `deck` has `--jobs`.

Usage:
  Scripts/peers.py                         # 2,000,000 swipes, 100,000 diners, 500 dishes, 3 rounds
  Scripts/peers.py --events 200000 --diners 20000 --rounds 1   # a quick look
  Scripts/peers.py --menudeck .build/release/menudeck

The peers are installed into a venv (default /tmp/menudeck-peers-venv, or $PEERS_VENV) from
PyPI; without network or pip the script says so and exits 0 without measuring. Build menudeck
first: `swift build -c release` (the script builds it when the binary is missing).
"""

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.environ.get("PEERS_VENV", "/tmp/menudeck-peers-venv")
PEERS = ["duckdb", "polars", "numpy"]


def venv_python():
    py = os.path.join(VENV, "bin", "python")
    probe = [py, "-c", "import duckdb, polars, numpy"]
    if os.path.exists(py) and subprocess.run(probe, capture_output=True).returncode == 0:
        return py
    print(f"installing {', '.join(PEERS)} into {VENV}", file=sys.stderr)
    try:
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q"] + PEERS, check=True)
    except (subprocess.CalledProcessError, OSError) as e:
        print(f"skipped: cannot install the peers ({e}); nothing was measured")
        sys.exit(0)
    return py


def generate(dir, events, diners, dishes, seed):
    """A catalog of `dishes`, a users file of `diners`, and a log of `events` swipes: each diner
    has sessions on random days of November 2026, sessions of 1 to 10 cards whose events are
    interleaved with every other diner's (sorted by time), times in UTC, no deck field."""
    rng = random.Random(seed)
    categories = ["donburi", "noodles", "soup", "salad", "curry", "sushi", "dessert", "grill"]
    items = []
    for k in range(dishes):
        items.append({
            "id": f"dish{k:04d}", "name": f"Dish {k}", "category": categories[k % len(categories)],
            "tags": [f"t{(k * 7 + j) % 40}" for j in range(3)], "price": 500 + (k % 20) * 50,
        })
    with open(os.path.join(dir, "catalog.json"), "w") as f:
        json.dump({"items": items}, f)
    with open(os.path.join(dir, "users.json"), "w") as f:
        json.dump({"users": [{"id": f"d{u:06d}"} for u in range(diners)]}, f)
    # Popularity skewed as menus are: a few dishes take most right swipes.
    weights = [1.0 / (1 + k) ** 0.8 for k in range(dishes)]
    rows = []
    start = 1_793_491_200  # 2026-11-01T00:00:00Z
    while len(rows) < events:
        user = f"d{rng.randrange(diners):06d}"
        t = start + rng.randrange(30 * 86_400)
        for pos in range(1, 1 + rng.randint(1, 10)):
            item = rng.choices(range(dishes), weights)[0]
            right = rng.random() < 0.25
            rows.append((t, user, f"dish{item:04d}", "right" if right else "left", pos))
            t += rng.randint(2, 9)
            if right or len(rows) >= events:
                break
    rows.sort()
    iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
    with open(os.path.join(dir, "log.csv"), "w") as f:
        f.write("user,item,swipe,at,position\n")
        for t, user, item, swipe, pos in rows:
            f.write(f"{user},{item},{swipe},{iso(t)},{pos}\n")
    with open(os.path.join(dir, "log.jsonl"), "w") as f:
        for t, user, item, swipe, pos in rows:
            f.write(json.dumps({"user": user, "item": item, "swipe": swipe, "at": iso(t),
                                "position": pos}, separators=(",", ":")) + "\n")
    config = {
        "catalog": "catalog.json", "users": "users.json", "strategy": "popularity",
        "seed": 1, "time_zone": "UTC", "format": "jsonl",
        "deck": {"size": 10, "max_per_category": 3, "avoid_adjacent_category": True,
                 "repeat_pick_days": 6, "cooldown_days": 3, "reshow_days": 2},
    }
    with open(os.path.join(dir, "config.json"), "w") as f:
        json.dump(config, f)
    return len(rows)


PEER_CODE = {
    "duckdb": """
import duckdb, sys
con = duckdb.connect()
con.execute(f"SET threads = {THREADS}")
src = "read_csv('LOG', header=true)" if 'LOG'.endswith('.csv') else "read_json('LOG', format='newline_delimited')"
n = con.execute(f'''SELECT count(*) FROM (SELECT "user", item, sum(CASE WHEN swipe = 'right' THEN 1 ELSE 0 END) AS r,
  sum(CASE WHEN swipe = 'left' THEN 1 ELSE 0 END) AS l, max("at") AS last FROM {src} GROUP BY ALL)''').fetchone()[0]
print(n)
""",
    "polars": """
import polars as pl
df = pl.read_csv('LOG') if 'LOG'.endswith('.csv') else pl.read_ndjson('LOG')
g = df.group_by(["user", "item"]).agg([(pl.col("swipe") == "right").sum().alias("r"),
  (pl.col("swipe") == "left").sum().alias("l"), pl.col("at").max().alias("last")])
print(g.height)
""",
    "numpy": """
import numpy as np
rng = np.random.default_rng(1)
diners, dishes, size = DINERS, DISHES, 10
out = np.empty((diners, size), dtype=np.int64)
for lo in range(0, diners, 4096):
    s = rng.random((min(diners, lo + 4096) - lo, dishes))
    top = np.argpartition(-s, size, axis=1)[:, :size]
    order = np.argsort(-np.take_along_axis(s, top, axis=1), axis=1)
    out[lo:lo + len(s)] = np.take_along_axis(top, order, axis=1)
print(out.shape[0])
""",
}


def timed(cmd, env=None, cwd=None):
    """Runs `cmd`; returns (cpu seconds of the child, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=2_000_000)
    ap.add_argument("--diners", type=int, default=100_000)
    ap.add_argument("--dishes", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--menudeck", default=os.path.join(REPO, ".build/release/menudeck"))
    ap.add_argument("--keep", help="generate the data here and keep it")
    args = ap.parse_args()
    # The commands run in the data's directory: the binary's path must not be relative.
    args.menudeck = os.path.abspath(args.menudeck)
    if not (1 <= args.events <= 100_000_000 and 1 <= args.diners <= 10_000_000
            and 10 <= args.dishes <= 100_000 and 1 <= args.rounds <= 100):
        sys.exit("out of range: 1..1e8 events, 1..1e7 diners, 10..1e5 dishes, 1..100 rounds")
    if not os.path.exists(args.menudeck):
        subprocess.run(["swift", "build", "-c", "release", "--product", "menudeck"], cwd=REPO,
                       check=True)
    py = venv_python()
    dir = args.keep or tempfile.mkdtemp(prefix="menudeck-peers-")
    os.makedirs(dir, exist_ok=True)
    # A kept directory that has this size's data already is used as it is.
    stamp = os.path.join(dir, f"generated-{args.events}-{args.diners}-{args.dishes}")
    if args.keep and os.path.exists(stamp):
        n = args.events
    else:
        n = generate(dir, args.events, args.diners, args.dishes, seed=14)
        if args.keep:
            open(stamp, "w").close()
    sizes = {f: os.path.getsize(os.path.join(dir, f)) / 1e6 for f in ("log.csv", "log.jsonl")}
    cores = os.cpu_count() or 1
    help_text = subprocess.run([args.menudeck, "deck", "--help"], capture_output=True,
                               text=True).stdout
    has_jobs = "--jobs" in help_text
    print(f"{time.strftime('%Y-%m-%d')}: {n:,} swipes, {args.diners:,} diners, {args.dishes} "
          f"dishes; log.csv {sizes['log.csv']:.0f} MB, log.jsonl {sizes['log.jsonl']:.0f} MB; "
          f"{cores} cores; {args.rounds} alternating rounds, medians")

    def menudeck(extra, jobs):
        cmd = [args.menudeck, "deck", "--config", os.path.join(dir, "config.json"),
               "--date", "2026-12-01", "--quiet"] + extra
        if has_jobs and jobs is not None:
            cmd += ["--jobs", str(jobs)]
        return timed(cmd, cwd=dir)

    def peer(name, threads, log=None):
        code = PEER_CODE[name].replace("THREADS", str(threads)).replace(
            "DINERS", str(args.diners)).replace("DISHES", str(args.dishes))
        if log:
            code = code.replace("LOG", os.path.join(dir, log))
        env = dict(os.environ)
        for var in ("POLARS_MAX_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            env[var] = str(threads)
        return timed([py, "-c", code], env=env)

    work = {}
    for log in ("log.csv", "log.jsonl"):
        one = ["--history", os.path.join(dir, log), "--user", "d000001"]
        work[f"{log}: ingest + one deck"] = {
            "menudeck 1": lambda one=one: menudeck(one, 1),
            "menudeck all": lambda one=one: menudeck(one, None),
            "duckdb 1": lambda log=log: peer("duckdb", 1, log),
            "duckdb all": lambda log=log: peer("duckdb", cores, log),
            "polars 1": lambda log=log: peer("polars", 1, log),
            "polars all": lambda log=log: peer("polars", cores, log),
        }
    work[f"{args.diners:,} decks x {args.dishes} dishes, no history"] = {
        "menudeck 1": lambda: menudeck(["--out", os.path.join(dir, "decks.jsonl")], 1),
        "menudeck all": lambda: menudeck(["--out", os.path.join(dir, "decks.jsonl")], None),
        "numpy 1": lambda: peer("numpy", 1),
    }
    # What starting a peer costs before it works (Python and the import), part of its figures
    # as menudeck's start-up is part of menudeck's: printed so that a reader can take it out.
    startup = {name: timed([py, "-c", f"import {name}"])[0] for name in PEERS}
    print("peer start-up (python + import, CPU): "
          + ", ".join(f"{k} {v:.2f} s" for k, v in startup.items()))
    results = {w: {k: [] for k in runs} for w, runs in work.items()}
    for r in range(args.rounds):
        for w, runs in work.items():
            keys = list(runs)
            if r % 2:
                keys.reverse()  # alternate who goes first
            for k in keys:
                results[w][k].append(runs[k]())
    for w, runs in results.items():
        med = {k: (statistics.median(c for c, _ in v), statistics.median(t for _, t in v))
               for k, v in runs.items()}
        m1_cpu, _ = med["menudeck 1"]
        _, mall_wall = med["menudeck all"]
        print(f"\n{w}")
        print(f"  menudeck: {m1_cpu:.2f} s CPU with one thread; {mall_wall:.2f} s wall with "
              f"{'every core' if has_jobs else 'one core (no --jobs yet)'}")
        for k, (cpu, wall) in med.items():
            if k.startswith("menudeck"):
                continue
            name, threads = k.split()
            if threads == "1":
                print(f"  {name} one thread: {cpu:.2f} s CPU, ratio {cpu / m1_cpu:.2f}")
            else:
                print(f"  {name} every core: {wall:.2f} s wall, ratio {wall / mall_wall:.2f}")
    if not args.keep:
        shutil.rmtree(dir, ignore_errors=True)


if __name__ == "__main__":
    main()
