import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// `EventReader.readSnapshot(jobs:)` against the serial reader: the same snapshot, counts,
/// unknown ids, rejected lines (in order) and first error, for every number of parts, on logs
/// with the awkward parts of both formats.
@Suite("Event reader on several threads")
struct EventReaderParallelTests {
  struct Outcome: Equatable {
    var snapshot: HistorySnapshot?
    var stats: EventReadStats?
    /// The line of the first swipe on or after the cutoff (kept pending in the snapshot).
    var firstPendingLine = 0
    var rejects: [EventReject] = []
    var error: DeckIOError?
  }

  static func serial(
    _ path: String, _ format: EventFormat, skip: Bool, cutoff: DeckDate?,
    zone: any UTCOffsetProvider = FixedUTCOffset.utc, header: [UInt8]? = nil,
    delimiter: CSVDelimiter = .comma
  ) -> Outcome {
    var out = Outcome()
    let rejects = Box()
    var options = EventReaderOptions(
      zone: zone, skipBadLines: skip, chunkSize: 97,
      onReject: { r throws(DeckIOError) in rejects.items.append(r) })
    options.csvHeader = header
    options.csvDelimiter = delimiter
    let reader = EventReader(options: options)
    var ingest = SnapshotIngest(cutoff: cutoff)
    do {
      out.stats = try reader.read([EventSource(path: path, format: format)], into: &ingest)
      out.snapshot = ingest.builder.build()
      out.firstPendingLine = ingest.firstPendingLine
    } catch {
      out.error = error
    }
    out.rejects = rejects.items
    return out
  }

  static func parallel(
    _ path: String, _ format: EventFormat, skip: Bool, cutoff: DeckDate?, jobs: Int,
    zone: any UTCOffsetProvider = FixedUTCOffset.utc, header: [UInt8]? = nil,
    delimiter: CSVDelimiter = .comma
  ) -> (Outcome, parts: Int) {
    var out = Outcome()
    let rejects = Box()
    var options = EventReaderOptions(
      zone: zone, skipBadLines: skip, chunkSize: 97,
      onReject: { r throws(DeckIOError) in rejects.items.append(r) })
    options.csvHeader = header
    options.csvDelimiter = delimiter
    let reader = EventReader(options: options)
    var parts = 0
    do {
      let r = try reader.readSnapshot(
        path: path, format: format, cutoff: cutoff, jobs: jobs, minimumPartBytes: 64)
      out.snapshot = r.snapshot
      out.stats = r.stats
      out.firstPendingLine = r.firstPendingLine
      parts = r.parts
    } catch {
      out.error = error
    }
    out.rejects = rejects.items
    return (out, parts)
  }

  final class Box: @unchecked Sendable { var items: [EventReject] = [] }

  /// A log of `n` events of 40 diners: CSV with a note column that has quoted commas (the
  /// delimiter `d`; the other delimiters unquoted), doubled quotes and line breaks; optional
  /// CRLF, byte order mark, blank lines and bad records (written with commas: their commas
  /// become `d`).
  static func log(
    _ format: EventFormat, n: Int, seed: UInt64, crlf: Bool = false, bom: Bool = false,
    bad: [Int: String] = [:], delimiter d: CSVDelimiter = .comma
  ) -> String {
    let s = String(UnicodeScalar(d.byte))
    var stream = RandomStream(
      seed: seed, date: DeckDate(year: 2026, month: 11, day: 1)!, user: "log")
    let end = crlf ? "\r\n" : "\n"
    var out = bom ? "\u{FEFF}" : ""
    if format == .csv {
      out += ["user", "item", "swipe", "at", "position", "note"].joined(separator: s) + end
    }
    for k in 0..<n {
      if let line = bad[k] {
        out += (format == .csv ? line.replacingOccurrences(of: ",", with: s) : line) + end
        continue
      }
      let user = "u\(stream.nextInt(below: 40))"
      let item = "dish-\(stream.nextInt(below: 25))"
      let swipe = stream.nextDouble() < 0.3 ? "right" : "left"
      let day = 1 + stream.nextInt(below: 28)
      let at = String(format: "2026-11-%02dT12:%02d:%02dZ", day, k % 60, k % 59)
      let position = 1 + stream.nextInt(below: 10)
      if k % 17 == 5 { out += end }  // a blank line
      switch format {
      case .csv:
        let notes = [
          "", "plain", "\"a\(s) b\"", "\"say \"\"hi\"\"\"", "\"two\nlines\"", "\"x\r\ny\"",
          d == .comma ? "c;d\te" : "c,d",
        ]
        let note = notes[stream.nextInt(below: notes.count)]
        out += [user, item, swipe, at, "\(position)", note].joined(separator: s) + end
      case .jsonLines:
        out +=
          "{\"user\":\"\(user)\",\"item\":\"\(item)\",\"swipe\":\"\(swipe)\",\"at\":\"\(at)\","
          + "\"position\":\(position),\"note\":\"a\\nb \\\" c\"}" + end
      }
    }
    return out
  }

  /// Several parts per thread (`readInParts(partsPerWorker:)`, the threads taking the next part
  /// as they come free): the parts in file order, so the same snapshot and counts as the
  /// serial reader.
  @Test(
    "several parts per thread give the serial reader's history",
    arguments: [EventFormat.csv, .jsonLines])
  func severalPartsPerThread(format: EventFormat) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent(format == .csv ? "log.csv" : "log.jsonl").path
    try Data(Self.log(format, n: 3000, seed: 11).utf8).write(to: URL(fileURLWithPath: path))
    let want = Self.serial(path, format, skip: false, cutoff: nil)
    for jobs in [2, 3] {
      let reader = EventReader(
        options: EventReaderOptions(zone: FixedUTCOffset.utc, skipBadLines: false, chunkSize: 97))
      let read = try reader.readInParts(
        path: path, format: format, jobs: jobs, partsPerWorker: 4, minimumPartBytes: 64,
        sink: { SnapshotIngest(cutoff: nil) }, finish: { $0.builder.build() })
      #expect(read.parts == 4 * jobs, "jobs \(jobs)")
      var merged = read.results[0]
      for part in read.results.dropFirst() { merged = try HistorySnapshot.merge(merged, part) }
      #expect(merged == want.snapshot, "jobs \(jobs)")
      #expect(read.stats == want.stats, "jobs \(jobs)")
    }
  }

  /// Reads `text` serially and in parts: the same outcome, which is returned.
  @discardableResult
  static func check(
    _ text: String, _ format: EventFormat, skip: Bool, cutoff: DeckDate? = nil,
    jobs: [Int] = [2, 3, 7], expectParts: Bool = true, delimiter: CSVDelimiter = .comma
  ) throws -> Outcome {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent(format == .csv ? "log.csv" : "log.jsonl").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let want = serial(path, format, skip: skip, cutoff: cutoff, delimiter: delimiter)
    for j in jobs {
      let (got, parts) = parallel(
        path, format, skip: skip, cutoff: cutoff, jobs: j, delimiter: delimiter)
      #expect(got == want, "jobs \(j)")
      if expectParts && want.error == nil && want.rejects.isEmpty {
        #expect(parts > 1, "jobs \(j): read in \(parts) part(s)")
      }
    }
    let (one, parts) = parallel(
      path, format, skip: skip, cutoff: cutoff, jobs: 1, delimiter: delimiter)
    #expect(one == want)
    if want.error == nil { #expect(parts == 1) }
    return want
  }

  @Test(
    "clean logs: the serial reader's snapshot and counts",
    arguments: [EventFormat.csv, .jsonLines], [false, true])
  func clean(format: EventFormat, crlf: Bool) throws {
    try Self.check(Self.log(format, n: 600, seed: 1, crlf: crlf), format, skip: false)
    try Self.check(
      Self.log(format, n: 600, seed: 2, crlf: crlf, bom: true), format, skip: false,
      cutoff: DeckDate(year: 2026, month: 11, day: 15))
  }

  static let csvBad: [Int: String] = [
    100: "u1,dish-1,sideways,2026-11-02T10:00:00Z,1,",
    250: "u2,di\"sh,right,2026-11-02T10:00:00Z,1,",  // a quote inside an unquoted field
    400: "u4,dish-3,left,2026-11-40T10:00:00Z,1,",
  ]
  /// One quote too many: past it, counting quotes says "inside quotes" where the reader, which
  /// refused the record and went on at the next line, is outside them.
  static let csvOddQuote: [Int: String] = [150: "u2,di\"sh,right,2026-11-02T10:00:00Z,1,"]
  static let jsonBad: [Int: String] = [
    100: "{\"user\":\"u1\",\"item\":\"dish-1\",\"swipe\":\"up\",\"at\":\"2026-11-02T10:00:00Z\"}",
    250: "{\"user\":\"u2\",\"item\":",
    400: "not json at all \"",
  ]

  @Test(
    "bad records, skipped or refused: the same rejects in order, or the same first error",
    arguments: [EventFormat.csv, .jsonLines], [false, true])
  func badRecords(format: EventFormat, skip: Bool) throws {
    let bad = format == .csv ? Self.csvBad : Self.jsonBad
    try Self.check(
      Self.log(format, n: 600, seed: 3, bad: bad), format, skip: skip, expectParts: false)
  }

  @Test(
    "a stray quote flips the quote count: the parts after it are read again",
    arguments: [false, true])
  func strayQuote(skip: Bool) throws {
    try Self.check(
      Self.log(.csv, n: 600, seed: 8, bad: Self.csvOddQuote), .csv, skip: skip, expectParts: false)
  }

  @Test("a lone carriage return stops the run at the same place", arguments: [false, true])
  func loneCR(skip: Bool) throws {
    var text = Self.log(.jsonLines, n: 300, seed: 4)
    let index = text.utf8.index(text.utf8.startIndex, offsetBy: text.utf8.count * 2 / 3)
    text.insert("\r", at: index)
    try Self.check(text, .jsonLines, skip: skip, expectParts: false)
  }

  @Test(
    "a zone with daylight saving time: the same days", arguments: [EventFormat.csv, .jsonLines])
  func zone(format: EventFormat) throws {
    let text = Self.log(format, n: 500, seed: 5)
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent(format == .csv ? "log.csv" : "log.jsonl").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let zone = TimeZoneOffsets(TimeZone(identifier: "America/New_York")!)
    let want = Self.serial(path, format, skip: false, cutoff: nil, zone: zone)
    let (got, parts) = Self.parallel(path, format, skip: false, cutoff: nil, jobs: 3, zone: zone)
    #expect(got == want)
    #expect(parts == 3)
  }

  /// The cuts keep their rule (line feeds outside quotes) whatever the delimiter.
  @Test(
    "semicolons and tabs: the serial reader's snapshot, the comma log's",
    arguments: [CSVDelimiter.semicolon, .tab], [false, true])
  func otherDelimiters(delimiter: CSVDelimiter, crlf: Bool) throws {
    let comma = try Self.check(Self.log(.csv, n: 600, seed: 10, crlf: crlf), .csv, skip: false)
    let other = try Self.check(
      Self.log(.csv, n: 600, seed: 10, crlf: crlf, delimiter: delimiter), .csv, skip: false,
      delimiter: delimiter)
    #expect(other.error == nil)
    #expect(other.snapshot == comma.snapshot)
    #expect(other.stats?.events == comma.stats?.events)
    // Bad records, skipped or refused, and a stray quote that flips the count of quotes.
    for skip in [false, true] {
      try Self.check(
        Self.log(.csv, n: 600, seed: 11, bad: Self.csvBad, delimiter: delimiter), .csv,
        skip: skip, expectParts: false, delimiter: delimiter)
      try Self.check(
        Self.log(.csv, n: 600, seed: 12, bad: Self.csvOddQuote, delimiter: delimiter), .csv,
        skip: skip, expectParts: false, delimiter: delimiter)
    }
  }

  @Test("small files, a header alone and empty files are read whole")
  func small() throws {
    try Self.check("user,item,swipe,at\n", .csv, skip: false, expectParts: false)
    try Self.check("", .jsonLines, skip: false, expectParts: false)
    try Self.check(Self.log(.csv, n: 2, seed: 6), .csv, skip: false, expectParts: false)
  }

  @Test("random cuts of random logs", arguments: 0..<12)
  func random(seed: Int) throws {
    let format: EventFormat = seed % 2 == 0 ? .csv : .jsonLines
    let bad = seed % 3 == 0 ? (format == .csv ? Self.csvBad : Self.jsonBad) : [:]
    try Self.check(
      Self.log(format, n: 200 + seed * 37, seed: UInt64(100 + seed), crlf: seed % 4 == 1, bad: bad),
      format, skip: seed % 3 == 0, jobs: [2, 5, 11], expectParts: bad.isEmpty)
  }

  @Test(
    "a CSV log without its header, given it: the headed log's snapshot, its own line numbers",
    arguments: [false, true])
  func givenHeader(skip: Bool) throws {
    let headed = Self.log(.csv, n: 600, seed: 9, bad: skip ? Self.csvBad : [:])
    let cut = headed.firstIndex(of: "\n")!
    let header = Array(headed[..<cut].utf8)
    let body = String(headed[headed.index(after: cut)...])
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let headedPath = dir.appendingPathComponent("headed.csv").path
    let bodyPath = dir.appendingPathComponent("body.csv").path
    try Data(headed.utf8).write(to: URL(fileURLWithPath: headedPath))
    try Data(body.utf8).write(to: URL(fileURLWithPath: bodyPath))
    let want = Self.serial(headedPath, .csv, skip: skip, cutoff: nil)
    let got = Self.serial(bodyPath, .csv, skip: skip, cutoff: nil, header: header)
    #expect(got.snapshot == want.snapshot)
    #expect(got.stats?.events == want.stats?.events)
    #expect(got.stats?.files.first?.lines == want.stats!.files[0].lines - 1)
    #expect(got.stats?.files.first?.bytes == want.stats!.files[0].bytes - header.count - 1)
    func lines(_ o: Outcome) -> [Int] {
      o.rejects.compactMap { r in
        if case .malformed(let location, _) = r.error { return location.line }
        return nil
      }
    }
    #expect(lines(got).map { $0 + 1 } == lines(want))
    #expect(got.rejects.count == (skip ? 3 : 0))
    for j in [2, 3, 7] {
      let (parts, n) = Self.parallel(
        bodyPath, .csv, skip: skip, cutoff: nil, jobs: j, header: header)
      #expect(parts == got, "jobs \(j)")
      if !skip { #expect(n > 1) }
    }
  }
}
