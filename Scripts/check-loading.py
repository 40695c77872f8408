#!/usr/bin/env python3
"""Loads every table-like output of menudeck as a user would, and checks the types each loader gets.

What it checks:
  menudeck writes its tidy outputs (deck CSV, stats/simulate/compare JSON Lines and CSV, the
  per-diner CSV, swipe logs, the strategy list) so that the usual loaders read them in one call
  with the right types: ids as text, even ids made of digits such as "007"; days as dates; the
  row over every day marked by a boolean `overall`; numbers as floating point; undefined values
  as nulls. This script
    1. runs menudeck on the bundled sample (and on a tiny users file whose ids are "007", "12"
       and "u3", so that an id a loader could take for a number is there) and writes each output
       into a directory (--outputs DIR reuses one written before, as the Swift test does);
    2. reads each one with Python's csv and json modules and checks every record's types;
    3. reads each one with the ONE-LINERS below (the same text as in docs/output-formats.md,
       which the script checks) in pandas, polars and DuckDB, and checks the column types: an
       id column is text and keeps "007", a day a date, `overall` a boolean, values floats.
  Prints a line per output and loader, then PASS, or FAIL and exit 1. A loader that is not
  installed is skipped with its reason.

How to run (from the repository):
  Scripts/check-loading.py                       # builds menudeck, makes a venv with the loaders
  Scripts/check-loading.py --menudeck .build/debug/menudeck
  Scripts/check-loading.py --outputs DIR --no-venv   # what the Swift test runs: the outputs are
                                                    # in DIR; loaders only when importable
  --strict turns a SKIP into a failure (exit 1).

What it installs:
  A venv at /tmp/menudeck-load-venv (--venv DIR; reused when it has everything), made with the
  Python running this script, then pandas, polars, pyarrow and duckdb; the script runs itself
  again with the venv's Python. When pip cannot install, it prints `SKIP: <reason>` for the
  loaders and still runs the standard-library checks. Standard library only outside the venv.
"""

import argparse
import csv
import datetime
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.abspath(__file__)
REPO = os.path.dirname(os.path.dirname(SCRIPT))
DEFAULT_VENV = "/tmp/menudeck-load-venv"
CHILD_MARK = "MENUDECK_LOAD_CHECK_CHILD"
REQUIREMENTS = ["pandas", "polars", "pyarrow", "duckdb"]

# The users file of the id check: ids that pandas would otherwise read as the numbers 7 and 12.
TRICKY_USERS = {"users": [{"id": "007"}, {"id": "12"}, {"id": "u3", "diets": ["vegetarian"]}]}

# Each output: the command that writes it (FILE: the output's path, USERS: the tricky users
# file), its logical column types (str, date, datetime, bool, float, int, nested), the id
# columns, and one line per loader, where `f` is the file's path. These lines are the ones
# docs/output-formats.md shows, verbatim.
OUTPUTS = [
    {
        "name": "decks.csv",
        "command": ["deck", "--date", "2026-11-30", "--users", "USERS", "--format", "csv",
                    "--out", "FILE"],
        "columns": {"user": "str", "date": "date", "strategy": "str", "seed": "int", "rank": "int",
                    "item": "str", "name": "str", "category": "str", "score": "float"},
        "ids": ["user", "item"],
        "pandas": 'pd.read_csv(f, dtype={"user": str, "item": str}, parse_dates=["date"])',
        "polars": 'pl.read_csv(f, schema_overrides={"user": pl.String, "item": pl.String}, try_parse_dates=True)',
        "duckdb": 'duckdb.read_csv(f, dtype={"user": "VARCHAR", "item": "VARCHAR"})',
    },
    {
        "name": "decks.jsonl",
        "command": ["deck", "--date", "2026-11-30", "--users", "USERS", "--format", "jsonl",
                    "--out", "FILE"],
        "columns": {"user": "str", "date": "date", "strategy": "str", "seed": "int",
                    "cards": "nested"},
        "ids": ["user"],
        "pandas": 'pd.read_json(f, lines=True, dtype={"user": str, "date": "datetime64[s]"})',
        "polars": 'pl.read_ndjson(f, schema_overrides={"date": pl.Date})',
        "duckdb": "duckdb.read_json(f)",
    },
    {
        "name": "stats.csv",
        "command": ["stats", "--format", "csv"],
        "columns": {"strategy": "str", "day": "date", "overall": "bool", "metric": "str",
                    "value": "float"},
        "ids": ["strategy"],
        "pandas": 'pd.read_csv(f, dtype={"strategy": str, "value": float}, parse_dates=["day"])',
        "polars": 'pl.read_csv(f, schema_overrides={"strategy": pl.String, "day": pl.Date, "value": pl.Float64})',
        "duckdb": 'duckdb.read_csv(f, dtype={"strategy": "VARCHAR", "day": "DATE", "value": "DOUBLE"})',
    },
    {
        "name": "stats.jsonl",
        "command": ["stats", "--format", "jsonl"],
        "columns": {"strategy": "str", "day": "date", "overall": "bool", "metric": "str",
                    "value": "float"},
        "ids": ["strategy"],
        "pandas": 'pd.read_json(f, lines=True, dtype={"strategy": str, "day": "datetime64[s]", "value": float})',
        "polars": 'pl.read_ndjson(f, schema_overrides={"day": pl.Date, "value": pl.Float64})',
        "duckdb": 'duckdb.read_json(f, columns={"strategy": "VARCHAR", "day": "DATE", "overall": "BOOLEAN", "metric": "VARCHAR", "value": "DOUBLE"})',
    },
    {
        "name": "simulate.csv",
        "command": ["simulate", "--users", "USERS", "--days", "3", "--start", "2026-12-01",
                    "-s", "random", "-s", "affinity", "--format", "csv", "--out", "FILE"],
        "same_as": "stats.csv",
    },
    {
        "name": "simulate.jsonl",
        "command": ["simulate", "--users", "USERS", "--days", "3", "--start", "2026-12-01",
                    "-s", "random", "-s", "affinity", "--format", "jsonl", "--out", "FILE"],
        "same_as": "stats.jsonl",
    },
    {
        "name": "events.csv",
        "command": ["simulate", "--users", "USERS", "--days", "3", "--start", "2026-12-01",
                    "--format", "json", "--events", "FILE"],
        "columns": {"user": "str", "item": "str", "swipe": "str", "at": "datetime",
                    "position": "int", "deck": "date", "propensity": "float",
                    "prefix_propensity": "float"},
        "ids": ["user", "item"],
        "pandas": 'pd.read_csv(f, dtype={"user": str, "item": str, "swipe": str}, parse_dates=["deck"]).assign(at=lambda d: pd.to_datetime(d["at"], utc=True))',
        "polars": 'pl.read_csv(f, schema_overrides={"user": pl.String, "item": pl.String, "propensity": pl.Float64, "prefix_propensity": pl.Float64}, try_parse_dates=True)',
        "duckdb": 'duckdb.read_csv(f, dtype={"user": "VARCHAR", "item": "VARCHAR", "propensity": "DOUBLE", "prefix_propensity": "DOUBLE"})',
    },
    {
        "name": "events.jsonl",
        "command": ["simulate", "--users", "USERS", "--days", "3", "--start", "2026-12-01",
                    "--format", "json", "--events", "FILE"],
        "columns": {"user": "str", "item": "str", "swipe": "str", "at": "datetime",
                    "position": "int", "deck": "date"},
        "ids": ["user", "item"],
        "pandas": 'pd.read_json(f, lines=True, dtype={"user": str, "item": str, "deck": "datetime64[s]"}).assign(at=lambda d: pd.to_datetime(d["at"], utc=True))',
        "polars": 'pl.read_ndjson(f, schema_overrides={"user": pl.String, "item": pl.String, "at": pl.Datetime(time_zone="UTC"), "deck": pl.Date})',
        "duckdb": "duckdb.read_json(f)",
    },
    {
        "name": "compare.csv",
        "command": ["compare", "-s", "random", "-s", "popularity", "--baseline", "random",
                    "--users", "40", "--days", "3", "--start", "2026-12-01", "--resamples", "50",
                    "--format", "csv", "--out", "FILE"],
        "columns": {"kind": "str", "arm": "str", "baseline": "str", "metric": "str", "day": "date",
                    "value": "float", "lower": "float", "upper": "float", "p_value": "float",
                    "p_holm": "float", "p_bh": "float", "p_t": "float", "p_wilcoxon": "float"},
        "ids": ["arm", "baseline"],
        "pandas": 'pd.read_csv(f, dtype={"arm": str, "baseline": str, **dict.fromkeys(NUMS, float)}, parse_dates=["day"])',
        "polars": 'pl.read_csv(f, schema_overrides={"arm": pl.String, "baseline": pl.String, "day": pl.Date, **dict.fromkeys(NUMS, pl.Float64)})',
        "duckdb": 'duckdb.read_csv(f, dtype={"arm": "VARCHAR", "baseline": "VARCHAR", "day": "DATE", **dict.fromkeys(NUMS, "DOUBLE")})',
    },
    {
        "name": "compare.jsonl",
        "command": ["compare", "-s", "random", "-s", "popularity", "--baseline", "random",
                    "--users", "40", "--days", "3", "--start", "2026-12-01", "--resamples", "50",
                    "--format", "jsonl", "--out", "FILE"],
        "columns": {"kind": "str", "arm": "str", "baseline": "str", "metric": "str", "day": "date",
                    "value": "float", "lower": "float", "upper": "float", "p_value": "float",
                    "p_holm": "float", "p_bh": "float", "p_t": "float", "p_wilcoxon": "float"},
        "ids": ["arm", "baseline"],
        "pandas": 'pd.read_json(f, lines=True, dtype={"arm": str, "baseline": str, "day": "datetime64[s]", **dict.fromkeys(NUMS, float)})',
        "polars": 'pl.read_ndjson(f, schema_overrides={"baseline": pl.String, "day": pl.Date, **dict.fromkeys(NUMS, pl.Float64)})',
        "duckdb": 'duckdb.read_json(f, columns={"kind": "VARCHAR", "arm": "VARCHAR", "baseline": "VARCHAR", "metric": "VARCHAR", "day": "DATE", **dict.fromkeys(NUMS, "DOUBLE")})',
    },
    {
        "name": "per-diner.csv",
        "command": ["compare", "-s", "random", "-s", "popularity", "--baseline", "random",
                    "--users", "USERS", "--days", "3", "--start", "2026-12-01", "--resamples",
                    "50", "--format", "json", "--per-diner", "FILE"],
        "columns": {"strategy": "str", "diner": "str", "metric": "str", "value": "float",
                    "numerator": "float", "denominator": "float"},
        "ids": ["strategy", "diner"],
        "pandas": 'pd.read_csv(f, dtype={"strategy": str, "diner": str})',
        "polars": 'pl.read_csv(f, schema_overrides={"strategy": pl.String, "diner": pl.String, "value": pl.Float64, "numerator": pl.Float64, "denominator": pl.Float64})',
        "duckdb": 'duckdb.read_csv(f, dtype={"strategy": "VARCHAR", "diner": "VARCHAR", "value": "DOUBLE", "numerator": "DOUBLE", "denominator": "DOUBLE"})',
    },
    {
        "name": "strategies.jsonl",
        "command": ["strategies", "--format", "jsonl"],
        "columns": {"identifier": "str", "summary": "str", "options": "nested", "examples": "int"},
        "ids": ["identifier"],
        "pandas": "pd.read_json(f, lines=True)",
        "polars": "pl.read_ndjson(f)",
        "duckdb": "duckdb.read_json(f)",
    },
]
# The same outputs where a column is empty in every row, which loaders type from the data
# alone as text or null: the one-liners must still give each column its type.
OUTPUTS += [
    {
        "name": "stats-snapshot.csv",
        "setup": ["ingest", "--out", "SNAPSHOT", "Data/swipes.jsonl"],
        "command": ["stats", "--format", "csv", "SNAPSHOT"],
        "same_as": "stats.csv",
    },
    {
        "name": "stats-snapshot.jsonl",
        "setup": ["ingest", "--out", "SNAPSHOT", "Data/swipes.jsonl"],
        "command": ["stats", "--format", "jsonl", "SNAPSHOT"],
        "same_as": "stats.jsonl",
    },
    {
        "name": "compare-no-baseline.csv",
        "command": ["compare", "-s", "random", "-s", "popularity", "--users", "40", "--days", "3",
                    "--start", "2026-12-01", "--resamples", "50", "--format", "csv"],
        "same_as": "compare.csv",
    },
    {
        "name": "compare-no-baseline.jsonl",
        "command": ["compare", "-s", "random", "-s", "popularity", "--users", "40", "--days", "3",
                    "--start", "2026-12-01", "--resamples", "50", "--format", "jsonl"],
        "same_as": "compare.jsonl",
    },
    {
        "name": "compare-logs.csv",
        "command": ["compare", "-s", "popularity", "-s", "affinity", "--baseline", "popularity",
                    "--split", "2026-11-24", "Data/swipes.jsonl", "--resamples", "50",
                    "--format", "csv"],
        "same_as": "compare.csv",
    },
    {
        "name": "compare-logs.jsonl",
        "command": ["compare", "-s", "popularity", "-s", "affinity", "--baseline", "popularity",
                    "--split", "2026-11-24", "Data/swipes.jsonl", "--resamples", "50",
                    "--format", "jsonl"],
        "same_as": "compare.jsonl",
    },
    {
        "name": "events-drags.csv",
        "command": ["simulate", "--users", "USERS", "--days", "2", "--start", "2026-12-01",
                    "--drags", "--format", "json", "--events", "FILE"],
        "same_as": "events.csv",
    },
]
BY_NAME = {o["name"]: o for o in OUTPUTS}


def spec(output):
    """The output with what it shares with another (`same_as`) filled in."""
    if "same_as" not in output:
        return output
    merged = dict(BY_NAME[output["same_as"]])
    merged.update({k: v for k, v in output.items() if k != "same_as"})
    return merged


def log(msg=""):
    print(msg, flush=True)


def last_lines(text, n=3):
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return " | ".join(lines[-n:]) if lines else "(no output)"


# --- writing the outputs -------------------------------------------------------------------------

def write_outputs(menudeck, directory):
    users = os.path.join(directory, "users.json")
    with open(users, "w") as f:
        json.dump(TRICKY_USERS, f)
    snapshot = os.path.join(directory, "history.snap")
    for output in OUTPUTS:
        path = os.path.join(directory, output["name"])
        names = {"FILE": path, "USERS": users, "SNAPSHOT": snapshot}
        if "setup" in output and not os.path.exists(snapshot):
            r = subprocess.run([menudeck] + [names.get(a, a) for a in output["setup"]], cwd=REPO,
                               capture_output=True)
            if r.returncode != 0:
                raise SystemExit(f"FAIL: {output['setup']}: {last_lines(r.stderr.decode())}")
        argv = [menudeck] + [names.get(a, a) for a in output["command"]]
        to_stdout = "FILE" not in output["command"]
        r = subprocess.run(argv, cwd=REPO, capture_output=True)
        if r.returncode != 0:
            raise SystemExit(f"FAIL: {' '.join(argv)} exited {r.returncode}: "
                             f"{last_lines(r.stderr.decode())}")
        if to_stdout:
            with open(path, "wb") as f:
                f.write(r.stdout)


# --- the standard library ------------------------------------------------------------------------

def stdlib_type(value, kind):
    """Whether a record's value (a JSON value, or a CSV field as text) is of the logical kind."""
    if value is None or value == "":
        return True  # null: any column may be undefined
    text = value if isinstance(value, str) else None
    if kind == "str":
        return isinstance(value, str)
    if kind == "nested":
        return isinstance(value, (list, dict))
    if kind == "bool":
        return value is True or value is False or text in ("true", "false")
    if kind == "int":
        if text is not None:
            return text.lstrip("-").isdigit()
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        if text is not None:
            try:
                float(text)
            except ValueError:
                return False
            return True
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "date":
        try:
            datetime.date.fromisoformat(text or "")
        except ValueError:
            return False
        return len(text) == 10
    if kind == "datetime":
        try:
            datetime.datetime.fromisoformat(text or "")
        except ValueError:
            return False
        return True
    raise ValueError(kind)


def stdlib_records(path):
    with open(path, newline="", encoding="utf-8") as f:
        if path.endswith(".csv"):
            reader = csv.DictReader(f)
            return reader.fieldnames, list(reader)
        records = [json.loads(line) for line in f if line.strip()]
    return (list(records[0].keys()) if records else []), records


def check_stdlib(output, path):
    columns, records = stdlib_records(path)
    problems = []
    if not records:
        problems.append("no records")
    for name in output["columns"]:
        if path.endswith(".csv") and name not in columns:
            problems.append(f"no column {name}")
    for n, record in enumerate(records):
        for name, kind in output["columns"].items():
            if name in record and not stdlib_type(record[name], kind):
                problems.append(f"record {n + 1}: {name}={record[name]!r} is not {kind}")
                break
        if len(problems) > 3:
            break
    return records, problems


# --- the loaders ---------------------------------------------------------------------------------

def loader_kind(library, dtype):
    """A column type of pandas, polars or DuckDB as a logical kind."""
    text = str(dtype)
    low = text.lower()
    if library == "pandas":
        if low.startswith("datetime64") or low.startswith("<m8"):
            return "datetime"
        if low in ("bool", "boolean"):
            return "bool"
        if low.startswith("int"):
            return "int"
        if low.startswith("float"):
            return "float"
        if low in ("str", "string", "object") or "stringdtype" in low:
            return "str"
        return text
    if library == "polars":
        if low.startswith("datetime"):
            return "datetime"
        if low == "date":
            return "date"
        if low == "boolean":
            return "bool"
        if low.startswith("int") or low.startswith("uint"):
            return "int"
        if low.startswith("float"):
            return "float"
        if low in ("string", "utf8"):
            return "str"
        if low.startswith("list") or low.startswith("struct"):
            return "nested"
        return text
    # duckdb
    if low == "date":
        return "date"
    if low.startswith("timestamp"):
        return "datetime"
    if low == "boolean":
        return "bool"
    if low in ("bigint", "integer", "smallint", "tinyint", "hugeint", "ubigint"):
        return "int"
    if low in ("double", "float", "real") or low.startswith("decimal"):
        return "float"
    if low == "varchar":
        return "str"
    if low.endswith("[]") or low.startswith("struct") or low == "json":
        return "nested"
    return text


def accepts(library, wanted, got):
    if wanted == got:
        return True
    # pandas has no date type: a parsed date is a datetime64 column.
    if library == "pandas" and wanted == "date" and got == "datetime":
        return True
    # pandas keeps lists of objects in an object column.
    if library == "pandas" and wanted == "nested" and got == "str":
        return True
    return False


# The numeric columns of compare's tidy forms, which the one-liners name (docs: "NUMS = [...]").
NUMS = ["value", "lower", "upper", "p_value", "p_holm", "p_bh", "p_t", "p_wilcoxon"]


def load(library, line, path):
    scope = {"f": path, "NUMS": NUMS}
    if library == "pandas":
        import pandas as pd
        scope["pd"] = pd
        frame = eval(line, scope)
        return {c: loader_kind(library, t) for c, t in frame.dtypes.items()}, frame[list(frame.columns)].astype(object).where(frame.notna(), None).to_dict("records")
    if library == "polars":
        import polars as pl
        scope["pl"] = pl
        frame = eval(line, scope)
        return {c: loader_kind(library, t) for c, t in zip(frame.columns, frame.dtypes)}, frame.to_dicts()
    import duckdb
    scope["duckdb"] = duckdb
    relation = eval(line, scope)
    rows = relation.fetchall()
    return ({c: loader_kind(library, t) for c, t in zip(relation.columns, relation.dtypes)},
            [dict(zip(relation.columns, r)) for r in rows])


def check_loader(library, output, path, records):
    line = output[library]
    kinds, rows = load(library, line, path)
    problems = []
    for name, wanted in output["columns"].items():
        got = kinds.get(name)
        if got is None:
            problems.append(f"no column {name}")
        elif not accepts(library, wanted, got):
            problems.append(f"{name} is {got}, not {wanted}")
    if len(rows) != len(records):
        problems.append(f"{len(rows)} rows, the file has {len(records)} records")
    for name in output["ids"]:
        expected = [r.get(name) for r in records]
        got = [row.get(name) for row in rows]
        norm = [None if e in ("", None) else e for e in expected]
        if [None if g is None or g != g else g for g in got] != norm:
            bad = next((g, e) for g, e in zip(got, norm) if g != e)
            problems.append(f"the ids of {name} changed: {bad[1]!r} read as {bad[0]!r}")
    return problems


# --- the docs ------------------------------------------------------------------------------------

def check_docs():
    """Every one-liner appears verbatim in docs/output-formats.md, and README.md shows only them."""
    with open(os.path.join(REPO, "docs", "output-formats.md"), encoding="utf-8") as f:
        text = f.read()
    missing = []
    if 'NUMS = ["value", "lower", "upper", "p_value", "p_holm", "p_bh", "p_t", "p_wilcoxon"]' not in text:
        missing.append("NUMS: its definition")
    # The README shows some of the lines: each must be one of them, verbatim.
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    shown = readme.split("```python\n", 1)[1].split("```", 1)[0] if "```python\n" in readme else ""
    known = {o[lib] for o in OUTPUTS if "same_as" not in o for lib in ("pandas", "polars", "duckdb")}
    for line in shown.splitlines():
        if line and not line.startswith("#") and line not in known:
            missing.append(f"README.md's line {line!r} (not one of the checked one-liners)")
    for output in OUTPUTS:
        if "same_as" in output:
            continue
        for library in ("pandas", "polars", "duckdb"):
            if output[library] not in text:
                missing.append(f"{output['name']} {library}: {output[library]}")
    return missing


# --- main ----------------------------------------------------------------------------------------

def ensure_venv(venv):
    """The venv's Python, or None with the reason it could not be made."""
    py = os.path.join(venv, "bin", "python")
    probe = "import pandas, polars, duckdb, pyarrow"
    if os.path.exists(py) and subprocess.run([py, "-c", probe], capture_output=True).returncode == 0:
        return py, None
    if not os.path.exists(py):
        r = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
        if r.returncode != 0:
            return None, f"cannot create a venv at {venv}: {last_lines(r.stderr or r.stdout)}"
    log(f"pip install {' '.join(REQUIREMENTS)}  (into {venv})")
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--timeout", "30", "--retries", "2"] + REQUIREMENTS,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"pip could not install the loaders: {last_lines(r.stderr or r.stdout)}"
    return py, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--menudeck", help="the menudeck binary (default: swift build -c release)")
    parser.add_argument("--outputs", help="a directory of outputs written before (skips menudeck)")
    parser.add_argument("--venv", default=DEFAULT_VENV)
    parser.add_argument("--no-venv", action="store_true",
                        help="use this Python as it is: loaders only when importable")
    parser.add_argument("--strict", action="store_true", help="a skipped loader is a failure")
    args = parser.parse_args()

    if not args.no_venv and os.environ.get(CHILD_MARK) != "1":
        py, reason = ensure_venv(args.venv)
        if py:
            env = dict(os.environ, **{CHILD_MARK: "1"})
            sys.exit(subprocess.run([py, SCRIPT] + sys.argv[1:], env=env).returncode)
        log(f"SKIP: pandas, polars and DuckDB: {reason}")
        if args.strict:
            sys.exit(1)

    directory = args.outputs
    if directory is None:
        menudeck = args.menudeck
        if menudeck is None:
            r = subprocess.run(["swift", "build", "-c", "release", "--product", "menudeck"],
                               cwd=REPO, capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"FAIL: swift build: {last_lines(r.stderr or r.stdout)}")
            menudeck = os.path.join(REPO, ".build", "release", "menudeck")
        directory = tempfile.mkdtemp(prefix="menudeck-load-")
        write_outputs(os.path.abspath(menudeck), directory)
        log(f"outputs in {directory}")

    failures = []
    missing = check_docs()
    for m in missing:
        failures.append(f"docs: {m}")
    libraries = []
    for library in ("pandas", "polars", "duckdb"):
        try:
            __import__(library)
            libraries.append(library)
        except ImportError as e:
            log(f"SKIP: {library}: not importable here ({e})")
            if args.strict:
                failures.append(f"{library} is not installed (--strict)")
    for raw in OUTPUTS:
        output = spec(raw)
        path = os.path.join(directory, output["name"])
        if not os.path.exists(path):
            failures.append(f"{output['name']}: not in {directory}")
            continue
        records, problems = check_stdlib(output, path)
        log(f"{output['name']:18} python csv/json  {len(records)} records"
            + ("" if not problems else "  " + "; ".join(problems)))
        failures += [f"{output['name']} (csv/json): {p}" for p in problems]
        for library in libraries:
            try:
                problems = check_loader(library, output, path, records)
            except Exception as e:  # a loader that raises is the failure being looked for
                problems = [f"{type(e).__name__}: {e}"]
            log(f"{output['name']:18} {library:15} "
                + ("ok" if not problems else "; ".join(problems)))
            failures += [f"{output['name']} ({library}): {p}" for p in problems]
    if failures:
        for f in failures:
            log(f"FAIL: {f}")
        sys.exit(1)
    log(f"PASS: {len(OUTPUTS)} outputs load with the standard library"
        + (f" and {', '.join(libraries)}" if libraries else ""))


if __name__ == "__main__":
    main()
