#!/usr/bin/env python3
"""distribution: a menudeck test plugin of protocol 1, minor version 1, that returns the
distribution it draws each diner's order from (`policy`) when a rank request has
`"want_policy": true`, and always the prefix propensities of the order it drew.

The option `mode` (or, before the `start` message, the environment variable DISTRIBUTION_MODE)
chooses the distribution; each draw comes from a stream derived from (seed, date, user) only,
so a diner's order does not depend on the other diners of a batch. Candidates are c0, c1, ...
in the request's order.

Modes:
  uniform         (default) a seeded uniform shuffle of the candidates, propensities 1/n,
                  policy {"uniform": true}
  plackett_luce   Plackett-Luce with logit -k for candidate ck (Gumbel-max draws),
                  policy {"plackett_luce": [0, -1, -2, ...]}
  epsilon_greedy  epsilon 0.5 around the candidate order, policy {"epsilon_greedy": ...}
  rankings        the finite distribution c0 c2 (0.5), c1 c2 (0.25), c2 alone (0.25) with three
                  or more candidates (c0 c1 (0.5), c1 (0.5) with two; c0 (1) with one): the drawn
                  order, then the other candidates in candidate order; no prefix propensities
                  (the longer prefixes have probability 0)
  raw             the policy is the option `policy` (JSON text), the prefix propensities the
                  option `prefix` and the propensities the option `propensities` (JSON text, a
                  list; "" for none), with "$k" in any of them replaced by the id of candidate
                  k; the order is the candidate order
  many            a rankings policy of `orders` orders (option), each of `length` (option) ids
                  cycling through the candidates, probability 0: to go past menudeck's caps

The option `unasked` (bool) sends the policy even when the request does not ask for one. The
environment variable DISTRIBUTION_MINOR sets the minor version declared in `describe` (default
1; "none" leaves the field out).
"""

import hashlib
import json
import math
import os
import random
import sys


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def stream(seed, date, user):
    """The diner's own random stream for the day."""
    return random.Random(hashlib.sha256(("%d/%s/%s" % (seed, date, user)).encode()).digest())


def uniform(ids, rng):
    order = list(range(len(ids)))
    rng.shuffle(order)
    prefix, p = [], 1.0
    for k in range(len(order)):
        p /= len(order) - k
        prefix.append(p)
    result = {"propensities": [1 / len(ids)] * len(ids)} if ids else {}
    return order, prefix, {"uniform": True}, result


def plackett_luce(ids, rng):
    logits = [-float(k) for k in range(len(ids))]

    def gumbel():
        u = rng.random()
        while u == 0.0:
            u = rng.random()
        return -math.log(-math.log(u))

    keys = [logit + gumbel() for logit in logits]
    order = sorted(range(len(ids)), key=lambda k: (-keys[k], k))
    prefix, p, left = [], 1.0, set(order)
    for k in order:
        p *= math.exp(logits[k]) / sum(math.exp(logits[j]) for j in left)
        left.discard(k)
        prefix.append(p)
    return order, prefix, {"plackett_luce": logits}, {}


def epsilon_greedy(ids, rng):
    epsilon = 0.5
    remaining = list(range(len(ids)))
    order, prefix, p = [], [], 1.0
    while remaining:
        r = len(remaining)
        pick = rng.randrange(r) if rng.random() < epsilon else 0
        p *= 1 - epsilon * (r - 1) / r if pick == 0 else epsilon / r
        order.append(remaining.pop(pick))
        prefix.append(p)
    policy = {"epsilon_greedy": {"order": list(ids), "epsilon": epsilon}}
    return order, prefix, policy, {}


def rankings(ids, rng):
    n = len(ids)
    if n >= 3:
        table = [([0, 2], 0.5), ([1, 2], 0.25), ([2], 0.25)]
    elif n == 2:
        table = [([0, 1], 0.5), ([1], 0.5)]
    else:
        table = [([0], 1.0)] if n == 1 else []
    u, drawn = rng.random(), []
    for order, p in table:
        if u < p:
            drawn = order
            break
        u -= p
    order = drawn + [k for k in range(n) if k not in drawn]
    policy = {"rankings": [{"order": [ids[k] for k in o], "probability": p} for o, p in table]}
    return order, None, policy, {}


def substitute(text, ids):
    """JSON text with "$k" replaced by the id of candidate k."""
    for k in reversed(range(len(ids))):
        text = text.replace('"$%d"' % k, json.dumps(ids[k]))
    return json.loads(text)


def main():
    mode = os.environ.get("DISTRIBUTION_MODE", "uniform")
    minor = os.environ.get("DISTRIBUTION_MINOR", "1")
    options = {}
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            describe = {
                "type": "describe", "protocol": 1, "identifier": "distribution",
                "summary": "a seeded draw that returns the distribution it is drawn from",
                "options": [
                    {"name": "mode", "type": "string", "default": "",
                     "meaning": "the distribution (see the file's docstring)"},
                    {"name": "policy", "type": "string", "default": "",
                     "meaning": "raw mode: the policy, JSON text"},
                    {"name": "prefix", "type": "string", "default": "",
                     "meaning": "raw mode: the prefix propensities, JSON text"},
                    {"name": "propensities", "type": "string", "default": "",
                     "meaning": "raw mode: the propensities, JSON text"},
                    {"name": "unasked", "type": "bool", "default": False,
                     "meaning": "send the policy even when not asked"},
                    {"name": "orders", "type": "int", "default": 1, "min": 0, "max": 10000000,
                     "meaning": "many mode: the number of orders"},
                    {"name": "length", "type": "int", "default": 1, "min": 0, "max": 1000,
                     "meaning": "many mode: the ids per order"},
                ],
            }
            if minor != "none":
                describe["minor"] = json.loads(minor)
            send(describe)
        elif kind == "start":
            options = message["options"]
            if options["mode"]:
                mode = options["mode"]
            send({"type": "ready"})
        elif kind == "learn":
            for _ in range(message["user_batches"]):
                sys.stdin.readline()
            send({"type": "learned", "id": message["id"]})
        elif kind == "rank":
            asked = message.get("want_policy") is True
            results = []
            for request in message["requests"]:
                ids = request["candidates"]
                rng = stream(request["seed"], request["date"], request["user"])
                extra = {}
                if mode == "raw":
                    order = list(range(len(ids)))
                    policy = substitute(options["policy"], ids) if options["policy"] else None
                    prefix = substitute(options["prefix"], ids) if options["prefix"] else None
                    if options["propensities"]:
                        extra = {"propensities": substitute(options["propensities"], ids)}
                elif mode == "many":
                    order, prefix = list(range(len(ids))), None
                    cycle = [ids[k % len(ids)] for k in range(options["length"])]
                    policy = {"rankings": [{"order": cycle, "probability": 0}] * options["orders"]}
                else:
                    draw = {"uniform": uniform, "plackett_luce": plackett_luce,
                            "epsilon_greedy": epsilon_greedy, "rankings": rankings}[mode]
                    order, prefix, policy, extra = draw(ids, rng)
                result = {"order": [ids[k] for k in order]}
                result.update(extra)
                if prefix is not None:
                    result["prefix_propensities"] = prefix
                if policy is not None and (asked or options["unasked"]):
                    result["policy"] = policy
                results.append(result)
            send({"type": "ranked", "id": message["id"], "results": results})
        elif kind == "end":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
