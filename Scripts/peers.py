#!/usr/bin/env python3
"""menudeck end to end against DuckDB, polars and numpy on a realistic log, in alternating rounds.

What it measures (issue 14, "a benchmark that measures what users see"; issue 30's targets):

  logs    ingest + one deck: `menudeck deck --history LOG --user ONE` on a realistic log (many
          diners, interleaved sessions, UTC times, no deck field), CSV and JSON Lines, against
          DuckDB and polars doing the same aggregation (per diner x dish: right swipes, left
          swipes, last time) from the same file.
  json    the same one-deck run on the CSV log with `--format json` (whose run header hashes the
          logs) against `--format jsonl`, both `--jobs 1`.
  decks   `menudeck deck` for every diner with no history, against a numpy kernel that does the
          least a deck needs (one score per diner x dish, the top `size` of each row in order).
  ingest  linear in the log: the CSV log at 1x, 4x and 16x (--ingest-scales) through
          `menudeck ingest --out SNAPSHOT --jobs 1` (--ingest-jobs). The larger logs repeat the
          generated one, copy c moved c years later (the year of every `at` + c: 2026, 2027,
          ...), so that the swipes stay distinct in time and in order; `--before` is after
          the last copy, so every swipe is added up. Per size: events, CPU and wall seconds, CPU
          ns per event, peak RSS of the run, and the snapshot's size; then the spread of the
          time per event (max / min) and the peak memory of the largest size over the smallest.
          A size that does not fit on the disk is said and skipped; the scaled logs and
          snapshots (DIR/ingest-scales) are deleted at the end unless --keep.

Every measurement runs in a child process of its own (so each tool starts cold), forked from a
small launcher that reports the child's CPU seconds and peak RSS from wait4 (forked from the
script, a child's ru_maxrss would start at the script's size). The tools alternate within each
round, and the script prints the median of each and the ratios peer / menudeck (above 1:
menudeck is faster): CPU seconds for one thread (`--jobs 1`), wall seconds for every core
(`--jobs CORES`, when its `deck` has `--jobs`), and menudeck's own `--jobs 1` wall beside it.
It ends with a targets block: each ratio issue 30 names, measured in this run, beside its target
and "met" or "not met": one thread CPU duckdb / menudeck >= 3 and polars / menudeck >= 5 (CSV
and JSON Lines); every core wall duckdb / menudeck >= 2, menudeck `--jobs 1` / every core >= 1.7;
`--format json` / `jsonl` CPU <= 1.2; numpy / menudeck decks CPU >= 1.0; ingest time per event
max / min <= 1.2, and peak memory largest / smallest size <= 1.2 (the issue's "flat").

Usage:
  Scripts/peers.py                         # 2,000,000 swipes, 100,000 diners, 500 dishes, 3 rounds
  Scripts/peers.py --events 200000 --diners 20000 --rounds 1   # a quick look
  Scripts/peers.py --menudeck .build/release/menudeck
  Scripts/peers.py --keep /tmp/peers-data --only ingest --ingest-scales 1,4,16

The peers are installed into a venv (default /tmp/menudeck-peers-venv, or $PEERS_VENV) from
PyPI, for the logs and decks sections only; without network or pip the script says so and exits
0 without measuring. Build menudeck first: `swift build -c release` (the script builds it when
the binary is missing).
"""

import argparse
import json
import os
import random
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


# Runs a command in a grandchild forked from this small launcher rather than from the script:
# a child's ru_maxrss starts at the RSS of the process it was forked from (the script holds the
# generated rows, the kernel keeps the larger figure across exec), the launcher's is ~10 MB. It
# prints the grandchild's exit code, CPU seconds, wall seconds and peak RSS (KiB), from wait4.
LAUNCHER = """
import os, sys, time
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.monotonic() - t0
print(os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss)
"""


def timed(cmd, env=None, cwd=None):
    """Runs `cmd`; returns (cpu seconds of the child, wall seconds)."""
    cpu, wall, _ = timed_peak(cmd, env=env, cwd=cwd)
    return cpu, wall


def timed_peak(cmd, env=None, cwd=None):
    """Runs `cmd` through LAUNCHER; returns its (cpu seconds, wall seconds, peak RSS in MiB)."""
    p = subprocess.run([sys.executable, "-c", LAUNCHER] + cmd, env=env, cwd=cwd,
                       capture_output=True, text=True)
    fields = p.stdout.split()
    if p.returncode != 0 or len(fields) != 4 or fields[0] != "0":
        code = fields[0] if fields else p.returncode
        sys.exit(f"failed ({code}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return float(fields[1]), float(fields[2]), int(fields[3]) / 1024


SECTIONS = ("logs", "json", "decks", "ingest")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=2_000_000)
    ap.add_argument("--diners", type=int, default=100_000)
    ap.add_argument("--dishes", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--menudeck", default=os.path.join(REPO, ".build/release/menudeck"))
    ap.add_argument("--keep", help="generate the data here and keep it (and the scaled logs)")
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help=f"comma list of sections to run, of {', '.join(SECTIONS)} (default: all)")
    ap.add_argument("--ingest-scales", default="1,4,16",
                    help="the log's sizes for the ingest section, in copies of it (default 1,4,16)")
    ap.add_argument("--ingest-jobs", type=int, default=1,
                    help="ingest's --jobs in the ingest section (default 1: CPU of one thread)")
    args = ap.parse_args()
    # The commands run in the data's directory: the binary's path must not be relative.
    args.menudeck = os.path.abspath(args.menudeck)
    if not (1 <= args.events <= 100_000_000 and 1 <= args.diners <= 10_000_000
            and 10 <= args.dishes <= 100_000 and 1 <= args.rounds <= 100):
        sys.exit("out of range: 1..1e8 events, 1..1e7 diners, 10..1e5 dishes, 1..100 rounds")
    args.only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = [x for x in args.only if x not in SECTIONS]
    if unknown or not args.only:
        sys.exit(f"--only: unknown section {', '.join(unknown)} (sections: {', '.join(SECTIONS)})")
    try:
        args.ingest_scales = sorted({int(x) for x in args.ingest_scales.split(",")})
    except ValueError:
        args.ingest_scales = []
    if not args.ingest_scales or not all(1 <= k <= 64 for k in args.ingest_scales):
        sys.exit("--ingest-scales: a comma list of whole copies of the log, 1..64 (e.g. 1,4,16)")
    if not 1 <= args.ingest_jobs <= 1024:
        sys.exit("--ingest-jobs: 1..1024")
    return args


def median_of(runs):
    """Per run name: the medians of each measured figure over the rounds."""
    return {k: tuple(statistics.median(x[i] for x in v) for i in range(len(v[0])))
            for k, v in runs.items()}


def alternate(work, rounds):
    """Runs every measurement of every work `rounds` times, who goes first alternating."""
    results = {w: {k: [] for k in runs} for w, runs in work.items()}
    for r in range(rounds):
        for w, runs in work.items():
            keys = list(runs)
            if r % 2:
                keys.reverse()
            for k in keys:
                results[w][k].append(runs[k]())
    return {w: median_of(runs) for w, runs in results.items()}


def report_peers(w, med, has_jobs, targets):
    """The lines of one work against its peers; adds the issue's targets it measures."""
    m1_cpu, m1_wall = med["menudeck 1"]
    _, mall_wall = med["menudeck all"]
    print(f"\n{w}")
    print(f"  menudeck: {m1_cpu:.2f} s CPU ({m1_wall:.2f} s wall) with one thread; "
          f"{mall_wall:.2f} s wall with "
          f"{'every core' if has_jobs else 'one core (no --jobs yet)'}")
    for k, (cpu, wall) in med.items():
        if k.startswith("menudeck"):
            continue
        name, threads = k.split()
        if threads == "1":
            print(f"  {name} one thread: {cpu:.2f} s CPU, ratio {cpu / m1_cpu:.2f}")
        else:
            print(f"  {name} every core: {wall:.2f} s wall, ratio {wall / mall_wall:.2f}")
    log = w.split(":")[0]
    if "duckdb 1" in med:
        targets.append((f"{log}, one thread CPU: duckdb / menudeck", med["duckdb 1"][0] / m1_cpu, 3))
        targets.append((f"{log}, one thread CPU: polars / menudeck", med["polars 1"][0] / m1_cpu, 5))
        targets.append((f"{log}, every core wall: duckdb / menudeck",
                        med["duckdb all"][1] / mall_wall, 2))
        targets.append((f"{log}, wall: menudeck --jobs 1 / every core", m1_wall / mall_wall, 1.7))
    if "numpy 1" in med:
        decks = w.split(", no history")[0]
        targets.append((f"{decks}, one thread CPU: numpy / menudeck", med["numpy 1"][0] / m1_cpu,
                        1.0))
        targets.append((f"{decks}, wall: menudeck --jobs 1 / every core", m1_wall / mall_wall,
                        1.7))


def scaled_log(base, path, copies):
    """`copies` copies of the CSV log `base` one after the other, copy c moved c years later
    (its `at` fields' year + c), so that the swipes stay distinct in time and in order; the
    generated log is all in 2026 (November, and December 1st for the sessions that run past
    midnight), which the check below asserts. Returns the events."""
    with open(base, "rb") as f:
        header, _, body = f.read().partition(b"\n")
    events = body.count(b"\n")
    if body.count(b",2026-") != events or body.count(b"-02-29T"):
        sys.exit(f"{base}: not the generated log (every swipe in 2026): cannot scale it")
    with open(path, "wb") as out:
        out.write(header + b"\n")
        for c in range(copies):
            out.write(body if c == 0 else body.replace(b",2026-", b",%d-" % (2026 + c)))
    return events * copies


def run_ingest(args, dir, targets):
    """The linear-in-log section: the CSV log at each scale through `menudeck ingest --out`."""
    base = os.path.join(dir, "log.csv")
    sub = os.path.join(dir, "ingest-scales")
    os.makedirs(sub, exist_ok=True)
    base_bytes = os.path.getsize(base)
    before = f"{2026 + max(args.ingest_scales)}-01-01"  # after the last copy's last swipe
    print(f"\nlinear in the log: log.csv at {', '.join(f'{k}x' for k in args.ingest_scales)} "
          f"(copy c moved c years later) through `menudeck ingest --out SNAPSHOT --jobs "
          f"{args.ingest_jobs} --before {before}`")
    with open(base, "rb") as f:
        header = len(f.readline())
    logs = {}
    for k in args.ingest_scales:
        path = base if k == 1 else os.path.join(sub, f"log-{k}x.csv")
        # The scaled log (unless there), and its snapshot (at most the log's size), 256 MB spare.
        # A scaled log kept from before is used when its size is this log's times k.
        ready = os.path.exists(path) and os.path.getsize(path) == header + k * (base_bytes - header)
        need = (0 if ready else k * base_bytes) + k * base_bytes + 256e6
        free = shutil.disk_usage(sub).free
        if free < need:
            print(f"  {k}x skipped: needs {need / 1e9:.1f} GB of disk, {free / 1e9:.1f} GB free")
            continue
        if ready:
            with open(path, "rb") as f:
                events = sum(c.count(b"\n") for c in iter(lambda: f.read(1 << 24), b"")) - 1
        else:
            events = scaled_log(base, path, k)
        logs[k] = (path, events)

    def ingest(k):
        path, _ = logs[k]
        snap = os.path.join(sub, f"history-{k}x.snap")
        if os.path.exists(snap):
            os.remove(snap)
        r = timed_peak([args.menudeck, "ingest", "--config", os.path.join(dir, "config.json"),
                        "--out", snap, "--before", before, "--jobs", str(args.ingest_jobs),
                        "--quiet", path], cwd=dir)
        return r + (os.path.getsize(snap),)

    med = alternate({"ingest": {k: (lambda k=k: ingest(k)) for k in logs}}, args.rounds)["ingest"]
    per_event = {}
    for k, (cpu, wall, peak, snap) in med.items():
        path, events = logs[k]
        per_event[k] = cpu / events * 1e9
        print(f"  {k:>2}x: {events:>11,} events, {os.path.getsize(path) / 1e6:7,.0f} MB, "
              f"{cpu:7.2f} s CPU, {wall:7.2f} s wall, {per_event[k]:6.0f} ns/event (CPU), "
              f"peak {peak:6,.0f} MiB, snapshot {snap / 1e6:,.1f} MB")
    if len(med) >= 2:
        lo, hi = min(med), max(med)
        spread = max(per_event.values()) / min(per_event.values())
        print(f"  time per event, max / min over the sizes: {spread:.2f}; "
              f"peak memory {hi}x / {lo}x: {med[hi][2] / med[lo][2]:.2f}")
        # What each further event costs, and what is left of the smallest run at that rate: the
        # part of the time that does not grow with the log (start-up, catalog, snapshot).
        extra = (med[hi][0] - med[lo][0]) / (logs[hi][1] - logs[lo][1])
        print(f"  from {lo}x to {hi}x: {extra * 1e9:.0f} ns CPU per further event; "
              f"{lo}x less its events at that rate: {med[lo][0] - extra * logs[lo][1]:.2f} s CPU")
        targets.append(("ingest, CPU ns/event: max / min over the sizes", spread, 1.2, "<="))
        targets.append((f"ingest, peak memory {hi}x / {lo}x (flat: within 1.2)",
                        med[hi][2] / med[lo][2], 1.2, "<="))
    if not args.keep:
        shutil.rmtree(sub, ignore_errors=True)


def print_targets(targets):
    """The issue's targets: each measured ratio beside its target, met or not."""
    if not targets:
        return
    print("\ntargets (issue 30; measured in this run)")
    width = max(len(t[0]) for t in targets)
    for label, value, goal, *op in targets:
        op = op[0] if op else ">="
        met = value >= goal if op == ">=" else value <= goal
        print(f"  {label:<{width}}  {value:6.2f}  target {op} {goal:<4}  "
              f"{'met' if met else 'not met'}")


def main():
    args = parse_args()
    if not os.path.exists(args.menudeck):
        subprocess.run(["swift", "build", "-c", "release", "--product", "menudeck"], cwd=REPO,
                       check=True)
    # The peers are needed by the logs and decks sections only.
    py = venv_python() if {"logs", "decks"} & set(args.only) else None
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
          f"{cores} cores; {args.rounds} alternating rounds, medians; "
          f"sections {', '.join(args.only)}")

    def menudeck(extra, jobs):
        cmd = [args.menudeck, "deck", "--config", os.path.join(dir, "config.json"),
               "--date", "2026-12-01", "--quiet"] + extra
        if has_jobs:
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
    if "logs" in args.only:
        for log in ("log.csv", "log.jsonl"):
            one = ["--history", os.path.join(dir, log), "--user", "d000001"]
            work[f"{log}: ingest + one deck"] = {
                "menudeck 1": lambda one=one: menudeck(one, 1),
                "menudeck all": lambda one=one: menudeck(one, cores),
                "duckdb 1": lambda log=log: peer("duckdb", 1, log),
                "duckdb all": lambda log=log: peer("duckdb", cores, log),
                "polars 1": lambda log=log: peer("polars", 1, log),
                "polars all": lambda log=log: peer("polars", cores, log),
            }
    if "json" in args.only:
        one = ["--history", os.path.join(dir, "log.csv"), "--user", "d000001"]
        work["log.csv: deck --format json against --format jsonl"] = {
            f"menudeck {f}": (lambda f=f: menudeck(one + ["--format", f], 1))
            for f in ("jsonl", "json")
        }
    if "decks" in args.only:
        decks = ["--out", os.path.join(dir, "decks.jsonl")]
        work[f"{args.diners:,} decks x {args.dishes} dishes, no history"] = {
            "menudeck 1": lambda: menudeck(decks, 1),
            "menudeck all": lambda: menudeck(decks, cores),
            "numpy 1": lambda: peer("numpy", 1),
        }
    if py:
        # What starting a peer costs before it works (Python and the import), part of its
        # figures as menudeck's start-up is part of menudeck's: printed so that a reader can take
        # it out.
        startup = {name: timed([py, "-c", f"import {name}"])[0] for name in PEERS}
        print("peer start-up (python + import, CPU): "
              + ", ".join(f"{k} {v:.2f} s" for k, v in startup.items()))
    targets = []
    for w, med in alternate(work, args.rounds).items():
        if "menudeck json" in med:
            (jsonl, jsonl_wall), (json_cpu, json_wall) = med["menudeck jsonl"], med["menudeck json"]
            print(f"\n{w} (--jobs 1)\n  --format jsonl: {jsonl:.2f} s CPU ({jsonl_wall:.2f} s wall);"
                  f" --format json: {json_cpu:.2f} s CPU ({json_wall:.2f} s wall); "
                  f"ratio json / jsonl {json_cpu / jsonl:.2f}")
            targets.append(("log.csv, one thread CPU: deck --format json / jsonl",
                            json_cpu / jsonl, 1.2, "<="))
        else:
            report_peers(w, med, has_jobs, targets)
    if "ingest" in args.only:
        run_ingest(args, dir, targets)
    print_targets(targets)
    if not args.keep:
        shutil.rmtree(dir, ignore_errors=True)


if __name__ == "__main__":
    main()
