#!/usr/bin/env python3
"""misbehave: a menudeck test plugin that breaks the protocol on request.

The fault is chosen by the environment variable MISBEHAVE (or the option `mode`, which takes
effect from the `start` message on); MISBEHAVE_AT (or the option `at`) is the number of the
rank request that misbehaves (default 1). Without a fault it is a trivial, fast plugin: every
candidate scores 0 and the deck keeps catalog order.

Modes:
  exit-at-hello   exit with status 3 before answering the handshake
  hang-at-hello   never answer the handshake
  wrong-protocol  describe itself as speaking protocol 99
  exit            exit with status 0 instead of answering the rank request (exits early)
  crash           abort (SIGABRT) while answering the rank request
  raise           raise an exception (traceback on stderr, status 1)
  hang            sleep instead of answering
  ignore-term     ignore SIGTERM, then sleep instead of answering (needs SIGKILL)
  garbage         answer with a line that is not JSON
  partial         write half a reply without a newline, then exit 0
  error           answer with an error message
  wrong-id        answer with the id of another request
  wrong-type      answer with a `learned` message
  results         one result fewer than requests
  too-few         one score fewer than candidates for the first request
  unknown-id      an order naming an item that is not in the catalog
  duplicate-id    an order naming the first candidate twice (and not the last)
  not-candidate   an order naming a catalog item that is not one of the request's candidates
  propensity      a propensity of 1.5 for the first candidate
  nan             a NaN score for the first candidate
  inf             an Infinity score for the first candidate
  flood           (well-behaved) log 20000 lines to stderr before answering (MISBEHAVE_FLOOD_LINES
                  sets the count, MISBEHAVE_FLOOD_WIDTH pads each line to that many bytes)
  order           (well-behaved) candidates in reverse order, propensities 1/n each
  bad-exit        answer everything, then exit with status 2 after `end`
  leave-child     (well-behaved) start a `sleep 300` child at the handshake and exit without it
  fork-exit       start a `sleep 300` child that keeps stdout and stderr open, then exit with
                  status 3 instead of answering the rank request

The modes that start a child write its pid to the file named by MISBEHAVE_CHILD_PID_FILE.

With MISBEHAVE_LEARN_USERS=1 it asks for per-diner records (learn_users) and logs what each
learn request carried.
"""

import json
import os
import signal
import subprocess
import sys
import time


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def log(text):
    print(text, file=sys.stderr, flush=True)


def start_child():
    """A `sleep 300` child that inherits stdin, stdout and stderr; its pid goes to the file."""
    child = subprocess.Popen(["sleep", "300"])
    with open(os.environ["MISBEHAVE_CHILD_PID_FILE"], "w") as f:
        f.write("%d\n" % child.pid)
    return child


def main():
    mode = os.environ.get("MISBEHAVE", "")
    at = int(os.environ.get("MISBEHAVE_AT", "1"))
    ranks = 0
    catalog = []
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            if mode == "exit-at-hello":
                log("leaving before the handshake")
                return 3
            if mode == "hang-at-hello":
                time.sleep(3600)
            if mode == "leave-child":
                start_child()
            send({
                "type": "describe",
                "protocol": 99 if mode == "wrong-protocol" else 1,
                "identifier": "misbehave",
                "summary": "a test plugin that breaks the protocol on request",
                "learn_users": os.environ.get("MISBEHAVE_LEARN_USERS") == "1",
                "options": [
                    {"name": "mode", "type": "string", "default": "",
                     "meaning": "the fault to commit (see the file's docstring)"},
                    {"name": "at", "type": "int", "default": 1, "min": 1, "max": 1000000,
                     "meaning": "the rank request that misbehaves"},
                ],
            })
        elif kind == "start":
            catalog = [item["id"] for item in message["catalog"]]
            if message["options"]["mode"]:
                mode = message["options"]["mode"]
            if message["options"]["at"] != 1:
                at = message["options"]["at"]
            send({"type": "ready"})
        elif kind == "learn":
            users = []
            for _ in range(message["user_batches"]):
                batch = json.loads(sys.stdin.readline())
                assert batch["type"] == "learn_users" and batch["id"] == message["id"]
                users += batch["users"]
            if os.environ.get("MISBEHAVE_LEARN_USERS") == "1":
                log("learn %d: %s, %d events, %d users in %d lines: %s" % (
                    message["id"], "full" if message["full"] else "changes", message["events"],
                    message["users"], message["user_batches"], json.dumps(users)))
            send({"type": "learned", "id": message["id"]})
        elif kind == "rank":
            ranks += 1
            requests = message["requests"]
            log("rank %d: %d diners" % (ranks, len(requests)))
            fault = mode if ranks == at else ""
            results = [{"scores": [0] * len(r["candidates"])} for r in requests]
            if fault == "exit":
                return 0
            if fault == "fork-exit":
                start_child()
                return 3
            if fault == "crash":
                os.abort()
            if fault == "raise":
                raise RuntimeError("misbehaving on purpose")
            if fault == "hang":
                time.sleep(3600)
            if fault == "ignore-term":
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                time.sleep(3600)
            if fault == "garbage":
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            if fault == "partial":
                sys.stdout.write('{"type":"ranked","id":')
                sys.stdout.flush()
                return 0
            if fault == "error":
                send({"type": "error", "message": "model file 'weights.bin' is missing"})
                continue
            if fault == "flood":
                count = int(os.environ.get("MISBEHAVE_FLOOD_LINES", "20000"))
                width = int(os.environ.get("MISBEHAVE_FLOOD_WIDTH", "0"))
                lines = [("flood %d " % k).ljust(width, "x").rstrip() for k in range(count)]
                for k in range(0, count, 1000):
                    sys.stderr.write("".join(line + "\n" for line in lines[k:k + 1000]))
                sys.stderr.flush()
            if fault == "wrong-id":
                send({"type": "ranked", "id": message["id"] + 1, "results": results})
                continue
            if fault == "wrong-type":
                send({"type": "learned", "id": message["id"]})
                continue
            if fault == "results":
                results.pop()
            if fault == "too-few":
                results[0]["scores"].pop()
            if fault == "unknown-id":
                results[0] = {"order": ["no-such-dish"] + requests[0]["candidates"][1:]}
            if fault == "duplicate-id":
                c = requests[0]["candidates"]
                results[0] = {"order": [c[0]] + c[:-1]}
            if fault == "not-candidate":
                c = requests[0]["candidates"]
                other = next(i for i in catalog if i not in c)
                results[0] = {"order": c[:-1] + [other]}
            if fault == "propensity":
                n = len(requests[0]["candidates"])
                results[0]["propensities"] = [1.5] + [0.5] * (n - 1)
            if fault == "nan":
                results[0]["scores"][0] = float("nan")
            if fault == "inf":
                results[0]["scores"][0] = float("inf")
            if mode == "order":
                results = [{"order": list(reversed(r["candidates"])),
                            "propensities": [1 / len(r["candidates"])] * len(r["candidates"])}
                           for r in requests]
            send({"type": "ranked", "id": message["id"], "results": results})
        elif kind == "end":
            return 2 if mode == "bad-exit" else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
