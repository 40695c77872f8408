#!/usr/bin/env python3
"""veg-first: an example menudeck plugin (protocol 1, Python standard library only).

Score of a candidate dish for a diner:

    (R + 1) / (R + L + 2)  +  boost * [diet in the dish's diets]  +  personal * (r - l)

R and L are the dish's right and left swipes over all diners (from the last `learn`), r and l
the diner's own right and left swipes on it (from the `rank` request's history). So dishes are
ordered by their smoothed pick rate, dishes of the chosen diet come first (with the default
boost of 1, which is more than any difference in pick rate), and a diner's own past picks and
passes move a dish up or down a little.

Options: boost (double, default 1.0), diet (string, default "vegetarian"), personal (double,
default 0.1). See docs/plugins.md for the messages.
"""

import json
import sys

PROTOCOL = 1


def send(message):
    """One protocol line on stdout, flushed at once (menudeck waits for it)."""
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def log(text):
    """Logs go to stderr; menudeck shows them prefixed with the plugin's name."""
    print(text, file=sys.stderr, flush=True)


def describe():
    return {
        "type": "describe",
        "protocol": PROTOCOL,
        "identifier": "veg-first",
        "summary": "pick rate (R+1)/(R+L+2), plus boost for dishes of one diet, "
        "plus personal*(r-l) for the diner's own swipes",
        "learn_users": False,
        "options": [
            {"name": "boost", "type": "double", "default": 1.0, "min": 0, "max": 100,
             "meaning": "added to the score of dishes that satisfy `diet`"},
            {"name": "diet", "type": "string", "default": "vegetarian",
             "meaning": "the diet whose dishes get the boost"},
            {"name": "personal", "type": "double", "default": 0.1, "min": 0, "max": 10,
             "meaning": "weight of the diner's own right minus left swipes on a dish"},
        ],
    }


def main():
    options = {}
    diet_bonus = {}  # item id -> boost or 0
    rate = {}  # item id -> (R + 1) / (R + L + 2)
    ids = []
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            if message["protocol"] != PROTOCOL:
                send({"type": "error", "message": "veg-first speaks protocol 1 only"})
                return 1
            send(describe())
        elif kind == "start":
            options = message["options"]
            ids = [item["id"] for item in message["catalog"]]
            diet_bonus = {
                item["id"]: options["boost"] if options["diet"] in item["diets"] else 0.0
                for item in message["catalog"]
            }
            rate = {i: 0.5 for i in ids}
            log("%d dishes, %d %s" % (len(ids), sum(1 for v in diet_bonus.values() if v),
                                      options["diet"]))
            send({"type": "ready"})
        elif kind == "learn":
            for i, right, left in zip(ids, message["item_right"], message["item_left"]):
                rate[i] = (right + 1) / (right + left + 2)
            # No per-diner records were asked for (learn_users is false), so
            # message["user_batches"] is 0 and no learn_users lines follow.
            send({"type": "learned", "id": message["id"]})
        elif kind == "rank":
            personal = options["personal"]
            results = []
            for request in message["requests"]:
                own = {record[0]: record[1] - record[2] for record in request["history"]}
                results.append({"scores": [
                    rate[i] + diet_bonus[i] + personal * own.get(i, 0)
                    for i in request["candidates"]
                ]})
            send({"type": "ranked", "id": message["id"], "results": results})
        elif kind == "end":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
