#!/usr/bin/env python3
"""menudeck on Spark: ingest a swipe log per partition, merge, build decks per diner shard.

The recipe of issue 14 (section 2). The same code runs on one machine (`--master local[*]`, the
default) and on a cluster (`spark-submit --master yarn|k8s://...|spark://... ` in client mode):

  1. ingest   `sc.textFile(LOG, P)` splits the log by byte range into exactly P partitions (no
              shuffle: every line stays in the partition whose byte range it starts in). Each
              partition's lines go to `menudeck ingest - --out - --base64` on its standard input;
              the snapshot of that partition comes back on standard output as one line
              `MDSNAP64:<base64>`. Each partition is a log of its own (identified by the SHA-256
              of its lines), so no swipe is counted twice.
  2. merge    the P lines are collected to the driver and piped into `menudeck merge - --out
              DIR/merged.snap` there. The driver needs the merged snapshot anyway, to ship it to
              the deck tasks, so merging on an executor (`coalesce(1)`) would only add a round
              trip; snapshots are aggregates, far smaller than the log. (Merging is associative:
              with hundreds of partitions, a `treeReduce` of pairwise merges would do as well.)
  3. decks    DIR/merged.snap is shipped with `sc.addFile`; task K of N runs `menudeck deck
              --history <SparkFiles.get("merged.snap")> --shard K/N --format jsonl` and returns
              its JSON Lines (zlib-compressed on the way). DIR/decks.jsonl is the shards'
              outputs concatenated in shard order, 1 to N.
  4. --check  the driver runs the one-machine `menudeck deck --history LOG --format jsonl` and
              compares: the shard outputs, sorted stably by diner id (bytes), must equal it line
              for line (menudeck's documented `--shard` contract). Prints `PASS: ...` or
              `FAIL: ...` (exit 1).

Every stage prints its wall time. Any menudeck run that fails stops the recipe with a non-zero
exit and menudeck's own stderr.

No shared file system is assumed between the driver and the executors:
  - the log is read by the executors through Hadoop's file systems: on a cluster, give an
    hdfs://, s3a://, gs://... URL (a plain local path works with `local[*]`, or on a cluster only
    if the file is at that path on every node); `--check` also needs it as a local file on the
    driver;
  - snapshots travel through pipes and task results, never through files shared by tasks;
  - the menudeck binary, the config and the files the config names (catalog, users, plugins),
    with their relative paths kept, are packed by the driver into one archive,
    menudeck-bundle.tar.gz, shipped with `sc.addArchive` and unpacked on every executor
    (`SparkFiles.get("menudeck-bundle.tar.gz")` is the unpacked directory):
        menudeck                       the binary (the one given with --menudeck)
        tree/Config/menudeck.json      the config, at its path relative to the files' common
        tree/Data/catalog.json         ancestor: "../Data/catalog.json" still resolves
        tree/Data/users.json
    The same layout can be shipped by hand, `spark-submit --archives bundle.tar.gz` or
    `sc.addArchive`; single files can go with `--files`/`sc.addFile`, but those land flat in one
    directory (SparkFiles.get(name)), which breaks a config that names ../Data/catalog.json.
    The binary must run on the executors: a Linux build for their architecture, linked
    statically (`swift build -c release --swift-sdk x86_64-swift-linux-musl`, the Static Linux
    SDK) or at least with `--static-swift-stdlib` on the same glibc. Absolute paths in the config
    are not shipped: such files must exist at that path on every executor.

CSV caveat: textFile splits at newlines, so a CSV log whose quoted fields hold line breaks would
be cut inside a record. Use JSON Lines for such logs (JSON escapes line breaks), or ingest the
CSV on one machine (`menudeck ingest --jobs N`, which finds record boundaries itself). The CSV
header (the first line of the file) is dropped from partition 0 and given to every partition
with `--csv-header`. A compressed log (.gz) is not splittable and gives one partition: the
recipe refuses it unless --partitions is 1.

Swipes dated on or after --date are not added up in the snapshots (`ingest --before DATE`):
they wait in them, pending, and the deck of that date leaves them out as the one-machine deck
does (a deck never learns from its own day). Ingest and deck run with `--jobs` equal to
spark.task.cpus (1 by default): Spark already runs one task per core.

Usage:
  Scripts/spark-recipe.py --install            # venv with pyspark at $SPARK_VENV, then runs
  Scripts/spark-recipe.py --menudeck .build/release/menudeck --config Config/menudeck.json \\
      --log Data/swipes.jsonl --date 2026-11-30 --partitions 4 --shards 4 --out /tmp/out --check
  spark-submit --master yarn Scripts/spark-recipe.py --log hdfs:///logs/2026-11.jsonl ...

Without pyspark or java it prints `skipped: <reason>` and exits 0 (with --install it creates a
venv, default /tmp/menudeck-spark-venv or $SPARK_VENV, runs `pip install pyspark` there and runs
itself again under it; a venv that already has pyspark is used without --install). Needs Python 3
and pyspark only.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zlib

VENV = os.environ.get("SPARK_VENV", "/tmp/menudeck-spark-venv")
REEXEC = "MENUDECK_SPARK_REEXEC"
BUNDLE = "menudeck-bundle.tar.gz"
SNAPSHOT = "merged.snap"
SNAP_PREFIX = "MDSNAP64:"


# -- Running menudeck (on the driver and in tasks) ------------------------------------------------


class ToolFailed(Exception):
    """A menudeck run that exited non-zero; the message carries the command and its stderr."""


def run_tool(cmd, what, lines=None):
    """Runs `cmd`, feeding `lines` (an iterator of str without line ends, or None for no input)
    to its stdin from a thread while stdout is read here; returns (stdout bytes, stderr text,
    number of lines fed). Raises ToolFailed with menudeck's stderr when it exits non-zero.

    pyspark's own RDD.pipe is not used: it sends the child's stderr to the executor's log (the
    driver would only see "exit 65"), and without checkCode it ignores a failing exit."""
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if lines is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    fed = [0]
    errors = []
    err_chunks = []

    def feed():
        try:
            batch = []
            for line in lines:
                batch.append(line)
                if len(batch) == 4096:
                    proc.stdin.write(("\n".join(batch) + "\n").encode("utf-8"))
                    fed[0] += len(batch)
                    batch = []
            if batch:
                proc.stdin.write(("\n".join(batch) + "\n").encode("utf-8"))
                fed[0] += len(batch)
        except BrokenPipeError:
            pass  # menudeck stopped reading: its exit status and stderr say why
        except Exception as e:  # reading the partition failed: report it, not a hang
            errors.append(e)
        finally:
            try:
                proc.stdin.close()
            except OSError:
                pass

    threads = [threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()))]
    if lines is not None:
        threads.append(threading.Thread(target=feed))
    for t in threads:
        t.start()
    out = proc.stdout.read()
    for t in threads:
        t.join()
    code = proc.wait()
    err = b"".join(err_chunks).decode("utf-8", "replace")
    if errors:
        raise errors[0]
    if code != 0:
        raise ToolFailed(f"{what} failed (exit {code}): {' '.join(cmd)}\n{err.rstrip()}")
    return out, err, fed[0]


def executable(path):
    """`path`, made executable (an unpacked archive or a fetched file may have lost the mode);
    a copy in a temporary directory when the file cannot be changed."""
    if os.access(path, os.X_OK):
        return path
    try:
        os.chmod(path, 0o755)
        return path
    except OSError:
        copy = os.path.join(tempfile.mkdtemp(prefix="menudeck-bin-"), "menudeck")
        shutil.copyfile(path, copy)
        os.chmod(copy, 0o755)
        return copy


def shipped(config_rel):
    """In a task: the shipped binary and config, from the unpacked bundle."""
    from pyspark import SparkFiles

    root = SparkFiles.get(BUNDLE)
    return executable(os.path.join(root, "menudeck")), os.path.join(root, "tree", config_rel)


# -- The bundle ---------------------------------------------------------------------------------


def config_files(config):
    """The files a config names (catalog, users, plugin executables), as absolute paths, and the
    absolute paths it gives, which cannot be shipped. The config's `history` is not needed:
    the recipe gives every run its history."""
    with open(config, encoding="utf-8") as f:
        doc = json.load(f)
    named = [doc.get("catalog"), doc.get("users")]
    for spec in (doc.get("strategies") or {}).values():
        if isinstance(spec, dict):
            named.append(spec.get("plugin"))
    base = os.path.dirname(os.path.abspath(config))
    files, absolute = [], []
    for name in named:
        if not isinstance(name, str) or not name:
            continue
        if os.path.isabs(name):
            absolute.append(name)
            continue
        path = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(path):
            files.append(path)
    return files, absolute


def make_bundle(binary, config, workdir):
    """Packs the binary, the config and the files it names into workdir/BUNDLE, keeping their
    paths relative to their common ancestor; returns (bundle path, the config's path in the
    bundle's tree, number of files, bytes)."""
    config = os.path.abspath(config)
    files, absolute = config_files(config)
    for path in absolute:
        print(f"spark-recipe: warning: the config names {path}, an absolute path: not shipped, "
              "it must exist on every executor", file=sys.stderr)
    everything = [config] + files
    root = os.path.commonpath([os.path.dirname(p) for p in everything])
    bundle = os.path.join(workdir, BUNDLE)
    with tarfile.open(bundle, "w:gz", compresslevel=1) as tar:
        tar.add(os.path.realpath(binary), arcname="menudeck")
        for path in everything:
            tar.add(path, arcname="tree/" + os.path.relpath(path, root))
    return bundle, os.path.relpath(config, root), len(everything) + 1, os.path.getsize(bundle)


# -- Deck lines ---------------------------------------------------------------------------------

_decoder = json.JSONDecoder()


def diner_of(line):
    """The diner id of a deck line, as bytes (menudeck orders diners by id bytes)."""
    if line.startswith('{"user":'):
        user, _ = _decoder.raw_decode(line, 8)
    else:
        user = json.loads(line).get("user")
    if not isinstance(user, str):
        raise ValueError(f"not a deck line: {line[:80]}")
    return user.encode("utf-8")


def deck_lines(data):
    """JSON Lines bytes as a list of lines (str, no line ends). `deck --format jsonl` writes
    deck lines only: one per diner, no run header (the run's inputs and warnings are fields of
    each line), so the lines are the decks; an empty shard is an empty output."""
    text = data.decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# -- The recipe ---------------------------------------------------------------------------------


def fail(message, code=2):
    print(f"spark-recipe: error: {message}", file=sys.stderr)
    sys.exit(code)


def spark_error(e):
    """The useful part of an exception raised by a Spark action: the ToolFailed message from the
    task's Python traceback when there is one."""
    text = str(e)
    mark = text.find("ToolFailed: ")
    if mark >= 0:
        text = text[mark + len("ToolFailed: "):]
        for stop in ("\n\tat ", "\n SQLSTATE"):
            end = text.find(stop)
            text = text[:end] if end >= 0 else text
    return text.rstrip()


def hadoop_size(sc, url):
    """The length of `url` in bytes, through Hadoop's file systems (local, hdfs, s3a...)."""
    jvm = sc._jvm
    path = jvm.org.apache.hadoop.fs.Path(url)
    fs = path.getFileSystem(sc._jsc.hadoopConfiguration())
    status = fs.getFileStatus(path)
    if status.isDirectory():
        fail(f"{url} is a directory: give one log file")
    return status.getLen()


def local_path(url):
    if url.startswith("file://"):
        return url[len("file://"):]
    return None if "://" in url else url


def run(args):
    from pyspark import SparkConf, SparkContext, SparkFiles

    binary = os.path.abspath(args.menudeck)
    if not os.path.isfile(binary):
        fail(f"no menudeck binary at {binary} (swift build -c release)")
    if not os.path.isfile(args.config):
        fail(f"no config at {args.config}")
    log_local = local_path(args.log)
    if log_local is not None and not os.path.isfile(log_local):
        fail(f"no log at {args.log}")
    if args.check and log_local is None:
        fail("--check runs the one-machine deck on the driver: give the log as a local path")
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="menudeck-spark-")
    timings = []
    t_all = time.monotonic()

    # 0. Spark, and the bundle every executor unpacks.
    t0 = time.monotonic()
    conf = SparkConf().setAppName("menudeck-recipe")
    if args.master or not conf.contains("spark.master"):
        conf.setMaster(args.master or "local[*]")
    conf.setIfMissing("spark.ui.showConsoleProgress", "false")
    if conf.get("spark.master").startswith("local"):
        # The Python workers of local mode: this interpreter (it has pyspark).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        conf.setIfMissing("spark.ui.enabled", "false")
    sc = SparkContext(conf=conf)
    sc.setLogLevel("WARN")
    try:
        jobs = conf.get("spark.task.cpus", "1")
        bundle, config_rel, nfiles, nbytes = make_bundle(binary, args.config, work)
        sc.addArchive(bundle)
        timings.append(("spark start + bundle", time.monotonic() - t0))
        print(f"spark {sc.version}, master {sc.master}, default parallelism "
              f"{sc.defaultParallelism}; bundle {nfiles} files, {nbytes / 1e6:.1f} MB "
              f"(config tree/{config_rel})")

        # 1. Ingest, one partition per snapshot.
        t0 = time.monotonic()
        size = hadoop_size(sc, args.log)
        # textFile splits by byte range: max(minsize, min(size / P, block size)) per split.
        # A minimum split of ceil(size / P) makes it exactly P splits whatever the block size.
        sc._jsc.hadoopConfiguration().set("mapreduce.input.fileinputformat.split.minsize",
                                          str(max(1, math.ceil(size / args.partitions))))
        lines = sc.textFile(args.log, minPartitions=args.partitions)
        got = lines.getNumPartitions()
        if got != args.partitions:
            fail(f"{args.log} gave {got} partitions for --partitions {args.partitions} (a "
                 "compressed log cannot be split: decompress it, or use --partitions 1)")
        first = lines.first() if size > 0 else ""
        header = None
        if first and not first.lstrip("\ufeff").startswith("{"):
            header = first.lstrip("\ufeff")  # a CSV log: its header goes to every partition
        date, config_path = args.date, args.config

        def ingest(index, part):
            menudeck, config = shipped(config_rel)
            if header is not None and index == 0:
                next(part, None)  # the file's first line, the header, is partition 0's first
            cmd = [menudeck, "ingest", "--config", config, "--before", date, "--jobs", jobs,
                   "--out", "-", "--base64"]
            if header is not None:
                cmd += ["--csv-header", header]
            cmd.append("-")
            out, err, fed = run_tool(cmd, f"ingest of partition {index + 1}", part)
            text = out.decode("ascii", "replace").strip()
            if not text.startswith(SNAP_PREFIX) or "\n" in text:
                raise ToolFailed(f"ingest of partition {index + 1} wrote no {SNAP_PREFIX} line: "
                                 f"{text[:80]!r}")
            # Warnings (swipes on or after --date left out, unknown dishes...) go to the driver;
            # line numbers in them count from the partition's first line.
            warnings = [w for w in err.splitlines() if ": warning: " in w][:5]
            yield index, fed, text, warnings

        try:
            parts = sorted(lines.mapPartitionsWithIndex(ingest).collect())
        except Exception as e:
            fail(spark_error(e))
        if [p[0] for p in parts] != list(range(args.partitions)):
            fail(f"expected {args.partitions} snapshots, got {len(parts)}")
        fed = [p[1] for p in parts]
        snap_chars = sum(len(p[2]) for p in parts)
        timings.append(("ingest", time.monotonic() - t0))
        print(f"ingest: {size / 1e6:.1f} MB log, {args.partitions} partitions of "
              f"{'/'.join(str(n) for n in fed)} lines "
              f"({'CSV, header ' + repr(header) if header else 'JSON Lines'}); "
              f"{snap_chars / 1e6:.1f} MB of base64 snapshots")
        for index, _, _, warnings in parts:
            for w in warnings:
                print(f"  partition {index + 1}: {w}")

        # 2. Merge on the driver.
        t0 = time.monotonic()
        merged = os.path.join(os.path.abspath(args.out), SNAPSHOT)
        try:
            _, err, _ = run_tool([binary, "merge", "-", "--out", merged], "merge",
                                 iter([p[2] for p in parts]))
        except ToolFailed as e:
            fail(str(e))
        del parts
        timings.append(("merge", time.monotonic() - t0))
        note = err.strip().splitlines()[-1] if err.strip() else ""
        print(f"merge: {merged}, {os.path.getsize(merged) / 1e6:.1f} MB; {note}")

        # 3. Decks, one task per shard.
        t0 = time.monotonic()
        sc.addFile(merged)
        shards = args.shards

        def deck(ks):
            menudeck, config = shipped(config_rel)
            for k in ks:
                cmd = [menudeck, "deck", "--config", config, "--history", SparkFiles.get(SNAPSHOT),
                       "--date", date, "--format", "jsonl", "--shard", f"{k}/{shards}",
                       "--jobs", jobs]
                out, err, _ = run_tool(cmd, f"deck of shard {k}/{shards}")
                note = err.strip().splitlines()[-1] if err.strip() else ""
                yield k, zlib.compress(out, 1), note

        try:
            results = sorted(sc.parallelize(range(1, shards + 1), shards).mapPartitions(deck)
                             .collect())
        except Exception as e:
            fail(spark_error(e))
        if [r[0] for r in results] != list(range(1, shards + 1)):
            fail(f"expected {shards} shard outputs, got {len(results)}")
        shard_lines = []
        decks_path = os.path.join(args.out, "decks.jsonl")
        with open(decks_path, "wb") as f:
            for k, blob, note in results:
                data = zlib.decompress(blob)
                f.write(data)
                shard_lines.append(deck_lines(data))
                print(f"  shard {k}/{shards}: {len(shard_lines[-1])} decks; {note}")
        del results
        total = sum(len(s) for s in shard_lines)
        timings.append(("decks", time.monotonic() - t0))
        print(f"decks: {decks_path}, {total} decks from {shards} shards, "
              f"{os.path.getsize(decks_path) / 1e6:.1f} MB")
        timings.append(("recipe total", time.monotonic() - t_all))
    finally:
        sc.stop()
        shutil.rmtree(work, ignore_errors=True)

    # 4. The one-machine run, and the comparison.
    status = 0
    if args.check:
        t0 = time.monotonic()
        try:
            out, _, _ = run_tool([binary, "deck", "--config", config_path, "--history", log_local,
                                  "--date", date, "--format", "jsonl"], "one-machine deck")
        except ToolFailed as e:
            fail(str(e))
        timings.append(("one-machine deck", time.monotonic() - t0))
        one = deck_lines(out)
        del out
        # A stable sort by diner id bytes: lines of one diner (there is one) keep shard order.
        mine = sorted((line for s in shard_lines for line in s), key=diner_of)
        if mine == one:
            print(f"PASS: {total} decks from {shards} shards ({args.partitions} ingest "
                  f"partitions), sorted stably by diner, equal the one-machine run "
                  f"({len(one)} decks)")
        else:
            status = 1
            at = next((i for i, (a, b) in enumerate(zip(mine, one)) if a != b),
                      min(len(mine), len(one)))
            where = (one[at] if at < len(one) else mine[at])[:60]
            print(f"FAIL: {total} decks from {shards} shards vs {len(one)} from the one-machine "
                  f"run; first difference at sorted line {at + 1}: {where}...")
    print("timings (wall seconds): " + ", ".join(f"{k} {v:.1f}" for k, v in timings))
    return status


# -- Entry: pyspark, java, --install ------------------------------------------------------------


def venv_python():
    return os.path.join(VENV, "bin", "python")


def has_pyspark(python):
    probe = [python, "-c", "import pyspark"]
    return os.path.exists(python) and subprocess.run(probe, capture_output=True).returncode == 0


def reexec(python, argv):
    os.environ[REEXEC] = "1"
    os.execv(python, [python, os.path.abspath(__file__)] + argv)


def install(argv):
    py = venv_python()
    if not has_pyspark(py):
        print(f"spark-recipe: installing pyspark into {VENV}", file=sys.stderr)
        try:
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
            subprocess.run([py, "-m", "pip", "install", "-q", "pyspark"], check=True)
        except (subprocess.CalledProcessError, OSError) as e:
            print(f"skipped: cannot install pyspark into {VENV} ({e})")
            sys.exit(0)
    reexec(py, argv)


def java_found():
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return True
    return shutil.which("java") is not None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the top of this file for what ships to executors.")
    ap.add_argument("--menudeck", default="menudeck", help="the menudeck binary (on the driver)")
    ap.add_argument("--config", default="Config/menudeck.json")
    ap.add_argument("--log", help="the swipe log, .csv or .jsonl (a Hadoop URL on a cluster)")
    ap.add_argument("--date", help="deck date, YYYY-MM-DD")
    ap.add_argument("--partitions", type=int, default=4, help="ingest partitions (default 4)")
    ap.add_argument("--shards", type=int, default=4, help="deck shards (default 4)")
    ap.add_argument("--out", help="directory for merged.snap and decks.jsonl")
    ap.add_argument("--check", action="store_true", help="compare with the one-machine run")
    ap.add_argument("--master", help="Spark master (default: spark-submit's, else local[*])")
    ap.add_argument("--install", action="store_true",
                    help=f"install pyspark into a venv ({VENV}, or $SPARK_VENV) and run there")
    argv = sys.argv[1:]
    args = ap.parse_args(argv)
    missing = [f"--{k}" for k in ("log", "date", "out") if not getattr(args, k)]
    if missing:
        ap.error("missing " + ", ".join(missing))
    if not (1 <= args.partitions <= 100_000 and 1 <= args.shards <= 100_000):
        ap.error("--partitions and --shards: 1 to 100000")
    if args.menudeck == "menudeck":
        args.menudeck = shutil.which("menudeck") or args.menudeck

    if args.install:
        install([a for a in argv if a != "--install"])
    try:
        import pyspark  # noqa: F401
    except ImportError:
        if not os.environ.get(REEXEC) and has_pyspark(venv_python()):
            reexec(venv_python(), argv)
        print(f"skipped: pyspark is not installed for {sys.executable} (run with --install, or "
              "pip install pyspark)")
        sys.exit(0)
    if not java_found():
        print("skipped: java is not on PATH and JAVA_HOME is not set (Spark needs Java 17+)")
        sys.exit(0)
    sys.exit(run(args))


if __name__ == "__main__":
    main()
