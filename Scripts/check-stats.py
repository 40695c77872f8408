#!/usr/bin/env python3
"""menudeck compare's paired t-test, Wilcoxon test and adjusted p-values against scipy/statsmodels.

What it checks:
  `menudeck compare` simulates a few strategies against a baseline and writes, per difference
  (arm - baseline) and metric, the randomization p-value `p_value`, its Holm and
  Benjamini-Hochberg adjustments `p_holm` and `p_bh` over the report's family of tests, a paired
  t-test `p_t` and a Wilcoxon signed-rank test `p_wilcoxon` (docs/metrics.md, "Comparisons").
  This script runs it with `--format json --per-diner per.csv` and recomputes, independently:
    - from per.csv (every diner's numerator and denominator of every metric) the paired value of
      each diner, z = N_a - N_b for a count and z = (N_a - N_b) - R0 (D_a - D_b) for a ratio,
      R0 = (sum N_a + sum N_b) / (sum D_a + sum D_b), diners with no denominator on either side
      left out; then scipy.stats.ttest_rel(z, zeros).pvalue and scipy.stats.wilcoxon(z).pvalue
      with scipy's defaults (zero_method="wilcox", correction=False, method="auto"): they must
      equal p_t and p_wilcoxon to 1e-9 (both null where scipy gives nan or refuses, and for
      coverage, which has no per-diner paired value);
    - from the report's p_value list (the defined ones, in report order, less those of two arms
      identical for every diner: the family)
      statsmodels.stats.multitest.multipletests(p, method="holm") and method="fdr_bh": they must
      equal p_holm and p_bh to 1e-12, and the family's size must be the one the report states
      in its parameter p_adjust_family. The identical ones are found again from per.csv (the
      same numerator, and denominator for a ratio, for every diner; for coverage the same
      count of dishes, which the report's list must then agree with): they must be the list the
      report states, with p_value, p_holm and p_bh all 1;
    - from per.csv the pooled difference sum N_a / sum D_a - sum N_b / sum D_b (a count: the
      difference of the sums), which must equal the report's difference to 1e-12: the file holds
      the sums the report was made of.
  Two runs: the one below with 200 diners (every Wilcoxon test is the normal approximation,
  n > 50) and one with 12 diners (n <= 13: scipy enumerates the 2^n sign patterns when there are
  ties or zeros, and uses the exact distribution when there are none). Prints the largest
  differences and PASS, or FAIL and exit 1.

  menudeck compare --config Config/menudeck.json -s random -s popularity -s affinity
      --baseline random --users 200 --days 5 --start 2026-11-01 --seed 7 --format json
      --per-diner per.csv

How to run (from the repository):
  Scripts/check-stats.py                      # builds menudeck (swift build -c release)
  Scripts/check-stats.py --menudeck .build/debug/menudeck
  Scripts/check-stats.py --keep /tmp/stats    # keep the report and per.csv of each run
  --strict turns the SKIP below into a failure (exit 1).

What it installs:
  A venv at /tmp/menudeck-stats-venv (--venv DIR; reused when it has everything), made with the
  Python running this script, then scipy and statsmodels (numpy comes with them); the script
  runs itself again with the venv's Python. When pip cannot install (no network, no index), it
  prints `SKIP: <reason>` and exits 0, unless --strict.

scipy's RuntimeWarnings for 0/0 (every paired value 0: the t statistic, and the Wilcoxon normal
approximation) are silenced: its nan is "undefined", which menudeck writes as null.
Sums run in the diners' order with plain float additions, as menudeck's do (Python's sum() of
floats is compensated from 3.12 on and is not used), so that the paired values are the same
doubles and their ties and zeros the same. Standard library only outside the venv.
"""

import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

SCRIPT = os.path.abspath(__file__)
DEFAULT_REPO = os.path.dirname(os.path.dirname(SCRIPT))
DEFAULT_VENV = "/tmp/menudeck-stats-venv"
CHILD_MARK = "MENUDECK_STATS_CHECK_CHILD"
REQUIREMENTS = ["scipy", "statsmodels"]
TEST_TOLERANCE = 1e-9      # t-test and Wilcoxon
ADJUST_TOLERANCE = 1e-12   # Holm and BH, and the pooled differences
RUNS = (
    ("200 diners", ["-s", "random", "-s", "popularity", "-s", "affinity", "--baseline", "random",
                    "--users", "200", "--days", "5", "--start", "2026-11-01", "--seed", "7"]),
    ("12 diners", ["-s", "random", "-s", "popularity", "-s", "affinity", "--baseline", "random",
                   "--users", "12", "--days", "3", "--start", "2026-11-01", "--seed", "11"]),
)


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


# --- the venv ------------------------------------------------------------------------------------

PROBE = "import numpy, scipy.stats, statsmodels.stats.multitest"


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
        fail(f"the venv {venv} was installed but does not import scipy and statsmodels: "
             f"{last_lines(r.stderr)}")
    return py


# --- menudeck ------------------------------------------------------------------------------------

def find_menudeck(args):
    if args.menudeck:
        path = os.path.abspath(args.menudeck)
        if not os.access(path, os.X_OK):
            fail(f"--menudeck {args.menudeck}: not an executable file")
        return path
    repo = os.path.abspath(args.repo)
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


def run_menudeck(menudeck, repo, options, directory):
    per_diner = os.path.join(directory, "per.csv")
    cmd = [menudeck, "compare", "--config", os.path.join(repo, "Config", "menudeck.json")]
    cmd += options + ["--format", "json", "--per-diner", per_diner]
    log("$ " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"menudeck exited {r.returncode}: {last_lines(r.stderr or r.stdout, 5)}")
    with open(os.path.join(directory, "report.json"), "w") as f:
        f.write(r.stdout)
    try:
        report = json.loads(r.stdout)
    except ValueError as e:
        fail(f"menudeck's output is not JSON ({e}): {r.stdout[:300]!r}")
    return report, per_diner


def read_per_diner(path):
    """{(strategy, metric): [(diner, numerator, denominator)]} in the file's (diner) order."""
    table = {}
    with open(path, newline="") as f:
        rows = csv.DictReader(f)
        expected = ["strategy", "diner", "metric", "value", "numerator", "denominator"]
        if rows.fieldnames != expected:
            fail(f"{path}: header {rows.fieldnames}, expected {expected}")
        for row in rows:
            num = float(row["numerator"]) if row["numerator"] != "" else None
            den = float(row["denominator"]) if row["denominator"] != "" else None
            table.setdefault((row["strategy"], row["metric"]), []).append(
                (row["diner"], num, den))
    return table


# --- the recomputation -------------------------------------------------------------------------

def plain_sum(values):
    """Left-to-right float additions, as menudeck sums (not Python 3.12's compensated sum())."""
    total = 0.0
    for v in values:
        total += v
    return total


def paired_values(np, form, arm_rows, base_rows):
    """The diners' paired values z (arm - baseline) of one metric; None for coverage."""
    if [r[0] for r in arm_rows] != [r[0] for r in base_rows]:
        fail("the two strategies' per-diner rows are not the same diners in the same order")
    if form == "coverage":
        return None
    na = np.array([r[1] for r in arm_rows], dtype=float)
    nb = np.array([r[1] for r in base_rows], dtype=float)
    if form == "total":
        return na - nb
    da = np.array([r[2] for r in arm_rows], dtype=float)
    db = np.array([r[2] for r in base_rows], dtype=float)
    r0 = (plain_sum(r[1] for r in arm_rows) + plain_sum(r[1] for r in base_rows)) / (
        plain_sum(r[2] for r in arm_rows) + plain_sum(r[2] for r in base_rows))
    keep = (da != 0) | (db != 0)
    return ((na - nb) - r0 * (da - db))[keep]


def pooled_difference(form, arm_rows, base_rows):
    if form == "total":
        return plain_sum(r[1] for r in arm_rows) - plain_sum(r[1] for r in base_rows)
    if form == "ratio":
        da = plain_sum(r[2] for r in arm_rows)
        db = plain_sum(r[2] for r in base_rows)
        if da == 0 or db == 0:
            return None
        return plain_sum(r[1] for r in arm_rows) / da - plain_sum(r[1] for r in base_rows) / db
    return None  # coverage: distinct dishes over all diners, not a sum


def scipy_t(np, stats, z):
    if z is None:
        return None
    with warnings.catch_warnings():  # values all 0: 0/0, scipy warns and gives nan
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(stats.ttest_rel(z, np.zeros_like(z)).pvalue)
    return None if math.isnan(p) else p


def wilcoxon_method(z):
    """The branch scipy's method="auto" takes (scipy >= 1.13's rule), for the printout."""
    nonzero = [abs(v) for v in z if v != 0]
    ties = len(nonzero) != len(set(nonzero))
    if len(z) <= 50 and not ties and len(nonzero) == len(z):
        return "exact"
    if len(z) <= 13:
        return "enumerated"
    return "normal"


def scipy_wilcoxon(stats, z):
    if z is None or len(z) == 0:
        return None
    try:
        with warnings.catch_warnings():  # n > 13 values all 0: 0/0 in the normal approximation
            warnings.simplefilter("ignore", RuntimeWarning)
            p = float(stats.wilcoxon(z).pvalue)
    except ValueError:  # one value that is 0: scipy refuses it
        return None
    return None if math.isnan(p) else p


def gap(ours, theirs):
    """|ours - theirs|; 0 when both are None, inf when only one is."""
    if ours is None and theirs is None:
        return 0.0
    if ours is None or theirs is None:
        return math.inf
    return abs(ours - theirs)


def check_run(name, report, per_diner_path):
    import numpy as np
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    per_diner = read_per_diner(per_diner_path)
    forms = {m["name"]: m["form"] for m in report["metrics"]}
    metrics = [m["name"] for m in report["metrics"]]
    worst = {"p_t": 0.0, "p_wilcoxon": 0.0, "p_holm": 0.0, "p_bh": 0.0, "difference": 0.0}
    where = {}
    methods = {}
    defined = {"p_t": 0, "p_wilcoxon": 0}
    family, places = [], []
    stated_family = report["parameters"].get("p_adjust_family", {})
    stated_identical = {(i["arm"], i["metric"]) for i in stated_family.get("identical", [])}
    identical = set()
    for d in report["differences"]:
        arm, base = d["arm"], d["baseline"]
        for metric in metrics:
            e = d["estimates"][metric]
            arm_rows = per_diner[(arm, metric)]
            base_rows = per_diner[(base, metric)]
            form = forms[metric]
            z = paired_values(np, form, arm_rows, base_rows) if e["value"] is not None else None
            expected = {"p_t": scipy_t(np, stats, z), "p_wilcoxon": scipy_wilcoxon(stats, z)}
            if z is not None and len(z) > 0:
                method = wilcoxon_method(z)
                methods[method] = methods.get(method, 0) + 1
            for key in ("p_t", "p_wilcoxon"):
                g = gap(e[key], expected[key])
                if e[key] is not None:
                    defined[key] += 1
                if g > worst[key]:
                    worst[key] = g
                    where[key] = f"{arm} {metric}: {e[key]!r} vs scipy {expected[key]!r}"
            pooled = pooled_difference(form, arm_rows, base_rows)
            if pooled is not None and e["value"] is not None:
                g = abs(pooled - e["value"])
                if g > worst["difference"]:
                    worst["difference"] = g
                    where["difference"] = f"{arm} {metric}: {e['value']!r} vs {pooled!r}"
            same = all(a[1] == b[1] and (form != "ratio" or a[2] == b[2])
                       for a, b in zip(arm_rows, base_rows))
            # Coverage's per-diner counts can only refute the report's claim, not prove it.
            if e["p_value"] is not None and (
                    same if form != "coverage" else same and (arm, metric) in stated_identical):
                identical.add((arm, metric))
                for key in ("p_value", "p_holm", "p_bh"):
                    if e[key] != 1:
                        counted = "p_bh" if key == "p_bh" else "p_holm"
                        worst[counted] = math.inf
                        where[counted] = (f"{arm} {metric}: identical arms, {key} {e[key]!r} "
                                          "is not 1")
            elif e["p_value"] is not None:
                family.append(e["p_value"])
                places.append((arm, metric))
    stated = stated_family.get("description", "")
    arms = len(report["differences"])
    left = arms * len(metrics) - len(family) - len(identical)
    parts = ([f"{left} undefined"] if left else []) + (
        [f"{len(identical)} identical for every diner"] if identical else [])
    expected_family = (f"arm x metric: {len(family)} tests ({arms} arms x {len(metrics)} metrics"
                       + (", " + " and ".join(parts) + " left out)" if parts else ")"))
    adjusted = {
        "p_holm": [float(x) for x in multipletests(family, method="holm")[1]],
        "p_bh": [float(x) for x in multipletests(family, method="fdr_bh")[1]],
    }
    by_place = {(d["arm"], m): d["estimates"][m] for d in report["differences"] for m in metrics}
    for key, values in adjusted.items():
        for (arm, metric), value in zip(places, values):
            g = gap(by_place[(arm, metric)][key], value)
            if g > worst[key]:
                worst[key] = g
                where[key] = f"{arm} {metric}: {by_place[(arm, metric)][key]!r} vs {value!r}"
        # An undefined p-value has no adjusted one.
        for (arm, metric), e in by_place.items():
            if e["p_value"] is None and e[key] is not None:
                worst[key] = math.inf
                where[key] = f"{arm} {metric}: adjusted {e[key]!r} without a p-value"

    log(f"  {len(report['differences'])} arms x {len(metrics)} metrics against "
        f"{report['baseline']!r}, {report['units']} diners")
    log(f"  family: {len(family)} defined randomization p-values, {len(identical)} of identical "
        f"arms left out; the report says {stated!r}")
    log(f"  p_t defined {defined['p_t']}, p_wilcoxon defined {defined['p_wilcoxon']}; "
        f"scipy's Wilcoxon branches: "
        + ", ".join(f"{k} {v}" for k, v in sorted(methods.items())))
    ok = stated == expected_family and identical == stated_identical
    if stated != expected_family:
        log(f"  the family stated is not {expected_family!r}")
    if identical != stated_identical:
        log(f"  identical arms found {sorted(identical)}, the report lists "
            f"{sorted(stated_identical)}")
    for key, tolerance in (("p_t", TEST_TOLERANCE), ("p_wilcoxon", TEST_TOLERANCE),
                           ("p_holm", ADJUST_TOLERANCE), ("p_bh", ADJUST_TOLERANCE),
                           ("difference", ADJUST_TOLERANCE)):
        passed = worst[key] <= tolerance
        ok = ok and passed
        detail = f" (at {where[key]})" if key in where and not passed else ""
        log(f"  largest |difference| {key:10} {worst[key]:.3e}  (tolerance {tolerance:g})"
            f"{'' if passed else '  FAIL'}{detail}")
    return ok


# --- main ----------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--menudeck", metavar="PATH",
                    help="the menudeck binary (default: build it in --repo)")
    ap.add_argument("--repo", default=DEFAULT_REPO,
                    help=f"the menudeck repository (default: {DEFAULT_REPO})")
    ap.add_argument("--venv", default=DEFAULT_VENV, help=f"the venv (default: {DEFAULT_VENV})")
    ap.add_argument("--keep", metavar="DIR", help="write each run's files to DIR/<n>/ and keep them")
    ap.add_argument("--strict", action="store_true",
                    help="fail (exit 1) instead of SKIP when pip cannot install")
    return ap.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if os.environ.get(CHILD_MARK) != "1":
        py = ensure_venv(os.path.abspath(args.venv), args.strict)
        sys.stdout.flush()
        os.execve(py, [py, SCRIPT] + argv, dict(os.environ, **{CHILD_MARK: "1"}))

    import numpy
    import scipy
    import statsmodels
    log(f"scipy {scipy.__version__}, statsmodels {statsmodels.__version__}, numpy "
        f"{numpy.__version__}, Python {sys.version.split()[0]}")
    menudeck = find_menudeck(args)
    repo = os.path.abspath(args.repo)
    results = []
    for n, (name, options) in enumerate(RUNS, start=1):
        log()
        log(f"== {name}")
        if args.keep:
            directory = os.path.join(os.path.abspath(args.keep), str(n))
            os.makedirs(directory, exist_ok=True)
        else:
            directory = tempfile.mkdtemp(prefix="menudeck-stats-")
        report, per_diner = run_menudeck(menudeck, repo, options, directory)
        ok = check_run(name, report, per_diner)
        results.append((name, ok))
        if ok and not args.keep:
            shutil.rmtree(directory)
        elif not ok:
            log(f"  files kept in {directory}")
    log()
    for name, ok in results:
        log(f"{name}: {'PASS' if ok else 'FAIL'}")
    if not all(ok for _, ok in results):
        fail("menudeck's p-values differ from scipy's and statsmodels'")
    log("PASS")


if __name__ == "__main__":
    main(sys.argv[1:])
