#!/usr/bin/env python3
"""menudeck's strategies beside the standard reference recommenders, on the same splits.

For each protocol (MovieLens ml-latest-small with a 0.2 hold-out of (diner, dish) pairs, the UCI
restaurant data with a 0.2 hold-out, MovieLens split at 2016-01-01):

1. `menudeck import` makes the catalog in a temporary directory;
2. `menudeck compare ... --trec DIR` writes the split: DIR/train.csv (the training swipes as
   the strategies learned them) and DIR/qrels.txt (the judged diners and their right swipes);
3. each reference (the most-popular count, LensKit popularity and item-kNN, implicit ALS and BPR,
   EASE in numpy) has its options chosen on a validation split carved from the training swipes
   only (hold-out protocols: a seeded 0.2 hold-out of the training pairs; temporal: the last
   days before the split), by nDCG@10, then is refitted on all the training swipes and ranks
   the judged diners as menudeck's decks do: never a dish the diner swiped (either way) in
   training, and a diner with no training swipe gets the most-popular count's ranking;
4. one final `menudeck compare` evaluates menudeck's strategies and the references' TREC runs
   (`--run`) by the same evaluator, baseline the most-popular count, and the table is printed
   with the chosen options, each fit's time, and the paired difference of the best menudeck
   strategy from the best reference (bootstrap over diners, from `--per-diner`).

The script makes its own virtual environment (BASELINES_VENV, default .venv-baselines) with the
pinned packages below and re-runs itself there; `--self-test` checks its pure parts (nDCG, the
splits, the rankings, the TREC files) with the standard library only and needs no venv.

    Scripts/check-baselines.py --quick --data DIR     # DIR holds movielens-small/, uci-restaurants/
    Scripts/check-baselines.py --protocol uci-holdout --data DIR --check-equal
    Scripts/check-baselines.py --self-test
"""

import argparse
import csv
import hashlib
import heapq
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The versions measured in docs/real-data.md (Python 3.11). lenskit 2025.x is the current API
# (pipelines, `ItemKNNScorer`, `PopScorer`); it pulls torch in.
PINS = [
    "numpy==2.4.6",
    "scipy==1.17.1",
    "pandas==2.3.3",
    "implicit==0.7.3",
    "lenskit==2025.8.1",
    "torch==2.15.0",
]

K = 10
RUN_DEPTH = 100

PROTOCOLS = {
    "movielens-holdout": {
        "data": "movielens-small",
        "importer": "movielens",
        "config": "Config/movielens.json",
        "log": "ratings.csv",
        "split": ["--holdout", "0.2"],
        "title": "MovieLens small, 0.2 hold-out of (diner, dish) pairs",
    },
    "uci-holdout": {
        "data": "uci-restaurants",
        "importer": "uci",
        "config": "Config/uci.json",
        "log": "rating_final.csv",
        "split": ["--holdout", "0.2"],
        "title": "UCI restaurants, 0.2 hold-out of (diner, dish) pairs",
    },
    "movielens-temporal": {
        "data": "movielens-small",
        "importer": "movielens",
        "config": "Config/movielens.json",
        "log": "ratings.csv",
        "split": ["--split", "2016-01-01"],
        "title": "MovieLens, temporal split at 2016-01-01",
    },
}


# ---------------------------------------------------------------------------------------------
# Pure parts (standard library only; --self-test checks them)


def ndcg_at_k(ranking, relevant, k=K):
    """trec_eval's ndcg_cut_k with binary gains: DCG of the top k over the ideal DCG of
    min(k, |relevant|) relevant items first, discount 1/log2(rank + 1). 0 without relevant
    items."""
    if not relevant:
        return 0.0
    dcg = sum(1.0 / math.log2(r + 2) for r, item in enumerate(ranking[:k]) if item in relevant)
    ideal = sum(1.0 / math.log2(r + 2) for r in range(min(k, len(relevant))))
    return dcg / ideal


def mean_ndcg(rankings, relevant, k=K):
    """The mean over the diners of `relevant` (those with at least one relevant item); a diner
    without a ranking counts 0, as `trec_eval -c` and menudeck count it."""
    users = [u for u, items in relevant.items() if items]
    if not users:
        return 0.0
    return sum(ndcg_at_k(rankings.get(u, []), relevant[u], k) for u in users) / len(users)


def stable_fraction(seed, user, item):
    """A number in [0, 1) fixed by (seed, user, item): the seeded hold-out's coin."""
    h = hashlib.blake2b(f"{seed}\x00{user}\x00{item}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") / 2**64


def holdout_split(rows, fraction, seed):
    """Splits swipe rows (dicts with user, item, swipe) by (diner, dish) pair: every row of a
    held-out pair is evaluated, so no pair is on both sides. Returns (train rows, evaluated
    rows)."""
    train, held = [], []
    for row in rows:
        (held if stable_fraction(seed, row["user"], row["item"]) < fraction else train).append(row)
    return train, held


def day_of(row):
    """The day a row belongs to, as the split decides it: its deck's date, else the local date of
    its time (the first ten characters of `at`)."""
    return row.get("deck") or row["at"][:10]


def temporal_split(rows, first_evaluated_day):
    """Rows of days before `first_evaluated_day` (YYYY-MM-DD) train; the others are evaluated."""
    train = [r for r in rows if day_of(r) < first_evaluated_day]
    held = [r for r in rows if day_of(r) >= first_evaluated_day]
    return train, held


def days_before(day, n):
    """The date n days before `day` (YYYY-MM-DD)."""
    from datetime import date, timedelta

    return (date.fromisoformat(day) - timedelta(days=n)).isoformat()


def relevance(rows):
    """Per diner, the dishes swiped right: the judgements of the ranking metrics."""
    out = {}
    for r in rows:
        if r["swipe"] == "right":
            out.setdefault(r["user"], set()).add(r["item"])
    return out


def swiped(rows):
    """Per diner, every dish swiped either way: what a deck never shows again."""
    out = {}
    for r in rows:
        out.setdefault(r["user"], set()).add(r["item"])
    return out


def top_n(scores, excluded, fallback_rank, n):
    """The top n item indices: by score (higher first; None or NaN is no score), then by
    `fallback_rank` (lower first: the most-popular count's order), the items of `excluded`
    never. Unscored items follow every scored one, in the fallback order."""

    def key(i):
        s = scores[i]
        scored = s is not None and not (isinstance(s, float) and math.isnan(s))
        return (0, -s, fallback_rank[i]) if scored else (1, 0.0, fallback_rank[i])

    candidates = (i for i in range(len(scores)) if i not in excluded)
    return heapq.nsmallest(n, candidates, key=key)


def trec_run(rankings, tag):
    """A TREC run, `diner Q0 dish rank score tag`, as menudeck writes its own: per diner in the
    order given, score n + 1 - rank so that trec_eval keeps the order; a diner with an empty
    ranking has no line."""
    for name in [tag] + list(rankings):
        if not name or any(c.isspace() for c in name):
            raise ValueError(f"{name!r}: a TREC field may not be empty or hold white space")
    lines = []
    for user, items in rankings.items():
        for rank, item in enumerate(items, 1):
            if not item or any(c.isspace() for c in item):
                raise ValueError(f"{item!r}: a TREC field may not be empty or hold white space")
            lines.append(f"{user} Q0 {item} {rank} {len(items) + 1 - rank} {tag}\n")
    return "".join(lines)


def read_qrels(text):
    """Per query, the docs judged relevant (level >= 1), in file order of the queries."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) != 4:
            continue
        docs = out.setdefault(f[0], set())
        if int(f[3]) >= 1:
            docs.add(f[2])
    return out


def paired_bootstrap(a, b, resamples=2000, seed=27, level=0.95):
    """Mean of a - b over paired units, its percentile bootstrap interval, and a two-sided
    randomization p-value (signs flipped per unit; (1 + hits) / (1 + resamples))."""
    diffs = [x - y for x, y in zip(a, b)]
    n = len(diffs)
    mean = sum(diffs) / n
    rng = random.Random(seed)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    lo = means[int(math.floor((1 - level) / 2 * (resamples - 1)))]
    hi = means[int(math.ceil((1 + level) / 2 * (resamples - 1)))]
    hits = 0
    for _ in range(resamples):
        s = sum(d if rng.random() < 0.5 else -d for d in diffs) / n
        if abs(s) >= abs(mean) - 1e-15:
            hits += 1
    return mean, lo, hi, (1 + hits) / (1 + resamples)


def self_test():
    failures = []

    def check(what, ok):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    # nDCG@k by hand: relevant at ranks 1 and 3 of 2 relevant: (1 + 1/2) / (1 + 1/log2 3).
    value = ndcg_at_k(["a", "x", "b"], {"a", "b"}, k=10)
    check("ndcg of ranks 1 and 3", abs(value - 1.5 / (1 + 1 / math.log2(3))) < 1e-15)
    check("ndcg cut at k", ndcg_at_k(["x", "a"], {"a"}, k=1) == 0.0)
    check("ndcg ideal capped at k", ndcg_at_k(["a"], {"a", "b", "c"}, k=1) == 1.0)
    check("mean ndcg counts a missing diner 0", mean_ndcg({"u": ["a"]}, {"u": {"a"}, "v": {"b"}}) == 0.5)
    check("mean ndcg skips diners without relevant", mean_ndcg({"u": ["a"]}, {"u": {"a"}, "v": set()}) == 1.0)
    # Hold-out by pair: both rows of one pair on one side, stable, about the fraction.
    rows = [{"user": f"u{u}", "item": f"i{i}", "swipe": "right", "at": "2020-01-01T00:00:00"}
            for u in range(40) for i in range(25)]
    rows += [dict(r, swipe="left") for r in rows[:100]]
    train, held = holdout_split(rows, 0.2, 7)
    pairs = lambda rs: {(r["user"], r["item"]) for r in rs}
    check("hold-out keeps a pair on one side", not (pairs(train) & pairs(held)))
    check("hold-out is stable", holdout_split(rows, 0.2, 7) == (train, held))
    check("hold-out depends on the seed", holdout_split(rows, 0.2, 8) != (train, held))
    share = len(pairs(held)) / 1000
    check(f"hold-out share {share:.3f} near 0.2", 0.16 < share < 0.24)
    timed = [{"user": "u", "item": "a", "swipe": "right", "at": "2015-12-31T23:59:59"},
             {"user": "u", "item": "b", "swipe": "left", "at": "2016-01-01T00:00:00"},
             {"user": "u", "item": "c", "swipe": "right", "at": "2016-01-02T00:00:00", "deck": "2015-12-30"}]
    t, h = temporal_split(timed, "2016-01-01")
    check("temporal split by deck date, else the time's date", [r["item"] for r in t] == ["a", "c"] and [r["item"] for r in h] == ["b"])
    check("days before", days_before("2016-01-01", 365) == "2015-01-01")
    check("relevance has right swipes only", relevance(timed) == {"u": {"a", "c"}})
    # Rankings: by score, ties and unscored items by the fallback order, exclusions never.
    nan = float("nan")
    scores = [0.5, 0.9, nan, 0.5, None, 0.1]
    order = top_n(scores, {5}, [5, 4, 3, 2, 1, 0], 6)
    check("top_n order", order == [1, 3, 0, 4, 2])
    check("top_n cut", top_n(scores, set(), [0, 1, 2, 3, 4, 5], 2) == [1, 0])
    # TREC runs as menudeck writes them; a bad id is refused.
    text = trec_run({"d1": ["a", "b"], "d2": [], "d3": ["c"]}, "ease")
    check("trec run lines", text == "d1 Q0 a 1 2 ease\nd1 Q0 b 2 1 ease\nd3 Q0 c 1 1 ease\n")
    try:
        trec_run({"d 1": ["a"]}, "x")
        check("trec run refuses white space", False)
    except ValueError:
        check("trec run refuses white space", True)
    check("qrels", read_qrels("d1 0 a 1\nd1 0 b 0\nd2 0 c 0\n") == {"d1": {"a"}, "d2": set()})
    mean, lo, hi, p = paired_bootstrap([1.0] * 30, [0.0] * 30, resamples=200)
    check("paired difference of constants", mean == 1.0 and lo == 1.0 and hi == 1.0 and p < 0.01)
    mean, lo, hi, p = paired_bootstrap([0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4], resamples=200)
    check("paired difference of equals", mean == 0.0 and p == 1.0)
    print(f"self-test: {len(failures)} failed" if failures else "self-test: PASS")
    return 1 if failures else 0


# ---------------------------------------------------------------------------------------------
# The virtual environment


def ensure_venv(args):
    """Re-runs this script in its own venv (made when missing) unless already there."""
    if args.no_venv or os.environ.get("CHECK_BASELINES_IN_VENV") == "1":
        return
    venv = Path(os.environ.get("BASELINES_VENV", ROOT / ".venv-baselines"))
    python = venv / "bin" / "python"
    stamp = venv / "pins.txt"
    if not python.exists() or not stamp.exists() or stamp.read_text() != "\n".join(PINS):
        print(f"check-baselines: making the venv {venv} ({', '.join(PINS)})", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PINS], check=True)
        stamp.write_text("\n".join(PINS))
    env = dict(os.environ, CHECK_BASELINES_IN_VENV="1")
    os.execve(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]], env)


# ---------------------------------------------------------------------------------------------
# menudeck


def menudeck_binary(args):
    if args.menudeck:
        return args.menudeck
    for kind in ("release", "debug"):
        path = ROOT / ".build" / kind / "menudeck"
        if path.exists():
            return str(path)
    subprocess.run(["swift", "build", "--product", "menudeck"], cwd=ROOT, check=True)
    return str(ROOT / ".build" / "debug" / "menudeck")


def run_menudeck(binary, arguments, what):
    r = subprocess.run([binary, *arguments], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"check-baselines: {what} failed (exit {r.returncode}):\n"
                 f"  {binary} {' '.join(arguments)}\n{r.stderr}")
    return r.stdout


def builtin_strategies(binary, config):
    """Every built-in strategy (no plugin) that `menudeck strategies` lists."""
    doc = json.loads(run_menudeck(binary, ["strategies", "--config", config, "--format", "json"],
                                  "menudeck strategies"))
    plugins = {n["name"] for n in doc.get("named", []) if "plugin" in n}
    return [s["identifier"] for s in doc["strategies"] if s["identifier"] not in plugins], doc


# ---------------------------------------------------------------------------------------------
# Training data and references (numpy, scipy, lenskit, implicit)


def read_train(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [{"user": r["user"], "item": r["item"], "swipe": r["swipe"], "at": r["at"],
                 "deck": r["deck"]} for r in csv.DictReader(f)]


def read_catalog_ids(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [r["id"] for r in csv.DictReader(f)]


class Data:
    """Training rows as sparse diner x dish matrices over the catalog's dishes."""

    def __init__(self, rows, items, users=None):
        import numpy as np
        import scipy.sparse as sp

        self.items = items
        self.item_index = {it: i for i, it in enumerate(items)}
        names = users if users is not None else sorted({r["user"] for r in rows})
        self.users = list(names)
        self.user_index = {u: i for i, u in enumerate(self.users)}
        for r in rows:
            if r["user"] not in self.user_index:
                self.user_index[r["user"]] = len(self.users)
                self.users.append(r["user"])
        shape = (len(self.users), len(items))

        def matrix(direction):
            ui = [(self.user_index[r["user"]], self.item_index[r["item"]])
                  for r in rows if r["swipe"] == direction]
            if not ui:
                return sp.csr_matrix(shape, dtype=np.float64)
            u, i = zip(*ui)
            return sp.csr_matrix((np.ones(len(u)), (u, i)), shape=shape, dtype=np.float64)

        self.right = matrix("right")  # counts of right swipes per pair
        self.left = matrix("left")
        self.rows = rows
        self.seen = swiped(rows)
        # The most-popular count: right swipes per dish, ties in catalog order.
        counts = np.asarray(self.right.sum(axis=0)).ravel()
        order = sorted(range(len(items)), key=lambda i: (-counts[i], i))
        self.pop_counts = counts
        self.fallback_rank = [0] * len(items)
        for rank, i in enumerate(order):
            self.fallback_rank[i] = rank
        self.has_history = np.asarray((self.right + self.left).sum(axis=1)).ravel() > 0

    def binary(self, left):
        """X: 1 for a pair swiped right (and, with left = 'interaction', left)."""
        x = self.right.copy() if left == "ignore" else self.right + self.left
        x.data[:] = 1.0
        x.eliminate_zeros()
        return x.tocsr()

    def frame(self, left):
        import pandas as pd

        x = self.binary(left).tocoo()
        return pd.DataFrame({"user_id": [self.users[u] for u in x.row],
                             "item_id": [self.items[i] for i in x.col]})


def rank_users(data, score_rows, users, n):
    """Top-n dish ids per diner from a dense score matrix (rows of `users`; NaN = no score):
    dishes the diner swiped in training never, ties and unscored dishes in the most-popular
    count's order, a diner with no training swipe in that order alone."""
    import numpy as np

    fallback = np.asarray(data.fallback_rank, dtype=np.float64)
    out = {}
    for row, user in zip(score_rows, users):
        excluded = [data.item_index[i] for i in data.seen.get(user, ())]
        u = data.user_index.get(user)
        s = np.array(row, dtype=np.float64)
        if u is None or not data.has_history[u]:
            s[:] = np.nan
        unscored = np.isnan(s)
        key_score = np.where(unscored, 0.0, -s)
        order = np.lexsort((fallback, key_score, unscored))
        if excluded:
            mask = np.zeros(len(s), dtype=bool)
            mask[excluded] = True
            order = order[~mask[order]]
        out[user] = [data.items[i] for i in order[:n]]
    return out


def ranking_check(data, score_rows, users, ranked, n):
    """The numpy ranking agrees with the pure `top_n` on the first diners (the spec)."""
    for row, user in list(zip(score_rows, users))[:3]:
        u = data.user_index.get(user)
        scores = [None if (u is None or not data.has_history[u]) else float(v) for v in row]
        excluded = {data.item_index[i] for i in data.seen.get(user, ())}
        want = [data.items[i] for i in top_n(scores, excluded, data.fallback_rank, n)]
        if want != ranked[user]:
            sys.exit(f"check-baselines: the numpy ranking of {user} differs from top_n")


# Each reference: a grid of options (full and --quick) and a fit returning a scorer
# users -> dense scores over the catalog (NaN: no score).

def fit_mostpop(data, opts):
    import numpy as np

    counts = data.pop_counts.astype(np.float64)
    return lambda users: np.tile(counts, (len(users), 1))


def lenskit_scorer(data, scorer, left):
    import numpy as np
    from lenskit import score, topn_pipeline
    from lenskit.data import ItemList, from_interactions_df

    frame = data.frame(left)
    dataset = from_interactions_df(frame, user_col="user_id", item_col="item_id")
    pipeline = topn_pipeline(scorer)
    pipeline.train(dataset)
    known = set(frame["item_id"])
    columns = [i for i, it in enumerate(data.items) if it in known]
    ids = [data.items[i] for i in columns]
    # One item list over the training vocabulary for every query (building it per query from
    # the ids costs ten times the scoring).
    candidates = ItemList(ids, vocabulary=dataset.items)

    def scores(users):
        out = np.full((len(users), len(data.items)), np.nan)
        for r, user in enumerate(users):
            u = data.user_index.get(user)
            if u is None or not data.has_history[u]:
                continue
            result = score(pipeline, user, candidates)
            got = result.scores()
            if list(result.ids()) != ids:
                # The scores come back in another order: match them by id.
                values = dict(zip(result.ids(), got))
                got = [values.get(it, np.nan) for it in ids]
            out[r, columns] = got
        return out

    return scores


def fit_lenskit_pop(data, opts):
    from lenskit.basic import PopScorer

    return lenskit_scorer(data, PopScorer(score="count"), opts["left"])


def fit_lenskit_itemknn(data, opts):
    from lenskit.knn import ItemKNNScorer

    return lenskit_scorer(
        data, ItemKNNScorer(max_nbrs=opts["k"], feedback="implicit"), opts["left"])


def implicit_matrix(data, left):
    """implicit's user_items: right swipes 1; left swipes as interactions (1) or as negative
    feedback (-1: preference 0 with confidence 1 + alpha), or left out."""
    import scipy.sparse as sp

    right = data.binary("ignore")
    if left == "ignore":
        return right
    l = data.left.copy()
    l.data[:] = 1.0
    l = l - l.multiply(right)  # a pair swiped both ways is a like
    l.eliminate_zeros()
    return sp.csr_matrix(right + (l if left == "interaction" else -l))


def factor_scores(data, user_factors, item_factors):
    import numpy as np

    def scores(users):
        rows = [data.user_index.get(u, 0) for u in users]
        return np.asarray(user_factors)[rows] @ np.asarray(item_factors).T

    return scores


def fit_als(data, opts, seed=27):
    from implicit.als import AlternatingLeastSquares

    model = AlternatingLeastSquares(
        factors=opts["factors"], regularization=opts["regularization"], alpha=opts["alpha"],
        iterations=opts["iterations"], random_state=seed, num_threads=1, use_gpu=False,
        calculate_training_loss=False)
    model.fit(implicit_matrix(data, opts["left"]), show_progress=False)
    return factor_scores(data, model.user_factors, model.item_factors)


def fit_bpr(data, opts, seed=27):
    from implicit.bpr import BayesianPersonalizedRanking

    model = BayesianPersonalizedRanking(
        factors=opts["factors"], learning_rate=opts["learning_rate"],
        regularization=opts["regularization"], iterations=opts["iterations"], random_state=seed,
        num_threads=1, use_gpu=False)
    model.fit(data.binary(opts["left"]), show_progress=False)
    return factor_scores(data, model.user_factors, model.item_factors)


def fit_ease(data, opts):
    """EASE (Steck 2019) in closed form: P = (X'X + lambda I)^-1, B = I - P diag(1/diag P) with a
    zero diagonal, scores X_u B; over the dishes with an interaction (the others score 0 in EASE,
    and are left unscored here: they follow in the most-popular order)."""
    import numpy as np
    from scipy.linalg import lapack

    x = data.binary(opts["left"])
    used = np.flatnonzero(np.asarray(x.sum(axis=0)).ravel() > 0)
    xs = x[:, used]
    gram = (xs.T @ xs).toarray().astype(np.float64)
    gram[np.diag_indices_from(gram)] += opts["lambda"]
    # The inverse of the symmetric positive definite matrix from its Cholesky factor (LAPACK
    # dpotrf, dpotri: half the work of a general inverse); dpotri fills the upper triangle.
    factor, info = lapack.dpotrf(gram, lower=False, overwrite_a=True, clean=True)
    if info != 0:
        sys.exit(f"check-baselines: EASE: X'X + lambda I is not positive definite (dpotrf {info})")
    p, info = lapack.dpotri(factor, lower=False, overwrite_c=True)
    if info != 0:
        sys.exit(f"check-baselines: EASE: the inverse failed (dpotri {info})")
    p = np.triu(p) + np.triu(p, 1).T
    b = p / (-np.diag(p))
    b[np.diag_indices_from(b)] = 0.0

    def scores(users):
        rows = [data.user_index.get(u, 0) for u in users]
        out = np.full((len(users), len(data.items)), np.nan)
        out[:, used] = xs[rows] @ b
        return out

    return scores


def grid(quick, **axes):
    keys = list(axes)
    out = [{}]
    for k in keys:
        out = [dict(o, **{k: v}) for o in out for v in axes[k]]
    return out


def references(quick, protocol):
    lefts = ["ignore", "interaction"]
    if quick:
        return [
            ("mostpop", fit_mostpop, [{}]),
            ("lenskit-pop", fit_lenskit_pop, grid(quick, left=lefts)),
            ("lenskit-itemknn", fit_lenskit_itemknn, grid(quick, k=[20, 50], left=lefts)),
            ("implicit-als", fit_als, grid(quick, factors=[64], regularization=[0.1],
                                           alpha=[1.0, 10.0], iterations=[15],
                                           left=["ignore", "negative"])),
            ("implicit-bpr", fit_bpr, grid(quick, factors=[64], learning_rate=[0.05],
                                           regularization=[0.01], iterations=[100], left=["ignore"])),
            ("numpy-ease", fit_ease, grid(quick, **{"lambda": [100.0, 300.0], "left": lefts})),
        ]
    return [
        ("mostpop", fit_mostpop, [{}]),
        ("lenskit-pop", fit_lenskit_pop, grid(quick, left=lefts)),
        ("lenskit-itemknn", fit_lenskit_itemknn, grid(quick, k=[10, 20, 50, 100, 200], left=lefts)),
        ("implicit-als", fit_als, grid(quick, factors=[32, 64, 128], regularization=[0.01, 0.1, 1.0],
                                       alpha=[1.0, 10.0, 40.0], iterations=[15],
                                       left=["ignore", "interaction", "negative"])),
        ("implicit-bpr", fit_bpr, grid(quick, factors=[32, 64, 128], learning_rate=[0.01, 0.05],
                                       regularization=[0.01], iterations=[100],
                                       left=["ignore", "interaction"])),
        ("numpy-ease", fit_ease, grid(quick, **{"lambda": [10.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0],
                                          "left": lefts})),
    ]


def describe(opts):
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in opts.items()) or "-"


def validation_split(rows, spec, seed, val_days):
    """The validation split carved from the training rows: a seeded 0.2 hold-out of the pairs,
    or the last `val_days` days before the protocol's split date."""
    if spec[0] == "--holdout":
        return holdout_split(rows, float(spec[1]), seed)
    return temporal_split(rows, days_before(spec[1], val_days))


def evaluate(data, fit, opts, users, relevant):
    scorer = fit(data, opts)
    ranked = rank_users(data, scorer(users), users, K)
    return mean_ndcg(ranked, relevant)


# ---------------------------------------------------------------------------------------------
# One protocol


def run_protocol(name, args, binary, work):
    p = PROTOCOLS[name]
    source = Path(args.data) / p["data"]
    if not (source / p["log"]).exists():
        print(f"SKIP {name}: no {source / p['log']} (give --data DIR holding {p['data']}/)")
        return None
    print(f"\n== {name}: {p['title']}", flush=True)
    out = Path(args.out) / name
    out.mkdir(parents=True, exist_ok=True)
    imported = work / f"import-{p['importer']}"
    if not (imported / "catalog.csv").exists():
        run_menudeck(binary, ["import", p["importer"], str(source), "--out", str(imported)],
                     "menudeck import")
    catalog = str(imported / "catalog.csv")
    config = str(ROOT / p["config"])
    log = str(source / p["log"])
    split_dir = work / f"split-{name}"
    run_menudeck(binary, ["compare", "--config", config, "--catalog", catalog, "-s", "popularity",
                          "-s", "random", *p["split"], "--k", str(K), "--resamples", "10",
                          "--format", "json", "--trec", str(split_dir), log], "the split")
    rows = read_train(split_dir / "train.csv")
    judged = read_qrels((split_dir / "qrels.txt").read_text())
    judged = {u: r for u, r in judged.items() if r}
    items = read_catalog_ids(catalog)
    data = Data(rows, items)
    users = list(judged)
    with_history = sum(1 for u in users if u in data.user_index and data.has_history[data.user_index[u]])
    print(f"training swipes {len(rows)}, judged diners {len(users)} ({with_history} with training"
          f" swipes), dishes {len(items)}", flush=True)

    vtrain, vheld = validation_split(rows, p["split"], args.seed, args.val_days)
    vdata = Data(vtrain, items)
    vrel = relevance(vheld)
    vrel = {u: r for u, r in vrel.items() if r}
    vusers = list(vrel)
    print(f"validation: {len(vtrain)} swipes learn, {len(vusers)} diners judged", flush=True)

    chosen = {}
    for ref, fit, options in references(args.quick, name):
        best, best_value = None, -1.0
        t0 = time.perf_counter()
        for opts in options:
            value = evaluate(vdata, fit, opts, vusers, vrel)
            if args.verbose:
                print(f"  {ref} {describe(opts)}: validation nDCG@10 {value:.4f}", flush=True)
            if value > best_value + 1e-12:
                best, best_value = opts, value
        tuning = time.perf_counter() - t0
        t0 = time.perf_counter()
        scorer = fit(data, best)
        fit_time = time.perf_counter() - t0
        scores = scorer(users)
        ranked = rank_users(data, scores, users, RUN_DEPTH)
        ranking_check(data, scores, users, ranked, RUN_DEPTH)
        (out / f"{ref}.run").write_text(trec_run(ranked, ref))
        chosen[ref] = {"options": best, "validation_ndcg": best_value, "fit_seconds": fit_time,
                       "tuning_seconds": tuning, "grid": len(options)}
        print(f"  {ref:16} {describe(best):60} validation {best_value:.4f}  fit {fit_time:7.2f} s"
              f"  (grid of {len(options)}: {tuning:.1f} s)", flush=True)

    builtins, doc = builtin_strategies(binary, config)
    strategies = []
    for s in args.strategy or ["builtins"]:
        for one in builtins if s == "builtins" else [s]:
            if one not in strategies:
                strategies.append(one)
    final_config, checks = check_equal_config(args, doc, config, chosen, data, users, out, work, name)
    arms = []
    for s in strategies + [c["arm"] for c in checks]:
        arms += ["-s", s]
    runs = []
    for ref in chosen:
        runs += ["--run", f"{ref}={out / (ref + '.run')}"]
    for c in checks:
        runs += ["--run", f"{c['reference']}={c['run']}"]
    per_diner = out / "per-diner.csv"
    tune = []
    if args.tune:
        # Every arm tuned by menudeck on a validation carved from the training side as the
        # references' was: a fraction of the training pairs, or the last val-days before the split.
        if p["split"][0] == "--holdout":
            tune = ["--tune", "--validation-fraction", "0.2"]
        else:
            tune = ["--tune", "--validation-days", str(args.val_days)]
    report = json.loads(run_menudeck(binary, [
        "compare", "--config", final_config, "--catalog", catalog, *arms, *runs, *tune,
        "--baseline", "mostpop", *p["split"], "--k", str(K), "--format", "json",
        "--per-diner", str(per_diner), "--trec", str(out / "menudeck"), log], "the final compare"))
    (out / "compare.json").write_text(json.dumps(report, indent=1))
    return summarize(name, p, report, per_diner, strategies, chosen, checks, len(users), with_history)


def check_equal_config(args, doc, config, chosen, data, users, out, work, name):
    """With --check-equal: menudeck's ease and als as named configurations with the references'
    options, and the references refitted with exactly those options."""
    if not args.check_equal:
        return config, []
    known = {s["identifier"]: s for s in doc["strategies"]}
    named = {}
    checks = []
    for strategy, ref in (("ease", "numpy-ease"), ("als", "implicit-als")):
        if strategy not in known:
            print(f"check-equal: SKIP {strategy}: menudeck has no '{strategy}' strategy yet")
            continue
        names = {o["name"]: o for o in known[strategy]["options"]}
        opts = dict(chosen[ref]["options"])
        options = {}
        if strategy == "ease":
            lam = next((n for n in names if "lambda" in n or n in ("l2", "regularization")), None)
            if lam is None:
                print("check-equal: SKIP ease: no lambda option among " + ", ".join(names))
                continue
            options[lam] = opts["lambda"]
            left = next((n for n in names if "left" in n), None)
            if left is not None:
                values = names[left].get("values") or names[left].get("choices") or []
                if opts["left"] in values:
                    options[left] = opts["left"]
                elif names[left].get("default") in ("ignore", "interaction"):
                    opts["left"] = names[left]["default"]
                else:
                    print(f"check-equal: SKIP ease: its '{left}' option has no value for left"
                          f" swipes {opts['left']!r} (values {values})")
                    continue
            elif opts["left"] != "ignore":
                opts["left"] = "ignore"
        else:
            missing = [n for n in ("factors", "regularization", "alpha", "iterations") if n not in names]
            if missing:
                print("check-equal: SKIP als: no option " + ", ".join(missing))
                continue
            for n in ("factors", "regularization", "alpha", "iterations"):
                options[n] = opts[n]
            left = next((n for n in names if "left" in n), None)
            if left is not None and names[left].get("type") in ("double", "int"):
                options[left] = 0  # left swipes unobserved, as implicit is given right swipes only
            opts["left"] = "ignore"
        arm = f"{strategy}-check"
        named[arm] = {"use": strategy, "options": options}
        fit = fit_ease if strategy == "ease" else fit_als
        scorer = fit(data, opts)
        ranked = rank_users(data, scorer(users), users, RUN_DEPTH)
        run = out / f"{ref}-check.run"
        run.write_text(trec_run(ranked, f"{ref}-check"))
        checks.append({"strategy": strategy, "arm": arm, "reference": f"{ref}-check", "run": str(run),
                       "options": options})
    if not named:
        return config, []
    with open(config, encoding="utf-8") as f:
        merged = json.load(f)
    merged.setdefault("strategies", {}).update(named)
    path = work / f"config-{name}.json"
    path.write_text(json.dumps(merged, indent=1))
    return str(path), checks


def per_diner_ndcg(path):
    values = {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["metric"] == f"ndcg_at_{K}":
                values.setdefault(r["strategy"], {})[r["diner"]] = float(r["value"])
    return values


def summarize(name, p, report, per_diner, strategies, chosen, checks, judged, with_history):
    est = {a["arm"]: a["estimates"][f"ndcg_at_{K}"] for a in report["arms"]}
    print(f"\n{p['title']}: {judged} diners ({judged - with_history} without training swipes),"
          f" nDCG@{K} [95% interval] by menudeck compare")
    print(f"| arm | nDCG@{K} | chosen options (validation nDCG@{K}) | fit s |")
    print("|---|---:|---|---:|")
    for arm, e in est.items():
        extra = ""
        if arm in chosen:
            c = chosen[arm]
            extra = f" {describe(c['options'])} ({c['validation_ndcg']:.3f}) | {c['fit_seconds']:.2f}"
        else:
            extra = " menudeck strategy |"
        print(f"| {arm} | {e['value']:.3f} [{e['lower']:.3f}, {e['upper']:.3f}] |{extra} |")
    menudeck_arms = [s for s in strategies if s in est]
    refs = [r for r in chosen if r in est]
    best_m = max(menudeck_arms, key=lambda a: est[a]["value"])
    best_r = max(refs, key=lambda a: est[a]["value"])
    values = per_diner_ndcg(per_diner)
    diners = sorted(values[best_m])
    mean, lo, hi, pv = paired_bootstrap([values[best_m][d] for d in diners],
                                        [values[best_r].get(d, 0.0) for d in diners])
    shown = f"p = {pv:.3f}" if pv >= 0.001 else "p < 0.001"
    print(f"best menudeck {best_m} minus best reference {best_r}: {mean:+.3f} [{lo:+.3f}, {hi:+.3f}],"
          f" {shown} (paired bootstrap over {len(diners)} diners, randomization p-value)")
    result = {"protocol": name, "diners": judged, "without_history": judged - with_history,
              "ndcg": est, "chosen": chosen, "best_menudeck": best_m, "best_reference": best_r,
              "difference": {"mean": mean, "lower": lo, "upper": hi, "p": pv}, "checks": []}
    for c in checks:
        a, b = est.get(c["arm"]), est.get(c["reference"])
        gap = abs(a["value"] - b["value"])
        verdict = "PASS" if gap <= 0.005 else "FAIL"
        print(f"check-equal {c['strategy']}: menudeck {a['value']:.4f}, reference {b['value']:.4f},"
              f" |difference| {gap:.4f} <= 0.005: {verdict} (options {c['options']})")
        result["checks"].append({"strategy": c["strategy"], "menudeck": a["value"],
                                 "reference": b["value"], "verdict": verdict})
    return result


def versions():
    import implicit
    import lenskit
    import numpy
    import scipy

    return {"python": sys.version.split()[0], "numpy": numpy.__version__, "scipy": scipy.__version__,
            "implicit": implicit.__version__, "lenskit": lenskit.__version__}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--protocol", choices=["all", *PROTOCOLS], default="all")
    ap.add_argument("--quick", action="store_true", help="small grids")
    ap.add_argument("--data", default=os.environ.get("BASELINES_DATA"),
                    help="directory holding movielens-small/ and uci-restaurants/ (or BASELINES_DATA)")
    ap.add_argument("--out", default="baselines-out", help="TREC runs, reports and summary.json")
    ap.add_argument("-s", "--strategy", action="append", default=[],
                    help="menudeck strategy to compare (repeatable, NAME or NAME:key=value,"
                         " passed to compare as it is; 'builtins': every built-in); default:"
                         " every built-in")
    ap.add_argument("--check-equal", action="store_true",
                    help="menudeck's ease and als against numpy EASE and implicit ALS, same options")
    ap.add_argument("--tune", action="store_true",
                    help="compare --tune: every menudeck strategy tuned on a validation carved from"
                         " the training swipes, as the references are (not with --check-equal)")
    ap.add_argument("--menudeck", help="the menudeck binary (default: .build/release or debug)")
    ap.add_argument("--seed", type=int, default=27, help="seed of the validation hold-out")
    ap.add_argument("--val-days", type=int, default=365,
                    help="temporal protocol: days before the split that validate")
    ap.add_argument("--verbose", action="store_true", help="print every grid point")
    ap.add_argument("--self-test", action="store_true", help="check the pure parts and exit")
    ap.add_argument("--no-venv", action="store_true", help="run in this Python as it is")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if args.tune and args.check_equal:
        print("check-baselines: --tune would tune the --check-equal arms away from the references'"
              " options; run them separately", file=sys.stderr)
        return 64
    if not args.data:
        print("check-baselines: give --data DIR (or BASELINES_DATA) holding movielens-small/ and"
              " uci-restaurants/ (see docs/real-data.md for where they come from)", file=sys.stderr)
        return 64
    ensure_venv(args)
    import warnings

    # LensKit warns for each validation diner whose only training swipes are left swipes when
    # left swipes are not interactions: that diner is ranked by the fallback, as said above.
    warnings.filterwarnings("ignore", message="no query items")
    binary = menudeck_binary(args)
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()))
    results = []
    with tempfile.TemporaryDirectory(prefix="check-baselines-") as tmp:
        for name in PROTOCOLS if args.protocol == "all" else [args.protocol]:
            r = run_protocol(name, args, binary, Path(tmp))
            if r:
                results.append(r)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "summary.json").write_text(json.dumps(
        {"versions": versions(), "quick": args.quick, "protocols": results}, indent=1, default=str))
    failed = [c for r in results for c in r["checks"] if c["verdict"] != "PASS"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
