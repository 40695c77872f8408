#!/usr/bin/env bash
# Checks menudeck's offline ranking metrics against trec_eval.
#
# 1. Installs trec_eval's C code as the pytrec-eval-terrier wheel (PyPI) into a venv under /tmp
#    (TREC_VENV to choose another; Debian has no trec_eval package, and the PyPI sdists fetch
#    the sources from elsewhere at build time).
# 2. Runs the gated Swift test suites TrecEvalExport and TrecEvalExportCLI, which write into a
#    work directory:
#    - a seeded random case (run.txt, qrels.txt: 400 diners, 60 items, lists of 0 to 15 items)
#      and our per-diner and mean values at k = 1, 3, 5, 10 (ours.tsv): RankingMetrics at the
#      four cut-offs in one pass per diner, one OfflineEvaluation at all four for the means;
#    - the small reference case checked in as string literals in OfflineEvaluationTests.swift
#      (fixture-run.txt, fixture-qrels.txt) with the trec_eval numbers the tests compare against
#      (fixture-expected.txt);
#    - cli/: `menudeck compare --k 1,3,5,10` on the bundled log: the strategies' TREC files
#      (cli/trec), their per-diner values (strategies.csv) and report (strategies.json); and a
#      run file with tied scores, docs no catalog holds, diners it leaves out and queries that
#      are no diner (ext.run) evaluated with `--run` (run.csv, run.json).
# 3. Evaluates every case with trec_eval (P_k, recall_k, ndcg_cut_k, map_cut_k, success_k for
#    the hit rate, recip_rank), counting diners without a run line as 0 like `trec_eval -c`, and
#    fails when a value differs by more than 1e-9 from ours, or when the checked-in reference
#    differs from trec_eval's 4-decimal output.
#
# Usage: Scripts/check-trec-eval.sh [WORK_DIR]   (default: a fresh directory under /tmp)
# Prints the reference in trec_eval's -q layout with --print-reference.
set -euo pipefail

cd "$(dirname "$0")/.."
print_reference=0
if [[ "${1:-}" == "--print-reference" ]]; then
  print_reference=1
  shift
fi
work="${1:-$(mktemp -d /tmp/menudeck-trec.XXXXXX)}"
mkdir -p "$work"
venv="${TREC_VENV:-/tmp/menudeck-trec-venv}"

if ! "$venv/bin/python" -c 'import pytrec_eval' 2>/dev/null; then
  echo "installing pytrec-eval-terrier into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet pytrec-eval-terrier
fi

echo "exporting the cases into $work" >&2
MENUDECK_TREC_EXPORT="$work" swift test --filter TrecEvalExport >"$work/swift-test.log" 2>&1 || {
  tail -30 "$work/swift-test.log" >&2
  echo "the export test failed: see $work/swift-test.log" >&2
  exit 1
}
for f in run.txt qrels.txt ours.tsv fixture-run.txt fixture-qrels.txt fixture-expected.txt \
  cli/trec/qrels.txt cli/trec/popularity.run cli/trec/affinity.run cli/strategies.csv \
  cli/strategies.json cli/ext.run cli/run.csv cli/run.json; do
  [[ -s "$work/$f" ]] || { echo "the export test wrote no $work/$f" >&2; exit 1; }
done

PRINT_REFERENCE=$print_reference "$venv/bin/python" - "$work" <<'PY'
import collections
import os
import sys

import pytrec_eval

work = sys.argv[1]
cutoffs = [1, 3, 5, 10]


def read(name):
    with open(os.path.join(work, name)) as f:
        return f.read().splitlines()


def evaluate(run_lines, qrel_lines, ks, success=False):
    run = pytrec_eval.parse_run(run_lines)
    qrel = pytrec_eval.parse_qrel(qrel_lines)
    # Queries with no relevant doc are not evaluated (neither trec_eval nor menudeck scores them).
    judged = sorted(q for q, docs in qrel.items() if any(r >= 1 for r in docs.values()))
    spec = ",".join(str(k) for k in ks)
    stems = ("P", "recall", "ndcg_cut", "map_cut") + (("success",) if success else ())
    measures = {f"{m}.{spec}" for m in stems} | {"recip_rank"}
    scores = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
    names = [f"{m}_{k}" for m in stems for k in ks]
    names.append("recip_rank")
    # trec_eval -c: a judged query without run lines counts with 0.
    per_query = {q: {n: scores.get(q, {}).get(n, 0.0) for n in names} for q in judged}
    means = {n: sum(per_query[q][n] for q in judged) / len(judged) for n in names}
    return names, judged, per_query, means


def layout(names, judged, per_query, means):
    lines = []
    for q in judged:
        lines += [f"{n:<22}\t{q}\t{per_query[q][n]:.4f}" for n in names]
    lines += [f"{n:<22}\tall\t{means[n]:.4f}" for n in names]
    return lines


failures = 0

# The random case, to 1e-9.
names, judged, per_query, means = evaluate(read("run.txt"), read("qrels.txt"), cutoffs)
ours = collections.defaultdict(dict)
for line in read("ours.tsv"):
    measure, query, value = line.split("\t")
    ours[query][measure] = float(value)
compared = 0
worst = 0.0
for q in judged + ["all"]:
    expected = means if q == "all" else per_query[q]
    for n in names:
        if n not in ours.get(q, {}):
            print(f"missing: {n} for {q} in ours.tsv")
            failures += 1
            continue
        diff = abs(ours[q][n] - expected[n])
        worst = max(worst, diff)
        compared += 1
        if diff > 1e-9:
            print(f"differs: {n} {q}: menudeck {ours[q][n]!r}, trec_eval {expected[n]!r}")
            failures += 1
extra = set(ours) - set(judged) - {"all"}
if extra:
    print(f"menudeck scored diners trec_eval does not: {sorted(extra)[:5]}")
    failures += 1
print(f"random case: {len(judged)} judged diners, {compared} values compared,"
      f" largest difference {worst:.3g}")

# The checked-in reference, as trec_eval prints it.
names, judged, per_query, means = evaluate(read("fixture-run.txt"), read("fixture-qrels.txt"), [5])
reference = layout(names, judged, per_query, means)
if os.environ.get("PRINT_REFERENCE") == "1":
    print("\n".join(reference))
checked_in = [line for line in read("fixture-expected.txt") if line.strip()]
if checked_in != reference:
    print("the checked-in reference differs from trec_eval:")
    for a, b in zip(checked_in, reference):
        if a != b:
            print(f"  checked in: {a}\n  trec_eval:  {b}")
    if len(checked_in) != len(reference):
        print(f"  {len(checked_in)} lines checked in, {len(reference)} from trec_eval")
    failures += 1
else:
    print(f"reference case: {len(reference)} values match trec_eval's 4-decimal output")

# menudeck compare end to end: the strategies' --trec files and a --run file, per diner and
# means, at k = 1, 3, 5, 10 in one run.
import csv
import json

ours_name = {"precision": "P", "recall": "recall", "ndcg": "ndcg_cut", "map": "map_cut",
             "hit_rate": "success"}


def trec_name(metric):
    if metric == "mrr":
        return "recip_rank"
    stem, _, k = metric.rpartition("_at_")
    return f"{ours_name[stem]}_{k}" if stem in ours_name else None


def check_compare(label, run_file, per_diner_file, report_file, arm):
    global failures
    names, judged, per_query, means = evaluate(
        read(run_file), read("cli/trec/qrels.txt"), cutoffs, success=True)
    rows = collections.defaultdict(dict)
    with open(os.path.join(work, per_diner_file)) as f:
        for row in csv.DictReader(f):
            if row["strategy"] == arm and trec_name(row["metric"]):
                rows[row["diner"]][trec_name(row["metric"])] = float(row["value"])
    with open(os.path.join(work, report_file)) as f:
        report = json.load(f)
    estimates = next(a["estimates"] for a in report["arms"] if a["arm"] == arm)
    mean_rows = {trec_name(m): e["value"] for m, e in estimates.items() if trec_name(m)}
    compared = 0
    worst = 0.0
    if sorted(rows) != judged:
        print(f"{label}: menudeck's diners differ from trec_eval's judged queries")
        failures += 1
    for q in judged + ["all"]:
        expected = means if q == "all" else per_query[q]
        got = mean_rows if q == "all" else rows.get(q, {})
        for n in names:
            if n not in got:
                print(f"{label}: missing {n} for {q}")
                failures += 1
                continue
            diff = abs(got[n] - expected[n])
            worst = max(worst, diff)
            compared += 1
            if diff > 1e-9:
                print(f"{label}: differs: {n} {q}: menudeck {got[n]!r}, trec_eval {expected[n]!r}")
                failures += 1
    print(f"{label}: {len(judged)} judged diners, {compared} values compared,"
          f" largest difference {worst:.3g}")


for strategy in ("popularity", "affinity"):
    check_compare(f"compare --k 1,3,5,10 --trec, {strategy}", f"cli/trec/{strategy}.run",
                  "cli/strategies.csv", "cli/strategies.json", strategy)
check_compare("compare --run (ties, unknown docs, missing diners)", "cli/ext.run", "cli/run.csv",
              "cli/run.json", "ext")

print("trec_eval check: " + ("ok" if failures == 0 else f"{failures} failures"))
sys.exit(1 if failures else 0)
PY
