import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports

/// `menudeck stats`: the deck stats of swipe logs (or the card-level stats of history
/// snapshots), per day and overall.
package struct StatsRequest: Sendable {
  /// How the logs are read (columns, delimiters, bad lines, hashing for the run header), with
  /// the config, the catalog's path and the swipe logs, or the history snapshots, to summarise
  /// ("-" is standard input).
  package var settings: RunSettings
  package var options: StatsOptions
  package var format: StatsFormat
  /// Threads that read big logs by diner; the report is the same for every number.
  package var jobs: Int

  package init(settings: RunSettings, options: StatsOptions, format: StatsFormat, jobs: Int) {
    self.settings = settings
    self.options = options
    self.format = format
    self.jobs = jobs
  }

  package var config: MenuDeckConfig { settings.config }
  package var catalogPath: String { settings.catalogPath }
  package var logs: [String] { settings.historyPaths }
}

/// Runs a `StatsRequest`: load the catalog, read the logs (on `jobs` threads by diner when a
/// log is big enough) or merge the snapshots, and sum them up.
package enum StatsJob {
  package struct Outcome {
    package var report: StatsReport
    /// The run header's inputs, in the order read.
    package var inputs: [RunInput]
    /// What reading the logs found; nil when the stats are of snapshots.
    package var read: EventReadStats?
  }

  package static func run(_ request: StatsRequest, _ io: JobIO) throws -> Outcome {
    let logs = request.logs
    try HistoryFiles.checkPresent(logs, request.config, io)
    let snapshots = logs.filter { $0 != "-" && SnapshotFile.isSnapshot(path: Paths.open($0, io)) }
    if !snapshots.isEmpty && snapshots.count != logs.count {
      throw JobError.usage("give either swipe logs or history snapshots to 'stats', not both")
    }
    let (catalog, catalogHash) = try Inputs.loadCatalog(
      request.catalogPath, io, delimiter: request.settings.delimiters.catalog)
    var inputs = RunInputs.config(request.config)
    inputs.append(RunInput(role: "catalog", path: request.catalogPath, sha256: catalogHash))
    if !snapshots.isEmpty {
      if request.options.newDishDays != nil {
        throw JobError.usage(
          "--new-dish-days is computed from swipe logs, not history snapshots; give the logs"
            + " the snapshot was made from")
      }
      return try snapshotStats(snapshots, request, catalog: catalog, inputs: inputs, io)
    }
    let read: EventReadStats
    let report: StatsReport
    if request.jobs > 1 && logs.contains(where: { Inputs.canReadInParts($0, io) }) {
      (report, read) = try byDiner(request, catalog: catalog, io)
    } else {
      var stats = StatsAccumulator(catalog: catalog, options: request.options)
      read = try Inputs.counting("read", logs, request.settings, io) { settings in
        try Inputs.readLogs(logs, settings, io, into: &stats, onReject: nil)
      }
      report = stats.report()
    }
    return Outcome(report: report, inputs: inputs + RunInputs.history(read), read: read)
  }

  /// On every core, by diner: the logs parsed into buckets by diner, each bucket summed up by
  /// an accumulator of its own; the buckets share no diner, so their reports add up.
  static func byDiner(_ request: StatsRequest, catalog: Catalog, _ io: JobIO) throws -> (
    StatsReport, EventReadStats
  ) {
    let (jobs, logs, options) = (request.jobs, request.logs, request.options)
    let (parts, read) = try Inputs.counting("read", logs, request.settings, io) { settings in
      try Inputs.readByDiner(
        logs, settings, io, catalog: catalog, jobs: jobs, keepsTimes: true, onReject: nil)
    }
    let buckets = Parallel.map(count: jobs, jobs: jobs) { b in
      var accumulator = StatsAccumulator(catalog: catalog, options: options)
      for part in parts {
        part.forEachSwipe(inBucket: b) { user, item, swipe, at, position, day in
          accumulator.add(
            user: user, item: item, swipe: swipe, at: at, position: position, day: day)
        }
      }
      return accumulator
    }
    return (StatsAccumulator.report(of: buckets), read)
  }

  /// The card-level stats of history snapshots: every swipe, pending ones too, as stats on the
  /// logs counts them.
  static func snapshotStats(
    _ snapshots: [String], _ request: StatsRequest, catalog: Catalog, inputs: [RunInput],
    _ io: JobIO
  ) throws -> Outcome {
    var inputs = inputs
    let merged = try Snapshots.merge(snapshots, io, hashing: request.settings.hashesHistory) {
      path, _, hash in
      // Standard input may hold several snapshots, of one hash.
      if let hash, !inputs.contains(where: { $0.path == path && $0.sha256 == hash }) {
        inputs.append(RunInput(role: "snapshot", path: path, sha256: hash))
      }
    }
    do {
      let report = try SnapshotStats.report(
        merged.counting(before: nil), catalog: catalog, options: request.options)
      return Outcome(report: report, inputs: inputs, read: nil)
    } catch {
      throw JobError(.dataError, "\(snapshots.joined(separator: ", ")): \(error)")
    }
  }
}
