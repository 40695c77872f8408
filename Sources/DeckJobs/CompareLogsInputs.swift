import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckStrategies
import Foundation

/// The inputs of a comparison on logs: loaded, checked against each other, and read.
extension CompareLogs {
  /// The catalog, the diners' profiles, the TREC runs and the strategies of `given`, loaded
  /// and checked in the order the command has always reported their mistakes.
  static func load(
    _ given: CompareLogsRequest, _ request: CompareRequest, _ io: JobIO,
    _ maker: any StrategyMaking
  ) throws -> Setup {
    let config = request.config
    let (catalog, profiles, loaded) = try Inputs.catalogAndProfiles(
      config, catalogPath: given.catalogPath, usersPath: given.usersPath,
      given.settings.delimiters, io)
    var inputs = loaded
    let builder = try Inputs.deckBuilder(catalog, given.rules, config)
    let hashedRuns = try readRuns(given.runs, io)
    inputs += hashedRuns.map { RunInput(role: "run", path: $0.run.file, sha256: $0.hash) }
    let runs = hashedRuns.map { (name: $0.name, run: $0.run) }
    let strategies = try CompareJob.strategies(request, maker)
    let names = strategies.map(\.0)
    let baseline = try CompareJob.baseline(
      request.baseline, strategies: names, policies: given.policies.count,
      runs: runs.map(\.name))
    try checkRunNames(runs, strategies: names)
    try HistoryFiles.checkPresent(given.logs, config, io, snapshots: false)
    try refuseSnapshots(given.logs, split: given.split, io)
    try checkDistinct(given.logs, io)
    try checkPolicyNames(given.policies, taken: names + runs.map(\.name))
    return Setup(
      catalog: catalog, profiles: profiles, split: given.split, rules: given.rules,
      cutoffs: given.cutoffs, builder: builder,
      arms: strategies.map { (name: $0.0, strategy: $0.1) }, runs: runs, baseline: baseline,
      seed: given.seed, settings: given.settings, ope: given.ope, policies: given.policies,
      estimators: given.estimators, samples: given.samples, inputs: inputs, jobs: given.jobs,
      tuning: given.tuning, fallback: request.fallback, named: request.strategies, maker: maker)
  }

  /// Refuses a history snapshot given as a log (exit 65): a snapshot keeps counts per diner and
  /// dish, not the swipes with their times that the split needs.
  package static func refuseSnapshots(
    _ logs: [String], split: LogSplit, _ io: JobIO, command: String = "compare"
  ) throws {
    for log in logs where log != "-" && SnapshotFile.isSnapshot(path: Paths.open(log, io)) {
      let how: String
      switch split {
      case .date: how = "by date"
      case .holdout: how = "into learnt and held-out (diner, dish) pairs"
      }
      throw DeckIOError.invalid(
        path: log,
        message: "is a history snapshot: \(command) needs the swipe logs, whose swipes it splits "
          + "\(how); give the logs")
    }
  }

  /// The `--run` files, read and named: `NAME=`, else the tag of the file's first line (the
  /// name trec_eval gives a run), else the file's name without its extension.
  static func readRuns(_ given: [(name: String?, path: String)], _ io: JobIO) throws -> [(
    name: String, run: TrecRun, hash: String
  )] {
    var runs: [(name: String, run: TrecRun, hash: String)] = []
    for (name, path) in given {
      let (run, hash) = try Paths.using(path, io) { opened throws(DeckIOError) in
        let bytes = try TextInput.readBytes(
          path: opened, what: "run file", maxBytes: TrecRun.maxBytes)
        return (try TrecRun.parse(bytes, file: path), ContentHash.sha256(bytes))
      }
      let base = String(path.split(separator: "/").last ?? Substring(path))
      let stem = base.lastIndex(of: ".").map { $0 == base.startIndex ? base : String(base[..<$0]) }
      runs.append((name ?? run.tag ?? stem ?? base, run, hash))
    }
    return runs
  }

  /// Each `--policy` name is its own: not a strategy's or a run's, not another policy's.
  static func checkPolicyNames(_ policies: [(name: String, path: String)], taken: [String])
    throws
  {
    var taken = taken
    for (name, path) in policies {
      if taken.contains(name) {
        throw JobError.usage(
          "the name '\(name)' of '--policy \(name)=\(path)' is taken; give each strategy and"
            + " policy its own name")
      }
      taken.append(name)
    }
  }

  /// Each run's name is its own: not a strategy's, not another run's.
  static func checkRunNames(_ runs: [(name: String, run: TrecRun)], strategies: [String]) throws {
    var taken = strategies
    for (name, run) in runs {
      if taken.contains(name) {
        throw JobError.usage(
          "the name '\(name)' of the run \(run.file) (\(name == run.tag ? "its tag" : "given"))"
            + " is taken; name it with --run NAME=\(run.file)")
      }
      taken.append(name)
    }
  }

  /// A log given twice (under any spelling of its path) would count its events twice.
  package static func checkDistinct(_ logs: [String], _ io: JobIO) throws {
    var seenLogs: [String: String] = [:]
    for path in logs where path != "-" {
      let resolved = URL(fileURLWithPath: Paths.open(path, io)).standardizedFileURL.path
      if let first = seenLogs[resolved] {
        throw JobError.usage(
          "the log '\(path)' is given twice (also as '\(first)'); its events would count twice")
      }
      seenLogs[resolved] = path
    }
  }

  /// One pass over the logs: training events into the history, evaluation events aside (and,
  /// with `--ope`, the logged sessions of the evaluation period).
  static func read(
    _ logs: [String], _ setup: Setup, _ io: JobIO, exportTraining: Bool = false
  ) throws -> (LogSplitSink, EventReadStats) {
    var sink = LogSplitSink(catalog: setup.catalog, split: setup.split, seed: setup.seed)
    if exportTraining {
      // The times get the offset the config's zone has at each one, as every log carries.
      sink.trainingLog = TrainingLog(zone: TimeZoneOffsets(setup.settings.zone))
    }
    if setup.ope, case .date(let date) = setup.split {
      sink.sessions = LoggedSessions(catalog: setup.catalog, start: date)
    }
    let read = try self.read(
      logs, split: setup.split, setup.settings, io, into: &sink,
      // The session sink names the file of an event without a propensity.
      file: { sink, path in sink.sessions?.file = path }, told: tell(io))
    return (sink, read)
  }

  /// Tells what reading the logs found (unknown dishes, skipped lines) on `io`.
  package static func tell(_ io: JobIO) -> (EventReadStats) -> Void {
    { HistorySummary.tell($0, future: 0, date: DeckDate(daysSinceEpoch: 0), io) }
  }

  /// One pass over the logs into `sink` (`file` is told each log's path before its events);
  /// the summary of what was read (`told`), and the refusal of a date split of logs without
  /// times.
  package static func read<S: EventSink>(
    _ logs: [String], split: LogSplit, _ settings: RunSettings, _ io: JobIO,
    into sink: inout S, file: (inout S, String) -> Void, told: (EventReadStats) -> Void
  ) throws -> EventReadStats {
    var read = EventReadStats()
    try Inputs.counting("read", logs, settings, io) { settings in
      for path in logs {
        file(&sink, path)
        let one = try Inputs.readLogs([path], settings, io, into: &sink, onReject: nil)
        read.files += one.files
        for id in one.unknownItemIDs
        where read.unknownItemIDs.count < 5 && !read.unknownItemIDs.contains(id) {
          read.unknownItemIDs.append(id)
        }
      }
    }
    told(read)
    if read.untimed, case .date = split {
      let files = read.files.filter(\.untimed).map(\.file)
      throw JobError.usage(
        "\(files.joined(separator: ", ")): the events carry no time (no 'at' column mapped), so"
          + " they cannot be split by date; use --holdout FRACTION")
    }
    return read
  }

  /// The diners with a right swipe in the evaluation period, or a data error saying how to get
  /// some.
  static func judgedDiners(_ sink: LogSplitSink, deckDate: DeckDate) throws -> [(
    user: String, relevant: [Int32]
  )] {
    try sink.judgedDiners(
      in: "evaluation period (\(sink.split.describe(deckDate)))", nothingTo: "evaluate"
    ) {
      let last =
        sink.lastDay.map { " (the last event is dated \(DeckDate(daysSinceEpoch: $0)))" } ?? ""
      return switch sink.split {
      case .date: "choose an earlier --split\(last)"
      case .holdout: "choose a larger --holdout"
      }
    }
  }

}
