import DeckCore
import DeckIO
import Foundation

/// Event-log ingest: the streaming reader with validation and aggregation into a history, beside
/// Foundation's JSONDecoder decoding the same lines.
enum IngestBench {
  static let userCount = 10_000
  static let itemCount = 500

  /// Writes `events` synthetic events as JSON Lines and CSV into `dir`; returns both paths.
  static func generate(events: Int, in dir: String) throws -> (jsonl: String, csv: String) {
    let jsonl = dir + "/events.jsonl"
    let csv = dir + "/events.csv"
    if FileManager.default.fileExists(atPath: jsonl), FileManager.default.fileExists(atPath: csv) {
      return (jsonl, csv)
    }
    var random = RandomStream(seed: 5)
    var j: [UInt8] = []
    var c: [UInt8] = Array("user,item,swipe,at,position,deck\n".utf8)
    j.reserveCapacity(events * 130)
    c.reserveCapacity(events * 80)
    var user = 0
    var position = 1
    for n in 0..<events {
      // Sessions: a diner swipes up to 10 cards in a row.
      if position > 10 || random.nextDouble() < 0.15 {
        user = random.nextInt(below: userCount)
        position = 1
      }
      let item = random.nextInt(below: itemCount)
      let right = random.nextDouble() < 0.12
      let day = (n * 28) / events
      let second = 61_200 + random.nextInt(below: 14_400)
      j.append(
        contentsOf: SyntheticData.eventLine(
          csv: false, user: user, item: item, right: right, day: day, second: second,
          position: position
        ).utf8)
      c.append(
        contentsOf: SyntheticData.eventLine(
          csv: true, user: user, item: item, right: right, day: day, second: second,
          position: position
        ).utf8)
      position += 1
    }
    try Data(j).write(to: URL(fileURLWithPath: jsonl))
    try Data(c).write(to: URL(fileURLWithPath: csv))
    return (jsonl, csv)
  }

  struct Result {
    var bytes: Int
    var events: Int
    var seconds: Double
    var pairs: Int
  }

  /// Each measurement runs this many times in its process; the fastest run is reported. Every
  /// run does all the work again: it reads the file through the reader and, for ingest, fills a
  /// new history. The repeats only take out some of the noise of a shared machine.
  static let repeats =
    Int(ProcessInfo.processInfo.environment["MENUDECK_BENCH_REPEATS"] ?? "").map { max($0, 1) } ?? 3

  static func best(_ run: () throws -> Result) rethrows -> Result {
    var best = try run()
    for _ in 1..<repeats {
      let r = try run()
      precondition(r.events == best.events && r.pairs == best.pairs, "runs disagree")
      if r.seconds < best.seconds { best = r }
    }
    return best
  }

  /// Reads the file with the streaming reader into a HistoryBuilder and builds the History.
  /// With `MENUDECK_BENCH_STAGES=1` in the environment, also prints where the time goes (see
  /// `stages`) to standard error first.
  static func ingest(path: String) throws -> Result {
    if ProcessInfo.processInfo.environment["MENUDECK_BENCH_STAGES"] == "1" {
      try printStages(path: path)
    }
    return try best { try ingestOnce(path: path) }
  }

  static func ingestOnce(path: String) throws -> Result {
    let catalog = SyntheticData.catalog(count: itemCount)
    let zone = TimeZoneOffsets(TimeZone(identifier: "Asia/Tokyo")!)
    let reader = EventReader(options: readerOptions(zone))
    let t0 = Clock.cpuNow()
    var sink = HistoryIngest(catalog: catalog)
    let stats = try reader.read([EventSource(path: path)], into: &sink)
    let history = try sink.build()
    let t1 = Clock.cpuNow()
    let pairs = history.users.values.reduce(0) { $0 + $1.records.count }
    return Result(bytes: stats.bytes, events: stats.events, seconds: t1 - t0, pairs: pairs)
  }

  /// The reader alone, into a sink that only counts.
  static func scanOnly(path: String) throws -> Result {
    try best { try scanOnlyOnce(path: path) }
  }

  static func scanOnlyOnce(path: String) throws -> Result {
    struct Counter: EventSink {
      var n = 0
      mutating func event(_ e: RawEvent) -> EventDisposition {
        n &+= Int(e.position)
        return .accepted
      }
    }
    let zone = TimeZoneOffsets(TimeZone(identifier: "Asia/Tokyo")!)
    let reader = EventReader(options: readerOptions(zone))
    let t0 = Clock.cpuNow()
    var sink = Counter()
    let stats = try reader.read([EventSource(path: path)], into: &sink)
    let t1 = Clock.cpuNow()
    return Result(bytes: stats.bytes, events: stats.events, seconds: t1 - t0, pairs: 0)
  }

  struct DecodedEvent: Decodable {
    var user: String
    var item: String
    var swipe: String
    var at: String
    var position: Int?
    var deck: String?
  }

  /// Foundation's JSONDecoder on the first `limit` bytes of the JSON Lines file, line by line,
  /// with no validation or aggregation beyond decoding (a generous baseline).
  static func jsonDecoderBaseline(path: String, limit: Int) throws -> Result {
    try best { try jsonDecoderBaselineOnce(path: path, limit: limit) }
  }

  static func jsonDecoderBaselineOnce(path: String, limit: Int) throws -> Result {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    let data = try handle.read(upToCount: limit) ?? Data()
    try handle.close()
    let decoder = JSONDecoder()
    let t0 = Clock.cpuNow()
    var events = 0
    var bytes = 0
    var start = data.startIndex
    while let newline = data[start...].firstIndex(of: 0x0A) {
      let line = data[start..<newline]
      _ = try decoder.decode(DecodedEvent.self, from: line)
      events += 1
      bytes += line.count + 1
      start = newline + 1
    }
    let t1 = Clock.cpuNow()
    return Result(bytes: bytes, events: events, seconds: t1 - t0, pairs: 0)
  }
}

// MARK: - Where the ingest time goes

extension IngestBench {
  /// CPU nanoseconds per event of each stage of the ingest, each the best of `stageRounds` interleaved rounds:
  /// - `reader`: the reader with validation into a sink that only counts;
  /// - `aggregate`: the bulk `HistoryBuilder.add` alone, over the same events already decoded
  ///   and looked up (batches of 256, as `HistoryIngest` makes them), into a new builder;
  /// - `build`: `HistoryBuilder.build()` after the whole ingest;
  /// - `lookUps`: the rest of the whole ingest (reader, `HistoryIngest` and aggregation in one
  ///   loop): catalog and user look-ups, queueing, and what the stages cost each other in caches
  ///   when they share a loop: the best whole ingest loop less the best reader and the best
  ///   aggregation, so that the four stages add up to the best whole ingest. All three are timed
  ///   in the same rounds of this one process, back to back (the reader before the ingest in
  ///   even rounds, after it in odd ones, so that a drift of the machine's speed favours
  ///   neither); a shared machine only ever adds time, so each best is the run least disturbed,
  ///   whereas a difference taken within one round, or the best of such differences, is as
  ///   noisy as its two terms and can go below zero.
  struct Stages {
    var reader = Double.infinity
    var lookUps = Double.infinity
    var aggregate = Double.infinity
    var build = Double.infinity
  }

  /// A sink that looks events up as `HistoryIngest` does and keeps them all, decoded, for
  /// aggregating them alone.
  struct DecodedSwipes: EventSink {
    var items: ByteTable
    var users = ByteTable(capacity: 1024)
    var swipes: [HistoryBuilder.Swipe] = []

    mutating func event(_ e: RawEvent) -> EventDisposition {
      guard let item = items.find(e.item) else { return .unknownItem }
      let user = users.insert(e.user).index
      swipes.append(
        HistoryBuilder.Swipe(
          user: user, item: item, swipe: e.swipe, day: e.day, position: e.position))
      return .accepted
    }
  }

  static func stages(path: String) throws -> Stages {
    let catalog = SyntheticData.catalog(count: itemCount)
    let zone = TimeZoneOffsets(TimeZone(identifier: "Asia/Tokyo")!)
    let reader = EventReader(options: readerOptions(zone))
    var items = ByteTable(capacity: catalog.count)
    for item in catalog.items { items.insert(item.id) }
    var decoded = DecodedSwipes(items: items)
    _ = try reader.read([EventSource(path: path)], into: &decoded)
    let events = Double(decoded.swipes.count)
    var stages = Stages()
    var whole = Double.infinity
    for round in 0..<stageRounds {
      // The reader alone and the whole ingest (its build timed apart), back to back.
      var scan = Result(bytes: 0, events: 0, seconds: 0, pairs: 0)
      if round % 2 == 0 { scan = try scanOnlyOnce(path: path) }
      let t0 = Clock.cpuNow()
      var sink = HistoryIngest(catalog: catalog)
      _ = try reader.read([EventSource(path: path)], into: &sink)
      let t1 = Clock.cpuNow()
      let history = try sink.build()
      let t2 = Clock.cpuNow()
      if round % 2 == 1 { scan = try scanOnlyOnce(path: path) }
      precondition(history.events == decoded.swipes.count, "the ingest lost events")
      // The aggregation alone.
      var builder = HistoryBuilder(itemCount: catalog.count)
      for u in 0..<decoded.users.count { _ = builder.userSlot(decoded.users.string(at: Int32(u))) }
      let t3 = Clock.cpuNow()
      decoded.swipes.withUnsafeBufferPointer { all in
        var i = 0
        while i < all.count {
          let n = min(256, all.count - i)
          builder.add(UnsafeBufferPointer(rebasing: all[i..<(i + n)]))
          i += n
        }
      }
      let t4 = Clock.cpuNow()
      precondition(builder.pairCount == sink.builder.pairCount, "the aggregations disagree")
      let ns = 1e9 / events
      stages.reader = min(stages.reader, scan.seconds * ns)
      stages.aggregate = min(stages.aggregate, (t4 - t3) * ns)
      stages.build = min(stages.build, (t2 - t1) * ns)
      whole = min(whole, (t1 - t0) * ns)
    }
    stages.lookUps = whole - stages.reader - stages.aggregate
    return stages
  }

  /// Rounds of `stages` (each times every stage once).
  static let stageRounds = 5

  static func printStages(path: String) throws {
    let s = try stages(path: path)
    func ns(_ x: Double) -> String { String(Int(x.rounded())) }
    let line =
      "  stages of \((path as NSString).lastPathComponent), ns per event (best of \(stageRounds) "
      + "interleaved rounds; they add up to the best whole ingest): reader \(ns(s.reader)), "
      + "look-ups and the rest \(ns(s.lookUps)), aggregation \(ns(s.aggregate)), "
      + "build \(ns(s.build))\n"
    FileHandle.standardError.write(Data(line.utf8))
  }
}

extension IngestBench {
  /// The reader's options: the default ones, with `MENUDECK_BENCH_CHUNK` (bytes per read) when
  /// set, for trying other read sizes.
  static func readerOptions(_ zone: any UTCOffsetProvider) -> EventReaderOptions {
    var options = EventReaderOptions(zone: zone)
    if let chunk = ProcessInfo.processInfo.environment["MENUDECK_BENCH_CHUNK"].flatMap({ Int($0) })
    {
      options.chunkSize = max(chunk, 4096)
    }
    return options
  }
}
