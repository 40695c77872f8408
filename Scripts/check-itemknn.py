#!/usr/bin/env python3
"""menudeck's itemknn against LensKit's item-item kNN (lenskit 0.14.4, ItemItem with
feedback='implicit') on the same training swipes, diners and judgements, by nDCG@10.

What it does, per protocol:
  - `menudeck import` makes the catalog of the data set;
  - `menudeck compare` evaluates itemknn (with the options given, through a named configuration
    of a temporary copy of Config/movielens.json or Config/uci.json) and popularity, writing the
    judgements and decks as TREC files (--trec); its nDCG@10 is read from its JSON;
  - the training swipes are rebuilt here from the ratings file by the same rules (right and left
    by the config's rating thresholds; a temporal split by the UTC day of `timestamp`; a hold-out
    by menudeck's stable hash of (seed, diner, dish), as LogSplit.swift decides it) and their
    count is checked against compare's `training_events`;
  - LensKit's ItemItem(nnbrs = neighbours, save_nbrs = saved_neighbours, min_nbrs =
    min_neighbours, feedback='implicit') learns from the same interactions as menudeck's
    similarity (the likes; with left_swipes similarity or interactions also the passes) and
    scores, for each judged diner, every dish the diner did not swipe in training (menudeck's
    candidates under these configs' deck rules), with the diner's query as menudeck's (the likes;
    with left_swipes interactions also the passes). Dishes LensKit cannot score (NaN) follow the
    scored ones by the count of likes in training, then catalog order: the popularity fallback
    menudeck's own weight_popularity term gives;
  - nDCG@10 of both rankings is computed here from the qrels (binary gains, log2 discount, every
    judged diner counted, as trec_eval -c -m ndcg_cut.10), and menudeck's from its own TREC run
    is checked against the value compare printed (1e-12).

PASS when menudeck's nDCG@10 is at least LensKit's minus 0.005 on every protocol, else FAIL
(exit 1). A data set that is absent is a SKIP with the reason (exit 0 when nothing failed).

Usage:
  Scripts/check-itemknn.py                       # builds menudeck (release), makes the venv
  Scripts/check-itemknn.py --menudeck .build/release/menudeck --movielens DIR --uci DIR
  Scripts/check-itemknn.py --options neighbours=20,left_swipes=interactions

  The data sets (see docs/real-data.md for where they come from): --movielens DIR (the unpacked
  ml-latest-small) and --uci DIR (the restaurant data's CSV files); by default the folders
  movielens-small and uci-restaurants of ../shared/data beside the repository, if there.
  A venv at /tmp/menudeck-itemknn-venv (--venv DIR; reused when it has everything), made with
  the Python that runs this script: pip installs lenskit 0.14.4 (the last release without
  PyTorch) with the numba, numpy, pandas and scipy it works with, and the script runs itself
  again with the venv's Python. When pip cannot install, it prints `SKIP: <reason>`.
  Standard library only outside the venv; LensKit's API is called, none of its code is copied.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

SCRIPT = os.path.abspath(__file__)
REPO = os.path.dirname(os.path.dirname(SCRIPT))
DEFAULT_VENV = "/tmp/menudeck-itemknn-venv"
CHILD_MARK = "MENUDECK_ITEMKNN_CHECK_CHILD"
REQUIREMENTS = ["lenskit==0.14.4", "numba==0.58.1", "numpy<1.26", "pandas<2.2", "scipy<1.12"]
PROBE = "import lenskit.algorithms.item_knn, numpy, pandas"
TOLERANCE = 0.005
MASK64 = (1 << 64) - 1


def log(message):
    print(message, file=sys.stderr, flush=True)


def last_lines(text, n=3):
    return " | ".join(text.strip().splitlines()[-n:])


def skip(reason):
    print(f"SKIP: {reason}", flush=True)
    sys.exit(0)


def fail(reason):
    print(f"FAIL: {reason}", flush=True)
    sys.exit(1)


# --- the venv ------------------------------------------------------------------------------------

def venv_python(venv):
    return os.path.join(venv, "bin", "python")


def ensure_venv(venv):
    py = venv_python(venv)
    if os.path.exists(py) and subprocess.run([py, "-c", PROBE], capture_output=True).returncode == 0:
        return py
    if not os.path.exists(py):
        log(f"creating the venv {venv} with {sys.executable}")
        r = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
        if r.returncode != 0:
            skip(f"cannot create a venv at {venv}: {last_lines(r.stderr or r.stdout)}")
    log(f"pip install {' '.join(REQUIREMENTS)}  (into {venv})")
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--timeout", "30", "--retries", "2"] + REQUIREMENTS,
                       capture_output=True, text=True)
    if r.returncode != 0:
        skip(f"pip could not install {' '.join(REQUIREMENTS)} (no network or no package index?): "
             f"{last_lines(r.stderr or r.stdout)}")
    r = subprocess.run([py, "-c", PROBE], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"the venv {venv} was installed but does not import lenskit: {last_lines(r.stderr)}")
    return py


# --- menudeck's split rule -----------------------------------------------------------------------

def mix64(x):
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def fnv_bytes(state, data):
    for b in data:
        state = ((state ^ b) * 0x100000001B3) & MASK64
    return state


def fnv_u64(state, value):
    for _ in range(8):
        state = ((state ^ (value & 0xFF)) * 0x100000001B3) & MASK64
        value >>= 8
    return state


def held_out(seed, user, item, threshold):
    """menudeck's hold-out rule (LogSplitSink): hash (seed, diner, 0xff, dish) below the
    threshold floor(fraction * 2^64)."""
    h = fnv_u64(0xCBF29CE484222325, seed)
    h = fnv_bytes(h, user.encode())
    h = fnv_u64(h, 0xFF)
    h = fnv_bytes(h, item.encode())
    return mix64(h) < threshold


def swipe(rating, right, left):
    """'right', 'left' or None by the config's rules ('rating>=4', 'rating<=2.5', 'rating=2')."""
    def holds(rule):
        for op in (">=", "<=", "="):
            if rule.startswith("rating" + op):
                bound = float(rule[len("rating" + op):])
                return {">=": rating >= bound, "<=": rating <= bound, "=": rating == bound}[op]
        raise ValueError(f"unexpected rule {rule}")
    if holds(right):
        return "right"
    if holds(left):
        return "left"
    return None


def training_swipes(proto, config):
    """(user, item, 'right'|'left') of the training side, as menudeck splits the log."""
    columns = config["columns"]
    cmap = columns["map"]
    threshold = None
    split_day = None
    if proto["holdout"] is not None:
        threshold = min(int(proto["holdout"] * 2.0 ** 64), MASK64)
    else:
        split_day = datetime.strptime(proto["split"], "%Y-%m-%d").date()
    out = []
    with open(proto["log"], newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            user, item = row[cmap["user"]], row[cmap["item"]]
            kind = swipe(float(row[cmap["rating"]]), columns["right"], columns["left"])
            if kind is None:
                continue
            if threshold is not None:
                if held_out(config["seed"], user, item, threshold):
                    continue
            else:
                day = datetime.fromtimestamp(int(row[cmap["at"]]), tz=timezone.utc).date()
                if day >= split_day:
                    continue
            out.append((user, item, kind))
    return out


# --- menudeck ------------------------------------------------------------------------------------

def run_menudeck(menudeck, proto, options, work):
    base = json.load(open(os.path.join(REPO, "Config", proto["config"]), encoding="utf-8"))
    config = dict(base)
    config["strategies"] = dict(base.get("strategies", {}))
    config["strategies"]["knn"] = {"use": "itemknn", "options": options}
    config_path = os.path.join(work, f"{proto['name']}-config.json")
    with open(config_path, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1)
    trec = os.path.join(work, f"{proto['name']}-trec")
    split = (["--holdout", str(proto["holdout"])] if proto["holdout"] is not None
             else ["--split", proto["split"]])
    cmd = [menudeck, "compare", "--config", config_path, "--catalog", proto["catalog"],
           "-s", "knn", "-s", "popularity", "--baseline", "popularity", *split,
           "--format", "json", "--resamples", "10", "--permutations", "10", "--trec", trec,
           proto["log"]]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"menudeck compare exited {r.returncode}: {last_lines(r.stderr)}")
    report = json.loads(r.stdout)
    ndcg = next(a for a in report["arms"] if a["arm"] == "knn")["estimates"]["ndcg_at_10"]["value"]
    return config, report, ndcg, trec


def read_trec(path):
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if path.endswith("qrels.txt"):
                if int(parts[3]) > 0:
                    rows.setdefault(parts[0], set()).add(parts[2])
            else:
                rows.setdefault(parts[0], []).append((int(parts[3]), parts[2]))
    if not path.endswith("qrels.txt"):
        rows = {u: [i for _, i in sorted(r)] for u, r in rows.items()}
    return rows


def ndcg_at(ranking, relevant, k=10):
    dcg = sum(1 / math.log2(r + 2) for r, i in enumerate(ranking[:k]) if i in relevant)
    ideal = sum(1 / math.log2(r + 2) for r in range(min(len(relevant), k)))
    return dcg / ideal if ideal > 0 else 0.0


def mean_ndcg(runs, qrels):
    return sum(ndcg_at(runs.get(u, []), rel) for u, rel in qrels.items()) / len(qrels)


# --- LensKit -------------------------------------------------------------------------------------

def lenskit_ndcg(proto, swipes, catalog, qrels, options):
    import numpy as np
    import pandas as pd
    from lenskit.algorithms.item_knn import ItemItem

    mode = options["left_swipes"]
    interactions = [(u, i) for u, i, kind in swipes if kind == "right" or mode != "ignore"]
    frame = pd.DataFrame(sorted(set(interactions)), columns=["user", "item"])
    saved = int(options["saved_neighbours"])
    algo = ItemItem(int(options["neighbours"]), min_nbrs=int(options["min_neighbours"]),
                    min_sim=max(float(options["min_similarity"]), 1.0e-6),
                    save_nbrs=saved if saved > 0 else None, feedback="implicit")
    algo.fit(frame)
    likes = {}
    seen = {}
    for u, i, kind in swipes:
        seen.setdefault(u, set()).add(i)
        if kind == "right" or mode == "interactions":
            likes.setdefault(u, set()).add(i)
    count = {}
    for u, i, kind in swipes:
        if kind == "right":
            count[i] = count.get(i, 0) + 1
    order = {item: n for n, item in enumerate(catalog)}
    runs = {}
    for user in qrels:
        candidates = [i for i in catalog if i not in seen.get(user, set())]
        query = sorted(likes.get(user, set()))
        if query:
            scores = algo.predict_for_user(
                user, candidates, ratings=pd.Series(1.0, index=query))
            values = scores.reindex(candidates).to_numpy()
        else:
            values = np.full(len(candidates), np.nan)
        keyed = [(0 if math.isnan(v) else 1, 0.0 if math.isnan(v) else float(v),
                  count.get(i, 0), -order[i], i) for v, i in zip(values, candidates)]
        keyed.sort(reverse=True)
        runs[user] = [k[-1] for k in keyed[:10]]
    return mean_ndcg(runs, qrels)


# --- protocols -----------------------------------------------------------------------------------

def catalog_ids(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [row["id"] for row in csv.DictReader(f)]


def protocols(menudeck, movielens, uci, work):
    found = []
    if movielens and os.path.exists(os.path.join(movielens, "ratings.csv")):
        out = os.path.join(work, "movielens")
        subprocess.run([menudeck, "import", "movielens", movielens, "--out", out],
                       check=True, capture_output=True)
        for name, holdout, split in (("movielens-holdout", 0.2, None),
                                     ("movielens-2016", None, "2016-01-01")):
            found.append(dict(name=name, config="movielens.json", holdout=holdout, split=split,
                              catalog=os.path.join(out, "catalog.csv"),
                              log=os.path.join(movielens, "ratings.csv")))
    else:
        print(f"SKIP: MovieLens protocols: no ratings.csv in {movielens} (give --movielens DIR)")
    if uci and os.path.exists(os.path.join(uci, "rating_final.csv")):
        out = os.path.join(work, "uci")
        subprocess.run([menudeck, "import", "uci", uci, "--out", out],
                       check=True, capture_output=True)
        found.append(dict(name="uci-holdout", config="uci.json", holdout=0.2, split=None,
                          catalog=os.path.join(out, "catalog.csv"),
                          log=os.path.join(uci, "rating_final.csv")))
    else:
        print(f"SKIP: UCI protocol: no rating_final.csv in {uci} (give --uci DIR)")
    return found


def parse_options(text):
    options = {}
    for part in filter(None, (text or "").split(",")):
        key, _, value = part.partition("=")
        options[key] = value
    return options


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    shared = os.path.join(os.path.dirname(REPO), "shared", "data")
    parser.add_argument("--menudeck", help="a built menudeck (default: swift build -c release)")
    parser.add_argument("--movielens", default=os.path.join(shared, "movielens-small"))
    parser.add_argument("--uci", default=os.path.join(shared, "uci-restaurants"))
    parser.add_argument("--options", default="", help="itemknn options, key=value,...")
    parser.add_argument("--venv", default=DEFAULT_VENV)
    parser.add_argument("--no-venv", action="store_true", help="run with this Python as it is")
    args = parser.parse_args(argv)

    if not args.no_venv and os.environ.get(CHILD_MARK) != "1":
        py = ensure_venv(args.venv)
        env = dict(os.environ, **{CHILD_MARK: "1"})
        os.execve(py, [py, SCRIPT] + argv, env)

    menudeck = args.menudeck
    if menudeck is None:
        log("swift build -c release --product menudeck")
        r = subprocess.run(["swift", "build", "-c", "release", "--product", "menudeck"],
                           cwd=REPO, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"swift build failed: {last_lines(r.stderr or r.stdout)}")
        menudeck = os.path.join(REPO, ".build", "release", "menudeck")
    options = parse_options(args.options)
    failed = False
    with tempfile.TemporaryDirectory(prefix="menudeck-itemknn-") as work:
        found = protocols(menudeck, args.movielens, args.uci, work)
        if not found:
            skip("no data set found")
        print(f"itemknn options: {args.options or 'the defaults'}")
        print("| protocol | training swipes | judged diners | menudeck itemknn | LensKit ItemItem"
              " | difference |")
        print("|---|---:|---:|---:|---:|---:|")
        for proto in found:
            config, report, ndcg, trec = run_menudeck(menudeck, proto, options, work)
            swipes = training_swipes(proto, config)
            expected = report["parameters"]["training_events"]
            if len(swipes) != expected:
                fail(f"{proto['name']}: rebuilt {len(swipes)} training swipes, compare learned"
                     f" from {expected}: the split rule here is not menudeck's")
            qrels = read_trec(os.path.join(trec, "qrels.txt"))
            own = mean_ndcg(read_trec(os.path.join(trec, "knn.run")), qrels)
            if abs(own - ndcg) > 1e-12:
                fail(f"{proto['name']}: nDCG@10 of menudeck's TREC run {own!r} is not the value"
                     f" compare printed {ndcg!r}")
            # The options compare used, defaults filled in (its run header).
            used = report["run"]["options"]["knn"]
            if (used["recent_days"], used["recent_likes"]) != (0, 0):
                fail("recent_days and recent_likes have no LensKit counterpart: leave them 0")
            reference = lenskit_ndcg(proto, swipes, catalog_ids(proto["catalog"]), qrels, used)
            difference = ndcg - reference
            failed |= difference < -TOLERANCE
            print(f"| {proto['name']} | {len(swipes):,} | {len(qrels)} | {ndcg:.4f} |"
                  f" {reference:.4f} | {difference:+.4f} |", flush=True)
    if failed:
        fail(f"menudeck's itemknn is more than {TOLERANCE} below LensKit's on a protocol")
    print(f"PASS: menudeck's itemknn is within {TOLERANCE} of LensKit's or above it on every"
          " protocol")


if __name__ == "__main__":
    main(sys.argv[1:])
