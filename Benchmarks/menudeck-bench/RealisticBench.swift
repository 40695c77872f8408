import DeckCore
import DeckIO
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The log users have, beside the benchmark's cache-friendly one: many diners (100,000 at full
/// size), sessions of 1 to 10 cards on random days of November 2026 interleaved with everyone
/// else's (sorted by time), times in UTC, no deck field, popularity skewed over the dishes.
/// Measured in process (the reader and the history, as the ingest phases above) and end to end
/// through the built `menudeck` binary (`e2e`), each command in a child process, in alternating
/// rounds, median of the rounds: CPU seconds of the child (all its threads) and wall seconds.
enum RealisticBench {
  static let dishes = 500

  /// Writes the log (CSV and JSON Lines), a catalog and users file in CSV, and a config (UTC,
  /// popularity) into `dir`; returns the log paths.
  static func generate(events: Int, diners: Int, in dir: String) throws -> (
    jsonl: String, csv: String
  ) {
    let jsonl = dir + "/real.jsonl"
    let csv = dir + "/real.csv"
    let fm = FileManager.default
    if fm.fileExists(atPath: jsonl), fm.fileExists(atPath: csv) { return (jsonl, csv) }
    var random = RandomStream(seed: 14)
    // Cumulative weights 1 / (1 + k)^0.8: a few dishes take most swipes.
    var cumulative: [Double] = []
    var sum = 0.0
    for k in 0..<dishes {
      sum += 1 / pow(Double(1 + k), 0.8)
      cumulative.append(sum)
    }
    func dish() -> Int {
      let x = random.nextDouble() * sum
      var lo = 0
      var hi = dishes - 1
      while lo < hi {
        let mid = (lo + hi) / 2
        if cumulative[mid] < x { lo = mid + 1 } else { hi = mid }
      }
      return lo
    }
    let start = 1_793_491_200  // 2026-11-01T00:00:00Z
    var rows: [(t: Int, user: Int32, item: Int16, right: Bool, position: Int8)] = []
    rows.reserveCapacity(events)
    while rows.count < events {
      let user = Int32(random.nextInt(below: diners))
      var t = start + random.nextInt(below: 30 * 86_400)
      for position in 1...(1 + random.nextInt(below: 10)) {
        let right = random.nextDouble() < 0.25
        rows.append((t, user, Int16(dish()), right, Int8(position)))
        t += 2 + random.nextInt(below: 8)
        if right || rows.count >= events { break }
      }
    }
    rows.sort { ($0.t, $0.user, $0.position) < ($1.t, $1.user, $1.position) }
    var c: [UInt8] = Array("user,item,swipe,at,position\n".utf8)
    var j: [UInt8] = []
    c.reserveCapacity(events * 48)
    j.reserveCapacity(events * 96)
    for r in rows {
      let at = iso(r.t)
      let swipe = r.right ? "right" : "left"
      c += Array("user\(r.user),dish\(r.item),\(swipe),\(at),\(r.position)\n".utf8)
      j += Array(
        ("{\"user\":\"user\(r.user)\",\"item\":\"dish\(r.item)\",\"swipe\":\"\(swipe)\","
          + "\"at\":\"\(at)\",\"position\":\(r.position)}\n").utf8)
    }
    try Data(c).write(to: URL(fileURLWithPath: csv))
    try Data(j).write(to: URL(fileURLWithPath: jsonl))
    var catalog = "id,name,category,tags,price\n"
    for item in SyntheticData.catalog(count: dishes).items {
      catalog +=
        "\(item.id),\(item.name),\(item.category),\(item.tags.joined(separator: "|")),"
        + "\(Int(item.price ?? 500))\n"
    }
    try catalog.write(toFile: dir + "/real-catalog.csv", atomically: true, encoding: .utf8)
    var users = "id,diets,allergens,disliked_categories\n"
    for u in 0..<diners { users += "user\(u),,,\n" }
    try users.write(toFile: dir + "/real-users.csv", atomically: true, encoding: .utf8)
    let config = """
      {"catalog": "real-catalog.csv", "users": "real-users.csv", "strategy": "popularity",
       "seed": 1, "time_zone": "UTC", "format": "jsonl",
       "deck": {"size": 10, "max_per_category": 3, "avoid_adjacent_category": true,
                "repeat_pick_days": 6, "cooldown_days": 3, "reshow_days": 2}}
      """
    try config.write(toFile: dir + "/real-config.json", atomically: true, encoding: .utf8)
    return (jsonl, csv)
  }

  static func iso(_ t: Int) -> String {
    var time = time_t(t)
    var parts = tm()
    gmtime_r(&time, &parts)
    func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : String(v) }
    return "\(1900 + parts.tm_year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
  }

  /// The reader and the history in process on the realistic log (UTC): the ingest phases'
  /// measurement, best of the repeats.
  static func ingest(path: String) throws -> IngestBench.Result {
    try IngestBench.best {
      let catalog = SyntheticData.catalog(count: dishes)
      let reader = EventReader(options: IngestBench.readerOptions(FixedUTCOffset.utc))
      let t0 = Clock.cpuNow()
      var sink = HistoryIngest(catalog: catalog)
      let stats = try reader.read([EventSource(path: path)], into: &sink)
      let history = try sink.build()
      let t1 = Clock.cpuNow()
      let pairs = history.users.values.reduce(0) { $0 + $1.records.count }
      return IngestBench.Result(
        bytes: stats.bytes, events: stats.events, seconds: t1 - t0, pairs: pairs)
    }
  }

  /// The `menudeck` binary beside this one (or `--menudeck PATH`).
  static func binary(_ given: String?) -> String? {
    let path =
      given
      ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("menudeck").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
  }

  /// Runs `menudeck arguments` in `dir` with its output to /dev/null; (CPU, wall) seconds.
  static func timed(_ binary: String, _ arguments: [String], in dir: String) throws -> (
    Double, Double
  ) {
    var before = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &before)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: dir)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let t0 = Clock.now()
    try process.run()
    process.waitUntilExit()
    let wall = Clock.now() - t0
    var after = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &after)
    guard process.terminationStatus == 0 else {
      throw NSError(
        domain: "menudeck-bench", code: 1,
        userInfo: [
          NSLocalizedDescriptionKey:
            "menudeck \(arguments.joined(separator: " ")) exited \(process.terminationStatus)"
        ])
    }
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
    let cpu =
      seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime)
      - seconds(before.ru_stime)
    return (cpu, wall)
  }

  /// The end-to-end table: each command with one thread and with every core, in alternating
  /// rounds.
  static func endToEnd(binary: String, dir: String, diners: Int, rounds: Int) throws {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let common = ["--config", "real-config.json"]
    let work: [(String, [String])] = [
      (
        "CSV ingest + one deck (deck --history real.csv --user user1)",
        ["deck"] + common + [
          "--date", "2026-12-01", "--quiet", "--history", "real.csv", "--user", "user1",
        ]
      ),
      (
        "JSON Lines ingest + one deck",
        ["deck"] + common + [
          "--date", "2026-12-01", "--quiet", "--history", "real.jsonl", "--user", "user1",
        ]
      ),
      (
        "CSV into a snapshot (ingest real.csv --out)",
        ["ingest"] + common + ["--before", "2026-12-01", "real.csv", "--out", "real.snap"]
      ),
      (
        "JSON Lines into a snapshot",
        ["ingest"] + common + ["--before", "2026-12-01", "real.jsonl", "--out", "real.snap"]
      ),
      ("stats of the CSV log", ["stats"] + common + ["real.csv", "--format", "csv"]),
      (
        "\(diners) decks x \(dishes) dishes from the snapshot",
        ["deck"] + common + ["--date", "2026-12-01", "--quiet", "--history", "real.snap"]
      ),
    ]
    // The snapshot the last command reads.
    _ = try timed(binary, work[2].1 + ["--jobs", "1"], in: dir)
    print(
      "  command                                                   1 thread CPU   wall   |  \(cores) threads wall   CPU"
    )
    for (name, arguments) in work {
      var one: [(Double, Double)] = []
      var all: [(Double, Double)] = []
      for r in 0..<rounds {
        let first = r % 2 == 0
        if first { one.append(try timed(binary, arguments + ["--jobs", "1"], in: dir)) }
        all.append(try timed(binary, arguments + ["--jobs", String(cores)], in: dir))
        if !first { one.append(try timed(binary, arguments + ["--jobs", "1"], in: dir)) }
      }
      func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
      let line =
        "  " + name.padding(toLength: 58, withPad: " ", startingAt: 0)
        + fmt(median(one.map(\.0)), 2).leftPad(8) + " s" + fmt(median(one.map(\.1)), 2).leftPad(7)
        + " s  |" + fmt(median(all.map(\.1)), 2).leftPad(10) + " s"
        + fmt(median(all.map(\.0)), 2)
        .leftPad(8) + " s   x" + fmt(median(one.map(\.1)) / median(all.map(\.1)), 2)
      print(line)
    }
  }
}
