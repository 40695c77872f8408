import Foundation

// menudeck-bench: release-built benchmark of the hot paths, on data it generates itself.
//
//   swift run -c release menudeck-bench            # full size (about a minute)
//   swift run -c release menudeck-bench --quick    # a smaller, faster run
//   swift run -c release menudeck-bench --only compare   # some sections only
//
// Each measurement runs in a child process of its own so that its peak memory is its own.
// Times are CPU seconds of one thread (one core), so other load on the machine matters less.

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
  guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
  return arguments[i + 1]
}

let quick = arguments.contains("--quick")
let events = Int(option("--events") ?? "") ?? (quick ? 400_000 : 2_000_000)
let deckUsers = Int(option("--users") ?? "") ?? (quick ? 20_000 : 100_000)
let deckItems = Int(option("--items") ?? "") ?? 500
let snapshotEvents = Int(option("--snapshot-events") ?? "") ?? (quick ? 1_000_000 : 10_000_000)
let realDiners = Int(option("--real-diners") ?? "") ?? (quick ? 20_000 : 100_000)
let rounds = Int(option("--rounds") ?? "") ?? 3
let hashMebibytes = Int(option("--hash-mib") ?? "") ?? (quick ? 64 : 256)

func mb(_ bytes: Int) -> Double { Double(bytes) / 1_000_000 }
func fmt(_ x: Double, _ decimals: Int = 1) -> String {
  var s = 1.0
  for _ in 0..<decimals { s *= 10 }
  let v = (x * s).rounded() / s
  return decimals == 0 ? String(Int(v)) : String(v)
}

if let phase = option("--phase") {
  // Child: run one measurement and print one RESULT line.
  let dir = option("--dir")!
  switch phase {
  case "ingest-real-jsonl", "ingest-real-csv":
    let files = try RealisticBench.generate(events: events, diners: realDiners, in: dir)
    let r = try RealisticBench.ingest(path: phase == "ingest-real-csv" ? files.csv : files.jsonl)
    print(
      "RESULT bytes=\(r.bytes) events=\(r.events) seconds=\(r.seconds) pairs=\(r.pairs) peak=\(Clock.peakMemoryMiB())"
    )
  case "ingest-jsonl", "ingest-csv", "scan-jsonl", "scan-csv", "decoder":
    let files = try IngestBench.generate(events: events, in: dir)
    let r: IngestBench.Result
    switch phase {
    case "ingest-jsonl": r = try IngestBench.ingest(path: files.jsonl)
    case "ingest-csv": r = try IngestBench.ingest(path: files.csv)
    case "scan-jsonl": r = try IngestBench.scanOnly(path: files.jsonl)
    case "scan-csv": r = try IngestBench.scanOnly(path: files.csv)
    default: r = try IngestBench.jsonDecoderBaseline(path: files.jsonl, limit: 40_000_000)
    }
    print(
      "RESULT bytes=\(r.bytes) events=\(r.events) seconds=\(r.seconds) pairs=\(r.pairs) peak=\(Clock.peakMemoryMiB())"
    )
  case "snapshot-ingest":
    let files = try IngestBench.generate(events: snapshotEvents, in: dir + "/snapshot")
    let r = try SnapshotBench.ingest(path: files.jsonl)
    print(
      "RESULT bytes=\(r.bytes) events=\(r.events) seconds=\(r.seconds) pairs=\(r.pairs) snapshot=\(r.snapshotBytes) peak=\(Clock.peakMemoryMiB())"
    )
  case "merge":
    let files = try IngestBench.generate(events: snapshotEvents, in: dir + "/snapshot")
    let r = try SnapshotBench.merge(path: files.jsonl, shards: 16, dir: dir + "/snapshot")
    print(
      "RESULT shards=\(r.shards) seconds=\(r.seconds) decode=\(r.decodeSeconds) pairs=\(r.pairs) peak=\(Clock.peakMemoryMiB())"
    )
  case "plugin":
    let items = Int(option("--plugin-items") ?? "") ?? 50
    let r = try PluginBench.run(users: deckUsers, items: items, eventsPerUser: 10)
    print(
      "RESULT users=\(r.users) items=\(r.items) start=\(r.startSeconds) learn=\(r.learnSeconds) build=\(r.buildSeconds) cards=\(r.cards) peak=\(Clock.peakMemoryMiB())"
    )
  case "users-json", "users-csv":
    let files = try UsersBench.generate(diners: realDiners, in: dir)
    let r = try UsersBench.read(path: phase == "users-json" ? files.json : files.csv)
    print(
      "RESULT bytes=\(r.bytes) users=\(r.users) seconds=\(r.seconds) peak=\(Clock.peakMemoryMiB())"
    )
  case "simulate":
    print(try SimulationBench.resultLine(quick: quick))
  case "hash":
    print(HashBench.resultLine(mebibytes: hashMebibytes, repeats: IngestBench.repeats))
  case "compare":
    print(try CompareBench.compareLine(quick: quick, dir: dir))
  case "bootstrap":
    print(CompareBench.bootstrapLine(units: quick ? 20_000 : 100_000))
  case "ease-fit":
    // --ease-pairs FILE (user,item lines) or synthetic pairs; --ease-items dishes.
    let items = Int(option("--ease-items") ?? "") ?? 500
    let lambda = Double(option("--ease-lambda") ?? "") ?? 500
    let pairs =
      try option("--ease-pairs").map { try EASEBench.pairs(file: $0) }
      ?? EASEBench.synthetic(items: items, users: 4 * items, perUser: 40)
    let r = try EASEBench.fit(
      pairs: pairs, items: items, lambda: lambda,
      repeats: Int(option("--ease-repeats") ?? "") ?? 1)
    print(
      "RESULT items=\(items) dishes=\(r.dishes) pairs=\(pairs.count) fit=\(r.seconds) peak=\(Clock.peakMemoryMiB())"
    )
  case "ease-score":
    let items = Int(option("--ease-items") ?? "") ?? 500
    let lambda = Double(option("--ease-lambda") ?? "") ?? 500
    let pairs =
      try option("--ease-pairs").map { try EASEBench.pairs(file: $0) }
      ?? EASEBench.synthetic(items: items, users: deckUsers, perUser: 30)
    let r = try EASEBench.score(pairs: pairs, items: items, lambda: lambda)
    print(
      "RESULT items=\(items) users=\(r.users) pairs=\(pairs.count) kernel=\(r.kernel) decks=\(r.decks) checksum=\(r.checksum) peak=\(Clock.peakMemoryMiB())"
    )
  case "decks":
    let r = try DeckBench.run(users: deckUsers, items: deckItems, eventsPerUser: 30)
    print(
      "RESULT users=\(r.users) items=\(r.items) events=\(r.events) build=\(r.buildSeconds) write=\(r.writeSeconds) learn=\(r.learnSeconds) cards=\(r.cards) peak=\(Clock.peakMemoryMiB())"
    )
  default:
    FileHandle.standardError.write("unknown phase \(phase)\n".data(using: .utf8)!)
    exit(64)
  }
  exit(0)
}

/// `--only ingest,compare` runs those sections (ingest, realistic, e2e, users, snapshots, decks,
/// simulate, compare, plugin, ease, hash); all of them by default.
let only = option("--only").map { Set($0.split(separator: ",").map(String.init)) }
func wants(_ section: String) -> Bool { only?.contains(section) ?? true }

// Parent: generate the data once, run each phase in a child, print the table.
let dir = NSTemporaryDirectory() + "menudeck-bench-\(events)"
try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
if wants("ingest") { _ = try IngestBench.generate(events: events, in: dir) }

func runChild(_ phase: String, extra: [String] = []) throws -> [String: Double] {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  process.arguments = arguments + extra + ["--phase", phase, "--dir", dir]
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0,
    let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last(where: {
      $0.hasPrefix("RESULT ")
    })
  else {
    throw NSError(
      domain: "menudeck-bench", code: 1,
      userInfo: [NSLocalizedDescriptionKey: "phase \(phase) failed"])
  }
  var values: [String: Double] = [:]
  for pair in line.dropFirst(7).split(separator: " ") {
    let kv = pair.split(separator: "=")
    if kv.count == 2 { values[String(kv[0])] = Double(kv[1]) }
  }
  return values
}

print("menudeck-bench (release, one core; CPU seconds; peak memory per phase)")
print("")
if wants("ingest") {
  print(
    "Event-log ingest: \(events) events, \(IngestBench.userCount) diners x \(IngestBench.itemCount) dishes"
  )
  print("  phase                                   MB      s      MB/s    events/s   peak MiB")
  var decoderRate = 0.0
  var rows: [(String, [String: Double])] = []
  for (name, phase) in [
    ("JSONDecoder baseline (first 40 MB)", "decoder"),
    ("reader only, JSON Lines", "scan-jsonl"),
    ("reader only, CSV", "scan-csv"),
    ("ingest into history, JSON Lines", "ingest-jsonl"),
    ("ingest into history, CSV", "ingest-csv"),
  ] {
    let r = try runChild(phase)
    rows.append((name, r))
    let rate = mb(Int(r["bytes"]!)) / r["seconds"]!
    if phase == "decoder" { decoderRate = rate }
    let line =
      "  " + name.padding(toLength: 36, withPad: " ", startingAt: 0)
      + fmt(mb(Int(r["bytes"]!)), 0).leftPad(7) + fmt(r["seconds"]!, 2).leftPad(7)
      + fmt(rate, 0).leftPad(10) + fmt(r["events"]! / r["seconds"]!, 0).leftPad(12)
      + fmt(r["peak"]!, 0).leftPad(11)
      + (phase == "decoder" ? "" : "   x" + fmt(rate / decoderRate, 1) + " JSONDecoder")
    print(line)
  }
}

print("")
if wants("realistic") || wants("e2e") {
  let files = try RealisticBench.generate(events: events, diners: realDiners, in: dir)
  func size(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
  }
  print(
    "The realistic log: \(events) swipes, \(realDiners) diners interleaved, UTC times, no deck field, \(RealisticBench.dishes) dishes (\(fmt(mb(size(files.csv)), 0)) MB CSV, \(fmt(mb(size(files.jsonl)), 0)) MB JSON Lines)"
  )
  if wants("realistic") {
    print("  in process (best case: reader and history only, warm, best of \(IngestBench.repeats))")
    for (name, phase) in [
      ("ingest into history, JSON Lines", "ingest-real-jsonl"),
      ("ingest into history, CSV", "ingest-real-csv"),
    ] {
      let r = try runChild(phase)
      print(
        "    " + name.padding(toLength: 34, withPad: " ", startingAt: 0)
          + fmt(r["seconds"]!, 2).leftPad(7) + " s"
          + fmt(mb(Int(r["bytes"]!)) / r["seconds"]!, 0)
          .leftPad(7) + " MB/s" + fmt(r["events"]! / r["seconds"]!, 0).leftPad(11) + " events/s"
          + fmt(r["peak"]!, 0).leftPad(7) + " MiB peak")
    }
  }
  if wants("e2e") {
    if let binary = RealisticBench.binary(option("--menudeck")) {
      print(
        "  end to end: the built menudeck command, \(rounds) alternating rounds, medians (\(binary))"
      )
      try RealisticBench.endToEnd(binary: binary, dir: dir, diners: realDiners, rounds: rounds)
    } else {
      print(
        "  end to end: skipped, no menudeck binary beside this one (swift build -c release, or --menudeck PATH)"
      )
    }
  }
}

print("")
if wants("users") {
  print("Users file: \(realDiners) diners (UsersReader.read, best of 5, CPU seconds)")
  for (name, phase) in [("JSON (Scripts/peers.py's shape)", "users-json"), ("CSV", "users-csv")] {
    let r = try runChild(phase)
    print(
      "  " + name.padding(toLength: 34, withPad: " ", startingAt: 0)
        + fmt(mb(Int(r["bytes"]!)), 1).leftPad(5) + " MB" + fmt(r["seconds"]! * 1000, 1).leftPad(8)
        + " ms" + fmt(r["peak"]!, 0).leftPad(7) + " MiB peak")
  }
}

print("")
if wants("snapshots") {
  try FileManager.default.createDirectory(
    atPath: dir + "/snapshot", withIntermediateDirectories: true)
  let si = try runChild("snapshot-ingest")
  print(
    "Snapshots: \(snapshotEvents) events (\(fmt(mb(Int(si["bytes"]!)), 0)) MB of JSON Lines) -> \(Int(si["pairs"]!)) (diner, dish) pairs"
  )
  print(
    "  ingest into a snapshot   \(fmt(si["seconds"]!, 2)) s   \(fmt(mb(Int(si["bytes"]!)) / si["seconds"]!, 0)) MB/s   \(fmt(si["events"]! / si["seconds"]!, 0)) events/s   peak \(fmt(si["peak"]!, 0)) MiB   snapshot \(fmt(mb(Int(si["snapshot"]!)), 1)) MB"
  )
  let mg = try runChild("merge")
  print(
    "  merge 16 shard snapshots \(fmt(mg["seconds"]!, 2)) s (+ \(fmt(mg["decode"]!, 2)) s to read them)   peak \(fmt(mg["peak"]!, 0)) MiB"
  )
}

print("")
if wants("decks") {
  let d = try runChild("decks")
  print(
    "Deck building: \(deckUsers) diners x \(deckItems) dishes, affinity, default rules (\(Int(d["events"]!)) events of history)"
  )
  print(
    "  build decks        \(fmt(d["build"]!, 2)) s   \(fmt(Double(deckUsers) / d["build"]!, 0)) diners/s"
  )
  print("  + write as JSON    \(fmt(d["write"]!, 2)) s")
  print("  peak memory        \(fmt(d["peak"]!, 0)) MiB (including generating the history)")
}

print("")
if wants("simulate") {
  SimulationBench.report(try runChild("simulate"))
}

print("")
if wants("compare") {
  CompareBench.report(compare: try runChild("compare"), bootstrap: try runChild("bootstrap"))
}

print("")
if wants("plugin") {
  for items in [50, 500] {
    let p = try runChild("plugin", extra: ["--plugin-items", String(items)])
    print(
      "Plugin: \(Int(p["users"]!)) diners x \(items) dishes through a trivial Python plugin (Tests/Fixtures/plugins/misbehave.py, no fault)"
    )
    print(
      "  start \(fmt(p["start"]!, 2)) s, learn \(fmt(p["learn"]!, 2)) s, rank and build \(fmt(p["build"]!, 2)) s (wall clock: the plugin runs in its own process)"
    )
  }
}

print("")
if wants("ease") {
  print("ease (lambda 500, synthetic right swipes; CPU seconds of one thread)")
  for (items, repeats) in [(500, 3), (5000, 1)] {
    let r = try runChild(
      "ease-fit", extra: ["--ease-items", String(items), "--ease-repeats", String(repeats)])
    print(
      "  fit, \(Int(r["dishes"]!)) dishes, \(Int(r["pairs"]!)) swipes   \(fmt(r["fit"]!, 3)) s   peak \(fmt(r["peak"]!, 0)) MiB"
    )
  }
  let s = try runChild("ease-score", extra: ["--ease-items", "500"])
  print(
    "  score \(Int(s["users"]!)) diners x 500 dishes: scores and top 10 \(fmt(s["kernel"]!, 2)) s, decks (default rules) \(fmt(s["decks"]!, 2)) s"
  )
}

print("")
if wants("hash") {
  HashBench.report(try runChild("hash"), mebibytes: hashMebibytes, repeats: IngestBench.repeats)
}

extension String {
  func leftPad(_ n: Int) -> String {
    count >= n ? self : String(repeating: " ", count: n - count) + self
  }
}
