import DeckBase
import DeckCore
import DeckIO
import DeckStrategies
import Foundation

/// Paths and settings after merging the config file with command-line overrides.
package struct RunSettings {
  package var config: MenuDeckConfig
  package var catalogPath: String
  package var usersPath: String?
  package var historyPaths: [String]
  package var strategyName: String
  package var strategy: NamedStrategy
  package var seed: UInt64
  package var date: DeckDate
  package var zone: TimeZone
  package var format: DeckFormat
  package var rules: DeckRules
  package var skipBadLines: Bool
  package var rejectsPath: String?
  /// How to read foreign CSV logs: `--columns`/`--right`/`--left` over the config's `columns`.
  /// nil means the config's (`readLogs` falls back to it).
  package var columns: ColumnMapping? = nil
  /// The header of CSV logs that have none (`--csv-header`).
  package var csvHeader: [UInt8]? = nil
  /// What separates the fields of each kind of CSV input: `--delimiter` over the config's
  /// `csv_delimiter` (set by `readLogs(as:)`).
  package var delimiters = CSVDelimiters()
  /// Hash every history file as it is read, for the run header (`EventFileStats.sha256`).
  package var hashesHistory = false
  /// Counts the bytes of the logs as they are read, for the progress line (`Inputs.counting`).
  package var progress: ProgressCounter? = nil
  /// What the message about a compressed log tells to run instead: this run's command line
  /// with the log decompressed into it (set by `readLogs(as:_:)`).
  package var compressedLogAdvice: EventFormat.CompressedLogAdvice = EventFormat.pipeIntoDeck

  package init(
    config: MenuDeckConfig, catalogPath: String, usersPath: String?, historyPaths: [String],
    strategyName: String, strategy: NamedStrategy, seed: UInt64, date: DeckDate,
    zone: TimeZone, format: DeckFormat, rules: DeckRules, skipBadLines: Bool,
    rejectsPath: String?
  ) {
    self.config = config
    self.catalogPath = catalogPath
    self.usersPath = usersPath
    self.historyPaths = historyPaths
    self.strategyName = strategyName
    self.strategy = strategy
    self.seed = seed
    self.date = date
    self.zone = zone
    self.format = format
    self.rules = rules
    self.skipBadLines = skipBadLines
    self.rejectsPath = rejectsPath
  }

  /// The mapping the logs are read with.
  package var effectiveColumns: ColumnMapping? { columns ?? config.columns }

  /// How the swipe logs are read.
  package var readerOptions: EventReaderOptions {
    var options = EventReaderOptions(
      swipeRule: config.dragRule, zone: TimeZoneOffsets(zone), skipBadLines: skipBadLines,
      columns: effectiveColumns)
    options.csvHeader = csvHeader
    options.csvDelimiter = delimiters.history
    options.hashing = hashesHistory
    options.progress = progress
    options.compressedLogAdvice = compressedLogAdvice
    return options
  }

  /// Settings for a command that only reads swipe logs (`stats`, `ingest`, `compare` on logs):
  /// no strategy, users or deck date.
  package static func readingLogs(
    _ config: MenuDeckConfig, zone: TimeZone, catalogPath: String = "", logs: [String] = [],
    seed: UInt64 = 0, rules: DeckRules? = nil, skipBadLines: Bool, rejectsPath: String? = nil
  ) -> RunSettings {
    RunSettings(
      config: config, catalogPath: catalogPath, usersPath: nil, historyPaths: logs,
      strategyName: "", strategy: NamedStrategy(name: "", use: "", options: [:]), seed: seed,
      date: DeckDate(daysSinceEpoch: 0), zone: zone, format: .json, rules: rules ?? config.rules,
      skipBadLines: skipBadLines, rejectsPath: rejectsPath)
  }
}

package enum Inputs {
  /// The deck builder for `rules`; rules it refuses are the config's data error (exit 65): a
  /// restaurant rule's at the field of the config's `rules` section that is at fault.
  package static func deckBuilder(_ catalog: Catalog, _ rules: DeckRules, _ config: MenuDeckConfig)
    throws
    -> DeckBuilder
  {
    do {
      return try DeckBuilder(catalog: catalog, rules: rules)
    } catch {
      throw configRulesError(error, catalog: catalog, config)
    }
  }

  /// The error to report for deck rules `catalog` refuses: a restaurant rule's at its place in
  /// the config (with a did-you-mean from the catalog), the others under the config's "deck".
  package static func configRulesError(
    _ error: DeckCoreError, catalog: Catalog, _ config: MenuDeckConfig
  ) -> any Error {
    if case .invalidRestaurantRule = error, !config.restaurantRules.locations.isEmpty {
      return config.restaurantRules.error(error, catalog: catalog)
    }
    return JobError(
      .dataError, "\(config.path.isEmpty ? "deck rules" : config.path): deck: \(error)")
  }

  /// The config's time zone; an unknown one is the config's data error (exit 65).
  package static func timeZone(_ config: MenuDeckConfig) throws -> TimeZone {
    guard let zone = TimeZones.zone(named: config.timeZone) else {
      throw JobError(.dataError, "\(config.path): unknown time zone '\(config.timeZone)'")
    }
    return zone
  }

  /// The config a run names: `--config`'s, else the default one.
  package static let defaultConfig = "Config/menudeck.json"

  /// Reads the config at `path`; `given`: whether the command line named it. The default
  /// path may be missing when `mayBeMissing` (the catalog is given on the command line: a run
  /// without a config file).
  package static func loadConfig(
    _ path: String, given: Bool, mayBeMissing: Bool, _ io: JobIO
  ) throws -> MenuDeckConfig {
    let bytes: [UInt8]
    do {
      bytes = try Paths.using(path, io) { p throws(DeckIOError) in
        try TextInput.readBytes(path: p, what: "config")
      }
    } catch {
      guard case .missingFile = error else { throw error }
      // The config itself is missing: there is no config to check.
      guard !given else { throw error.checking(DeckIOError.checkPath) }
      if mayBeMissing { return MenuDeckConfig() }
      throw JobError(
        .noInput,
        "\(path): no such file (the default config); run menudeck from the directory that holds "
          + "Config/, or give --config FILE")
    }
    return try MenuDeckConfig.parse(bytes, path: path) { included, what throws(DeckIOError) in
      try Paths.using(included, io) { p throws(DeckIOError) in
        try TextInput.readBytes(path: p, what: what)
      }
    }
  }

  /// The catalog at `path` (CSV fields separated by `delimiter`) and the SHA-256 of its bytes.
  package static func loadCatalog(_ path: String, _ io: JobIO, delimiter: CSVDelimiter) throws -> (
    Catalog, String
  ) {
    let bytes = try Paths.using(path, io) { p throws(DeckIOError) in
      try TextInput.readBytes(path: p, what: "catalog")
    }
    let format = try DocumentFormat.resolve(nil, path: path, what: "catalog")
    let catalog = try CatalogReader.parse(
      bytes, file: path, format: format, delimiter: delimiter)
    return (catalog, ContentHash.sha256(bytes))
  }

  /// The catalog and every problem in it, and the SHA-256 of its bytes (for `validate`).
  package static func checkCatalog(_ path: String, _ io: JobIO, delimiter: CSVDelimiter) throws -> (
    Catalog?, [DeckIOError], String
  ) {
    try Paths.using(path, io) { opened throws(DeckIOError) in
      let bytes = try TextInput.readBytes(path: opened, what: "catalog")
      let format = try DocumentFormat.resolve(nil, path: path, what: "catalog")
      let (catalog, problems) = CatalogReader.check(
        bytes, file: path, format: format, delimiter: delimiter)
      return (catalog, problems, ContentHash.sha256(bytes))
    }
  }

  /// The users at `path` (CSV fields separated by `delimiter`) and the SHA-256 of its bytes.
  package static func loadUsers(_ path: String, _ io: JobIO, delimiter: CSVDelimiter) throws -> (
    [UserProfile], String
  ) {
    let bytes = try Paths.using(path, io) { p throws(DeckIOError) in
      try TextInput.readBytes(path: p, what: "users file")
    }
    let format = try DocumentFormat.resolve(nil, path: path, what: "users file")
    let users = try UsersReader.parse(bytes, file: path, format: format, delimiter: delimiter)
    return (users, ContentHash.sha256(bytes))
  }

  /// Runs `body` with `settings` whose reader counts the bytes of the logs `paths` on the
  /// progress line `label` (their total from their sizes; unknown when one is read once, such
  /// as standard input).
  package static func counting<T>(
    _ label: String, _ paths: [String], _ settings: RunSettings, _ io: JobIO,
    _ body: (RunSettings) throws -> T
  ) rethrows -> T {
    guard io.diagnostics.showsProgress else { return try body(settings) }
    let sizes = paths.map { regularFileSize($0, io) }
    let total = sizes.contains(nil) ? nil : sizes.reduce(0) { $0 + $1! }
    return try io.diagnostics.withProgress(label, unit: .bytes, total: total) { counter in
      var counted = settings
      counted.progress = counter
      if total == nil { counter?.markTotalUnknown() }
      return try body(counted)
    }
  }

  /// The size of the regular file `path`, nil for anything else (standard input, a pipe, a
  /// file that is not there).
  package static func regularFileSize(_ path: String, _ io: JobIO) -> Int? {
    guard path != "-" else { return nil }
    let opened = Paths.open(path, io)
    var info = stat()
    guard FileSystem.kind(of: opened) == .regular, stat(opened, &info) == 0 else { return nil }
    return Int(info.st_size)
  }

  /// Streams the swipe logs into a history that stops the day before `date`. With `jobs` above
  /// 1 and a log big enough to be read in parts, the logs are read on `jobs` threads and
  /// aggregated by diner (`EventReader.history(of:)`): the same history. The progress line
  /// counts the bytes of the logs (not of the snapshots).
  package static func loadHistory(
    _ settings: RunSettings, catalog: Catalog, cutoff: DeckDate?, io: JobIO,
    rejects: RejectsWriter?, onReject: ((EventReject) throws(DeckIOError) -> Void)? = nil,
    extra: [SwipeEvent] = [], jobs: Int = 1
  ) throws -> (History, EventReadStats, Int) {
    try HistoryFiles.checkPresent(settings.historyPaths, settings.config, io)
    let logs = settings.historyPaths.filter {
      $0 == "-" || !SnapshotFile.isSnapshot(path: Paths.open($0, io))
    }
    return try counting("read", logs, settings, io) { settings in
      try readHistory(
        settings, catalog: catalog, cutoff: cutoff, io: io, rejects: rejects, onReject: onReject,
        extra: extra, jobs: jobs)
    }
  }

  private static func readHistory(
    _ settings: RunSettings, catalog: Catalog, cutoff: DeckDate?, io: JobIO,
    rejects: RejectsWriter?, onReject: ((EventReject) throws(DeckIOError) -> Void)?,
    extra: [SwipeEvent], jobs: Int
  ) throws -> (History, EventReadStats, Int) {
    let handler: ((EventReject) throws(DeckIOError) -> Void)?
    if let rejects {
      handler = { reject throws(DeckIOError) in try rejects.write(reject) }
    } else {
      handler = onReject
    }
    let snapshots = settings.historyPaths.filter {
      $0 != "-" && SnapshotFile.isSnapshot(path: Paths.open($0, io))
    }
    if snapshots.isEmpty && jobs > 1
      && settings.historyPaths.contains(where: { canReadInParts($0, io) })
    {
      return try loadHistoryByDiner(
        settings, catalog: catalog, cutoff: cutoff, io: io, onReject: handler, extra: extra,
        jobs: jobs)
    }
    if snapshots.isEmpty {
      // One thread adds up: no huge-page advice, whose first touches cost the most on a VM that
      // reclaims memory (`HistoryBuilder.hugePages`).
      var ingest = HistoryIngest(catalog: catalog, cutoff: cutoff, hugePages: false)
      let stats = try readLogs(
        settings.historyPaths, settings, io, into: &ingest, onReject: handler)
      feed(extra, into: &ingest)
      return (try ingest.build(), stats, ingest.builder.skippedFuture)
    }
    // Snapshots (and any raw logs beside them) meet as snapshots, then become one history: the
    // logs' swipes on or after the deck date pending, as the snapshots' own later swipes are.
    var ingest = SnapshotIngest(cutoff: cutoff)
    let logs = settings.historyPaths.filter { !snapshots.contains($0) }
    var stats = try readLogs(logs, settings, io, into: &ingest, onReject: handler)
    feed(extra, into: &ingest)
    let merged = try Snapshots.merge(
      snapshots, into: ingest.builder.build(), io, hashing: settings.hashesHistory
    ) { path, snapshot, hash in
      var file = EventFileStats(file: path, format: .jsonLines)
      file.sha256 = hash
      file.snapshot = true
      file.events = Int(snapshot.events)
      file.right =
        Int(snapshot.items.reduce(0) { $0 + $1.right })
        + snapshot.pending.reduce(0) { $0 + ($1.swipe == .right ? 1 : 0) }
      file.left = file.events - file.right
      file.hesitations = Int(snapshot.hesitations)
      stats.files.append(file)
    }
    try checkMerged(merged, snapshots: snapshots, logs: logs, settings, io)
    do {
      // The pending swipes before the deck date are learnt from as if they were added up; the
      // later ones are the run's swipes on or after its date, as when reading the logs.
      let (history, unknown, ids) = try merged.history(for: catalog, before: cutoff)
      // Counted as the reader counts the logs' swipes: a dish the catalog lacks is unknown
      // whatever its day, and the swipes left out for their day are the others.
      var future = 0
      var laterUnknown = 0
      var laterIDs: [String] = []
      for swipe in merged.pending[merged.pendingCount(before: cutoff)...] {
        if catalog.index(of: swipe.item) != nil {
          future += 1
        } else {
          laterUnknown += 1
          if laterIDs.count < EventReadStats.unknownIDLimit,
            !(ids + laterIDs).contains(where: { IDKey.same($0, swipe.item) })
          {
            laterIDs.append(swipe.item)
          }
        }
      }
      stats.noteUnknown(
        Int(unknown) + laterUnknown, ids: ids + laterIDs, inputs: snapshots + logs)
      return (history, stats, future)
    } catch {
      if case .outOfMemory = error { throw error }
      throw JobError(.dataError, "\(snapshots.joined(separator: ", ")): \(error)")
    }
  }

  /// Refuses snapshots read with another time zone or drag rule than the config's (their days
  /// and drags were decided by those), and a raw log already in them (its swipes would count
  /// twice).
  private static func checkMerged(
    _ merged: HistorySnapshot, snapshots: [String], logs: [String], _ settings: RunSettings,
    _ io: JobIO
  ) throws {
    // A snapshot's days were decided in its time zone; reading it with another would shift them.
    if let zone = merged.timeZone, zone != settings.config.timeZone {
      throw JobError(
        .dataError,
        "\(snapshots.joined(separator: ", ")): ingested in time zone '\(zone)', but the config "
          + "uses '\(settings.config.timeZone)'; ingest the logs again with this config")
    }
    if let rule = merged.dragRule, rule != settings.config.dragRuleName {
      throw JobError(
        .dataError,
        "\(snapshots.joined(separator: ", ")): drags were decided by the \(rule) rule, but the "
          + "config says '\(settings.config.dragRuleName)'; ingest the logs again with this config")
    }
    // A raw log that is already in a snapshot would be counted twice. (Standard input and
    // pipes are read once, by the reader: they cannot be hashed as well.)
    for log in logs where log != "-" && !isReadOnce(log, io) {
      let (hash, _) = try Paths.using(log, io) { opened throws(DeckIOError) in
        try Inputs.fileSHA256(opened)
      }
      if merged.contains(sha256: hash) {
        throw JobError(
          .dataError,
          "\(log) is already in the snapshot \(snapshots.joined(separator: ", ")); giving both "
            + "would count its swipes twice")
      }
    }
  }

  /// `loadHistory` on `jobs` threads: each big log read in parts, the others whole, every part
  /// into buckets by diner, each bucket aggregated on a thread of its own. When the buckets'
  /// histories cannot be put together (one id spelt two ways, a count past Int32), one
  /// aggregation takes the buckets instead: the history does not depend on the order of the
  /// swipes, so it is still the one history of the logs, and nothing is read twice.
  private static func loadHistoryByDiner(
    _ settings: RunSettings, catalog: Catalog, cutoff: DeckDate?, io: JobIO,
    onReject handler: ((EventReject) throws(DeckIOError) -> Void)?, extra: [SwipeEvent],
    jobs: Int
  ) throws -> (History, EventReadStats, Int) {
    // Buckets of a few thousand diners each (for 100,000), so that a worker aggregates one
    // bucket's diners at a time within its cache; each worker takes a run of buckets.
    let buckets = jobs * DinerBuckets.bucketsPerWorker
    var (parts, stats) = try readByDiner(
      settings.historyPaths, settings, io, catalog: catalog, jobs: jobs, buckets: buckets,
      onReject: handler)
    if !extra.isEmpty {
      var sink = DinerBuckets(items: DinerBuckets.Items(catalog: catalog), buckets: buckets)
      feed(extra, into: &sink)
      parts.append(sink)
    }
    if let read = try EventReader.history(of: parts, catalog: catalog, cutoff: cutoff, jobs: jobs) {
      return (read.history, stats, read.skippedFuture)
    }
    var ingest = HistoryIngest(catalog: catalog, cutoff: cutoff)
    DinerBuckets.feed(parts, into: &ingest)
    return (try ingest.build(), stats, ingest.builder.skippedFuture)
  }

  /// Reads the logs on `jobs` threads into buckets by diner (`DinerBuckets`, `jobs` buckets):
  /// each big regular log in parts, the others whole; the parts in file order and the counts
  /// named as the user named the logs.
  package static func readByDiner(
    _ paths: [String], _ settings: RunSettings, _ io: JobIO, catalog: Catalog, jobs: Int,
    buckets: Int? = nil, keepsTimes: Bool = false,
    onReject handler: ((EventReject) throws(DeckIOError) -> Void)?
  ) throws -> ([DinerBuckets], EventReadStats) {
    let buckets = buckets ?? jobs
    var parts: [DinerBuckets] = []
    var stats = EventReadStats()
    let items = DinerBuckets.Items(catalog: catalog)
    for path in paths {
      if canReadInParts(path, io) {
        let read = try readLogInParts(
          path, settings, io, jobs: jobs, onReject: handler,
          sink: { DinerBuckets(items: items, buckets: buckets, keepsTimes: keepsTimes) },
          finish: { $0 })
        parts += read.results
        stats.merge(read.stats, displayName: path)
      } else {
        var sink = DinerBuckets(items: items, buckets: buckets, keepsTimes: keepsTimes)
        let one = try readLogs([path], settings, io, into: &sink, onReject: handler)
        parts.append(sink)
        stats.merge(one, displayName: path == "-" ? "<stdin>" : path)
      }
    }
    return (parts, stats)
  }

  /// Adds swipes that are in no file (a `play` session's) to `sink`, as the reader would.
  package static func feed<S: EventSink>(_ events: [SwipeEvent], into sink: inout S) {
    guard !events.isEmpty else { return }
    for e in events { _ = e.withRawEvent { sink.event($0) } }
    sink.finish()
  }

  /// Whether `path` names something that can be read only once (a FIFO, a pipe such as
  /// `/dev/stdin` or `<(zcat log.gz)`, a character device): it must be opened once, never
  /// sniffed or hashed before it is read.
  package static func isReadOnce(_ path: String, _ io: JobIO) -> Bool {
    guard path != "-" else { return true }
    let kind = FileSystem.kind(of: Paths.open(path, io))
    return kind != nil && kind != .regular && kind != .directory
  }

  /// Reads a log that can be read once (`-` is standard input) into `sink`, in constant memory,
  /// and hashes its content into `sha256` as it is read.
  package static func readOnce<S: EventSink>(
    _ path: String, _ settings: RunSettings, _ io: JobIO, into sink: inout S,
    sha256: inout SHA256, onReject handler: ((EventReject) throws(DeckIOError) -> Void)?
  ) throws -> EventReadStats {
    var options = settings.readerOptions
    options.onReject = handler
    let reader = EventReader(options: options)
    if path == "-" && io.standardInput.fileDescriptor == nil {
      // Standard input that is not the process's own (tests): read it whole.
      let bytes: [UInt8]
      do { bytes = try io.standardInput.readAll() } catch {
        throw DeckIOError.io(path: "<stdin>", message: "cannot read standard input: \(error)")
      }
      sha256.update(bytes: bytes)
      let format = bytes.withUnsafeBufferPointer {
        options.format(sniffing: $0)
      }
      return try reader.read(bytes: bytes, name: "<stdin>", format: format, into: &sink)
    }
    let opened = path == "-" ? "-" : Paths.open(path, io)
    do {
      return try reader.readOnce(EventSource(path: opened), into: &sink, sha256: &sha256)
    } catch {
      throw error.naming(opened, as: path)
    }
  }

  /// Streams swipe logs (`-` = standard input) into `sink`, naming files as the user wrote them.
  package static func readLogs<S: EventSink>(
    _ paths: [String], _ settings: RunSettings, _ io: JobIO, into sink: inout S,
    onReject handler: ((EventReject) throws(DeckIOError) -> Void)?
  ) throws -> EventReadStats {
    let options = settings.readerOptions
    var stats = EventReadStats()
    for path in paths {
      let opened = Paths.open(path, io)
      var perFile = options
      perFile.onReject = naming(handler, opened, as: path)
      let reader = EventReader(options: perFile)
      let one: EventReadStats
      if path == "-" && io.standardInput.fileDescriptor == nil {
        // Standard input that is not the process's own (tests): read it whole.
        let bytes: [UInt8]
        do { bytes = try io.standardInput.readAll() } catch {
          throw DeckIOError.io(path: "<stdin>", message: "cannot read standard input: \(error)")
        }
        var read = try reader.read(
          bytes: bytes, name: "<stdin>",
          format: bytes.withUnsafeBufferPointer {
            options.format(sniffing: $0)
          }, into: &sink)
        if options.hashing {
          let hash = ContentHash.sha256(bytes)
          for n in read.files.indices { read.files[n].sha256 = hash }
        }
        one = read
      } else {
        do {
          one = try reader.read([EventSource(path: opened)], into: &sink)
        } catch {
          throw error.naming(opened, as: path)
        }
      }
      stats.merge(one, displayName: path == "-" ? "<stdin>" : path)
      if let mapping = options.columns {
        for file in one.files {
          let name = path == "-" ? "<stdin>" : path
          for note in mappedLogNotes(file, mapping, name: name) {
            io.diagnostics.note(note, code: "mapped_log", location: .wholeFile(name))
          }
        }
      }
    }
    return stats
  }

  /// Reads the log `path`, one that `canReadInParts`, into a snapshot on `jobs` threads
  /// (`EventReader.readSnapshot`), with the reader `readLogs` would use.
  package static func readLogInParts(
    _ path: String, _ settings: RunSettings, _ io: JobIO, cutoff: DeckDate?,
    catalog: Catalog? = nil, jobs: Int,
    onReject handler: ((EventReject) throws(DeckIOError) -> Void)?
  ) throws -> EventReader.SnapshotRead {
    try readingInParts(path, settings, io, onReject: handler) {
      reader, opened, format throws(DeckIOError) in
      try reader.readSnapshot(
        path: opened, format: format, cutoff: cutoff, catalog: catalog, jobs: jobs)
    }
  }

  /// Reads a big regular log in parts on `jobs` threads (`EventReader.partsPerWorker` each, the
  /// threads taking the next part as they come free), each into a sink of its own (`sink()`,
  /// turned into the part's result by `finish` on its worker); the results in file order, and
  /// the counts named as the user named the log.
  package static func readLogInParts<S: EventSink, R>(
    _ path: String, _ settings: RunSettings, _ io: JobIO, jobs: Int,
    onReject handler: ((EventReject) throws(DeckIOError) -> Void)?,
    sink: @escaping () -> S, finish: @escaping (inout S) -> R
  ) throws -> EventReader.PartsRead<R> {
    try readingInParts(path, settings, io, onReject: handler) {
      reader, opened, format throws(DeckIOError) in
      try reader.readInParts(
        path: opened, format: format, jobs: jobs, partsPerWorker: EventReader.partsPerWorker,
        sink: sink, finish: finish)
    }
  }

  /// `read` with a reader of the run's options (rejects named as the user named the log), its
  /// errors and counts named so too, and the notes of a mapped log.
  private static func readingInParts<T: ReadInParts>(
    _ path: String, _ settings: RunSettings, _ io: JobIO,
    onReject handler: ((EventReject) throws(DeckIOError) -> Void)?,
    _ read: (EventReader, String, EventFormat) throws(DeckIOError) -> T
  ) throws -> T {
    let opened = Paths.open(path, io)
    guard let format = EventFormat.forPath(opened) else {
      throw JobError(.software, "\(path): read in parts without a log's extension")
    }
    var options = settings.readerOptions
    options.onReject = naming(handler, opened, as: path)
    // A log read in parts is hashed on a thread of its own meanwhile (the parts are read out
    // of order; the hash needs the bytes in order).
    let hashing =
      options.hashing
      ? Parallel.background { () -> Result<(String, Int), DeckIOError> in
        do throws(DeckIOError) {
          return .success(try Inputs.fileSHA256(opened))
        } catch {
          return .failure(error.naming(opened, as: path))
        }
      } : nil
    var result: T
    do {
      result = try read(EventReader(options: options), opened, format)
    } catch {
      _ = hashing?.wait()
      throw error.naming(opened, as: path)
    }
    if let hashing {
      let (hash, _) = try hashing.wait().get()
      for n in result.stats.files.indices { result.stats.files[n].sha256 = hash }
    }
    var stats = EventReadStats()
    stats.merge(result.stats, displayName: path)
    result.stats = stats
    if let mapping = options.columns {
      for file in stats.files {
        for note in mappedLogNotes(file, mapping, name: path) {
          io.diagnostics.note(note, code: "mapped_log", location: .wholeFile(path))
        }
      }
    }
    return result
  }

  /// `handler` with each reject's error naming the log `opened` as the user named it (`path`);
  /// nil without a handler.
  private static func naming(
    _ handler: ((EventReject) throws(DeckIOError) -> Void)?, _ opened: String, as path: String
  ) -> ((EventReject) throws(DeckIOError) -> Void)? {
    guard let handler else { return nil }
    return { reject throws(DeckIOError) in
      var named = reject
      named.error = reject.error.naming(opened, as: path)
      try handler(named)
    }
  }

  /// Whether `path` is a log that `readLogInParts` reads in more than one part: a regular
  /// file with a log's extension, at least two parts long.
  package static func canReadInParts(_ path: String, _ io: JobIO) -> Bool {
    let opened = Paths.open(path, io)
    guard path != "-", FileSystem.kind(of: opened) == .regular,
      EventFormat.forPath(opened) != nil
    else { return false }
    var info = stat()
    return stat(opened, &info) == 0 && Int(info.st_size) >= 2 * EventReader.minimumPartBytes
  }

  /// What a run should say about a log read with a column mapping: the neutral ratings (never
  /// dropped silently) and the lack of times.
  package static func mappedLogNotes(_ file: EventFileStats, _ mapping: ColumnMapping, name: String)
    -> [String]
  {
    var notes: [String] = []
    if let right = mapping.right, let left = mapping.left {
      notes.append(
        "\(name): \(TextLayout.plural(file.events + file.neutral, "rating")): \(file.right) right "
          + "('\(right)'), \(file.left) left ('\(left)'), \(file.neutral) neutral (neither rule; not "
          + "swipes)")
    }
    if file.untimed {
      notes.append(
        "\(name): no time column: its events all carry 1970-01-01T00:00 (nothing that "
          + "needs days, such as a temporal split, can use them); map one with --columns at=COLUMN")
    }
    return notes
  }

  /// SHA-256 (hex) and size of a file, read in chunks.
  package static func fileSHA256(_ path: String) throws(DeckIOError) -> (String, Int) {
    if FileSystem.kind(of: path) == .directory {
      throw .io(path: path, message: "is a directory, not a swipe log; give the path of a file")
    }
    guard let handle = FileHandle(forReadingAtPath: path) else {
      if !FileManager.default.fileExists(atPath: path) {
        throw .missingFile(path: path, what: "swipe log", check: DeckIOError.checkPath)
      }
      throw .io(path: path, message: "cannot open the swipe log")
    }
    defer { try? handle.close() }
    var hash = SHA256()
    var size = 0
    while true {
      let chunk: Data
      do {
        guard let c = try handle.read(upToCount: 1 << 22), !c.isEmpty else { break }
        chunk = c
      } catch {
        throw .io(path: path, message: "cannot read the swipe log: \(error)")
      }
      size += chunk.count
      chunk.withUnsafeBytes { hash.update(bytes: $0) }
    }
    return (hash.hexDigest(), size)
  }
}

/// What a log read in parts returns: its counts, which `Inputs.readLogInParts` names as the user
/// named the log.
private protocol ReadInParts {
  var stats: EventReadStats { get set }
}

extension EventReader.SnapshotRead: ReadInParts {}
extension EventReader.PartsRead: ReadInParts {}
