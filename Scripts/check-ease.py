#!/usr/bin/env python3
"""menudeck's `ease` strategy against EASE in numpy (Steck 2019's closed form), on the same
training swipes: the scores to 1e-9, nDCG@10 by one evaluator to 0.005, and the speed of the fit
and of the scoring on one thread.

What it checks:
  Part `equal`, for each real data set found (MovieLens ml-latest-small, the UCI restaurant
  data; see docs/real-data.md for where they come from; a data set not found is skipped with its
  reason). The ratings become swipes by the rule of `menudeck import` (MovieLens: rating >= 4
  right, <= 2.5 left; UCI: 2 right, 0 left; the rest are no swipe). A seeded 0.2 hold-out of the
  (diner, dish) pairs (Python's random.Random(SEED), pairs in file order) is drawn here, and the
  log is written with the training swipes on 2000-01-01 and the held-out ones on 2000-01-03, so
  that `menudeck compare --split 2000-01-02` learns from exactly the training swipes and judges
  exactly the held-out right swipes. Then, for each use of left swipes (ignore, interaction,
  negative) at the given lambda:
    - numpy: X (diners x catalog dishes, float64) from the training swipes by that use,
      G = X'X + lambda I, P = inv(G), B = P / -diag(P), diag(B) = 0, S = X B;
    - menudeck: `menudeck deck --exact-scores --size 100` on the training log for every diner
      (the scores in the shortest digits that read back): every card's score must equal
      S[diner, dish] to 1e-9 (|a - b| <= 1e-9 max(1, |b|)), and the deck's dishes must be
      numpy's best 100 among the dishes the diner did not swipe (ties by catalog order);
    - `menudeck compare` judges menudeck's `ease` and a TREC run of numpy's top 10 (unswiped
      dishes, ties by catalog order; a diner without training swipes in X gets the dishes by
      their number of right swipes, as menudeck does) on the same diners: nDCG@10 within 0.005.
  Part `speed` (one thread: OPENBLAS_NUM_THREADS=1; CPU seconds, best of the rounds):
    - the fit at 500 and 5,000 dishes on synthetic right swipes (written here, read by
      `menudeck-bench --phase ease-fit`): numpy (scipy.sparse X, G = (X'X).toarray(), inv, B)
      against menudeck's `learn`, as ratios menudeck / numpy (target: at most 2);
    - scoring 100,000 diners x 500 dishes from the fitted model: numpy S = X B (X sparse, and X
      dense), seen dishes masked, argpartition top 10, sorted; against menudeck's scores and
      top 10 (`--phase ease-score`, the same work), and its decks through the deck pipeline
      (default rules), as ratios (target: at most 1.2).

How to run (from the repository):
  Scripts/check-ease.py --movielens DIR --uci DIR     # builds release, runs both parts
  Scripts/check-ease.py --part equal --movielens DIR --lambda 500
  Scripts/check-ease.py --part speed --rounds 3
Data: --movielens DIR (the unpacked ml-latest-small) and --uci DIR (the restaurant CSV files),
or the environment variables MENUDECK_MOVIELENS and MENUDECK_UCI.

A venv at /tmp/menudeck-ease-venv (--venv DIR; reused when it imports numpy and scipy) is made
with pip; when pip cannot install, the script prints `SKIP: <reason>` and exits 0. Exit 1 when a
check fails. Standard library only outside the venv.
"""

import argparse
import array
import csv
import json
import os
import random
import subprocess
import sys
import tempfile

DEFAULT_VENV = "/tmp/menudeck-ease-venv"
DEFAULT_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 20260110
LEFT_USES = ["ignore", "interaction", "negative"]
DATA = {
    "movielens": {
        "importer": "movielens", "ratings": "ratings.csv", "user": "userId", "item": "movieId",
        "right": lambda r: r >= 4, "left": lambda r: r <= 2.5,
    },
    "uci": {
        "importer": "uci", "ratings": "rating_final.csv", "user": "userID", "item": "placeID",
        "right": lambda r: r == 2, "left": lambda r: r == 0,
    },
}


def log(message):
    print(message, flush=True)


def skip(message):
    print(f"SKIP: {message}", flush=True)
    sys.exit(0)


def run(cmd, env=None, check=True):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if check and r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[-2000:]}")
    return r


# --- the venv ------------------------------------------------------------------------------------

def ensure_venv(venv):
    py = os.path.join(venv, "bin", "python")
    probe = [py, "-c", "import numpy, scipy.sparse"]
    if os.path.exists(py) and subprocess.run(probe, capture_output=True).returncode == 0:
        return py
    if not os.path.exists(py):
        r = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
        if r.returncode != 0:
            skip(f"cannot create a venv at {venv}: {r.stderr.strip()[-500:]}")
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--timeout", "30", "--retries", "2", "numpy", "scipy"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        skip(f"pip could not install numpy and scipy (no network or no index?): "
             f"{r.stderr.strip()[-500:]}")
    return py


# --- the numpy side, run in the venv -------------------------------------------------------------

NUMPY_EASE = r'''
import json, sys, time
import numpy as np
import scipy.sparse as sp

def fit(X, lam):
    G = (X.T @ X).toarray() if sp.issparse(X) else X.T @ X
    G[np.diag_indices_from(G)] += lam
    P = np.linalg.inv(G)
    B = P / (-np.diag(P))
    B[np.diag_indices_from(B)] = 0
    return B

def read_pairs(path):
    a = np.loadtxt(path, delimiter=",", dtype=np.int64, ndmin=2)
    return a[:, 0], a[:, 1]

def matrix(users, items, values, shape):
    return sp.csr_matrix((values, (users, items)), shape=shape, dtype=np.float64)

def top10(S, X):
    S = S.copy()
    r, c = X.nonzero()
    S[r, c] = -np.inf
    part = np.argpartition(-S, 10, axis=1)[:, :10]
    rows = np.arange(S.shape[0])[:, None]
    order = np.argsort(-S[rows, part], axis=1, kind="stable")
    return part[rows, order]

job = json.loads(sys.argv[1])
if job["kind"] == "scores":
    d = np.load(job["input"])
    X = matrix(d["users"], d["items"], d["values"], (int(d["n_users"]), int(d["n_items"])))
    # Only the dishes with a non-zero column: for the others G is lambda on the diagonal and 0
    # elsewhere, so their weights are 0 and they change no other weight (and score 0).
    used = np.flatnonzero(np.asarray(abs(X).sum(axis=0)).ravel())
    Xu = X[:, used].toarray()
    B = fit(Xu, job["lambda"])
    S = np.zeros(X.shape)
    S[:, used] = Xu @ B
    S.astype("<f8").tofile(job["output"])
elif job["kind"] == "fit":
    u, i = read_pairs(job["pairs"])
    best = {}
    for _ in range(job["rounds"]):
        t0 = time.process_time()
        X = matrix(u, i, np.ones(len(u)), (int(u.max()) + 1, job["items"]))
        G = (X.T @ X).toarray()
        t1 = time.process_time()
        G[np.diag_indices_from(G)] += job["lambda"]
        P = np.linalg.inv(G)
        t2 = time.process_time()
        B = P / (-np.diag(P))
        B[np.diag_indices_from(B)] = 0
        t3 = time.process_time()
        for k, v in (("fit", t3 - t0), ("gram", t1 - t0), ("inverse", t2 - t1)):
            best[k] = min(best.get(k, float("inf")), v)
    print(json.dumps(best))
elif job["kind"] == "score":
    u, i = read_pairs(job["pairs"])
    n = job["items"]
    X = matrix(u, i, np.ones(len(u)), (int(u.max()) + 1, n))
    B = fit(X, job["lambda"])
    best = {}
    Xd = X.toarray()
    for _ in range(job["rounds"]):
        t0 = time.process_time()
        top = top10(X @ B, X)
        t1 = time.process_time()
        top_dense = top10(Xd @ B, X)
        t2 = time.process_time()
        for k, v in (("sparse", t1 - t0), ("dense", t2 - t1)):
            best[k] = min(best.get(k, float("inf")), v)
    best["same"] = bool((top == top_dense).all())
    print(json.dumps(best))
'''


def numpy_job(py, job, env):
    r = run([py, "-c", NUMPY_EASE, json.dumps(job)], env=env)
    return r.stdout


# --- part equal ----------------------------------------------------------------------------------

def read_swipes(name, directory):
    spec = DATA[name]
    path = os.path.join(directory, spec["ratings"])
    pairs = []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rating = float(row["rating"])
            if spec["right"](rating):
                swipe = "right"
            elif spec["left"](rating):
                swipe = "left"
            else:
                continue
            pairs.append((row[spec["user"]], row[spec["item"]], swipe))
    return pairs


def check_equal(name, directory, menudeck, py, lam, work, env, lefts):
    """PASS/FAIL lines for one data set; returns the number of failures."""
    out = os.path.join(work, name)
    os.makedirs(out, exist_ok=True)
    run([menudeck, "import", DATA[name]["importer"], directory, "--out", out, "-q"])
    catalog_path = os.path.join(out, "catalog.csv")
    with open(catalog_path, newline="", encoding="utf-8") as f:
        catalog = [row["id"] for row in csv.DictReader(f)]
    index = {item: k for k, item in enumerate(catalog)}
    swipes = read_swipes(name, directory)
    # One swipe per (diner, dish) pair in these data sets; a pair is held out whole.
    rng = random.Random(SEED)
    held = [rng.random() < 0.2 for _ in swipes]
    train = [s for s, h in zip(swipes, held) if not h]
    test = [s for s, h in zip(swipes, held) if h]
    log_path = os.path.join(out, "log.csv")
    with open(log_path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["user", "item", "swipe", "at"])
        for u, i, s in train:
            w.writerow([u, i, s, "2000-01-01T12:00:00Z"])
        for u, i, s in test:
            w.writerow([u, i, s, "2000-01-03T12:00:00Z"])
    train_path = os.path.join(out, "train.csv")
    with open(train_path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["user", "item", "swipe", "at"])
        for u, i, s in train:
            w.writerow([u, i, s, "2000-01-01T12:00:00Z"])
    users = sorted({u for u, _, _ in train}, key=lambda u: u.encode())
    uindex = {u: k for k, u in enumerate(users)}
    seen = {}
    likes = [0] * len(catalog)
    for u, i, s in train:
        seen.setdefault(u, set()).add(index[i])
        if s == "right":
            likes[index[i]] += 1
    evaluated = sorted({u for u, _, s in test if s == "right"}, key=lambda u: u.encode())
    log(f"{name}: {len(catalog)} dishes, {len(train)} training swipes of {len(users)} diners, "
        f"{len(test)} held out ({len(evaluated)} diners with a held-out right swipe)")
    failures = 0
    for left in lefts:
        config = {
            "seed": SEED, "time_zone": "UTC", "strategy": "ease",
            "strategies": {"ease": {"options": {"lambda": lam, "left": left}}},
            "deck": {"size": 10, "max_per_category": None, "avoid_adjacent_category": False,
                     "repeat_pick_days": 36500, "cooldown_days": 36500, "reshow_days": 36500},
        }
        config_path = os.path.join(out, f"config-{left}.json")
        with open(config_path, "w", encoding="utf-8") as f:
            json.dump(config, f)
        # numpy's scores for every training diner.
        value = {"right": 1.0, "left": {"ignore": 0.0, "interaction": 1.0, "negative": -1.0}[left]}
        rows, cols, vals = [], [], []
        for u, i, s in train:
            if value[s] != 0:
                rows.append(uindex[u])
                cols.append(index[i])
                vals.append(value[s])
        npz = os.path.join(out, f"x-{left}.npz")
        npy = os.path.join(out, f"s-{left}.f8")
        write_npz(py, npz, rows, cols, vals, len(users), len(catalog), env)
        numpy_job(py, {"kind": "scores", "input": npz, "output": npy, "lambda": lam}, env)
        scores = load_scores(npy, len(catalog))
        in_x = set(rows)
        # menudeck's decks of 100 with exact scores.
        decks = run([menudeck, "deck", "--config", config_path, "--catalog", catalog_path,
                     "--history", train_path, "--date", "2000-01-02", "--size", "100",
                     "--format", "jsonl", "--exact-scores", "--jobs", "1", "-q"], env=env)
        worst = 0.0
        cards = 0
        order_problems = 0
        for line in decks.stdout.splitlines():
            deck = json.loads(line)
            u = deck["user"]
            if uindex.get(u) not in in_x:
                continue
            row = scores[uindex[u]]
            for card in deck["cards"]:
                expected = row[index[card["item"]]]
                worst = max(worst, abs(card["score"] - expected) / max(1.0, abs(expected)))
                cards += 1
            candidates = [j for j in range(len(catalog)) if j not in seen.get(u, ())]
            best = sorted(candidates, key=lambda j: (-row[j], j))[:len(deck["cards"])]
            got = [index[c["item"]] for c in deck["cards"]]
            # Scores within 1e-12 may come in either order.
            if got != best and any(abs(row[a] - row[b]) > 1e-12 for a, b in zip(got, best)):
                order_problems += 1
        ok = worst <= 1e-9 and cards > 0 and order_problems == 0
        failures += not ok
        log(f"  {'PASS' if ok else 'FAIL'} left={left} lambda={lam}: {cards} cards, largest "
            f"relative difference of the scores {worst:.2e} (at most 1e-9), decks in numpy's "
            f"order: {order_problems} diners differ")
        # nDCG@10 by one evaluator: menudeck's ease and numpy's run.
        run_path = os.path.join(out, f"numpy-{left}.run")
        with open(run_path, "w", encoding="utf-8") as f:
            for u in evaluated:
                candidates = [j for j in range(len(catalog)) if j not in seen.get(u, ())]
                if u in uindex and uindex[u] in in_x:
                    row = scores[uindex[u]]
                    top = sorted(candidates, key=lambda j: (-row[j], j))[:10]
                    values = [row[j] for j in top]
                else:
                    top = sorted(candidates, key=lambda j: (-likes[j], j))[:10]
                    values = [likes[j] for j in top]
                for rank, (j, v) in enumerate(zip(top, values), start=1):
                    f.write(f"{u} Q0 {catalog[j]} {rank} {-rank} numpy-ease\n")
        report = run([menudeck, "compare", "--config", config_path, "--catalog", catalog_path,
                      "-s", "ease", "--split", "2000-01-02", log_path,
                      "--run", f"numpy-ease={run_path}", "--format", "json", "--resamples",
                      "1", "--permutations", "1", "--jobs", "1", "-q"], env=env)
        ndcg = ndcg_at_10(json.loads(report.stdout))
        difference = abs(ndcg["ease"] - ndcg["numpy-ease"])
        ok = difference <= 0.005
        failures += not ok
        log(f"  {'PASS' if ok else 'FAIL'} left={left} lambda={lam}: nDCG@10 menudeck "
            f"{ndcg['ease']:.4f}, numpy {ndcg['numpy-ease']:.4f}, difference {difference:.4f} "
            f"(at most 0.005)")
    return failures


def write_npz(py, path, rows, cols, vals, n_users, n_items, env):
    data = json.dumps({"path": path, "rows": rows, "cols": cols, "vals": vals,
                       "n_users": n_users, "n_items": n_items})
    code = ("import json, sys, numpy as np; d = json.loads(sys.stdin.read()); "
            "np.savez(d['path'], users=np.array(d['rows'], dtype=np.int64), "
            "items=np.array(d['cols'], dtype=np.int64), values=np.array(d['vals']), "
            "n_users=d['n_users'], n_items=d['n_items'])")
    r = subprocess.run([py, "-c", code], input=data, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"FAIL: writing {path}: {r.stderr.strip()[-1000:]}")


def load_scores(path, n_items):
    """The rows of S, from the little-endian doubles numpy wrote."""
    values = array.array("d")
    with open(path, "rb") as f:
        values.frombytes(f.read())
    if sys.byteorder != "little":
        values.byteswap()
    return [values[k:k + n_items] for k in range(0, len(values), n_items)]


def ndcg_at_10(report):
    """nDCG@10 per arm from compare's JSON report."""
    return {arm["arm"]: arm["estimates"]["ndcg_at_10"]["value"] for arm in report["arms"]}


# --- part speed ----------------------------------------------------------------------------------

def synthetic_pairs(path, items, users, per_user, seed):
    """Right swipes skewed towards the first dishes (chance falling with the index)."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        for u in range(users):
            chosen = sorted({min(items - 1, int(rng.random() ** 2 * items))
                             for _ in range(per_user)})
            for i in chosen:
                f.write(f"{u},{i}\n")


def bench(binary, phase, extra, env):
    with tempfile.TemporaryDirectory() as d:
        r = run([binary, "--phase", phase, "--dir", d] + extra, env=env)
    line = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return {k: float(v) for k, v in (p.split("=") for p in line.split()[1:])}


def check_speed(bench_binary, py, lam, rounds, work, env):
    failures = 0
    for items, users in ((500, 2000), (5000, 20000)):
        pairs = os.path.join(work, f"pairs-{items}.csv")
        synthetic_pairs(pairs, items, users, 40, SEED + items)
        best_menudeck = float("inf")
        best_numpy = {}
        for _ in range(rounds):
            m = bench(bench_binary, "ease-fit", ["--ease-pairs", pairs, "--ease-items",
                                                 str(items), "--ease-lambda", str(lam)], env)
            best_menudeck = min(best_menudeck, m["fit"])
            n = json.loads(numpy_job(py, {"kind": "fit", "pairs": pairs, "items": items,
                                          "lambda": lam, "rounds": 1}, env))
            for k, v in n.items():
                best_numpy[k] = min(best_numpy.get(k, float("inf")), v)
        ratio = best_menudeck / best_numpy["fit"]
        ok = ratio <= 2
        failures += not ok
        log(f"  {'PASS' if ok else 'FAIL'} fit, {items} dishes ({int(m['dishes'])} with swipes, "
            f"{int(m['pairs'])} swipes): menudeck {best_menudeck:.3f} s (peak {m['peak']:.0f} "
            f"MiB), numpy {best_numpy['fit']:.3f} s (Gram {best_numpy['gram']:.3f}, inverse "
            f"{best_numpy['inverse']:.3f}): x{ratio:.2f} (at most 2)")
    pairs = os.path.join(work, "pairs-score.csv")
    synthetic_pairs(pairs, 500, 100000, 30, SEED)
    best = {}
    for _ in range(rounds):
        m = bench(bench_binary, "ease-score", ["--ease-pairs", pairs, "--ease-items", "500",
                                               "--ease-lambda", str(lam)], env)
        n = json.loads(numpy_job(py, {"kind": "score", "pairs": pairs, "items": 500,
                                      "lambda": lam, "rounds": 1}, env))
        for k, v in (("kernel", m["kernel"]), ("decks", m["decks"]), ("sparse", n["sparse"]),
                     ("dense", n["dense"])):
            best[k] = min(best.get(k, float("inf")), v)
    reference = min(best["sparse"], best["dense"])
    ratio = best["kernel"] / reference
    ok = ratio <= 1.2
    failures += not ok
    log(f"  {'PASS' if ok else 'FAIL'} scoring 100,000 diners x 500 dishes: menudeck scores and "
        f"top 10 {best['kernel']:.3f} s, numpy X B + top 10 {best['sparse']:.3f} s (X sparse), "
        f"{best['dense']:.3f} s (X dense): x{ratio:.2f} of the faster (at most 1.2); "
        f"menudeck's decks through the deck pipeline {best['decks']:.3f} s "
        f"(x{best['decks'] / reference:.2f})")
    return failures


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", default=DEFAULT_REPO)
    ap.add_argument("--menudeck", help="the menudeck binary (default: build release)")
    ap.add_argument("--bench", help="the menudeck-bench binary (default: build release)")
    ap.add_argument("--venv", default=DEFAULT_VENV)
    ap.add_argument("--part", choices=["all", "equal", "speed"], default="all")
    ap.add_argument("--movielens", default=os.environ.get("MENUDECK_MOVIELENS"))
    ap.add_argument("--uci", default=os.environ.get("MENUDECK_UCI"))
    ap.add_argument("--lambda", dest="lam", type=float, default=500.0)
    ap.add_argument("--left", action="append", choices=LEFT_USES,
                    help="the uses of left swipes to check (repeatable; default all three)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", help="keep the files made here in this folder")
    args = ap.parse_args(argv)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    py = ensure_venv(args.venv)
    menudeck, bench_binary = args.menudeck, args.bench
    if menudeck is None or bench_binary is None:
        log("building: swift build -c release")
        run(["swift", "build", "-c", "release", "--package-path", args.repo])
        release = os.path.join(args.repo, ".build", "release")
        menudeck = menudeck or os.path.join(release, "menudeck")
        bench_binary = bench_binary or os.path.join(release, "menudeck-bench")
    work = args.keep or tempfile.mkdtemp(prefix="menudeck-ease-")
    os.makedirs(work, exist_ok=True)
    failures = 0
    if args.part in ("all", "equal"):
        found = 0
        for name, directory in (("movielens", args.movielens), ("uci", args.uci)):
            if not directory or not os.path.exists(
                    os.path.join(directory, DATA[name]["ratings"])):
                log(f"{name}: skipped, no {DATA[name]['ratings']} "
                    f"(give --{name} DIR or MENUDECK_{name.upper()})")
                continue
            found += 1
            failures += check_equal(name, directory, menudeck, py, args.lam, work, env,
                                    args.left or LEFT_USES)
        if not found:
            log("equal: skipped, no data set found")
    if args.part in ("all", "speed"):
        log("speed (one thread, CPU seconds, best of the rounds; numpy with OpenBLAS, "
            "OPENBLAS_NUM_THREADS=1):")
        failures += check_speed(bench_binary, py, args.lam, args.rounds, work, env)
    log(f"{'FAIL' if failures else 'PASS'}: {failures} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
