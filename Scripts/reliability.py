#!/usr/bin/env python3
"""Operates menudeck the way cron and hostile inputs do, and counts what went wrong.

    Scripts/reliability.py [--rounds N] [--binary PATH] [--seed S]

Builds the release binary (unless --binary is given) and runs, in a scratch directory:
  concurrent   2 and 8 overlapping `ingest --into` runs of different logs into one snapshot,
               with --wait (every run must finish and every swipe count once) and without it
               (each run ends 0 or 75; the snapshot holds exactly the logs of the runs that said 0)
  kills        an ingest killed at a random moment by SIGKILL, SIGTERM, SIGINT or SIGHUP, then run
               again: the snapshot is the old one or the new one, never a mix, never unreadable;
               the swipes are counted exactly once in the end; no temporary file survives the
               next run
  signals      SIGINT/SIGTERM/SIGHUP during `simulate --events --out`: the right status, one line
               on stderr, no temporary or lock file, no output replaced
  full disk    `deck --out` onto tmpfs disks of 4 KiB to 256 KiB (needs root to mount; skipped
               with a note otherwise): exit 0 or 74, the old file whole or the new one whole,
               no temporary file
  inputs       every output option of every command pointed at every input of the run: refused
               with exit 64, the input's bytes unchanged
  traps        hostile inputs (the fuzz corpora in Fuzz/corpus when present, and crafted cases:
               flipped snapshot bytes, huge counts and options, CR-only line ends, FIFOs): no run
               may end by a signal or with exit 70
  pipe         `menudeck deck | head -c 100`: exit 141, nothing on stderr
Prints one table of figures at the end; exits 1 when any count that must be 0 is not.
"""

import argparse
import hashlib
import json
import os
import random
import signal
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ITEMS = None


def run(binary, args, cwd=REPO, timeout=600, stdin=None, stdout=subprocess.PIPE):
    p = subprocess.run([binary] + args, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE,
                       stdin=stdin if stdin is not None else subprocess.DEVNULL, timeout=timeout)
    return p.returncode, (p.stdout or b"").decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def items():
    global ITEMS
    if ITEMS is None:
        with open(os.path.join(REPO, "Data/catalog.json")) as f:
            doc = json.load(f)
        ITEMS = [d["id"] for d in (doc["items"] if isinstance(doc, dict) else doc)]
    return ITEMS


def write_log(path, tag, lines, rng):
    ids = items()
    with open(path, "w") as f:
        for i in range(lines):
            f.write('{"user":"%s-%d","item":"%s","swipe":"%s","at":"2026-11-%02dT%02d:%02d:00Z"}\n' % (
                tag, rng.randrange(500), ids[rng.randrange(len(ids))],
                "right" if rng.random() < 0.3 else "left", 1 + rng.randrange(28),
                rng.randrange(24), rng.randrange(60)))
    return lines


def snapshot_events(binary, snap):
    """Swipes and logs in a snapshot, read back through `merge --out -` then `ingest`'s summary."""
    code, out, err = run(binary, ["merge", snap, "--out", os.devnull])
    if code != 0:
        return None, None, err
    # "menudeck: note: merged 1 snapshot into /dev/null: 3 logs, 12 swipes, 5 diners"
    tail = err.strip().splitlines()[-1].rsplit(": ", 1)[-1]
    parts = [p.strip() for p in tail.split(",")]
    logs = int(parts[0].split()[0])
    swipes = int(parts[1].split()[0])
    return logs, swipes, err


def temporaries(d):
    return [n for n in os.listdir(d) if n.startswith(".") and (n.endswith(".tmp") or n.endswith(".lock"))]


def concurrent(binary, work, rounds, rng, figures):
    lost = 0
    total = 0
    runs_done = 0
    busy = 0
    bad_exit = 0
    for r in range(rounds):
        for n in (2, 8):
            for wait in (True, False):
                d = tempfile.mkdtemp(dir=work)
                logs = []
                counts = {}
                for i in range(n):
                    p = os.path.join(d, "log%d.jsonl" % i)
                    counts[p] = write_log(p, "r%dn%di%d" % (r, n, i), 20000, rng)
                    logs.append(p)
                snap = os.path.join(d, "h.snap")
                args = lambda p: ["ingest", p, "--into", snap] + (["--wait", "600"] if wait else [])
                procs = [subprocess.Popen([binary] + args(p), cwd=REPO, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE) for p in logs]
                codes = [p.wait() for p in procs]
                for p in procs:
                    p.stderr.close()
                ok = [p for p, c in zip(logs, codes) if c == 0]
                busy += sum(1 for c in codes if c == 75)
                bad_exit += sum(1 for c in codes if c not in (0, 75) or (wait and c != 0))
                expected = sum(counts[p] for p in ok)
                nlogs, swipes, _ = snapshot_events(binary, snap)
                total += expected
                runs_done += len(ok)
                lost += abs((swipes or 0) - expected) + (0 if nlogs == len(ok) else 1)
                shutil.rmtree(d)
    figures.append(("concurrent ingests (2 and 8 at once, with and without --wait)",
                    "%d rounds, %d runs finished, %d told 75, %s swipes counted" % (
                        rounds * 4, runs_done, busy, f"{total:,}"),
                    lost + bad_exit, "lost or double-counted swipes, unexpected exits"))


def kills(binary, work, rounds, rng, figures):
    d = tempfile.mkdtemp(dir=work)
    snap = os.path.join(d, "h.snap")
    base = os.path.join(d, "base.jsonl")
    expected = write_log(base, "base", 50000, rng)
    assert run(binary, ["ingest", base, "--into", snap])[0] == 0
    big = os.path.join(d, "big.jsonl")
    lines = write_log(big, "big", 400000, rng)
    t0 = time.time()
    code, _, _ = run(binary, ["ingest", big, "--into", os.path.join(d, "probe.snap")])
    duration = time.time() - t0
    os.unlink(os.path.join(d, "probe.snap"))
    bad = 0
    left_after_next = 0
    statuses = {}
    sigs = [signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP]
    for r in range(rounds):
        # Each round ingests a log of its own (a new line makes it new), killed at a random moment.
        log = os.path.join(d, "day%d.jsonl" % r)
        shutil.copyfile(big, log)
        with open(log, "a") as f:
            f.write('{"user":"round-%d","item":"%s","swipe":"right","at":"2026-11-20T12:00:00Z"}\n' % (r, items()[0]))
        sig = sigs[r % len(sigs)]
        p = subprocess.Popen([binary, "ingest", log, "--into", snap], cwd=REPO,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rng.random() * duration * 1.2)
        p.send_signal(sig)
        p.wait()
        err = p.stderr.read().decode()
        p.stderr.close()
        statuses[p.returncode] = statuses.get(p.returncode, 0) + 1
        problems = []
        if p.returncode not in (0, -sig):
            problems.append("exit %d" % p.returncode)
        # A signal that comes before main has installed the handler ends the process with the
        # default action and no message: it had made nothing to clean up yet.
        if (sig != signal.SIGKILL and p.returncode == -sig and "stopped by" not in err
                and any(n.endswith(".tmp") for n in os.listdir(d))):
            problems.append("no message, and a temporary was left")
        nlogs, swipes, _ = snapshot_events(binary, snap)
        if swipes not in (expected, expected + lines + 1):
            problems.append("snapshot holds %s swipes, expected %d or %d" % (swipes, expected, expected + lines + 1))
        code, _, err2 = run(binary, ["ingest", log, "--into", snap])
        if code != 0:
            problems.append("rerun exit %d: %s" % (code, err2.strip()[-200:]))
        expected += lines + 1
        nlogs, swipes, _ = snapshot_events(binary, snap)
        if swipes != expected:
            problems.append("after the rerun %s swipes, expected %d" % (swipes, expected))
        debris = temporaries(d)
        if debris:
            problems.append("debris after the rerun: %s" % debris)
        left_after_next += len(debris)
        if problems:
            bad += 1
            print("kill round %d (%s): %s; stderr: %s" % (r, sig.name, "; ".join(problems), err.strip()[-200:]),
                  file=sys.stderr)
    shutil.rmtree(d)
    left_after_next = 0  # counted in `bad` with the round's other problems
    figures.append(("ingest killed at a random moment (SIGKILL/TERM/INT/HUP), then rerun",
                    "%d kills of a %.1f s ingest (%s lines); exits %s" % (
                        rounds, duration, f"{lines:,}",
                        ", ".join("%s: %d" % (("signal %d" % -k) if k < 0 else k, v) for k, v in sorted(statuses.items()))),
                    bad + left_after_next, "mixed or unreadable snapshots, lost or doubled swipes, debris after the next run"))


def signals(binary, work, rounds, figures):
    bad = 0
    n = 0
    for r in range(rounds):
        for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM"), (signal.SIGHUP, "SIGHUP")):
            d = tempfile.mkdtemp(dir=work)
            with open(os.path.join(d, "events.jsonl"), "w") as f:
                f.write("old")
            p = subprocess.Popen([binary, "simulate", "--users", "20000", "--days", "200", "--events",
                                  os.path.join(d, "events.jsonl"), "--out", os.path.join(d, "stats.txt")],
                                 cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.time() + 60
            while time.time() < deadline and not any(x.endswith(".tmp") for x in os.listdir(d)):
                time.sleep(0.005)
            time.sleep(0.05 + 0.2 * (r % 5) / 5)
            p.send_signal(sig)
            p.wait()
            err = p.stderr.read().decode()
            p.stderr.close()
            n += 1
            ok = (p.returncode == -sig and err.endswith("menudeck: error: stopped by %s; removed 1 temporary file\n" % name)
                  and sorted(os.listdir(d)) == ["events.jsonl"]
                  and open(os.path.join(d, "events.jsonl")).read() == "old")
            bad += 0 if ok else 1
            shutil.rmtree(d)
    figures.append(("SIGINT, SIGTERM, SIGHUP during simulate --events --out", "%d runs" % n, bad,
                    "wrong status or message, debris, a replaced output"))


def full_disk(binary, work, figures):
    mount = shutil.which("mount")
    probe = tempfile.mkdtemp(dir=work)
    if not mount or subprocess.run([mount, "-t", "tmpfs", "-o", "size=16k", "tmpfs", probe],
                                   stderr=subprocess.DEVNULL).returncode != 0:
        figures.append(("full disk", "skipped: cannot mount a tmpfs here (needs root)", 0, ""))
        return
    subprocess.run(["umount", probe])
    bad = 0
    n = 0
    outcomes = {}
    code, full, _ = run(binary, ["deck", "--date", "2026-11-30"])
    for kib in (4, 8, 16, 32, 48, 64, 96, 128, 192, 256):
        d = tempfile.mkdtemp(dir=work)
        subprocess.run([mount, "-t", "tmpfs", "-o", "size=%dk" % kib, "tmpfs", d], check=True)
        try:
            out = os.path.join(d, "decks.json")
            with open(out, "w") as f:
                f.write("yesterday")
            code, _, err = run(binary, ["deck", "--date", "2026-11-30", "--out", out])
            n += 1
            outcomes[code] = outcomes.get(code, 0) + 1
            content = open(out).read()
            names = sorted(os.listdir(d))
            ok = names == ["decks.json"] and ((code == 0 and content == full) or
                                              (code == 74 and content == "yesterday" and "no space left" in err))
            bad += 0 if ok else 1
        finally:
            subprocess.run(["umount", d])
    figures.append(("deck --out onto a full disk (tmpfs 4 KiB to 256 KiB)",
                    "%d runs; exits %s" % (n, ", ".join("%d: %d" % kv for kv in sorted(outcomes.items()))),
                    bad, "partial or lost files, temporaries left"))


def inputs(binary, work, figures):
    d = tempfile.mkdtemp(dir=work)
    cat = os.path.join(d, "catalog.json")
    shutil.copyfile(os.path.join(REPO, "Data/catalog.json"), cat)
    users = os.path.join(d, "users.json")
    shutil.copyfile(os.path.join(REPO, "Data/users.json"), users)
    log = os.path.join(d, "swipes.jsonl")
    shutil.copyfile(os.path.join(REPO, "Data/swipes.jsonl"), log)
    cfg = os.path.join(d, "config.json")
    with open(cfg, "w") as f:
        json.dump({"catalog": "catalog.json", "users": "users.json", "history": ["swipes.jsonl"]}, f)
    snap = os.path.join(d, "h.snap")
    assert run(binary, ["ingest", log, "--into", snap, "--config", cfg])[0] == 0
    os.symlink(log, os.path.join(d, "link.jsonl"))
    os.link(log, os.path.join(d, "hard.jsonl"))
    files = [cfg, cat, users, log, snap, os.path.join(d, "link.jsonl"), os.path.join(d, "hard.jsonl"),
             os.path.join(d, "sub", "..", "swipes.jsonl")]
    os.mkdir(os.path.join(d, "sub"))

    originals = {p: open(p, "rb").read() for p in (cfg, cat, users, log, snap)}

    def digest(paths):
        return {p: hashlib.sha256(open(p, "rb").read()).hexdigest() for p in paths}

    def restore():
        for p, b in originals.items():
            if open(p, "rb").read() != b:
                open(p, "wb").write(b)

    base = [cfg, cat, users, log]
    cases = []  # (command line, the inputs of that run)
    for target in files:
        cases += [
            (["deck", "--config", cfg, "--date", "2026-11-30", "--out", target], base),
            (["deck", "--config", cfg, "--date", "2026-11-30", "--skip-bad-lines", "--rejects", target,
              "--out", os.path.join(d, "o.json")], base),
            (["deck", "--config", cfg, "--date", "2026-11-30", "--history", snap, "--out", target],
             base + [snap]),
            (["ingest", log, "--into", os.path.join(d, "new.snap"), "--config", cfg, "--skip-bad-lines",
              "--rejects", target], base),
            (["merge", snap, "--out", target], [snap]),
            (["simulate", "--config", cfg, "--users", users, "--days", "1", "--events", target,
              "--out", os.path.join(d, "o.txt")], base),
            (["simulate", "--config", cfg, "--users", users, "--days", "1", "--out", target], base),
            (["compare", "--config", cfg, "-s", "random", "-s", "popularity", "--split", "2026-11-25", log,
              "--out", target], base),
            (["compare", "--config", cfg, "-s", "random", "-s", "popularity", "--split", "2026-11-25", log,
              "--report", target, "--out", os.path.join(d, "o.txt")], base),
        ]
    refused = 0
    allowed = 0
    destroyed = 0
    wrongly_refused = 0
    real = {p: os.stat(p).st_ino for p in (cfg, cat, users, log, snap)}
    for args, run_inputs in cases:
        restore()
        before = digest(run_inputs)
        code, _, err = run(binary, args)
        # The option under test is the one given the target (the last path of the line).
        target_path = [a for a in args if a in files][-1]
        is_input = any(os.path.exists(target_path) and os.stat(target_path).st_ino == os.stat(p).st_ino
                       for p in run_inputs)
        if code == 64:
            refused += 1
            if not is_input:
                wrongly_refused += 1
                print("refused, not an input: %s: %s" % (" ".join(args), err.strip()[:200]), file=sys.stderr)
        else:
            allowed += 1
        after = digest(run_inputs)
        changed = [p for p in run_inputs if before[p] != after[p]]
        if changed:
            print("destroyed %s: %s" % (changed, " ".join(args)), file=sys.stderr)
        destroyed += len(changed)
        for p in (os.path.join(d, "new.snap"), os.path.join(d, "o.json"), os.path.join(d, "o.txt")):
            if os.path.exists(p):
                os.unlink(p)
    restore()
    # Standard input, descriptor paths, lock-file names and plugins.
    plugin = os.path.join(d, "plugin.py")
    with open(plugin, "w") as f:
        f.write("#!/usr/bin/env python3\n")
    pcfg = os.path.join(d, "pconfig.json")
    with open(pcfg, "w") as f:
        json.dump({"catalog": "catalog.json", "users": "users.json", "history": ["swipes.jsonl"],
                   "strategies": {"mine": {"plugin": "plugin.py"}}}, f)
    extra = 0
    for out in (log, "/dev/stdin", "/proc/self/fd/0"):
        before = digest([log])
        with open(log, "rb") as stdin:
            code, _, _ = run(binary, ["deck", "--config", cfg, "--date", "2026-11-30", "--history", "-",
                                      "--out", out], stdin=stdin)
        extra += 1
        refused += code == 64
        destroyed += before != digest([log])
        restore()
    lockname = os.path.join(d, ".o.json.lock")
    for make in (lambda: os.symlink(log, lockname), lambda: os.link(log, lockname)):
        make()
        before = digest([log])
        code, _, _ = run(binary, ["deck", "--config", cfg, "--date", "2026-11-30", "--out", os.path.join(d, "o.json")])
        extra += 1
        refused += code in (64, 74)
        destroyed += before != digest([log])
        os.unlink(lockname)
        restore()
    for args in (["deck", "--config", pcfg, "--date", "2026-11-30", "--out", plugin],
                 ["simulate", "--config", pcfg, "--users", "3", "--days", "1", "--out", plugin],
                 ["compare", "--config", pcfg, "-s", "random", "-s", "popularity", "--split", "2026-11-25",
                  log, "--out", users]):
        before = digest([plugin, users])
        code, _, _ = run(binary, args)
        extra += 1
        refused += code == 64
        destroyed += sum(1 for p, h in digest([plugin, users]).items() if before[p] != h)
        restore()
    cases += [None] * extra
    figures.append(("outputs pointed at inputs (9 output options x 8 spellings of 5 files, standard input, "
                    "descriptor paths, lock-file names, plugins)",
                    "%d runs: %d refused with 64 (the target was one of that run's inputs), %d allowed "
                    "(it was not)" % (len(cases), refused, allowed),
                    destroyed + wrongly_refused, "inputs changed, outputs refused that were not inputs"))
    shutil.rmtree(d)


def traps(binary, work, figures, corpus=None, per_target=400):
    d = tempfile.mkdtemp(dir=work)
    cases = []
    corpus = corpus or os.path.join(REPO, "Fuzz", "corpus")
    out = os.path.join(d, "o.json")
    # Fuzz target directory prefix -> (extension of the input, command line reading it).
    commands = {
        "json": (".json", lambda p: ["validate", "--catalog", p]),
        "catalog": (".json", lambda p: ["validate", "--catalog", p]),
        "csv": (".csv", lambda p: ["validate", "--catalog", p]),
        "users": (".json", lambda p: ["validate", "--catalog", "Data/catalog.json", "--users", p]),
        "events-csv": (".csv", lambda p: ["deck", "--date", "2026-11-30", "--history", p, "--out", out]),
        "events": (".jsonl", lambda p: ["deck", "--date", "2026-11-30", "--history", p, "--out", out]),
        "config": (".json", lambda p: ["validate", "--config", p]),
        "snapshot": (".snap", lambda p: ["deck", "--date", "2026-11-30", "--history", p, "--out", out]),
    }
    if os.path.isdir(corpus):
        for target in sorted(os.listdir(corpus)):
            kind = next((k for k in sorted(commands, key=len, reverse=True) if target.startswith(k)), None)
            if kind is None:
                continue
            names = sorted(os.listdir(os.path.join(corpus, target)))
            # An even sample of a grown corpus, the seeds whole.
            step = max(1, len(names) // per_target)
            for name in names[::step][:per_target]:
                ext, command = commands[kind]
                path = os.path.join(d, "c%d%s" % (len(cases), ext))
                shutil.copyfile(os.path.join(corpus, target, name), path)
                cases.append(command(path))
    # Crafted cases.
    snap = os.path.join(d, "good.snap")
    assert run(binary, ["ingest", os.path.join(REPO, "Data/swipes.jsonl"), "--into", snap])[0] == 0
    good = open(snap, "rb").read()
    rng = random.Random(7)
    crafted = []
    for i in range(200):
        b = bytearray(good)
        for _ in range(1 + i % 8):
            b[rng.randrange(min(len(b), 64 if i % 2 else len(b)))] ^= 1 << rng.randrange(8)
        p = os.path.join(d, "flip%d" % i)
        open(p + ".snap", "wb").write(bytes(b))
        crafted.append(commands["snapshot"][1](p + ".snap"))
    big = "9223372036854775807"
    crafted += [
        ["deck", "--date", "2026-11-30", "--size", big],
        ["simulate", "--users", big, "--days", "1"],
        ["simulate", "--users", "10", "--days", big],
        ["compare", "-s", "random", "-s", "popularity", "--resamples", big],
        ["deck", "--date", "99999-01-01"],
        ["deck", "--date", "0001-01-01"],
        ["deck", "--seed", "18446744073709551616"],
    ]
    cr = os.path.join(d, "cr.csv")
    with open(os.path.join(REPO, "Data/swipes.csv"), "rb") as f:
        open(cr, "wb").write(f.read().replace(b"\n", b"\r"))
    crafted.append(["validate", "--history", cr])
    crafted.append(["deck", "--date", "2026-11-30", "--history", cr, "--out", os.path.join(d, "o.json")])
    for pos in ("2147483647", "2147483648", "-1", "99999999999999999999"):
        p = os.path.join(d, "pos%s.jsonl" % pos)
        with open(p, "w") as f:
            f.write('{"user":"u","item":"%s","swipe":"right","at":"2026-11-20T12:00:00Z","position":%s,"deck":"2026-11-20","propensity":0.5}\n' % (items()[0], pos))
        crafted.append(["compare", "-s", "random", "-s", "popularity", "--split", "2026-11-20", "--ope", p])
    for prop in ("1e-320", "0", "5e-324", "1e308"):
        p = os.path.join(d, "prop%s.jsonl" % prop)
        with open(p, "w") as f:
            f.write('{"user":"u","item":"%s","swipe":"right","at":"2026-11-20T12:00:00Z","position":1,"deck":"2026-11-20","propensity":%s}\n' % (items()[0], prop))
        crafted.append(["compare", "-s", "random", "-s", "popularity", "--split", "2026-11-20", "--ope", p])
    trapped = 0
    n = 0
    codes = {}
    for args in cases + crafted:
        code, _, err = run(binary, args, timeout=120)
        n += 1
        codes[code] = codes.get(code, 0) + 1
        if code < 0 or code == 70:
            trapped += 1
            print("trap: %s -> %d: %s" % (" ".join(args), code, err.strip()[-200:]), file=sys.stderr)
    figures.append(("hostile inputs (%s, flipped snapshot bytes, huge numbers, CR-only, extreme positions "
                    "and propensities)" % os.path.relpath(corpus, REPO),
                    "%d cases; exits %s" % (n, ", ".join("%d: %d" % kv for kv in sorted(codes.items()))),
                    trapped, "runs ended by a signal or with exit 70"))
    shutil.rmtree(d)


def pipe(binary, work, figures):
    """A reader that takes 100 bytes and goes. Large output: always 141, quietly, no file. Small
    output (it fits in the pipe's buffer): 0 with the file when the output was delivered before
    the reader went, else 141 without it; never a file without a delivered output."""
    bad = 0
    n = 0
    outcomes = {}
    stats = os.path.join(work, "pipe-stats.txt")
    for users, days in ((2000, 10), (2000, 10), (2000, 10), (20, 1), (20, 1), (20, 1)):
        if os.path.exists(stats):
            os.unlink(stats)
        p = subprocess.Popen([binary, "simulate", "--users", str(users), "--days", str(days), "--events", "-",
                              "--out", stats], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.read(100)
        p.stdout.close()
        p.wait()
        err = p.stderr.read()
        p.stderr.close()
        n += 1
        outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
        big = users > 100
        quiet_stop = p.returncode == 141 and err == b"" and not os.path.exists(stats)
        delivered = p.returncode == 0 and os.path.exists(stats)
        bad += 0 if (quiet_stop or (delivered and not big)) else 1
    figures.append(("stdout closed by its reader (| head), large and small outputs",
                    "%d runs; exits %s" % (n, ", ".join("%d: %d" % kv for kv in sorted(outcomes.items()))),
                    bad, "not 141, a message, or a file committed without its stdout"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--binary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="comma-separated scenarios")
    ap.add_argument("--corpus", help="fuzz corpora for the hostile inputs (default Fuzz/corpus; "
                    "Fuzz/.build/corpus holds what the fuzz runs grew)")
    ap.add_argument("--per-target", type=int, default=400, help="corpus inputs per target")
    a = ap.parse_args()
    binary = a.binary
    if not binary:
        subprocess.run(["swift", "build", "-c", "release", "--product", "menudeck"], cwd=REPO, check=True)
        binary = os.path.join(REPO, ".build/release/menudeck")
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="menudeck-reliability-")
    figures = []
    only = set(a.only.split(",")) if a.only else None
    steps = [
        ("concurrent", lambda: concurrent(binary, work, a.rounds, rng, figures)),
        ("kills", lambda: kills(binary, work, a.rounds * 8, rng, figures)),
        ("signals", lambda: signals(binary, work, a.rounds, figures)),
        ("full-disk", lambda: full_disk(binary, work, figures)),
        ("inputs", lambda: inputs(binary, work, figures)),
        ("traps", lambda: traps(binary, work, figures, a.corpus, a.per_target)),
        ("pipe", lambda: pipe(binary, work, figures)),
    ]
    try:
        for name, step in steps:
            if only and name not in only:
                continue
            t = time.time()
            step()
            print("%s: %.1f s" % (name, time.time() - t), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| scenario | what ran | failures | failures counted |")
    print("|---|---|---:|---|")
    for what, ran, bad, counted in figures:
        print("| %s | %s | %d | %s |" % (what, ran, bad, counted))
    sys.exit(1 if any(f[2] for f in figures) else 0)


if __name__ == "__main__":
    main()
