#!/usr/bin/env python3
"""menudeck's off-policy estimators against Open Bandit Pipeline (OBP) 0.5.7: on the Open
Bandit Dataset (part obd), and the slate estimators on a synthetic log of decks (part slates).

What it checks:
  Part `obd`. For each campaign of the Open Bandit Dataset (OBD) sample that ships inside the obp
  package (`all`, `men`, `women`; the logs of the uniform-random behaviour policy, 10,000 rounds
  each), OBP's Bernoulli Thompson Sampling policy (ZOZOTOWN's production prior, seed 12345,
  100,000 Monte Carlo draws, as in OBP's own OBD examples) is evaluated off-policy twice:
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
  (absolute): PASS, else FAIL and exit 1. Before that, OBP's numbers are recomputed with a
  few lines of numpy straight from the formulas (and the reward model with plain Python counts):
  a disagreement there (beyond 1e-12) is a FAIL too, and so is one of them recomputed in plain
  Python from the exported files alone (so a wrong export is told from a wrong menudeck).
  Printed per campaign: n_rounds, n_actions, len_list, whether BTS's distribution is the same in
  every round, the propensities, the effective sample size (sum w)^2 / sum w^2 and the largest
  weight, w = pi(a_i, p_i) / pscore_i (menudeck reports those as `ope_effective_cards` and
  `ope_largest_weight`; both are printed). The propensities are the doubles OBP works with:
  pandas' fast CSV parser reads the sample's 0.029411764705882353 as 0.0294117647058823, not as
  1/34, and repr() carries exactly that double to menudeck.

  Part `slates`. A synthetic log made here in numpy (seed 20260110; OBP's dataset classes are
  not used: their samplers need tqdm, which is stubbed): 2,000 sessions, one diner each
  (r000001, ...), 6 dishes, decks of 3 (len_list 3), every session logging all 3 cards. The
  logging policy is Plackett-Luce over standard normal logits per session and dish, the target
  Plackett-Luce over 0.7 * those + 0.5 * N(0, 1) (correlated, so that the slate weights stay
  moderate); a like is Bernoulli with P = base[dish] * decay[position]. Both policies' deck
  probabilities are enumerated over the 120 ordered decks of 3 of 6, and along each logged deck
  a_1 a_2 a_3 summed from them: the marginals P(a_k at k), the prefix probabilities
  P(a_1..a_k) (the last one the joint), and the target's conditional distributions
  P(b at k | a_1..a_(k-1)) (at k = 1 the distribution at position 1); those prefix
  probabilities and conditionals are checked against Plackett-Luce's closed form (1e-12).
  OBP 0.5.7 then estimates the target's likes per deck with
    - SlateIndependentIPS (pscore_item_position: the marginals)             -> menudeck's iips
    - SlateRewardInteractionIPS (pscore_cascade: the prefix probabilities)  -> rips
    - SlateStandardIPS (pscore: the joint, the same on each of a deck's rows) -> sips
    - SlateCascadeDoublyRobust (pscore_cascade, q_hat[i, k, a] = r(a, k) of the reward model
      above fitted on the whole log, in every session, and evaluation_policy_action_dist[i, k, a]
      = the target's P(a at k | the logged a_1..a_(k-1)))                    -> cascade_dr
  and menudeck with `menudeck compare --ope --policy pl=eval-decks.jsonl` (the target as a
  deck-distribution policy file, from which menudeck derives the marginals, prefixes and
  conditionals itself) on the log exported with `propensity` (the marginal) and
  `prefix_propensity` (the prefix probability). The estimates `iips`, `rips`, `sips`,
  `cascade_dr` of arm `pl` must equal OBP's to 1e-9 (absolute). As in the OBD part, OBP's four
  numbers are first recomputed in numpy from the formulas (w_k = pi/mu of the marginals,
  c_k = pi/mu of the prefixes, c_0 = 1):
    iips = mean_i sum_k w_k r_k             rips = mean_i sum_k c_k r_k
    sips = mean_i c_L sum_k r_k             cascade_dr = mean_i sum_k [c_k (r_k - q(a_k, k))
                                                + c_(k-1) sum_b pi(b at k | a_1..a_(k-1)) q(b, k)]
  and in plain Python from the exported files alone (the target's probabilities summed from
  eval-decks.jsonl); a disagreement beyond 1e-12 is a FAIL. Printed: the sizes (sessions,
  dishes, len_list), the likes, the true expected likes per deck of both policies, the largest
  |sum over the decks - 1|, the effective sample (sum c_L)^2 / sum c_L^2 and the largest c_L of
  the slate weights c_L = pi(deck) / mu(deck) (menudeck: `ope_slate_effective_decks`, rounded
  to 0.1, and `ope_largest_slate_weight`; both sides printed), those of the card weights w.
  OBP's input checks that the inputs satisfy (obp/utils.py): positions and slate ids int64 and
  >= 0, each position once per slate; pscores in (0, 1], target pscores in [0, 1];
  SlateStandardIPS: pscore and evaluation_policy_pscore unique within a slate (the joint on
  every row); SlateRewardInteractionIPS and Cascade-DR: pscore_cascade non-increasing within a
  slate, in floating point too (each prefix is summed over the same row of decks with more of
  them zeroed); Cascade-DR: rows by slate then position (its iw_prev is np.roll of the weights),
  q_hat and evaluation_policy_action_dist flat of length rows * n_unique_action, each
  (row, position)'s action distribution summing to 1 (np.allclose), actions in [0, 6).

  Part `linucb`. The disjoint special case of menudeck's `linucb` (one ridge regression per
  dish over the diner's features, A = lambda I + sum x x^T with lambda 1, b = sum r x, score
  theta . x + alpha sqrt(x^T A^-1 x)) must choose what OBP 0.5.7's `obp.policy.LinUCB` chooses
  (A_inv starts as I, b as 0, Sherman-Morrison updates made visible every batch_size rounds,
  ucb = x . theta + epsilon sqrt(x A_inv x)) given the same contexts, rewards, batch and width.
  The mapping: a round is a diner (r000001, ...) with one card (deck size 1, every deck rule
  off); the actions are 8 dishes "0".."7" of one category "obp"; a context is the diner's
  feature vector in menudeck's encoding, [1, allergen a1, a2, a3, dislikes c1, c2, c3] (the
  users file gives each diner each allergen and dislike with probability 0.4, seed 20261207;
  no dish has an allergen or is of a disliked category, so no rule holds a dish back); one
  batch is one day of 100 rounds (OBP's batch_size 100), so the model of day d is fitted to
  the days before it on both sides; epsilon = alpha = 0.5. Day 0 is a warm-up: round k shows
  dish k mod 8 to both sides (OBP learns it through update_params), so that no two dishes have
  the same A and b afterwards: OBP breaks ties by numpy's argsort (unstable, whichever of the
  tied it lists last) and menudeck by catalog order, so ties are avoided rather than matched.
  Then 30 days: each round OBP's select_action chooses, the script draws the reward
  (Bernoulli(sigmoid(w_a . x)), w ~ N(-0.5, 1) per dish and feature) and OBP updates;
  menudeck runs once a day on the log so far (`menudeck deck --date D --strategy linucb
  --option model=disjoint --option alpha=0.5 --option lambda=1 --option diner_features=true
  --diners DAY.txt --size 1`)
  and its card for each diner of the day is compared with OBP's choice. A round whose two best
  UCBs (recomputed from OBP's A_inv and b) are within 1e-9 is reported as a near tie (none
  expected). PASS when all 3,000 rounds agree.

How to run (from the repository):
  Scripts/check-obp.py                         # builds menudeck (swift build -c release), runs all
  Scripts/check-obp.py --menudeck .build/release/menudeck
  Scripts/check-obp.py --part slates --menudeck .build/release/menudeck   # only the slate part
  Scripts/check-obp.py --part linucb --menudeck .build/release/menudeck   # only LinUCB
  Scripts/check-obp.py --part obd --campaign men --keep /tmp/obd-men    # one campaign, keep files
  Scripts/check-obp.py --obp-only              # OBP's numbers, the self-checks and the exports
                                               # of both parts, no menudeck
  Scripts/check-obp.py --without-policy        # menudeck without --policy (a build that predates
                                               # it): only checks that it reads the exports
  --part obd|slates|linucb|all (default all: the OBD campaigns, the slates, then linucb); --campaign only
  selects OBD campaigns. --strict turns the SKIP below into a failure (exit 1).

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
  and annotations work) and calling one raises: nothing of them is ever used. The FutureWarning
  of pandas 2.2+ about OBP's groupby().apply() in check_sips_inputs is silenced.

The exports (in a temporary directory that is removed after a PASS and kept after a FAIL, or in
--keep DIR: DIR/<campaign>/ per OBD campaign, DIR/slates/ for the slate part):
  catalog.csv            id,name,category: ids "0".."n_actions-1", category "obd" for all (the
                         slates: "synthetic")
  config.json            "catalog": "catalog.csv", time_zone UTC (OBD's times are UTC), deck size
                         len_list and every deck rule off (no category cap, no adjacency rule,
                         no hold-backs), so that the baseline strategies' decks are plain rankings
  OBD, per campaign:
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
  slates:
  log.csv                user,item,swipe,at,position,propensity,prefix_propensity: 3 rows per
                         session (positions 1, 2, 3), sessions in order, user r000001 ...
                         r002000, at 2026-01-10T08:00:00+00:00 + 20 s per session + 5 s per
                         position (one day, sorted), propensity repr() of the logging policy's
                         marginal P(a_k at k), prefix_propensity repr() of its P(a_1..a_k)
  eval-decks.jsonl       the target as a deck-distribution policy file: per diner the 120 decks,
                         {"diner":"r000001","deck":["0","1","2"],"probability":0.0053...}, the
                         probability repr() (no day: every day); 240,000 lines, about 18 MB
The menudeck runs (split on the day of the first round, so every round is evaluated):
  menudeck compare --config config.json --catalog catalog.csv --split YYYY-MM-DD --ope
      --clip 10 --policy bts=bts-probabilities.csv -s random -s popularity --format json
      --resamples 200 log.csv
  menudeck compare --config config.json --catalog catalog.csv --split 2026-01-10 --ope
      --policy pl=eval-decks.jsonl -s random --format json --resamples 200 log.csv

Standard library only outside the venv; OBP's API is called, none of its code is copied.
"""

import argparse
import csv
import datetime
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
import warnings

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
PARTS = ("obd", "slates", "linucb", "all")
# Part linucb: OBP's LinUCB against `menudeck deck --strategy linucb --option model=disjoint`.
LINUCB_SEED = 20261207
LINUCB_ACTIONS = 8                                  # dishes "0".."7"
LINUCB_BATCH = 100                                  # rounds per day = OBP's batch_size
LINUCB_DAYS = 30                                    # compared days after the warm-up day
LINUCB_EPSILON = 0.5                                # OBP's epsilon = menudeck's alpha
LINUCB_ALLERGENS = ("a1", "a2", "a3")               # no dish contains them: nothing is held back
LINUCB_DISLIKES = ("c1", "c2", "c3")                # no dish is of them
LINUCB_DAY0 = datetime.date(2026, 1, 1)
LINUCB_TIE = 1e-9                                   # a round whose two best UCBs are this close

# The slate part: a synthetic log of whole decks (sessions), seeded.
SLATE_SEED = 20260110
SLATE_SESSIONS = 2000
SLATE_DISHES = 6
SLATE_LEN = 3          # len_list and the config's deck size; every session logs all its cards
SLATE_DAY = datetime.date(2026, 1, 10)
SLATE_TARGET_MIX = (0.7, 0.5)  # target logits = 0.7 logging logits + 0.5 N(0, 1), per dish
SLATE_BASE = (0.55, 0.45, 0.35, 0.30, 0.20, 0.10)  # P(like) of dish a at position k:
SLATE_DECAY = (1.0, 0.7, 0.5)                      # SLATE_BASE[a] * SLATE_DECAY[k]
SLATE_ARM = "pl"
# menudeck's metric name -> OBP's estimator class name.
SLATE_ESTIMATORS = (("iips", "SlateIndependentIPS"),
                    ("rips", "SlateRewardInteractionIPS"),
                    ("sips", "SlateStandardIPS"),
                    ("cascade_dr", "SlateCascadeDoublyRobust"))


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


def plain_reward_model(cards):
    """menudeck's reward model as a function (item, position) -> r, counted in plain Python from
    (item, position, reward) triples: (likes + m rho_p) / (shows + m), rho_p where never shown."""
    shows, likes, at_p, liked_p = {}, {}, {}, {}
    for item, p, r in cards:
        shows[item, p] = shows.get((item, p), 0) + 1
        likes[item, p] = likes.get((item, p), 0.0) + r
        at_p[p] = at_p.get(p, 0) + 1
        liked_p[p] = liked_p.get(p, 0.0) + r

    def model(item, p):
        rho = liked_p[p] / at_p[p]
        n = shows.get((item, p), 0)
        return rho if n == 0 else (likes[item, p] + PRIOR_CARDS * rho) / (n + PRIOR_CARDS)
    return model


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
    model = plain_reward_model((item, p, r) for _, item, p, r, _ in cards)
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

def write_catalog_and_config(paths, n_actions, len_list, name, category):
    """catalog.csv (ids "0".."n_actions-1", one category) and config.json (deck size len_list,
    every deck rule off, time zone UTC)."""
    with open(paths["catalog"], "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["id", "name", "category"])
        for a in range(n_actions):
            out.writerow([str(a), f"{name} {a}", category])

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


def export(side, directory):
    """Writes catalog.csv, config.json, log.csv and bts-probabilities.csv; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    n_rounds, n_actions, len_list = side["n_rounds"], side["n_actions"], side["len_list"]
    paths = {name: os.path.join(directory, file) for name, file in (
        ("catalog", "catalog.csv"), ("config", "config.json"), ("log", "log.csv"),
        ("probabilities", "bts-probabilities.csv"))}

    write_catalog_and_config(paths, n_actions, len_list, f"OBD {side['campaign']} item", "obd")

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


# --- the slate part: OBP's side ------------------------------------------------------------------

def ordered_decks(n_actions, len_list):
    """Every ordered deck of len_list distinct dishes, in lexicographic order."""
    return list(itertools.permutations(range(n_actions), len_list))


def plackett_luce_decks(np, logits, decks):
    """P(deck) of a Plackett-Luce policy with per-session logits (n, n_actions), for every deck
    of `decks` (n_decks, len_list): (n, n_decks), the product over positions of exp(logit) of
    the deck's dish over the sum of exp(logit) of the dishes not yet in the deck."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    left = np.repeat(e.sum(axis=1, keepdims=True), decks.shape[0], axis=1)
    table = np.ones((logits.shape[0], decks.shape[0]))
    for k in range(decks.shape[1]):
        chosen = e[:, decks[:, k]]
        table *= chosen / left
        left = left - chosen
    return table


def deck_probabilities(np, table, decks, logged, n_actions):
    """Along each session's logged deck (n, L), from a policy's deck probabilities (n, n_decks),
    as sums of deck probabilities: the marginals P(a_k at k) (n, L), the prefix probabilities
    P(a_1..a_k) (n, L) and the conditional distributions P(b at k | a_1..a_(k-1) above)
    (n, L, n_actions) = P(a_1..a_(k-1) b) / P(a_1..a_(k-1)); at k = 1 the distribution at
    position 1 itself (nothing divided: the decks' total is the probability of showing one).
    Every sum runs over the same row of decks with the others zeroed, so a prefix probability is
    never above the one before it, in floating point too."""
    n, len_list = logged.shape
    marginal = np.empty((n, len_list))
    prefix = np.empty((n, len_list))
    conditional = np.empty((n, len_list, n_actions))
    above = np.ones((n, decks.shape[0]), dtype=bool)  # decks that start with a_1..a_(k-1)
    for k in range(len_list):
        marginal[:, k] = np.where(decks[None, :, k] == logged[:, k:k + 1], table, 0.0).sum(axis=1)
        for b in range(n_actions):
            mass = np.where(above & (decks[None, :, k] == b), table, 0.0).sum(axis=1)
            conditional[:, k, b] = mass if k == 0 else mass / prefix[:, k - 1]
        above = above & (decks[None, :, k] == logged[:, k:k + 1])
        prefix[:, k] = np.where(above, table, 0.0).sum(axis=1)
    return marginal, prefix, conditional


def plackett_luce_path(np, logits, logged):
    """The same prefix probabilities and conditionals in Plackett-Luce's closed form (a softmax
    over the dishes not above), without the decks: a check of the enumeration."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    n, len_list = logged.shape
    rows = np.arange(n)
    left = np.ones(e.shape, dtype=bool)
    prefix = np.empty((n, len_list))
    conditional = np.empty((n, len_list, e.shape[1]))
    running = np.ones(n)
    for k in range(len_list):
        weights = np.where(left, e, 0.0)
        conditional[:, k] = weights / weights.sum(axis=1, keepdims=True)
        running = running * conditional[rows, k, logged[:, k]]
        prefix[:, k] = running
        left[rows, logged[:, k]] = False
    return prefix, conditional


def slate_numpy_estimates(np, reward, w, c, q_logged, q_expected):
    """iips, rips, sips and cascade_dr straight from their formulas, per session (n, L) arrays:
    w_k = pi(a_k at k) / mu(a_k at k), c_k = pi(a_1..a_k) / mu(a_1..a_k), q_logged = q(a_k, k),
    q_expected = sum_b pi(b at k | a_1..a_(k-1)) q(b, k)."""
    r = reward.astype(float)
    c_above = np.concatenate([np.ones((c.shape[0], 1)), c[:, :-1]], axis=1)  # c_(k-1), c_0 = 1
    return {
        "iips": float(np.mean((w * r).sum(axis=1))),
        "rips": float(np.mean((c * r).sum(axis=1))),
        "sips": float(np.mean(c[:, -1] * r.sum(axis=1))),
        "cascade_dr": float(np.mean((c * (r - q_logged) + c_above * q_expected).sum(axis=1))),
    }


def slate_obp_side(obp, np):
    import obp.ope as ope

    n, n_actions, len_list = SLATE_SESSIONS, SLATE_DISHES, SLATE_LEN
    rng = np.random.default_rng(SLATE_SEED)
    decks = np.array(ordered_decks(n_actions, len_list), dtype=np.int64)
    logging_logits = rng.standard_normal((n, n_actions))
    mix, noise = SLATE_TARGET_MIX
    target_logits = mix * logging_logits + noise * rng.standard_normal((n, n_actions))
    logging_table = plackett_luce_decks(np, logging_logits, decks)
    target_table = plackett_luce_decks(np, target_logits, decks)
    # The logged deck: inverse CDF of the logging policy's deck distribution.
    u = rng.random(n)
    chosen = np.minimum((np.cumsum(logging_table, axis=1) < u[:, None]).sum(axis=1),
                        len(decks) - 1)
    logged = decks[chosen]
    like_rate = np.array(SLATE_BASE)[logged] * np.array(SLATE_DECAY)[None, :]
    reward = (rng.random((n, len_list)) < like_rate).astype(np.int64)

    mu_marginal, mu_prefix, _ = deck_probabilities(np, logging_table, decks, logged, n_actions)
    pi_marginal, pi_prefix, pi_conditional = deck_probabilities(np, target_table, decks, logged,
                                                                n_actions)
    # The enumeration against Plackett-Luce's closed form, and the decks' totals.
    mu_prefix_pl, _ = plackett_luce_path(np, logging_logits, logged)
    pi_prefix_pl, pi_conditional_pl = plackett_luce_path(np, target_logits, logged)
    enumeration_gap = max(float(np.abs(mu_prefix - mu_prefix_pl).max()),
                          float(np.abs(pi_prefix - pi_prefix_pl).max()),
                          float(np.abs(pi_conditional - pi_conditional_pl).max()))
    total_gap = max(float(np.abs(logging_table.sum(axis=1) - 1).max()),
                    float(np.abs(target_table.sum(axis=1) - 1).max()))

    # OBP's inputs: one row per logged card, by session, then position (Cascade-DR's
    # iw_prev and its reshape of q_hat and the action distribution rely on that order).
    slate_id = np.repeat(np.arange(n, dtype=np.int64), len_list)
    position = np.tile(np.arange(len_list, dtype=np.int64), n)
    action = logged.ravel()
    flat_reward = reward.ravel()
    model, model_gap = reward_model(np, action, position, flat_reward, n_actions, len_list)
    # q_hat[i, k, a] = q(a, k) in every session; model is (n_actions, len_list).
    q_hat = np.ascontiguousarray(np.broadcast_to(model.T, (n, len_list, n_actions))).ravel()
    common = dict(slate_id=slate_id, reward=flat_reward, position=position)
    inputs = {
        "iips": dict(common, pscore_item_position=mu_marginal.ravel(),
                     evaluation_policy_pscore_item_position=pi_marginal.ravel()),
        "rips": dict(common, pscore_cascade=mu_prefix.ravel(),
                     evaluation_policy_pscore_cascade=pi_prefix.ravel()),
        # The joint probability of the whole logged deck, the same on each of its rows.
        "sips": dict(common, pscore=np.repeat(mu_prefix[:, -1], len_list),
                     evaluation_policy_pscore=np.repeat(pi_prefix[:, -1], len_list)),
        "cascade_dr": dict(common, action=action, pscore_cascade=mu_prefix.ravel(),
                           evaluation_policy_pscore_cascade=pi_prefix.ravel(), q_hat=q_hat,
                           evaluation_policy_action_dist=pi_conditional.ravel()),
    }
    obp_estimates = {}
    for metric, cls in SLATE_ESTIMATORS:
        if metric == "cascade_dr":
            estimator = getattr(ope, cls)(len_list=len_list, n_unique_action=n_actions)
        else:
            estimator = getattr(ope, cls)(len_list=len_list)
        try:
            with warnings.catch_warnings():
                # check_sips_inputs' groupby().apply() on pandas 2.2+: a FutureWarning per call.
                warnings.filterwarnings("ignore", category=FutureWarning, module="obp")
                obp_estimates[metric] = float(estimator.estimate_policy_value(**inputs[metric]))
        except ValueError as e:
            fail(f"OBP's {cls} refused its inputs: {e}")

    w = pi_marginal / mu_marginal
    c = pi_prefix / mu_prefix
    q_logged = model[logged, np.arange(len_list)[None, :]]
    q_expected = (pi_conditional * model.T[None, :, :]).sum(axis=2)
    mine = slate_numpy_estimates(np, reward, w, c, q_logged, q_expected)
    c_last = c[:, -1]

    # The true values of the simulation: expected likes per deck under each policy.
    deck_value = (np.array(SLATE_BASE)[decks] * np.array(SLATE_DECAY)[None, :]).sum(axis=1)
    start = datetime.datetime.combine(SLATE_DAY, datetime.time(8), tzinfo=datetime.timezone.utc)
    times = [[start + datetime.timedelta(seconds=20 * i + 5 * k) for k in range(len_list)]
             for i in range(n)]
    return {
        "n_sessions": n, "n_actions": n_actions, "len_list": len_list, "decks": decks,
        "logged": logged, "reward": reward, "mu_marginal": mu_marginal, "mu_prefix": mu_prefix,
        "target_table": target_table, "times": times, "model_gap": model_gap,
        "enumeration_gap": enumeration_gap, "total_gap": total_gap,
        "obp": obp_estimates, "numpy": mine,
        "ess": float(c_last.sum() ** 2 / (c_last ** 2).sum()), "max_weight": float(c_last.max()),
        "card_ess": float(w.sum() ** 2 / (w ** 2).sum()), "max_card_weight": float(w.max()),
        "true_target": float((target_table * deck_value[None, :]).sum(axis=1).mean()),
        "true_logging": float((logging_table * deck_value[None, :]).sum(axis=1).mean()),
    }


def slate_estimates_from_files(paths):
    """iips, rips, sips and cascade_dr, (sum c_L)^2 / sum c_L^2 and max c_L from the exported
    log, target decks and catalog alone (plain Python; the target's marginals, prefix
    probabilities and conditionals summed from its decks, the reward model refitted from the
    log): shows that the files carry all OBP used."""
    with open(paths["catalog"], newline="", encoding="utf-8") as f:
        items = [row["id"] for row in csv.DictReader(f)]
    sessions = {}
    with open(paths["log"], newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            sessions.setdefault(row["user"], []).append(
                (int(row["position"]), row["item"], 1.0 if row["swipe"] == "right" else 0.0,
                 float(row["propensity"]), float(row["prefix_propensity"])))
    targets = {}
    with open(paths["decks"], encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            entry = json.loads(line)
            if entry.get("day") or not entry.get("diner"):
                fail(f"{paths['decks']}:{number}: a day, or no diner: not written by this script")
            targets.setdefault(entry["diner"], []).append(
                (tuple(entry["deck"]), float(entry["probability"])))
    model = plain_reward_model((item, p, r) for cards in sessions.values()
                               for p, item, r, _, _ in cards)

    sums = dict.fromkeys(("iips", "rips", "sips", "cascade_dr"), 0.0)
    sum_c = sum_cc = largest = 0.0
    for user, cards in sessions.items():
        cards.sort()
        if [p for p, *_ in cards] != list(range(1, len(cards) + 1)):
            fail(f"{paths['log']}: {user}'s positions are not 1, 2, ...")
        decks = targets[user]
        logged = tuple(item for _, item, _, _, _ in cards)
        c_above = 1.0   # c_(k-1)
        pi_above = 1.0  # pi(a_1..a_(k-1)); at k = 1 nothing is divided
        iips = rips = likes = dr = 0.0
        for k, (p, item, r, mu, mu_prefix) in enumerate(cards):
            head = logged[:k]
            marginal = sum(q for d, q in decks if d[k] == item)
            pi_prefix = sum(q for d, q in decks if d[:k + 1] == logged[:k + 1])
            expected = 0.0
            for b in items:
                mass = sum(q for d, q in decks if d[:k] == head and d[k] == b)
                expected += (mass if k == 0 else mass / pi_above) * model(b, p)
            c = pi_prefix / mu_prefix
            iips += marginal / mu * r
            rips += c * r
            likes += r
            dr += c * (r - model(item, p)) + c_above * expected
            c_above, pi_above = c, pi_prefix
        sums["iips"] += iips
        sums["rips"] += rips
        sums["sips"] += c_above * likes
        sums["cascade_dr"] += dr
        sum_c += c_above
        sum_cc += c_above * c_above
        largest = max(largest, c_above)
    n = len(sessions)
    estimates = {m: v / n for m, v in sums.items()}
    return estimates, sum_c * sum_c / sum_cc, largest


# --- the slate part: the exports -----------------------------------------------------------------

def export_slates(side, directory):
    """Writes catalog.csv, config.json, log.csv and eval-decks.jsonl; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    n, n_actions, len_list = side["n_sessions"], side["n_actions"], side["len_list"]
    paths = {name: os.path.join(directory, file) for name, file in (
        ("catalog", "catalog.csv"), ("config", "config.json"), ("log", "log.csv"),
        ("decks", "eval-decks.jsonl"))}
    write_catalog_and_config(paths, n_actions, len_list, "synthetic dish", "synthetic")

    width = max(6, len(str(n)))
    users = [f"r{i + 1:0{width}d}" for i in range(n)]
    with open(paths["log"], "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["user", "item", "swipe", "at", "position", "propensity",
                      "prefix_propensity"])
        for i in range(n):
            for k in range(len_list):
                out.writerow([users[i], str(int(side["logged"][i, k])),
                              "right" if int(side["reward"][i, k]) == 1 else "left",
                              side["times"][i][k].isoformat(), k + 1,
                              repr(float(side["mu_marginal"][i, k])),
                              repr(float(side["mu_prefix"][i, k]))])

    decks = [json.dumps([str(int(a)) for a in deck], separators=(",", ":"))
             for deck in side["decks"]]
    with open(paths["decks"], "w", encoding="utf-8") as f:
        for i in range(n):
            diner = json.dumps(users[i])
            for deck, probability in zip(decks, side["target_table"][i].tolist()):
                f.write(f'{{"diner":{diner},"deck":{deck},"probability":{probability!r}}}\n')
    return paths


def slate_menudeck_command(menudeck, paths, split, with_policy=True):
    cmd = [menudeck, "compare", "--config", paths["config"], "--catalog", paths["catalog"],
           "--split", split, "--ope"]
    if with_policy:
        cmd += ["--policy", f"{SLATE_ARM}={paths['decks']}"]
    cmd += ["-s", "random", "--format", "json", "--resamples", str(RESAMPLES), paths["log"]]
    return cmd


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


OBD_DIAGNOSTICS = (("ope_effective_cards", "ess"), ("ope_largest_weight", "max_weight"))
SLATE_DIAGNOSTICS = (("ope_slate_effective_decks", "ess"),
                     ("ope_largest_slate_weight", "max_weight"))


def compare_campaign(side, report, arm=ARM, estimators=ESTIMATORS, diagnostics=OBD_DIAGNOSTICS):
    """Prints the table of one campaign (or of the slate part); True when every |difference|
    <= TOLERANCE."""
    arms = [a.get("arm") for a in report.get("arms", [])]
    got = arm_estimates(report, arm)
    if got is None:
        log(f"  menudeck's report has no arm {arm!r} (arms: {', '.join(map(str, arms))})")
        return False
    ok = True
    width = max(9, max(len(m) for m, _ in estimators))
    log(f"  {'estimator':<{width}} {'OBP':<24} {'menudeck':<24} |difference|")
    for metric, _ in estimators:
        mine = side["obp"][metric]
        entry = got.get(metric)
        value = entry.get("value") if isinstance(entry, dict) else None
        if value is None:
            log(f"  {metric:<{width}} {mine!r:<24} {'(missing)':<24} -")
            ok = False
            continue
        diff = abs(float(value) - mine)
        ok = ok and diff <= TOLERANCE
        log(f"  {metric:<{width}} {mine!r:<24} {float(value)!r:<24} {diff:.3e}"
            f"{'' if diff <= TOLERANCE else '  > ' + repr(TOLERANCE)}")
        lower, upper = entry.get("lower"), entry.get("upper")
        if lower is not None and upper is not None and not (lower <= value <= upper):
            log(f"  note: menudeck's {metric} {value!r} is outside its interval [{lower!r}, {upper!r}]")
    (ess_name, ess_key), (largest_name, largest_key) = diagnostics
    log(f"  menudeck {ess_name} {arm}: {per_arm_parameter(report, ess_name, arm)}"
        f" (OBP side {side[ess_key]:.1f}), {largest_name} {arm}: "
        f"{per_arm_parameter(report, largest_name, arm)} (OBP side {side[largest_key]!r})")
    return ok


# --- part linucb ---------------------------------------------------------------------------------

def linucb_contexts(np, rng, n):
    """n diners' profiles and their context vectors in menudeck's diner encoding: the
    intercept, then the features by the bytes of their names (diner.allergen=..., then
    diner.dislikes=...)."""
    flags = rng.random((n, len(LINUCB_ALLERGENS) + len(LINUCB_DISLIKES))) < 0.4
    contexts = np.concatenate([np.ones((n, 1)), flags.astype(float)], axis=1)
    profiles = []
    for i in range(n):
        allergens = [a for k, a in enumerate(LINUCB_ALLERGENS) if flags[i, k]]
        dislikes = [c for k, c in enumerate(LINUCB_DISLIKES) if flags[i, len(LINUCB_ALLERGENS) + k]]
        profiles.append({"id": f"r{i + 1:06d}", "allergens": allergens,
                         "disliked_categories": dislikes})
    return profiles, contexts


def linucb_obp_side(obp, np):
    """OBP's LinUCB over the warm-up day and LINUCB_DAYS days: the rounds with their day,
    context, action and reward, and the near ties."""
    rng = np.random.default_rng(LINUCB_SEED)
    n = LINUCB_BATCH * (LINUCB_DAYS + 1)
    profiles, contexts = linucb_contexts(np, rng, n)
    dim = contexts.shape[1]
    weights = rng.normal(-0.5, 1.0, size=(LINUCB_ACTIONS, dim))
    policy = obp.policy.LinUCB(dim=dim, n_actions=LINUCB_ACTIONS, len_list=1,
                               batch_size=LINUCB_BATCH, epsilon=LINUCB_EPSILON,
                               random_state=LINUCB_SEED)
    actions, rewards, ties = [], [], []
    for i in range(n):
        x = contexts[i][np.newaxis, :]
        if i < LINUCB_BATCH:
            action = i % LINUCB_ACTIONS
        else:
            action = int(policy.select_action(x)[0])
            theta = np.stack([policy.A_inv[a] @ policy.b[:, a] for a in range(LINUCB_ACTIONS)])
            ucb = np.array([x[0] @ theta[a] + LINUCB_EPSILON
                            * np.sqrt(x[0] @ policy.A_inv[a] @ x[0])
                            for a in range(LINUCB_ACTIONS)])
            top = np.sort(ucb)[::-1]
            if top[0] - top[1] <= LINUCB_TIE:
                ties.append(i)
            if ucb[action] != ucb.max():
                fail(f"round {i}: OBP chose {action} but its UCBs are {ucb.tolist()}")
        p = 1.0 / (1.0 + np.exp(-(weights[action] @ contexts[i])))
        reward = int(rng.random() < p)
        policy.update_params(action=action, reward=reward, context=x)
        actions.append(action)
        rewards.append(reward)
    return {"profiles": profiles, "actions": actions, "rewards": rewards, "ties": ties,
            "dim": dim}


def linucb_files(side, directory):
    """catalog.csv, config.json (deck size 1, rules off), users.json; the log is written day by
    day by run_linucb."""
    os.makedirs(directory, exist_ok=True)
    paths = {"catalog": os.path.join(directory, "catalog.csv"),
             "config": os.path.join(directory, "config.json"),
             "users": os.path.join(directory, "users.json"),
             "log": os.path.join(directory, "log.csv")}
    write_catalog_and_config(paths, LINUCB_ACTIONS, 1, "dish", "obp")
    with open(paths["users"], "w", encoding="utf-8") as f:
        json.dump({"users": side["profiles"]}, f)
        f.write("\n")
    return paths


def run_linucb(args, obp, np, menudeck, root):
    """The linucb part: [("linucb", ok)]."""
    log()
    log(f"== linucb: OBP LinUCB(epsilon={LINUCB_EPSILON}, batch_size={LINUCB_BATCH}) against "
        f"menudeck's linucb, model=disjoint, alpha={LINUCB_EPSILON}, lambda=1, diner_features=true "
        f"(seed {LINUCB_SEED})")
    side = linucb_obp_side(obp, np)
    rounds = LINUCB_BATCH * LINUCB_DAYS
    log(f"  dishes {LINUCB_ACTIONS}, context dimension {side['dim']}, warm-up {LINUCB_BATCH} "
        f"rounds (dish k mod {LINUCB_ACTIONS}), then {LINUCB_DAYS} days of {LINUCB_BATCH} "
        f"rounds; likes {sum(side['rewards'])} of {len(side['rewards'])}")
    log(f"  OBP's choices per dish: {[side['actions'][LINUCB_BATCH:].count(a) for a in range(LINUCB_ACTIONS)]}; "
        f"near ties (two best UCBs within {LINUCB_TIE}): {len(side['ties'])}")
    directory = os.path.join(root, "linucb")
    paths = linucb_files(side, directory)
    if menudeck is None:
        return [("linucb", True)]
    agree = 0
    disagreements = []
    with open(paths["log"], "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerow(["user", "item", "swipe", "at"])
    for day in range(LINUCB_DAYS + 1):
        date = LINUCB_DAY0 + datetime.timedelta(days=day)
        first, last = day * LINUCB_BATCH, (day + 1) * LINUCB_BATCH
        ids = [side["profiles"][i]["id"] for i in range(first, last)]
        if day > 0:
            diners = os.path.join(directory, f"day-{day:02d}.txt")
            with open(diners, "w", encoding="utf-8") as f:
                f.write("\n".join(ids) + "\n")
            cmd = [menudeck, "deck", "--config", paths["config"], "--catalog", paths["catalog"],
                   "--users", paths["users"], "--history", paths["log"],
                   "--date", date.isoformat(), "--strategy", "linucb",
                   "--option", "model=disjoint", "--option", f"alpha={LINUCB_EPSILON}",
                   "--option", "lambda=1", "--option", "diner_features=true", "--diners", diners, "--size", "1", "--format", "csv"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                fail(f"menudeck exited {r.returncode} on day {date}: {last_lines(r.stderr, 5)} "
                     f"(its inputs are in {directory})")
            chosen = {row["user"]: row["item"] for row in csv.DictReader(r.stdout.splitlines())
                      if row["rank"] == "1"}
            for i, uid in zip(range(first, last), ids):
                if chosen.get(uid) == str(side["actions"][i]):
                    agree += 1
                else:
                    disagreements.append((i, uid, side["actions"][i], chosen.get(uid)))
        # The day's swipes join the log for the next day's fit.
        with open(paths["log"], "a", newline="", encoding="utf-8") as f:
            out = csv.writer(f, lineterminator="\n")
            noon = datetime.datetime.combine(date, datetime.time(12), datetime.timezone.utc)
            for i, uid in zip(range(first, last), ids):
                out.writerow([uid, str(side["actions"][i]),
                              "right" if side["rewards"][i] else "left", noon.isoformat()])
    log(f"  rounds {rounds}, agreements {agree}")
    for i, uid, obp_action, mine in disagreements[:5]:
        log(f"  round {i} ({uid}): OBP {obp_action}, menudeck {mine}")
    ok = agree == rounds
    log(f"  linucb: {'PASS' if ok else 'FAIL'}")
    return [("linucb", ok)]


# --- main ----------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--menudeck", metavar="PATH",
                    help="the menudeck binary (default: build it in --repo)")
    ap.add_argument("--repo", default=DEFAULT_REPO,
                    help=f"the menudeck repository to build (default: {DEFAULT_REPO})")
    ap.add_argument("--venv", default=DEFAULT_VENV, help=f"the venv (default: {DEFAULT_VENV})")
    ap.add_argument("--part", choices=PARTS, default="all",
                    help="obd: the Open Bandit Dataset campaigns; slates: the slate estimators "
                         "on a synthetic log; all (default): both, OBD first")
    ap.add_argument("--campaign", action="append", choices=CAMPAIGNS,
                    help="a campaign of the OBD part (repeatable; default: all three)")
    ap.add_argument("--keep", metavar="DIR",
                    help="write the exports to DIR/<campaign>/ and DIR/slates/ and keep them")
    ap.add_argument("--strict", action="store_true",
                    help="fail (exit 1) instead of SKIP when pip cannot install")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--obp-only", action="store_true",
                      help="OBP's numbers, the self-check and the exports; no menudeck")
    mode.add_argument("--without-policy", action="store_true",
                      help="run menudeck without --policy (builds that predate it): checks that "
                           "it reads the exports, compares nothing")
    return ap.parse_args(argv)


def run_obd(args, obp, np, menudeck, root):
    """The OBD part: [(campaign, ok)]."""
    log(f"target: BernoulliTS(is_zozotown_prior=True, random_state={BTS_SEED})"
        f".compute_batch_action_dist(n_sim={N_SIM}); behavior policy {BEHAVIOR_POLICY!r}; "
        f"reward model (likes + {PRIOR_CARDS} rho_p) / (shows + {PRIOR_CARDS})")
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
            show_arms(report, ESTIMATORS)
            results.append((campaign, self_ok))
            continue
        ok = compare_campaign(side, report)
        log(f"  {campaign}: {'PASS' if ok and self_ok else 'FAIL'}")
        results.append((campaign, ok and self_ok))
    return results


def show_arms(report, estimators):
    """--without-policy: what menudeck made of the exports, nothing compared."""
    arms = [a.get("arm") for a in report.get("arms", [])]
    metrics = [m["name"] if isinstance(m, dict) else m for m in report.get("metrics", [])]
    log(f"  menudeck read the exports: arms {', '.join(map(str, arms))}; "
        f"OPE metrics {', '.join(m for m in metrics if m in dict(estimators))}")
    for arm in arms:
        got = arm_estimates(report, arm) or {}
        log(f"    {arm}: " + ", ".join(
            f"{m} {fmt((got.get(m) or {}).get('value'))}" for m, _ in estimators))


def run_slates(args, obp, np, menudeck, root):
    """The slate part: [("slates", ok)]."""
    log()
    log(f"== slates: a synthetic log of whole decks (seed {SLATE_SEED})")
    side = slate_obp_side(obp, np)
    n, n_actions, len_list = side["n_sessions"], side["n_actions"], side["len_list"]
    mix, noise = SLATE_TARGET_MIX
    log(f"  sessions {n} (one diner each), dishes {n_actions}, len_list {len_list} "
        f"({len(side['decks'])} ordered decks); every session logs all {len_list} cards")
    log(f"  logging policy Plackett-Luce over N(0, 1) logits per session and dish; target "
        f"Plackett-Luce over {mix} * those + {noise} * N(0, 1); P(like) = base[dish] * "
        f"decay[position], base {list(SLATE_BASE)}, decay {list(SLATE_DECAY)}")
    log(f"  likes {int(side['reward'].sum())} of {n * len_list} cards; true expected likes per "
        f"deck: target {side['true_target']!r}, logging {side['true_logging']!r}")
    log(f"  deck probabilities: largest |sum over the {len(side['decks'])} decks - 1| "
        f"{side['total_gap']:.3e}; prefix probabilities and conditionals summed from the decks "
        f"vs Plackett-Luce's closed form: largest |difference| {side['enumeration_gap']:.3e}")
    log(f"  slate weights c_L = pi(deck) / mu(deck): effective sample (sum c_L)^2/sum c_L^2 "
        f"{side['ess']!r}, largest {side['max_weight']!r}; card weights w: effective "
        f"{side['card_ess']!r}, largest {side['max_card_weight']!r}")
    gaps = {m: abs(side["obp"][m] - side["numpy"][m]) for m, _ in SLATE_ESTIMATORS}
    log(f"  OBP: " + ", ".join(f"{m} {side['obp'][m]!r}" for m, _ in SLATE_ESTIMATORS))
    log(f"  numpy re-implementation: largest |difference| from OBP {max(gaps.values()):.3e}; "
        f"reward model vs plain recount {side['model_gap']:.3e}")
    self_ok = (max(gaps.values()) <= SELF_TOLERANCE and side["model_gap"] <= SELF_TOLERANCE
               and side["enumeration_gap"] <= SELF_TOLERANCE)
    if not self_ok:
        log("  numpy re-implementation or enumeration DISAGREES: " +
            ", ".join(f"{m} {side['numpy'][m]!r}" for m, _ in SLATE_ESTIMATORS))
    directory = os.path.join(root, "slates")
    paths = export_slates(side, directory)
    split = SLATE_DAY.isoformat()
    log(f"  exported to {directory}; split {split}")
    from_files, ess, largest = slate_estimates_from_files(paths)
    gap = max(abs(from_files[m] - side["obp"][m]) for m, _ in SLATE_ESTIMATORS)
    log(f"  estimates recomputed from the exported files alone: largest |difference| from OBP "
        f"{gap:.3e}; effective sample {ess!r}, largest c_L {largest!r}")
    if gap > SELF_TOLERANCE or abs(ess - side["ess"]) > 1e-9 * side["ess"] \
            or abs(largest - side["max_weight"]) > 1e-9 * side["max_weight"]:
        self_ok = False
        log("  the exported files DISAGREE with OBP: " +
            ", ".join(f"{m} {from_files[m]!r}" for m, _ in SLATE_ESTIMATORS))
    if menudeck is None:
        return [("slates", self_ok)]
    report = run_menudeck(slate_menudeck_command(menudeck, paths, split,
                                                 with_policy=not args.without_policy), directory)
    if args.without_policy:
        show_arms(report, SLATE_ESTIMATORS)
        return [("slates", self_ok)]
    ok = compare_campaign(side, report, arm=SLATE_ARM, estimators=SLATE_ESTIMATORS,
                          diagnostics=SLATE_DIAGNOSTICS)
    log(f"  slates: {'PASS' if ok and self_ok else 'FAIL'}")
    return [("slates", ok and self_ok)]


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

    root = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="menudeck-obp-")
    results = []
    if args.part in ("obd", "all"):
        results += run_obd(args, obp, np, menudeck, root)
    if args.part in ("slates", "all"):
        results += run_slates(args, obp, np, menudeck, root)
    if args.part in ("linucb", "all"):
        results += run_linucb(args, obp, np, menudeck, root)

    log()
    failed = [c for c, ok in results if not ok]
    what = ("OBP self-check" if menudeck is None or args.without_policy
            else "menudeck's choices vs OBP's LinUCB" if args.part == "linucb"
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
