#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into Fuzz/corpus/<target>/ (checked in).

Seeds are small pieces of Data/, Config/ and the test fixtures, in the input layout each target
reads (see the comment at the top of Fuzz/<target>.swift). Run from anywhere:
Scripts/fuzz.sh seeds. The files are rewritten from scratch, so the corpus is exactly this.
"""

import hashlib
import os
import shutil
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


def head(path, lines):
    """The first `lines` lines of a repository file."""
    return b"".join(read(path).splitlines(keepends=True)[:lines])


def crlf(b):
    return b.replace(b"\n", b"\r\n")


def write(target, seeds):
    d = os.path.join(CORPUS, target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for name, data in seeds:
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    print(f"{target}: {len(seeds)} seeds, {sum(len(s) for _, s in seeds)} bytes")


# TREC run files (compare --run): a strategy's run, ties, CRLF, tabs, a blank line.
write("trecrun", [
    ("run.txt", b"u01 Q0 oyakodon 1 3 popularity\nu01 Q0 gyudon 2 2 popularity\n"
                b"u02 Q0 tendon 1 1 popularity\n"),
    ("ties.txt", b"q Q0 b 1 2.0 t\nq Q0 c 2 2 t\n\nq Q0 a 3 7e-1 t\r\nq Q0 z 4 -1 t\n"),
    ("tabs.txt", b"q\tQ0\ta\t1\t1\tt\n  r Q0 \xe5\xaf\xbf 1 0 t \r\n"),
])

# JSON documents: pieces of the catalog, users and config, and the parser's edge cases.
catalog_json = b"[\n" + b"".join(read("Data/catalog.json").splitlines(keepends=True)[1:4]).rstrip(b",\n") + b"\n]\n"
users_json = head("Data/users.json", 6).rstrip(b",\n") + b"\n]}\n"
json_seeds = [
    ("catalog.json", catalog_json),
    ("users.json", users_json),
    ("config.json", read("Config/menudeck.json")),
    ("uci.json", read("Config/uci.json")),
    ("numbers.json", b'[0, -0, 1.5e300, -2E-5, 12345678901234567890, 1e400, 0.1]'),
    ("strings.json", b'["caf\\u00e9", "\\ud83c\\udf63", "tab\\t", "\xe5\xaf\xbf\xe5\x8f\xb8", ""]'),
    ("nested.json", b'{"a": {"b": [[], {}, [null, true, false]]}, "c": "d"}'),
    ("crlf.json", crlf(b'{\n  "a": 1,\n  "b": [2, 3]\n}\n')),
    ("bom.json", b"\xef\xbb\xbf{}"),
]
write("json", json_seeds)

# CSV tables.
csv_seeds = [
    ("catalog.csv", head("Data/catalog.csv", 5)),
    ("users.csv", head("Data/users.csv", 6)),
    ("quoted.csv", b'id,name,note\n1,"a, b","say ""hi"""\n2,"two\nlines",\n'),
    ("crlf.csv", crlf(head("Data/users.csv", 4))),
    ("one-column.csv", b"id\n\n1\n\n"),
    ("bom.csv", b"\xef\xbb\xbfid,name\n1,x"),
    # A lone CR before a CRLF in quotes, then a combining mark (a finding of the csv target).
    ("cr-crlf-mark.csv", b'd,"\r\r\n\xcc\x9a",\n'),
]
write("csv", csv_seeds)

# Swipe logs: option byte (bit 0 CSV, bit 1 mapped, bit 2 skip bad lines, bit 3 absolute drag
# rule, bits 4-5 source: 0 memory, 1 file, 2 pipe; bit 6 sniff the format on a pipe, bit 7 +09:00;
# bits 6-7 also choose the small chunk size), a mapping for mapped logs, then the log.
jsonl = head("Data/swipes.jsonl", 12)
csvlog = head("Data/swipes.csv", 12)
movielens = b"userId,movieId,rating,timestamp\n1,10,4.5,1700000000\n1,11,1.0,1700000100\n2,10,3.0,1700000200\n"
uci = b"userID,placeID,rating,food_rating\nU1077,135085,2,2\nU1077,132825,0,1\n"
events_seeds = [
    ("jsonl", bytes([0x00]) + jsonl),
    ("jsonl-file", bytes([0x10]) + jsonl),
    ("jsonl-pipe-sniffed", bytes([0x60]) + jsonl),
    ("jsonl-skip-crlf", bytes([0x84]) + crlf(jsonl)),
    ("csv", bytes([0x01]) + csvlog),
    ("csv-file", bytes([0x11]) + csvlog),
    ("csv-pipe", bytes([0x21]) + csvlog),
    ("csv-pipe-sniffed-skip", bytes([0x65]) + csvlog),
    ("csv-crlf-absolute", bytes([0x09]) + crlf(csvlog)),
    ("mapped-movielens", bytes([0x03]) + b"user=userId,item=movieId,at=timestamp,rating=rating\x01>=4\x01<=2.5\x00" + movielens),
    ("mapped-uci-pipe", bytes([0x27]) + b"user=userID,item=placeID,rating=rating\x01=2\x01=0\x00" + uci),
    ("mapped-fixed", bytes([0x13]) + b"\x00" + movielens),
    ("drags", bytes([0x00]) + b'{"user":"u7","item":"ramen","dx":-200,"width":300,"at":"2026-11-21"}\n'
     + b'{"user":"u7","item":"udon","dx":40,"width":300,"at":"2026-11-21T23:59:59.9","position":1,"propensity":0.5}\n'),
    ("quoted-csv", bytes([0x05]) + b'user,item,swipe,at,position,deck,propensity\n"u,1","i""x",left,2026-10-01T20:17:10+09:00,2,2026-10-01,0.25\n'),
    ("prefix-csv", bytes([0x01]) + b'user,item,swipe,at,position,deck,propensity,prefix_propensity,dx,width\n'
     + b'u1,a,right,2026-10-01T20:17:10,1,2026-10-01,0.5,0.5,,\nu1,b,,2026-10-01T20:17:12,2,2026-10-01,0.25,"0.125",-200,390\n'),
    ("prefix-jsonl", bytes([0x00]) + b'{"user":"u1","item":"a","swipe":"left","at":"2026-10-01","position":1,"propensity":0.5,"prefix_propensity":0.5}\n'
     + b'{"user":"u1","item":"b","swipe":"right","at":"2026-10-01","position":2,"propensity":0.25,"prefix_propensity":null}\n'),
]
write("events", events_seeds)

# Catalogs and users: option byte (bit 0 users, bit 1 CSV), then the file.
write("catalog", [
    ("catalog.json", bytes([0]) + catalog_json),
    ("users.json", bytes([1]) + users_json),
    ("catalog.csv", bytes([2]) + head("Data/catalog.csv", 6)),
    ("users.csv", bytes([3]) + head("Data/users.csv", 8)),
    ("available.json", bytes([0]) + b'{"items": [{"id": "a", "name": "A", "category": "x", "price": 1.5,'
     b' "available": {"weekdays": ["mon", "Friday"], "from": "2026-01-01", "until": "2026-12-31"}}]}'),
])

# Configs.
write("config", [
    ("menudeck.json", read("Config/menudeck.json")),
    ("movielens.json", read("Config/movielens.json")),
    ("uci.json", read("Config/uci.json")),
    ("simulation.json", b'{"catalog": "c.json", "simulation": {"users": 10, "days": 3, "seed": 1}}'),
])

# Plugin replies, one protocol line each (docs/plugins.md), with Python's NaN and Infinity.
write("plugin", [
    ("describe", b'{"type":"describe","protocol":1,"identifier":"veg-first","summary":"s","learn_users":false,'
     b'"options":[{"name":"boost","type":"double","default":1.0,"min":0,"max":100,"meaning":"m"}]}'),
    ("ready", b'{"type":"ready"}'),
    ("learned", b'{"type":"learned","id":1}'),
    ("ranked", b'{"type":"ranked","id":3,"results":[{"scores":[0.567,1.05,1.767]},'
     b'{"order":["inari","veg-gyoza","katsu-curry"],"propensities":[0.5,0.3,0.2]}]}'),
    ("nan", b'{"type":"ranked","id":4,"results":[{"scores":[NaN, Infinity, -Infinity, 1e-320]}]}'),
    ("error", b'{"type":"error","message":"model file \\"w.bin\\" is missing \\u00e9"}'),
])


# Snapshots: option byte, two bytes of the first payload's length, two payloads (the format in
# Sources/DeckIO/SnapshotFile.swift); and one whole file (option bit 0).
def u(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def z(v):
    return u((v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1)


def s(text):
    b = text.encode()
    return u(len(b)) + b


def payload(items, users, days=None, settings=None, sources=(), pending=(), version=2):
    """A snapshot payload of format `version` (2: the sources' days and the pending swipes;
    1: neither)."""
    out = u(len(sources))
    for sha, path, nbytes, lines, events, first, last in sources:
        out += s(sha) + s(path) + u(nbytes) + u(lines) + u(events)
        if version >= 2:
            out += z(first) + z(last)
    flags = (1 if days else 0) | (2 if settings else 0)
    out += u(flags)
    if days:
        out += z(days[0]) + z(days[1])
    if settings:
        out += s(settings[0]) + s(settings[1])
    out += u(2)  # hesitations
    out += u(len(items))
    for item_id, right, left, positions in items:
        out += s(item_id) + u(right) + u(left) + u(len(positions))
        for pos, shown, r in positions:
            out += u(pos) + u(shown) + u(r)
    out += u(len(users))
    for user_id, records in users:
        out += s(user_id) + u(len(records))
        previous = 0
        for item, right, left, last_right, last_left in records:
            out += u(item - previous) + u(right) + u(left) + z(last_right) + z(last_left)
            previous = item
    if version >= 2:
        # In the canonical order: day, user bytes, item bytes, left before right, position.
        out += u(len(pending))
        for day, user_id, item_id, right, position in pending:
            out += z(day) + s(user_id) + s(item_id) + u(position * 2 + (1 if right else 0))
    return out


def whole(p, version=2):
    return (b"MDSNAP\r\n\x1a" + struct.pack("<IQ", version, len(p)) + p
            + hashlib.sha256(p).digest())


never = -2147483648
a = payload(
    [("gyudon", 2, 1, [(1, 2, 1), (2, 1, 1)]), ("oyakodon", 1, 2, [(3, 2, 0)])],
    [("u01", [(0, 2, 1, 20500, 20400), (1, 1, 0, 20510, never)]), ("u02", [(1, 0, 2, never, 20511)])],
    days=(20400, 20511), settings=("Asia/Tokyo", "relative"),
    sources=[("ab" * 32, "Data/swipes.jsonl", 1000, 14, 13, 20400, 20513)],
    pending=[(20512, "u01", "gyudon", True, 1), (20513, "u02", "katsudon", False, 0)])
b = payload([("gyudon", 1, 0, [])], [("u03", [(0, 1, 0, 20600, never)])], days=(20600, 20600),
            sources=[("cd" * 32, "more.jsonl", 100, 1, 1, 20600, 20600)])
one = payload(
    [("gyudon", 1, 0, [])], [("u03", [(0, 1, 0, 20600, never)])], days=(20600, 20600),
    sources=[("cd" * 32, "more.jsonl", 100, 1, 1, 0, 0)], version=1)
write("snapshot", [
    ("two", bytes([0]) + struct.pack("<H", len(a)) + a + b),
    ("same-twice", bytes([0]) + struct.pack("<H", len(a)) + a + a),
    ("empty-and-one", bytes([0]) + struct.pack("<H", 0) + b),
    ("whole-file", bytes([1]) + whole(a)),
    ("whole-file-format-1", bytes([1]) + whole(one, version=1)),
])
