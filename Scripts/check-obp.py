#!/usr/bin/env python3
"""menudeck's off-policy estimators against Open Bandit Pipeline (OBP) on the Open Bandit Dataset.

What it checks:
  For each campaign of the Open Bandit Dataset (OBD) sample that ships inside the obp package
  (`all`, `men`, `women`; the logs of the uniform-random behaviour policy, 10,000 rounds each),
  OBP's Bernoulli Thompson Sampling policy (ZOZOTOWN's production prior, seed 12345, 100,000
  Monte Carlo draws, as in OBP's own OBD examples) is evaluated off-policy twice:
    - by OBP 0.5.7: InverseProbabilityWeighting, SelfNormalizedInverseProbabilityWeighting,
      DirectMethod and DoublyRobust, and with lambda_=10 InverseProbabilityWeighting,
      DoublyRobust and SwitchDoublyRobust (menudeck's ips_clip, dr_clip and switch_dr under
      --clip 10), those with a reward model given menudeck's
      r(a, p) = (likes(a, p) + 10 rho_p) / (shows(a, p) + 10), rho_p = likes at p / cards at p
      over the whole log (a pair never shown gets rho_p), computed here in Python;
    - by menudeck: `menudeck compare --ope --policy bts=PROBS.csv` on the same rounds exported
      as a swipe log with propensities, and BTS's action distribution as a target-probabilities
      file.
  The estimates `ips`, `snips`, `dm`, `dr`, `ips_clip`, `dr_clip`, `switch_dr` of arm `bts` must equal OBP's to 1e-9
  (absolute): PASS, else FAIL and exit 1. Before that, OBP's four numbers are recomputed with a
  few lines of numpy straight from the formulas (and the reward model with plain Python counts):
  a disagreement there (beyond 1e-12) is a FAIL too, and so is one of the four recomputed in plain
  Python from the exported files alone (so a wrong export is told from a wrong menudeck).
  Printed per campaign: n_rounds, n_actions, len_list, whether BTS's distribution is the same in
  every round, the propensities, the effective sample size (sum w)^2 / sum w^2 and the largest
  weight, w = pi(a_i, p_i) / pscore_i (menudeck reports those as `ope_effective_cards` and
  `ope_largest_weight`; both are printed). The propensities are the doubles OBP works with:
  pandas' fast CSV parser reads the sample's 0.029411764705882353 as 0.0294117647058823, not as
  1/34, and repr() carries exactly that double to menudeck.

How to run (from the repository):
  Scripts/check-obp.py                         # builds menudeck (swift build -c release), runs all
  Scripts/check-obp.py --menudeck .build/release/menudeck
  Scripts/check-obp.py --campaign men --keep /tmp/obd-men    # one campaign, keep the exported files
  Scripts/check-obp.py --obp-only              # OBP's numbers and the exports, no menudeck
  Scripts/check-obp.py --without-policy        # menudeck without --policy (a build that predates
                                               # it): only checks that it reads the exports
  --strict turns the SKIP below into a failure (exit 1).

What it installs:
  A venv at /tmp/menudeck-obp-venv (--venv DIR; reused when it has everything), made with the
  Python running this script, then: numpy, scipy, "pandas<3" (OBP 0.5.7's OpenBanditDataset calls
  DataFrame.drop(columns=..., axis=1), which pandas 3 refuses), scikit-learn, PyYAML (BernoulliTS
  reads ZOZOTOWN's prior from a YAML file when obp.policy is imported), and `obp==0.5.7` with
  --no-deps --ignore-requires-python (its wheel declares Python < 3.11 and pins torch,
  matplotlib, seaborn, tqdm, pingouin, pyieoe, Pillow, mypy-extensions, none of which its
  estimators, OpenBanditDataset or BernoulliTS use). The script then runs itself again with the
  venv's Python. When pip cannot install (no network, no index), it prints `SKIP: <reason>` and
  exits 0, unless --strict.
  `import obp` imports torch (obp.utils, obp.policy.offline*), tqdm, matplotlib.pyplot and seaborn
  (obp.ope.meta*) at module level: those are stubbed in sys.modules (torch, torch.nn,
  torch.nn.functional, torch.optim, tqdm, matplotlib, matplotlib.pyplot, seaborn) only while obp
  is imported, after numpy, scipy, pandas and scikit-learn are, and removed from sys.modules
  afterwards. Any attribute of a stub is another stub (so `class X(torch.utils.data.Dataset)`
  and annotations work) and calling one raises: nothing of them is ever used.

The exports (per campaign, in a temporary directory that is removed after a PASS and kept after a
FAIL, or in --keep DIR/<campaign>):
  catalog.csv            id,name,category: ids "0".."n_actions-1", category "obd" for all
  config.json            "catalog": "catalog.csv", time_zone UTC (OBD's times are UTC), deck size
                         len_list and every deck rule off (no category cap, no adjacency rule,
                         no hold-backs), so that the baseline strategies' decks are plain rankings
  log.csv                user,item,swipe,at,position,propensity: one row per round in OBD's
                         order (sorted by time); user r000001, r000002, ... (one diner per round),
                         item str(action), swipe right if the click is 1 else left, at the round's
                         timestamp from the raw CSV (OpenBanditDataset.data["timestamp"]; the
                         bandit feedback has none) in ISO 8601 with its +00:00 offset, position
                         OBD's position + 1, propensity repr(pscore)
  bts-probabilities.csv  diner,day,item,position,probability: BTS's probability of each item at
                         each position (1-based), repr(); diner and day empty ("every diner, every
                         day") when the distribution is the same in every round, else one set of
                         rows per diner (day empty)
The menudeck run (split on the day of the first round, so every round is evaluated):
  menudeck compare --config config.json --catalog catalog.csv --split YYYY-MM-DD --ope
      --policy bts=bts-probabilities.csv -s random -s popularity --format json --resamples 200
      log.csv

Standard library only outside the venv; OBP's API is called, none of its code is copied.
"""

import argparse
import csv
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types

SCRIPT = os.path.abspath(__file__)
DEFAULT_REPO = os.path.dirname(os.path.dirname(SCRIPT))
DEFAULT_VENV = "/tmp/menudeck-obp-venv"
CHILD_MARK = "MENUDECK_OBP_CHECK_CHILD"

OBP_SPEC = "obp==0.5.7"
OBP_VERSION = "0.5.7"
REQUIREMENTS = ["numpy", "scipy", "pandas<3", "scikit-learn", "pyyaml"]
# What `import obp` imports at module level that the check never calls.
STUBBED = ("torch", "torch.nn", "torch.nn.functional", "torch.optim", "tqdm", "matplotlib",
           "matplotlib.pyplot", "seaborn")

CAMPAIGNS = ("all", "men", "women")
BEHAVIOR_POLICY = "random"
BTS_SEED = 12345
N_SIM = 100_000
PRIOR_CARDS = 10  # m of the reward model
ARM = "bts"
# menudeck's metric name -> OBP's estimator class name.
CLIP = 10.0  # lambda_ of the clipped estimators and of switch-DR (menudeck --clip)
ESTIMATORS = (("ips", "InverseProbabilityWeighting"),
              ("snips", "SelfNormalizedInverseProbabilityWeighting"),
              ("dm", "DirectMethod"),
              ("dr", "DoublyRobust"),
              ("ips_clip", "InverseProbabilityWeighting"),
              ("dr_clip", "DoublyRobust"),
              ("switch_dr", "SwitchDoublyRobust"))
CLIPPED = ("ips_clip", "dr_clip", "switch_dr")  # constructed with lambda_=CLIP
TOLERANCE = 1e-9      # OBP vs menudeck
SELF_TOLERANCE = 1e-12  # OBP vs the numpy re-implementation
RESAMPLES = 200


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


# --- the venv ------------------------------------------------------------------------------------

PROBE = f"""
import importlib.metadata as m, sys
assert m.version("obp") == {OBP_VERSION!r}, m.version("obp")
import numpy, scipy, pandas, sklearn, yaml
assert int(pandas.__version__.split(".")[0]) < 3, pandas.__version__
"""


def venv_python(venv):
    return os.path.join(venv, "bin", "python")


def venv_ready(py):
    return os.path.exists(py) and subprocess.run(
        [py, "-c", PROBE], capture_output=True).returncode == 0


def last_lines(text, n=3):
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return " | ".join(lines[-n:]) if lines else "(no output)"


def ensure_venv(venv, strict):
    """The venv's Python, after installing what is missing; SKIP (exit 0) when pip cannot."""
    py = venv_python(venv)
    if venv_ready(py):
        return py
    if not os.path.exists(py):
        log(f"creating the venv {venv} with {sys.executable}")
        r = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
        if r.returncode != 0:
            skip(f"cannot create a venv at {venv} with {sys.executable}: "
                 f"{last_lines(r.stderr or r.stdout)}", strict)
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
           "--timeout", "30", "--retries", "2"]
    steps = [REQUIREMENTS, ["--no-deps", "--ignore-requires-python", OBP_SPEC]]
    for step in steps:
        log(f"pip install {' '.join(step)}  (into {venv})")
        r = subprocess.run(pip + step, capture_output=True, text=True)
        if r.returncode != 0:
            skip(f"pip could not install {' '.join(step)} (no network or no package index?): "
                 f"{last_lines(r.stderr or r.stdout)}", strict)
    r = subprocess.run([py, "-c", PROBE], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"the venv {venv} was installed but does not import what the check needs: "
             f"{last_lines(r.stderr)}")
    return py


# --- stubs ---------------------------------------------------------------------------------------

class _StubClass(type):
    """A stub class: any attribute is another stub class, calling one raises."""

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _StubClass(name, (), {"_stub_path": f"{cls._stub_path}.{name}"})

    def __call__(cls, *args, **kwargs):
        raise RuntimeError(f"{cls._stub_path} is a stub of check-obp.py (not installed); "
                           "the check must not use it")


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _StubClass(name, (), {"_stub_path": f"{self.__name__}.{name}"})


def import_obp():
    """Imports obp with STUBBED in sys.modules, then takes the stubs out again."""
    # The real libraries first, so that none of them sees a stub while it is imported.
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import scipy.stats  # noqa: F401
    import sklearn.utils  # noqa: F401
    import yaml  # noqa: F401
    saved = {name: sys.modules.get(name) for name in STUBBED}
    for name in STUBBED:
        module = _StubModule(name)
        module.__path__ = []
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)
    try:
        import obp
        import obp.dataset
        import obp.ope
        import obp.policy
    finally:
        for name, module in saved.items():
            if module is None:
                del sys.modules[name]
            else:
                sys.modules[name] = module
    if obp.__version__ != OBP_VERSION:
        fail(f"obp {obp.__version__} imported, {OBP_VERSION} expected")
    return obp


# --- OBP's side ----------------------------------------------------------------------------------

def reward_model(np, action, position, reward, n_actions, len_list):
    """menudeck's reward model r(a, p), shape (n_actions, len_list), and a plain-Python recount."""
    shows = np.zeros((n_actions, len_list))
    likes = np.zeros((n_actions, len_list))
    np.add.at(shows, (action, position), 1.0)
    np.add.at(likes, (action, position), reward.astype(float))
    cards_p = shows.sum(axis=0)
    if (cards_p == 0).any():
        fail(f"a position has no card: {cards_p}")
    rho = likes.sum(axis=0) / cards_p
    model = (likes + PRIOR_CARDS * rho) / (shows + PRIOR_CARDS)
    model = np.where(shows == 0, rho[None, :], model)
    # The same, counted without numpy.
    count, like, cards, liked = {}, {}, [0] * len_list, [0] * len_list
    for a, p, r in zip(action.tolist(), position.tolist(), reward.tolist()):
        count[a, p] = count.get((a, p), 0) + 1
        like[a, p] = like.get((a, p), 0) + r
        cards[p] += 1
        liked[p] += r
    worst = 0.0
    for a in range(n_actions):
        for p in range(len_list):
            rho_p = liked[p] / cards[p]
            shown = count.get((a, p), 0)
            value = rho_p if shown == 0 else (like[a, p] + PRIOR_CARDS * rho_p) / (shown + PRIOR_CARDS)
            worst = max(worst, abs(value - float(model[a, p])))
    return model, worst


def numpy_estimates(np, reward, action, position, pscore, action_dist, model):
    """IPS, SNIPS, DM and DR straight from their formulas (menudeck's docs/metrics.md)."""
    n = reward.shape[0]
    rows = np.arange(n)
    w = action_dist[rows, action, position] / pscore
    pi_at_p = action_dist[rows, :, position]      # (n, n_actions): pi(a | round i, position p_i)
    q_at_p = model[:, position].T                 # (n, n_actions): r(a, p_i)
    dm_i = (pi_at_p * q_at_p).sum(axis=1)         # sum_a pi(a, p_i) r(a, p_i)
    r = reward.astype(float)
    residual = r - model[action, position]
    clipped = np.minimum(w, CLIP)
    return {
        "ips": float(np.mean(w * r)),
        "snips": float(np.sum(w * r) / np.sum(w)),
        "dm": float(np.mean(dm_i)),
        "dr": float(np.mean(dm_i + w * residual)),
        "ips_clip": float(np.mean(clipped * r)),
        "dr_clip": float(np.mean(dm_i + clipped * residual)),
        "switch_dr": float(np.mean(dm_i + (w <= CLIP) * w * residual)),
    }, w


def obp_side(obp, np, campaign):
    from obp.dataset import OpenBanditDataset
    from obp.policy import BernoulliTS
    import obp.ope as ope

    dataset = OpenBanditDataset(behavior_policy=BEHAVIOR_POLICY, campaign=campaign)
    feedback = dataset.obtain_batch_bandit_feedback()
    n_rounds = int(feedback["n_rounds"])
    n_actions = int(dataset.n_actions)
    len_list = int(dataset.len_list)
    if int(feedback["n_actions"]) != n_actions:
        fail(f"{campaign}: n_actions {feedback['n_actions']} in the feedback, {n_actions} in the data")
    policy = BernoulliTS(n_actions=n_actions, len_list=len_list, is_zozotown_prior=True,
                         campaign=campaign, random_state=BTS_SEED)
    action_dist = policy.compute_batch_action_dist(n_sim=N_SIM, n_rounds=n_rounds)
    if action_dist.shape != (n_rounds, n_actions, len_list):
        fail(f"{campaign}: action_dist has shape {action_dist.shape}, "
             f"{(n_rounds, n_actions, len_list)} expected")
    same_every_round = bool((action_dist == action_dist[:1]).all())

    reward, action = feedback["reward"], feedback["action"]
    position, pscore = feedback["position"], feedback["pscore"]
    model, model_gap = reward_model(np, action, position, reward, n_actions, len_list)
    by_reg_model = np.ascontiguousarray(np.broadcast_to(model, (n_rounds, n_actions, len_list)))
    obp_estimates = {}
    for metric, cls in ESTIMATORS:
        estimator = getattr(ope, cls)(lambda_=CLIP) if metric in CLIPPED else getattr(ope, cls)()
        kwargs = dict(reward=reward, action=action, position=position, pscore=pscore,
                      action_dist=action_dist)
        if metric in ("dm", "dr", "dr_clip", "switch_dr"):
            kwargs["estimated_rewards_by_reg_model"] = by_reg_model
        obp_estimates[metric] = float(estimator.estimate_policy_value(**kwargs))
    mine, w = numpy_estimates(np, reward, action, position, pscore, action_dist, model)

    # The raw rows, in the order of the feedback (OpenBanditDataset sorts them by time).
    data = dataset.data
    if len(data) != n_rounds or not (data["item_id"].to_numpy() == action).all() \
            or not (data["click"].to_numpy() == reward).all():
        fail(f"{campaign}: dataset.data is not aligned with the bandit feedback")
    times = []
    for text in data["timestamp"].tolist():
        t = datetime.datetime.fromisoformat(str(text))
        if t.tzinfo is None:
            fail(f"{campaign}: timestamp {text!r} has no offset")
        times.append(t.astimezone(datetime.timezone.utc))
    return {
        "campaign": campaign, "n_rounds": n_rounds, "n_actions": n_actions, "len_list": len_list,
        "action": action, "position": position, "reward": reward, "pscore": pscore,
        "action_dist": action_dist, "same_every_round": same_every_round,
        "model": model, "model_gap": model_gap, "times": times,
        "obp": obp_estimates, "numpy": mine,
        "ess": float(w.sum() ** 2 / (w ** 2).sum()), "max_weight": float(w.max()),
    }


def estimates_from_files(paths):
    """IPS, SNIPS, DM and DR from the exported log and target probabilities alone (plain Python,
    menudeck's reward model refitted from the log): shows that the files carry all OBP used."""
    cards = []
    with open(paths["log"], newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            cards.append((row["user"], row["item"], int(row["position"]),
                          1.0 if row["swipe"] == "right" else 0.0, float(row["propensity"])))
    every, per_diner, items = {}, {}, set()
    with open(paths["probabilities"], newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["day"]:
                fail(f"{paths['probabilities']}: a day in a row, not written by this script")
            table = every if not row["diner"] else per_diner.setdefault(row["diner"], {})
            table[row["item"], int(row["position"])] = float(row["probability"])
            items.add(row["item"])
    shows, likes, at_p, liked_p = {}, {}, {}, {}
    for _, item, p, r, _ in cards:
        shows[item, p] = shows.get((item, p), 0) + 1
        likes[item, p] = likes.get((item, p), 0.0) + r
        at_p[p] = at_p.get(p, 0) + 1
        liked_p[p] = liked_p.get(p, 0.0) + r

    def model(item, p):
        rho = liked_p[p] / at_p[p]
        n = shows.get((item, p), 0)
        return rho if n == 0 else (likes[item, p] + PRIOR_CARDS * rho) / (n + PRIOR_CARDS)

    items = sorted(items, key=int)
    sum_wr = sum_w = sum_dm = sum_dr = sum_cwr = sum_cdr = sum_switch = 0.0
    for user, item, p, r, mu in cards:
        target = per_diner.get(user, every)
        w = target.get((item, p), 0.0) / mu
        dm = sum(target.get((a, p), 0.0) * model(a, p) for a in items)
        residual = r - model(item, p)
        sum_wr += w * r
        sum_w += w
        sum_dm += dm
        sum_dr += dm + w * residual
        sum_cwr += min(w, CLIP) * r
        sum_cdr += dm + min(w, CLIP) * residual
        sum_switch += dm + (w * residual if w <= CLIP else 0.0)
    n = len(cards)
    return {"ips": sum_wr / n, "snips": sum_wr / sum_w, "dm": sum_dm / n, "dr": sum_dr / n,
            "ips_clip": sum_cwr / n, "dr_clip": sum_cdr / n, "switch_dr": sum_switch / n}


def describe_pscore(np, pscore, n_actions):
    values = np.unique(pscore)
    if len(values) == 1:
        v = float(values[0])
        note = " = 1/n_actions" if v == 1.0 / n_actions else f" (1/n_actions = {1.0 / n_actions!r})"
        return f"constant {v!r}{note}"
    return f"{len(values)} distinct values in [{float(values.min())!r}, {float(values.max())!r}]"


# --- the exports ---------------------------------------------------------------------------------

def export(side, directory):
    """Writes catalog.csv, config.json, log.csv and bts-probabilities.csv; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    n_rounds, n_actions, len_list = side["n_rounds"], side["n_actions"], side["len_list"]
    paths = {name: os.path.join(directory, file) for name, file in (
        ("catalog", "catalog.csv"), ("config", "config.json"), ("log", "log.csv"),
        ("probabilities", "bts-probabilities.csv"))}

    with open(paths["catalog"], "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["id", "name", "category"])
        for a in range(n_actions):
            out.writerow([str(a), f"OBD {side['campaign']} item {a}", "obd"])

    config = {
        "catalog": "catalog.csv",
        "time_zone": "UTC",
        "deck": {"size": len_list, "max_per_category": None, "avoid_adjacent_category": False,
                 "pinned": [], "excluded": [], "repeat_pick_days": 0, "cooldown_days": 0,
                 "reshow_days": 0},
    }
    with open(paths["config"], "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
        f.write("\n")

    width = max(6, len(str(n_rounds)))
    users = [f"r{i + 1:0{width}d}" for i in range(n_rounds)]
    with open(paths["log"], "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["user", "item", "swipe", "at", "position", "propensity"])
        for i in range(n_rounds):
            out.writerow([users[i], str(int(side["action"][i])),
                          "right" if int(side["reward"][i]) == 1 else "left",
                          side["times"][i].isoformat(), int(side["position"][i]) + 1,
                          repr(float(side["pscore"][i]))])

    dist = side["action_dist"]
    with open(paths["probabilities"], "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["diner", "day", "item", "position", "probability"])
        # One set of rows for every diner and day, or one per diner (each is one round).
        who = [("", dist[0])] if side["same_every_round"] else zip(users, dist)
        for diner, table in who:
            for a in range(n_actions):
                for p in range(len_list):
                    out.writerow([diner, "", str(a), p + 1, repr(float(table[a, p]))])
    return paths


# --- menudeck ------------------------------------------------------------------------------------

def find_menudeck(args):
    if args.menudeck:
        path = os.path.abspath(args.menudeck)
        if not os.access(path, os.X_OK):
            fail(f"--menudeck {args.menudeck}: not an executable file")
        return path
    repo = os.path.abspath(args.repo)
    if not os.path.exists(os.path.join(repo, "Package.swift")):
        fail(f"--repo {repo}: no Package.swift there (give --repo or --menudeck)")
    cmd = ["swift", "build", "-c", "release", "--product", "menudeck"]
    log(f"building menudeck: (cd {repo} && {' '.join(cmd)})")
    try:
        r = subprocess.run(cmd, cwd=repo, capture_output=True, text=True)
    except OSError as e:
        fail(f"cannot run swift: {e}")
    if r.returncode != 0:
        fail(f"swift build failed (exit {r.returncode}): {last_lines(r.stderr or r.stdout, 10)}")
    path = os.path.join(repo, ".build", "release", "menudeck")
    if not os.access(path, os.X_OK):
        fail(f"swift build succeeded but {path} is not there")
    return path


def menudeck_command(menudeck, paths, split, with_policy=True):
    cmd = [menudeck, "compare", "--config", paths["config"], "--catalog", paths["catalog"],
           "--split", split, "--ope"]
    if with_policy:
        cmd += ["--clip", repr(CLIP), "--policy", f"{ARM}={paths['probabilities']}"]
    cmd += ["-s", "random", "-s", "popularity", "--format", "json",
            "--resamples", str(RESAMPLES), paths["log"]]
    return cmd


def run_menudeck(cmd, directory):
    log("$ " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.stderr.strip():
        for line in r.stderr.strip().splitlines():
            log(f"  menudeck stderr: {line}")
    if r.returncode != 0:
        errors = [line.strip() for line in r.stderr.splitlines() if "error:" in line]
        fail(f"menudeck exited {r.returncode}: "
             f"{' | '.join(errors[:3]) if errors else last_lines(r.stderr or r.stdout, 5)} "
             f"(its input files are in {directory})")
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        fail(f"menudeck's output is not JSON ({e}): {r.stdout[:300]!r}")


def arm_estimates(report, arm):
    """{metric: {"value", "lower", "upper"}} of one arm of a compare JSON report, or None."""
    metrics = [m["name"] if isinstance(m, dict) else m for m in report.get("metrics", [])]
    for entry in report.get("arms", []):
        if entry.get("arm") != arm:
            continue
        estimates = entry.get("estimates")
        if isinstance(estimates, dict):
            return estimates
        if isinstance(estimates, list):  # aligned with `metrics`
            return dict(zip(metrics, estimates))
        fail(f"arm {arm}: estimates of an unknown shape: {type(estimates).__name__}")
    return None


def per_arm_parameter(report, name, arm):
    """One arm's value in a parameter such as "random 123.4, bts 56.7", or None."""
    text = (report.get("parameters") or {}).get(name)
    if not isinstance(text, str):
        return None
    for part in text.split(", "):
        key, _, value = part.rpartition(" ")
        if key == arm:
            return value
    return None


def fmt(x):
    return "-" if x is None else repr(x)


def compare_campaign(side, report):
    """Prints the table of one campaign; True when every |difference| <= TOLERANCE."""
    arms = [a.get("arm") for a in report.get("arms", [])]
    got = arm_estimates(report, ARM)
    if got is None:
        log(f"  menudeck's report has no arm {ARM!r} (arms: {', '.join(map(str, arms))})")
        return False
    ok = True
    log(f"  {'estimator':<9} {'OBP':<24} {'menudeck':<24} |difference|")
    for metric, _ in ESTIMATORS:
        mine = side["obp"][metric]
        entry = got.get(metric)
        value = entry.get("value") if isinstance(entry, dict) else None
        if value is None:
            log(f"  {metric:<9} {mine!r:<24} {'(missing)':<24} -")
            ok = False
            continue
        diff = abs(float(value) - mine)
        ok = ok and diff <= TOLERANCE
        log(f"  {metric:<9} {mine!r:<24} {float(value)!r:<24} {diff:.3e}"
            f"{'' if diff <= TOLERANCE else '  > ' + repr(TOLERANCE)}")
        lower, upper = entry.get("lower"), entry.get("upper")
        if lower is not None and upper is not None and not (lower <= value <= upper):
            log(f"  note: menudeck's {metric} {value!r} is outside its interval [{lower!r}, {upper!r}]")
    log(f"  menudeck ope_effective_cards {ARM}: {per_arm_parameter(report, 'ope_effective_cards', ARM)}"
        f" (OBP side {side['ess']:.1f}), ope_largest_weight {ARM}: "
        f"{per_arm_parameter(report, 'ope_largest_weight', ARM)} (OBP side {side['max_weight']!r})")
    return ok


# --- main ----------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--menudeck", metavar="PATH",
                    help="the menudeck binary (default: build it in --repo)")
    ap.add_argument("--repo", default=DEFAULT_REPO,
                    help=f"the menudeck repository to build (default: {DEFAULT_REPO})")
    ap.add_argument("--venv", default=DEFAULT_VENV, help=f"the venv (default: {DEFAULT_VENV})")
    ap.add_argument("--campaign", action="append", choices=CAMPAIGNS,
                    help="a campaign to check (repeatable; default: all three)")
    ap.add_argument("--keep", metavar="DIR",
                    help="write the exports to DIR/<campaign>/ and keep them")
    ap.add_argument("--strict", action="store_true",
                    help="fail (exit 1) instead of SKIP when pip cannot install")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--obp-only", action="store_true",
                      help="OBP's numbers, the self-check and the exports; no menudeck")
    mode.add_argument("--without-policy", action="store_true",
                      help="run menudeck without --policy (builds that predate it): checks that "
                           "it reads the exports, compares nothing")
    return ap.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    in_venv = os.environ.get(CHILD_MARK) == "1"
    if not in_venv:
        py = ensure_venv(os.path.abspath(args.venv), args.strict)
        env = dict(os.environ, **{CHILD_MARK: "1"})
        sys.stdout.flush()
        os.execve(py, [py, SCRIPT] + argv, env)

    menudeck = None if args.obp_only else find_menudeck(args)
    obp = import_obp()
    import logging
    logging.getLogger("obp").setLevel(logging.WARNING)  # obp.dataset's INFO about the sample
    import numpy as np
    import pandas
    import scipy
    import sklearn
    log(f"obp {obp.__version__}, numpy {np.__version__}, pandas {pandas.__version__}, "
        f"scipy {scipy.__version__}, scikit-learn {sklearn.__version__}, Python "
        f"{sys.version.split()[0]}; stubbed while importing obp: {', '.join(STUBBED)}")
    log(f"target: BernoulliTS(is_zozotown_prior=True, random_state={BTS_SEED})"
        f".compute_batch_action_dist(n_sim={N_SIM}); behavior policy {BEHAVIOR_POLICY!r}; "
        f"reward model (likes + {PRIOR_CARDS} rho_p) / (shows + {PRIOR_CARDS})")

    root = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="menudeck-obp-")
    results = []
    for campaign in args.campaign or CAMPAIGNS:
        log()
        log(f"== campaign {campaign}")
        side = obp_side(obp, np, campaign)
        log(f"  n_rounds {side['n_rounds']}, n_actions {side['n_actions']}, "
            f"len_list {side['len_list']}")
        log(f"  action_dist the same in every round: {'yes' if side['same_every_round'] else 'NO'}")
        log(f"  pscore: {describe_pscore(np, side['pscore'], side['n_actions'])}")
        log(f"  effective sample size (sum w)^2/sum w^2: {side['ess']!r}; "
            f"max weight: {side['max_weight']!r}")
        log(f"  clicks {int(side['reward'].sum())}; times {side['times'][0].isoformat()} .. "
            f"{side['times'][-1].isoformat()}")
        gaps = {m: abs(side["obp"][m] - side["numpy"][m]) for m, _ in ESTIMATORS}
        log(f"  OBP: " + ", ".join(f"{m} {side['obp'][m]!r}" for m, _ in ESTIMATORS))
        log(f"  numpy re-implementation: largest |difference| from OBP "
            f"{max(gaps.values()):.3e}; reward model vs plain recount {side['model_gap']:.3e}")
        self_ok = max(gaps.values()) <= SELF_TOLERANCE and side["model_gap"] <= SELF_TOLERANCE
        if not self_ok:
            log("  numpy re-implementation DISAGREES: " +
                ", ".join(f"{m} {side['numpy'][m]!r}" for m, _ in ESTIMATORS))
        paths = export(side, os.path.join(root, campaign))
        split = min(side["times"]).date().isoformat()
        log(f"  exported to {os.path.join(root, campaign)}; split {split}")
        from_files = estimates_from_files(paths)
        gap = max(abs(from_files[m] - side["obp"][m]) for m, _ in ESTIMATORS)
        log(f"  estimates recomputed from the exported files alone: largest |difference| from "
            f"OBP {gap:.3e}")
        if gap > SELF_TOLERANCE:
            self_ok = False
            log("  the exported files DISAGREE with OBP: " +
                ", ".join(f"{m} {from_files[m]!r}" for m, _ in ESTIMATORS))
        if menudeck is None:
            results.append((campaign, self_ok))
            continue
        report = run_menudeck(menudeck_command(menudeck, paths, split,
                                               with_policy=not args.without_policy),
                              os.path.join(root, campaign))
        if args.without_policy:
            arms = [a.get("arm") for a in report.get("arms", [])]
            metrics = [m["name"] if isinstance(m, dict) else m for m in report.get("metrics", [])]
            log(f"  menudeck read the exports: arms {', '.join(map(str, arms))}; "
                f"OPE metrics {', '.join(m for m in metrics if m in dict(ESTIMATORS))}")
            for arm in arms:
                got = arm_estimates(report, arm) or {}
                log(f"    {arm}: " + ", ".join(
                    f"{m} {fmt((got.get(m) or {}).get('value'))}" for m, _ in ESTIMATORS))
            results.append((campaign, self_ok))
            continue
        ok = compare_campaign(side, report)
        log(f"  {campaign}: {'PASS' if ok and self_ok else 'FAIL'}")
        results.append((campaign, ok and self_ok))

    log()
    failed = [c for c, ok in results if not ok]
    what = ("OBP self-check" if menudeck is None or args.without_policy
            else f"menudeck vs OBP within {TOLERANCE}")
    if failed:
        fail(f"{what}: {', '.join(failed)} (exports in {root})")
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)
    log(f"PASS: {what}: {', '.join(c for c, _ in results)}"
        + ("" if args.keep is None else f" (exports in {root})"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
