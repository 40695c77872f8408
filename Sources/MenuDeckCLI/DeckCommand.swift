import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import DeckStrategies

let deckCommand = CommandSpec(
  name: "deck",
  abstract: "Build every diner's deck for a date.",
  discussion: """
    Reads the config, the catalog, the users and the swipe logs; learns the strategy from the \
    history before the deck date; builds one deck per diner under the deck rules and writes \
    them in the chosen format to standard output, or atomically to --out.

    Diners are those of the users file plus everyone in the history, unless --user or \
    --diners names them, in the byte order of their ids. Output is byte-identical for the same \
    inputs, seed and date, whatever the order of users and events in the inputs and whatever \
    --jobs.

    A history that holds no swipe before the deck date, or whose last swipe is more than the \
    config's stale_history_days (default 2) before it, is warned about with its dates and \
    counts; --strict makes it an error (exit 65) and writes nothing, for cron. {date} in --out \
    is the deck date that --date resolved to (YYYY-MM-DD), so that a job run with --date today \
    writes each day's decks to a file of that day, and a failed day leaves no file of its name.

    Many machines: --shard K/N keeps the diners whose shard is K (the first 8 bytes of the \
    SHA-256 of the id, big-endian, modulo N, plus 1). The JSON Lines outputs of shards 1 to N, \
    concatenated and sorted stably by diner id (bytes), are the one-machine output; so are the \
    CSV outputs with every header but the first dropped. --diners FILE builds exactly the \
    diners listed, one id per line, for a scheduler that splits by another rule.

    Examples:
      menudeck deck --date 2026-11-30 --format table
      menudeck deck --strategy popularity --option prior_passes=4 --out decks.json
      zcat today.jsonl.gz | menudeck deck --history Data/swipes.jsonl --history -
      menudeck deck --shard 3/8 --format jsonl --out decks-3.jsonl
      menudeck deck --date tomorrow --out decks-{date}.json
    """,
  options: InputOptions.all + [
    InputOptions.date.spec,
    DeckRun.user.spec,
    DeckRun.diners.spec,
    DeckRun.shard.spec,
    InputOptions.strategy.spec,
    InputOptions.option.spec,
    InputOptions.size.spec,
    InputOptions.seed.spec,
    InputOptions.format.spec,
    DeckRun.out.spec,
    OutputOptions.wait.spec,
    OutputOptions.dryRun.spec,
    DeckRun.strict.spec,
    DeckRun.exactScores.spec,
    InputOptions.fallback.spec,
    InputOptions.jobs.with(
      help:
        "Threads that read big swipe logs and build the decks (default: the cores available); "
        + "the output is the same for every number. A plugin runs one process per thread."
    ).spec,
  ],
  run: { args, context in try DeckRun.run(args, context) })

enum DeckRun {
  static let user = Repeatable(
    "user", short: "u", valueName: "id", help: "Build only this diner's deck.")
  static let out = Option<String>(
    "out", valueName: "file",
    help:
      "Write to this file atomically instead of stdout; {date} in it is the deck date "
      + "(YYYY-MM-DD), e.g. decks/{date}.json.")
  static let diners = Option<String>(
    "diners", valueName: "file",
    help: "Build exactly the diners listed in this file, one id per line.")
  static let strict = Flag(
    "strict",
    help:
      "Fail (exit 65, nothing written) instead of warning when the history is empty or ends "
      + "more than the config's stale_history_days before the deck date: for cron.")
  /// For developers checking a strategy against a reference implementation: scores in the
  /// shortest digits that read back as the same double (docs/output-formats.md).
  static let exactScores = Flag(
    "exact-scores",
    help: "Write scores in full precision (the shortest digits that read back exactly).",
    isHidden: true)
  static let shard = Option<String>(
    "shard", valueName: "K/N",
    help: "Build only the diners of shard K of N (by a stable hash of the id; see above).")
  /// The most ids a `--diners` file may list, the longest id, and the largest file (1 GiB).
  static let maxListedDiners = 50_000_000
  static let maxDinerIDBytes = 4096
  static let maxDinersFileBytes = 1 << 30

  static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    // Usage errors before any input is read.
    let jobs = try InputOptions.jobs(args)
    _ = try shard(args)
    if args.value(DeckRun.diners) != nil && !args.values(user).isEmpty {
      throw UsageError("give either '--user' or '--diners', not both")
    }
    let (config, settings) = try loadSettings(args, context.io)
    // The file that is checked, locked and written is the one named for the date.
    let out = outPath(args, date: settings.date)
    let outputs = try RunOutputs(
      [(.out, out), (.rejects, settings.rejectsPath)],
      inputs: Inputs.files(args, settings), wait: OutputOptions.wait(args), standardOutput: .out,
      dryRun: args.flag(OutputOptions.dryRun), io: context.job)
    defer { outputs.abort() }

    var rejects: RejectsWriter?
    if let path = settings.rejectsPath, outputs.isGiven(.rejects) {
      rejects = InputOptions.rejectsWriter(path, output: try outputs.output(.rejects))
    }
    var clock = PhaseClock()
    let inputs = try DeckInputs.load(args, config, settings, context.io, rejects: rejects)
    try rejects?.finish()
    // Under --strict an empty or stale history fails the run before anything is written;
    // otherwise it is told with the history's other messages, before the summary.
    let freshness = inputs.freshness
    if args.flag(strict), let problem = freshness { throw problem }
    RunInputs.tell(inputs.header.inputs, context.job)
    if context.isVerbose {
      context.info(
        "read the inputs and learnt '\(settings.strategyName)' in \(clock.lap()) on "
          + plural(jobs, "thread"), code: "timing")
    }
    var listed: RunInput?
    let diners = try self.diners(
      args, users: inputs.users, history: inputs.history, context, listed: &listed)
    let strategy = inputs.strategy
    var header = inputs.header
    if let listed {
      header.inputs.append(listed)
      RunInputs.tell([listed], context.job)
    }
    header.arguments = context.arguments
    var pipeline = inputs.pipeline
    pipeline.replicas = try Strategies.replicas(
      of: settings.strategy, fallback: args.value(InputOptions.fallback) != nil,
      for: diners.count, batch: pipeline.batchSize, jobs: jobs, inputs: inputs, context.io)
    let written = try context.withProgress("deck", unit: .items("diners"), total: diners.count) {
      counter in
      try write(
        diners, pipeline, format: settings.format, catalog: inputs.catalog, header: header,
        outputs: outputs, jobs: jobs, progress: counter,
        exactScores: args.flag(DeckRun.exactScores))
    }
    context.info(
      "built \(plural(diners.count, "deck")) in \(clock.lap()) on \(plural(jobs, "thread"))"
        + (pipeline.replicas.isEmpty ? "" : " (\(pipeline.replicas.count + 1) plugin processes)"),
      code: "timing")
    // The fallback's warning is the one line a cron operator must see, even with --quiet.
    if let warning = Strategies.fallbackWarning(strategy) {
      context.warnAlways(warning, code: "fallback")
    }

    let limit = 20
    for line in written.warningLines.prefix(limit) { context.warn(line, code: "deck_warning") }
    if written.warningLines.count > limit {
      context.warn(
        "\(written.warningLines.count - limit) more warnings (each deck carries its own)",
        code: "deck_warning")
    }
    Summary.history(inputs.stats, future: inputs.future, date: settings.date, context: context)
    HistoryFreshness.tell(freshness, context.job)
    // "48 decks (1 short of 10 cards) for 2026-11-25 with 'affinity' written to decks.json".
    let short =
      written.shortDecks > 0
      ? " (\(written.shortDecks) short of \(plural(settings.rules.size, "card")))" : ""
    context.note(
      "\(plural(diners.count, "deck"))\(short) for \(settings.date) with "
        + "'\(settings.strategyName)'"
        + (outputs.dryRun
          ? " would be built (dry run)"
          : (out.flatMap { $0 == "-" ? nil : " written to \($0)" } ?? "")),
      code: "summary")
    return .success
  }

  /// `--out` with every `{date}` in it replaced by the deck date (YYYY-MM-DD): a cron job names
  /// each day's file by the date it resolved (`--date today`), not by the word it was given.
  static func outPath(_ args: ParsedArguments, date: DeckDate) -> String? {
    args.value(out).map { $0.replacingOccurrences(of: "{date}", with: date.description) }
  }

  /// The config and the settings of a run that builds decks (`deck`, `play`).
  static func loadSettings(_ args: ParsedArguments, _ io: CLIStreams) throws -> (
    MenuDeckConfig, RunSettings
  ) {
    let config = try Inputs.loadConfig(args, io)
    return (config, try Inputs.settings(args, io, config: config))
  }

  /// The diners to build decks for: the `--user` list, else the users file and everyone in the
  /// history, sorted by id bytes. A diner is the bytes of its id (`IDKey`): a users file's
  /// "caf\u{E9}" is not the history's "cafe\u{301}".
  static func diners(
    _ args: ParsedArguments, users: [UserProfile], history: History,
    _ context: CommandContext, listed: inout RunInput?
  ) throws -> [UserProfile] {
    // DeckCore's byte-string table, not String's per-process hashing: 100,000 diners are
    // hashed twice here on every run.
    let profiles = IDMap(users.map { ($0.id, $0) })
    var ids: [String]
    let requested = args.values(user)
    if let file = args.value(DeckRun.diners) {
      let (list, hash) = try listedDiners(file, context.io)
      ids = list
      listed = RunInput(role: "diners", path: file, sha256: hash)
    } else if !requested.isEmpty {
      ids = []
      var given = IDSet()
      for id in requested where given.insert(id) {
        guard !id.isEmpty else {
          throw UsageError("'--user' needs a diner id, got an empty string")
        }
        if profiles[id] == nil && history.users[id] == nil {
          context.warn(
            "user '\(id)' is in neither the users file nor the history; building a first-visit deck",
            code: "unknown_diner")
        }
        ids.append(id)
      }
    } else {
      var set = IDSet()
      ids = []
      ids.reserveCapacity(users.count + history.users.byID.count)
      for u in users where set.insert(u.id) { ids.append(u.id) }
      for key in history.users.byID.keys {
        let id = key.string
        if set.insert(id) { ids.append(id) }
      }
    }
    if let shard = try shard(args) {
      ids = ids.filter { shard.contains($0) }
    }
    ids.sort(by: IDKey.precedes)
    return ids.map { profiles[$0] ?? UserProfile(id: $0) }
  }

  /// `--shard K/N`, checked.
  static func shard(_ args: ParsedArguments) throws -> DinerShard? {
    guard let text = args.value(DeckRun.shard) else { return nil }
    guard let shard = DinerShard(text) else {
      let expected = "K/N with 1 <= K <= N <= \(DinerShard.maxCount), e.g. 2/8"
      let parts = text.split(separator: "/", omittingEmptySubsequences: false)
      // Two whole numbers that make no shard are out of range; anything else is no K/N.
      if parts.count == 2, parts.allSatisfy({ RangeText.isWholeNumber(String($0)) }) {
        throw Limits.outOfRange("shard", text, give: expected)
      }
      throw UsageError("'--shard': " + RangeText.not("K/N", text, give: expected))
    }
    return shard
  }

  /// The ids of a `--diners` file: one per line (LF or CRLF), none empty or repeated, each at
  /// most `maxDinerIDBytes` bytes of UTF-8; a final line break is optional.
  static func listedDiners(_ file: String, _ io: CLIStreams) throws -> ([String], String) {
    let bytes = try Paths.using(file, io.job) { opened throws(DeckIOError) in
      try TextInput.readBytes(path: opened, what: "diners file", maxBytes: maxDinersFileBytes)
    }
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    guard lines.count <= maxListedDiners else {
      throw CommandFailure(
        .dataError, "\(file): more than \(maxListedDiners) diners; split the list")
    }
    var ids: [String] = []
    ids.reserveCapacity(lines.count)
    var seen = IDMap<Int>()
    for (k, raw) in lines.enumerated() {
      var line = raw
      if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
      let at = "\(file):\(k + 1)"
      guard !line.isEmpty else {
        throw CommandFailure(.dataError, "\(at): empty line; give one diner id per line")
      }
      guard line.count <= maxDinerIDBytes else {
        throw CommandFailure(
          .dataError,
          "\(at): a diner id of more than \(maxDinerIDBytes) bytes; is this a list of diner ids?")
      }
      guard let id = String(validating: line, as: UTF8.self) else {
        throw CommandFailure(.dataError, "\(at): not UTF-8; diner ids are UTF-8 text")
      }
      if let first = seen[id] {
        throw CommandFailure(
          .dataError, "\(at): diner '\(id)' is listed twice (first at line \(first)); list it once")
      }
      seen.insert(id, k + 1)
      ids.append(id)
    }
    return (ids, ContentHash.sha256(bytes))
  }

  /// The input files the run header names, with their content hashes.
  static func headerInputs(
    _ config: MenuDeckConfig, _ settings: RunSettings, catalogHash: String, usersHash: String?,
    history: EventReadStats, _ io: CLIStreams
  ) -> [RunInput] {
    var inputs = RunInputs.config(config)
    inputs.append(RunInput(role: "catalog", path: settings.catalogPath, sha256: catalogHash))
    if let usersHash, let path = settings.usersPath {
      inputs.append(RunInput(role: "users", path: path, sha256: usersHash))
    }
    return inputs + RunInputs.plugins([settings.strategy], io.job) + RunInputs.history(history)
  }

  /// Every diner's deck written to `--out` (stdout, or a temporary file renamed over it only
  /// when everything succeeded), then the outputs committed. Returns the warning of each short
  /// deck or left-out pin, and how many decks were short.
  static func write(
    _ diners: [UserProfile], _ pipeline: DeckPipeline, format: DeckFormat, catalog: Catalog,
    header: RunHeader, outputs: RunOutputs, jobs: Int, progress: ProgressCounter? = nil,
    exactScores: Bool = false
  ) throws -> (shortDecks: Int, warningLines: [String]) {
    let output = try outputs.output(.out)
    var shortDecks = 0
    var warningLines: [String] = []
    let writer = DeckWriter(format: format, output: output, catalog: catalog, header: header)
    writer.exactScores = exactScores
    try writer.begin()
    try pipeline.build(users: diners, jobs: jobs) { deck in
      var warnings: [String] = []
      if let s = deck.shortfall {
        warnings.append(s.description)
        shortDecks += 1
      }
      if !deck.skippedPins.isEmpty {
        warnings.append(
          "pinned " + deck.skippedPins.map { "'\($0)'" }.joined(separator: ", ")
            + " left out (diet, allergen, availability or dislike)")
      }
      for w in warnings { warningLines.append("user '\(deck.user)': \(w)") }
      try writer.write(deck, warnings: warnings)
      progress?.add(1)
    }
    try writer.end()
    try pipeline.strategy.finish()
    for replica in pipeline.replicas { try replica.finish() }
    try outputs.commit()
    return (shortDecks, warningLines)
  }
}

enum Summary {
  /// Warnings about the logs that a cron operator should see.
  static func history(_ stats: EventReadStats, future: Int, date: DeckDate, context: CommandContext)
  {
    if let (message, location) = unknownItems(stats) {
      context.warn(
        message + "; they were left out " + unknownItemsAdvice(stats), code: "unknown_items",
        location: location)
    }
    // One warning per log, at its first bad line: with several, which one has the bad lines.
    for file in stats.files where file.skippedLines > 0 {
      context.warn(
        "skipped \(plural(file.skippedLines, "malformed event line"))"
          + (file.skippedLines > 1 ? ", the first on this line" : ""), code: "skipped_lines",
        location: file.firstSkippedLine > 0
          ? SourceLocation(file: file.file, line: file.firstSkippedLine) : .wholeFile(file.file))
    }
    if future > 0 {
      context.note(
        "\(plural(future, "event")) on or after \(date) \(future == 1 ? "was" : "were") not "
          + "learned from (a deck never sees its own day)", code: "future_events")
    }
  }
}

extension Summary {
  /// What to do about the events of unknown dishes, in parentheses. A snapshot keeps no lines
  /// and cannot be corrected: its ids are those of the logs it was made from, where the ingest
  /// that read them (with a catalog) warned at each log's first one.
  static func unknownItemsAdvice(_ stats: EventReadStats) -> String {
    let inSnapshots =
      stats.mergedUnknownItemEvents > 0
      || stats.files.contains { $0.snapshot && $0.unknownItemEvents > 0 }
    guard inSnapshots else { return "(correct the ids, or add the dishes to the catalog)" }
    return "(add the dishes to the catalog, or correct the ids in the logs the snapshot was made "
      + "from and make it again from them; 'menudeck ingest' names each log's first such line "
      + "when its config or --catalog names the catalog)"
  }

  /// The events naming dishes that are not in the catalog: how many, the first ids, and where.
  /// When one log has them, the location is the first one's file:line (the whole file for a
  /// snapshot, which has no lines); with several, the message gives each log's count and first
  /// line, in the order of the logs. Nil when there are none.
  static func unknownItems(_ stats: EventReadStats) -> (String, SourceLocation?)? {
    let total = stats.unknownItemEvents
    guard total > 0 else { return nil }
    let text =
      "\(plural(total, "event")) naming dishes that are not in the catalog (e.g. "
      + stats.unknownItemIDs.map { "'\($0)'" }.joined(separator: ", ") + ")"
    let files = stats.files.filter { $0.unknownItemEvents > 0 }
    if files.count == 1 && stats.mergedUnknownItemEvents == 0 {
      let file = files[0]
      guard file.firstUnknownItemLine > 0 else {
        return (text + " in \(file.file)", .wholeFile(file.file))
      }
      return (
        text + (total > 1 ? ", the first on this line" : ""),
        SourceLocation(file: file.file, line: file.firstUnknownItemLine)
      )
    }
    var places = files.map { file in
      let line = file.firstUnknownItemLine
      let at = file.unknownItemEvents == 1 ? " at line " : " from line "
      return "\(file.unknownItemEvents) in \(file.file)" + (line > 0 ? at + "\(line)" : "")
    }
    if stats.mergedUnknownItemEvents > 0 {
      places.append(
        "\(stats.mergedUnknownItemEvents) in the history merged from "
          + stats.mergedInputs.joined(separator: ", "))
    }
    return (text + ": " + places.joined(separator: ", "), nil)
  }
}

/// The time since the start of a run's phase, for `--verbose`'s timings.
struct PhaseClock {
  private var start = monotonicSeconds()

  /// "1.25 s" since the last lap (or the start); the next lap starts now.
  mutating func lap() -> String {
    let now = monotonicSeconds()
    defer { start = now }
    return formatSeconds(now - start)
  }
}

/// "1 error", "2 errors" (`TextLayout.plural`).
func plural(_ n: Int, _ noun: String, _ plural: String? = nil) -> String {
  TextLayout.plural(n, noun, plural)
}

/// Everything a run reads to build decks, loaded the one way `deck` and `play` share: the
/// catalog, the users, the history before the deck date (with `extra` swipes added, which
/// `play` uses to fetch the cards again after a session), the strategy learnt from it, and the
/// pipeline that builds a diner's deck.
struct DeckInputs {
  var config: MenuDeckConfig
  var settings: RunSettings
  var catalog: Catalog
  var users: [UserProfile]
  var history: History
  var stats: EventReadStats
  /// Events on or after the deck date, not learnt from.
  var future: Int
  var strategy: any RankingStrategy
  var header: RunHeader
  var pipeline: DeckPipeline

  static func load(
    _ args: ParsedArguments, _ config: MenuDeckConfig, _ settings: RunSettings, _ io: CLIStreams,
    rejects: RejectsWriter? = nil, extra: [SwipeEvent] = []
  ) throws -> DeckInputs {
    let (catalog, catalogHash) = try Inputs.loadCatalog(
      settings.catalogPath, io.job, delimiter: settings.delimiters.catalog)
    var users: [UserProfile] = []
    var usersHash: String?
    if let path = settings.usersPath {
      (users, usersHash) = try Inputs.loadUsers(
        path, io.job, delimiter: settings.delimiters.users)
    }
    let builder = try Inputs.deckBuilder(catalog, settings.rules, config)
    let jobs = args.declares(InputOptions.jobs) ? try InputOptions.jobs(args) : 1
    // Only the JSON run header and --verbose show the history's hashes.
    var hashing = settings
    hashing.hashesHistory = settings.format == .json || io.diagnostics.shows(.info)
    let (history, stats, future) = try Inputs.loadHistory(
      hashing, catalog: catalog, cutoff: settings.date, io: io.job, rejects: rejects, extra: extra,
      jobs: jobs)

    let fallback = try Strategies.fallback(args, config)
    let strategy = try Strategies.make(settings.strategy, fallback: fallback, io)
    strategy.prepare(seed: settings.seed, jobs: jobs)
    try strategy.learn(catalog: catalog, history: history)
    var header = RunHeader(
      version: menudeckVersion, date: settings.date,
      strategy: settings.strategyName,
      options: Strategies.headerOptions(strategy, settings.strategy), seed: settings.seed,
      size: settings.rules.size,
      inputs: DeckRun.headerInputs(
        config, settings, catalogHash: catalogHash, usersHash: usersHash, history: stats, io))
    header.fitted = Strategies.headerFitted(strategy)
    let pipeline = DeckPipeline(
      builder: builder, strategy: strategy, history: history, seed: settings.seed,
      date: settings.date)
    return DeckInputs(
      config: config, settings: settings, catalog: catalog, users: users, history: history,
      stats: stats, future: future, strategy: strategy, header: header, pipeline: pipeline)
  }

  /// What is wrong with the history, when it is empty or stale (`HistoryFreshness`).
  var freshness: HistoryFreshness? {
    HistoryFreshness.check(
      history, stats: stats, future: future, paths: settings.historyPaths, date: settings.date,
      config: config)
  }

  /// One diner's deck, built by the pipeline as `deck` builds every diner's.
  func deck(for diner: UserProfile) throws -> Deck {
    var built: Deck?
    try pipeline.build(users: [diner]) { built = $0 }
    guard let built else {
      throw CommandFailure(.software, "the pipeline built no deck for '\(diner.id)'")
    }
    return built
  }
}
