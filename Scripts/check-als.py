#!/usr/bin/env python3
"""menudeck's `als` strategy against implicit 0.7's ALS (CPU, conjugate gradient), on real data.

What it checks, for each data set found (MovieLens ml-latest-small, the UCI restaurant data):
  - `menudeck import` makes the catalog; the ratings become swipes by the importer's rule
    (MovieLens: >= 4 right, <= 2.5 left; UCI: 2 right, 0 left; the rest are not swipes);
  - a seeded 0.2 hold-out of the (diner, dish) pairs, made here, so that both sides train on
    exactly the same swipes: the training pairs are written to a log dated 2017-01-01 and the
    held-out ones 2019-01-01, and `menudeck compare --split 2018-01-01` trains on the first and
    judges the second (the diners with a held-out right swipe);
  - implicit's AlternatingLeastSquares(factors, regularization, iterations, use_cg=True,
    cg_steps=3, alpha=1, float32, one thread) fit on the same training swipes with the same
    hyperparameters: the matrix holds the confidence 1 + alpha * likes of each liked dish and
    -(1 + alpha_left * passes) of each dish only passed (implicit reads a negative value as
    preference 0 with that confidence), so both minimise the same loss; its top 100 of the
    dishes the diner did not swipe in training (menudeck's decks leave those out too, by the
    deck rules below) become a TREC run, and diners with no like in training get the dishes by
    their count of likes, as `als` gives them;
  - `menudeck compare` judges `als` and the implicit run (`--run implicit=FILE`) on the same
    diners, for --seeds fits on each side (seeds 1..N: menudeck's --seed, implicit's
    random_state; the random initial factors cannot be the same numbers on both sides, and on a
    small data set one diner's deck moves NDCG@10 by 0.01): the means of their NDCG@10 must
    agree within 0.005 (the issue's acceptance);
  - the time of one ALS iteration, one thread each, in the same run: menudeck's from `deck` with
    `--option iterations=11` minus `iterations=1` (over 10), implicit's from fit() the same way,
    the best of --repeats runs of each, alternating; printed as a ratio (the acceptance is
    menudeck within 1.5x of implicit, on MovieLens; timed on MovieLens only, UCI's fits take
    milliseconds). Timing needs an otherwise idle machine to
    mean much; the ratio is printed, not checked, unless --max-ratio is given.

How to run (from the repository):
  Scripts/check-als.py --movielens DIR --uci DIR        # builds menudeck -c release
  Scripts/check-als.py --menudeck .build/release/menudeck --movielens DIR
  Environment instead of the options: MENUDECK_MOVIELENS, MENUDECK_UCI.
  --hyper factors=32,regularization=30,alpha=10,alpha_left=1,iterations=15 sets the options
  of both (default: als's defaults). --keep DIR keeps the logs, runs and reports.

What it installs:
  A venv at /tmp/menudeck-als-venv (--venv DIR; reused when it has everything), made with the
  Python running this script, then implicit 0.7.x, numpy and scipy; the script runs itself again
  with the venv's Python. When pip cannot install, or no data set is found, it prints
  `SKIP: <reason>` and exits 0, unless --strict. Exit 1 when a check fails.
"""

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

SCRIPT = os.path.abspath(__file__)
DEFAULT_REPO = os.path.dirname(os.path.dirname(SCRIPT))
DEFAULT_VENV = "/tmp/menudeck-als-venv"
CHILD_MARK = "MENUDECK_ALS_CHECK_CHILD"
REQUIREMENTS = ["implicit>=0.7,<0.8", "numpy", "scipy"]
PROBE = "import implicit, numpy, scipy.sparse; assert implicit.__version__.startswith('0.7')"
NDCG_TOLERANCE = 0.005
HOLDOUT = 0.2
SPLIT_SEED = 20240527
DEFAULTS = {"factors": 32, "regularization": 30.0, "alpha": 10.0, "alpha_left": 1.0,
            "iterations": 15}
TRAIN_AT, TEST_AT, SPLIT = "2017-01-01", "2019-01-01", "2018-01-01"

DATASETS = {
    # name: (import kind, ratings file, user column, item column, rating column, right, left)
    "movielens": ("movielens", "ratings.csv", "userId", "movieId", "rating",
                  lambda r: r >= 4, lambda r: r <= 2.5),
    "uci": ("uci", "rating_final.csv", "userID", "placeID", "rating",
            lambda r: r == 2, lambda r: r == 0),
}


def log(msg=""):
    print(msg, flush=True)


def fail(msg):
    log(f"FAIL: {msg}")
    sys.exit(1)


def skip(msg, strict):
    if strict:
        fail(f"{msg} (--strict)")
    log(f"SKIP: {msg}")
    sys.exit(0)


def last_lines(text, n=3):
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return " | ".join(lines[-n:]) if lines else "(no output)"


def ensure_venv(venv, strict):
    """The venv's Python, after installing what is missing; SKIP (exit 0) when pip cannot."""
    py = os.path.join(venv, "bin", "python")
    if os.path.exists(py) and subprocess.run([py, "-c", PROBE], capture_output=True).returncode == 0:
        return py
    if not os.path.exists(py):
        log(f"creating the venv {venv} with {sys.executable}")
        r = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
        if r.returncode != 0:
            skip(f"cannot create a venv at {venv}: {last_lines(r.stderr or r.stdout)}", strict)
    log(f"pip install {' '.join(REQUIREMENTS)}  (into {venv})")
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--timeout", "30", "--retries", "2"] + REQUIREMENTS,
                       capture_output=True, text=True)
    if r.returncode != 0:
        skip(f"pip could not install {' '.join(REQUIREMENTS)} (no network or no package index?): "
             f"{last_lines(r.stderr or r.stdout)}", strict)
    r = subprocess.run([py, "-c", PROBE], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"the venv {venv} was installed but does not import implicit 0.7: "
             f"{last_lines(r.stderr)}")
    return py


def find_menudeck(args):
    if args.menudeck:
        path = os.path.abspath(args.menudeck)
        if not os.access(path, os.X_OK):
            fail(f"--menudeck {args.menudeck}: not an executable file")
        return path
    log("swift build -c release --product menudeck")
    r = subprocess.run(["swift", "build", "-c", "release", "--product", "menudeck"],
                       cwd=args.repo, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"swift build failed: {last_lines(r.stderr or r.stdout, 10)}")
    return os.path.join(args.repo, ".build", "release", "menudeck")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}: {last_lines(r.stderr or r.stdout, 6)}")
    return r


# --- the split -----------------------------------------------------------------------------------

def swipes(directory, spec):
    """(user, item) -> (likes, passes), in file order of first appearance."""
    _, name, ucol, icol, rcol, right, left = spec
    pairs = {}
    with open(os.path.join(directory, name), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rating = float(row[rcol])
            key = (row[ucol].strip(), row[icol].strip())
            likes, passes = pairs.get(key, (0, 0))
            if right(rating):
                pairs[key] = (likes + 1, passes)
            elif left(rating):
                pairs[key] = (likes, passes + 1)
    return pairs


def split(pairs):
    keys = sorted(pairs)
    rng = random.Random(SPLIT_SEED)
    test = set(k for k in keys if rng.random() < HOLDOUT)
    train = {k: pairs[k] for k in keys if k not in test}
    held = {k: pairs[k] for k in keys if k in test}
    return train, held


def write_log(path, train, held):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["user", "item", "swipe", "at"])
        for part, at in ((train, TRAIN_AT), (held, TEST_AT)):
            for (user, item), (likes, passes) in part.items():
                for _ in range(likes):
                    w.writerow([user, item, "right", at])
                for _ in range(passes):
                    w.writerow([user, item, "left", at])


def write_config(path, catalog, hyper, seed):
    options = {k: str(v) for k, v in hyper.items()}
    config = {
        "catalog": catalog,
        "strategy": "als-check",
        "strategies": {"als-check": {"use": "als", "options": options}},
        "seed": seed,
        "time_zone": "UTC",
        "deck": {"size": 10, "max_per_category": None, "avoid_adjacent_category": False,
                 "repeat_pick_days": 36500, "cooldown_days": 36500, "reshow_days": 36500},
    }
    with open(path, "w") as f:
        json.dump(config, f, indent=1)


def catalog_ids(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [row["id"] for row in csv.DictReader(f)]


# --- implicit ------------------------------------------------------------------------------------

def implicit_matrix(train, users, items, hyper):
    import numpy as np
    import scipy.sparse as sp
    rows, cols, vals = [], [], []
    for (user, item), (likes, passes) in train.items():
        if likes > 0:
            value = 1 + hyper["alpha"] * likes
        elif passes > 0 and hyper["alpha_left"] > 0:
            value = -(1 + hyper["alpha_left"] * passes)
        else:
            continue
        rows.append(users[user])
        cols.append(items[item])
        vals.append(value)
    m = sp.csr_matrix((np.array(vals, dtype=np.float32), (rows, cols)),
                      shape=(len(users), len(items)))
    m.sort_indices()
    return m


def implicit_model(hyper, iterations, seed):
    import numpy as np
    from implicit.cpu.als import AlternatingLeastSquares
    model = AlternatingLeastSquares(
        factors=hyper["factors"], regularization=hyper["regularization"], alpha=1.0,
        iterations=iterations, use_cg=True, calculate_training_loss=False,
        num_threads=1, random_state=seed, dtype=np.float32)
    model.cg_steps = 3  # implicit's default, an attribute rather than a parameter in 0.7
    return model


def implicit_run(path, train, held, item_ids, hyper, seed):
    """Fits implicit on the training swipes; writes the TREC run of the judged diners."""
    import numpy as np
    users = {u: k for k, u in enumerate(sorted({u for u, _ in train}))}
    items = {i: k for k, i in enumerate(item_ids)}
    matrix = implicit_matrix(train, users, items, hyper)
    model = implicit_model(hyper, hyper["iterations"], seed)
    model.fit(matrix, show_progress=False)
    likes = np.zeros(len(item_ids))
    swiped = {}
    for (user, item), (l, p) in train.items():
        likes[items[item]] += l
        swiped.setdefault(user, set()).add(items[item])
    liked_users = {u for (u, _), (l, _) in train.items() if l > 0}
    judged = sorted({u for (u, _), (l, _) in held.items() if l > 0})
    by_likes = sorted(range(len(item_ids)), key=lambda i: (-likes[i], i))
    lines = []
    for user in judged:
        seen = swiped.get(user, set())
        if user in liked_users:
            ids, scores = model.recommend(users[user], matrix[users[user]], N=100,
                                          filter_already_liked_items=True)
            ranked = [(int(i), float(s)) for i, s in zip(ids, scores) if int(i) not in seen]
        else:
            ranked = [(i, float(likes[i])) for i in by_likes if i not in seen][:100]
        for rank, (i, s) in enumerate(ranked[:100], 1):
            lines.append(f"{user} Q0 {item_ids[i]} {rank} {s:.9g} implicit\n")
    with open(path, "w") as f:
        f.writelines(lines)
    return len(judged), matrix, users, items


def time_implicit(matrix, hyper, iterations):
    model = implicit_model(hyper, iterations, 0)
    start = time.perf_counter()
    model.fit(matrix, show_progress=False)
    return time.perf_counter() - start


def time_menudeck(menudeck, work, iterations, user):
    cmd = [menudeck, "deck", "--config", os.path.join(work, "config.json"),
           "--history", os.path.join(work, "log.csv"), "--date", SPLIT, "--user", user,
           "--option", f"iterations={iterations}", "--jobs", "1", "--format", "csv",
           "--out", os.path.join(work, f"deck-{iterations}.csv")]
    start = time.perf_counter()
    run(cmd)
    return time.perf_counter() - start


def ndcg10(report, arm):
    for entry in report["arms"]:
        if entry["arm"] == arm:
            return entry["estimates"]["ndcg_at_10"]["value"]
    fail(f"no ndcg_at_10 for {arm} in the compare report")


def check(name, directory, menudeck, hyper, args, work):
    spec = DATASETS[name]
    log(f"== {name}: {directory}")
    out = os.path.join(work, "import")
    run([menudeck, "import", spec[0], directory, "--out", out])
    catalog = os.path.join(out, "catalog.csv")
    item_ids = catalog_ids(catalog)
    known = set(item_ids)
    pairs = {k: v for k, v in swipes(directory, spec).items() if k[1] in known}
    train, held = split(pairs)
    write_log(os.path.join(work, "log.csv"), train, held)
    write_config(os.path.join(work, "config.json"), catalog, hyper, 1)
    log(f"{len(train)} training pairs, {len(held)} held out, {len(item_ids)} dishes; "
        f"options {hyper}")
    pairs_of_values = []
    for seed in range(1, args.seeds + 1):
        judged, matrix, users, _ = implicit_run(
            os.path.join(work, "implicit.run"), train, held, item_ids, hyper, seed)
        run([menudeck, "compare", "--config", os.path.join(work, "config.json"),
             "-s", "als-check", "--split", SPLIT, os.path.join(work, "log.csv"),
             "--run", "implicit=" + os.path.join(work, "implicit.run"), "--k", "10",
             "--seed", str(seed), "--resamples", "200", "--format", "json",
             "--out", os.path.join(work, "report.json")])
        with open(os.path.join(work, "report.json")) as f:
            report = json.load(f)
        pairs_of_values.append((ndcg10(report, "als-check"), ndcg10(report, "implicit")))
        log(f"  seed {seed}: {judged} judged diners, NDCG@10 als {pairs_of_values[-1][0]:.4f}, "
            f"implicit {pairs_of_values[-1][1]:.4f}")
    ours = sum(a for a, _ in pairs_of_values) / len(pairs_of_values)
    theirs = sum(b for _, b in pairs_of_values) / len(pairs_of_values)
    ok = abs(ours - theirs) <= NDCG_TOLERANCE
    log(f"NDCG@10 over {args.seeds} seeds  als {ours:.4f}  implicit {theirs:.4f}  "
        f"difference {ours - theirs:+.4f}  (tolerance {NDCG_TOLERANCE}) {'ok' if ok else 'FAIL'}")
    result = {"dataset": name, "als": ours, "implicit": theirs, "ok": ok,
              "per_seed": pairs_of_values}
    if not args.no_timing and name == "movielens":
        user = sorted(u for (u, _), (l, _) in train.items() if l > 0)[0]
        best = {"m1": [], "m11": [], "i1": [], "i11": []}
        time_implicit(matrix, hyper, 1)  # warm up (imports, thread pools)
        for _ in range(args.repeats):
            best["m1"].append(time_menudeck(menudeck, work, 1, user))
            best["i1"].append(time_implicit(matrix, hyper, 1))
            best["m11"].append(time_menudeck(menudeck, work, 11, user))
            best["i11"].append(time_implicit(matrix, hyper, 11))
        m = (min(best["m11"]) - min(best["m1"])) / 10
        i = (min(best["i11"]) - min(best["i1"])) / 10
        ratio = m / i if i > 0 else float("inf")
        log(f"one iteration, one thread: menudeck {m * 1000:.1f} ms, implicit {i * 1000:.1f} ms, "
            f"ratio {ratio:.2f} (best of {args.repeats}; menudeck deck 1 iteration "
            f"{min(best['m1']):.3f} s, 11 iterations {min(best['m11']):.3f} s)")
        result.update({"menudeck_iteration_s": m, "implicit_iteration_s": i, "ratio": ratio})
        if args.max_ratio and ratio > args.max_ratio:
            result["ok"] = False
            log(f"FAIL: ratio {ratio:.2f} above --max-ratio {args.max_ratio}")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--menudeck", help="the menudeck binary (default: swift build -c release)")
    parser.add_argument("--repo", default=DEFAULT_REPO)
    parser.add_argument("--venv", default=DEFAULT_VENV)
    parser.add_argument("--movielens", default=os.environ.get("MENUDECK_MOVIELENS"))
    parser.add_argument("--uci", default=os.environ.get("MENUDECK_UCI"))
    parser.add_argument("--hyper", default="", help="key=value,... options of both (als's names)")
    parser.add_argument("--seeds", type=int, default=5,
                        help="fits on each side, seeds 1..N (menudeck --seed, implicit's "
                             "random_state); the check is on the means")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--max-ratio", type=float)
    parser.add_argument("--keep", help="keep the work files in this directory")
    parser.add_argument("--strict", action="store_true", help="a SKIP is a failure")
    args = parser.parse_args()

    if os.environ.get(CHILD_MARK) != "1":
        py = ensure_venv(args.venv, args.strict)
        env = dict(os.environ, **{CHILD_MARK: "1", "OPENBLAS_NUM_THREADS": "1",
                                  "MKL_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
        sys.exit(subprocess.run([py, SCRIPT] + sys.argv[1:], env=env).returncode)

    hyper = dict(DEFAULTS)
    for pair in filter(None, args.hyper.split(",")):
        key, _, value = pair.partition("=")
        if key not in hyper:
            fail(f"--hyper: unknown option '{key}' (known: {', '.join(hyper)})")
        hyper[key] = type(DEFAULTS[key])(value)
    found = [(n, d) for n, d in (("movielens", args.movielens), ("uci", args.uci))
             if d and os.path.isdir(d)]
    if not found:
        skip("no data set: give --movielens DIR and/or --uci DIR (or MENUDECK_MOVIELENS, "
             "MENUDECK_UCI)", args.strict)
    import implicit
    log(f"implicit {implicit.__version__}")
    menudeck = find_menudeck(args)
    base = args.keep or tempfile.mkdtemp(prefix="menudeck-als-")
    results = []
    try:
        for name, directory in found:
            work = os.path.join(base, name)
            os.makedirs(work, exist_ok=True)
            results.append(check(name, directory, menudeck, hyper, args, work))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    log(json.dumps(results))
    if all(r["ok"] for r in results):
        log("PASS")
    else:
        fail("see above")


if __name__ == "__main__":
    main()
