import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckStrategies
import Foundation

/// `menudeck tune`: one strategy's settings evaluated on a validation carved from the training
/// side of a split, the grid written and the winner saved as a named configuration.
package struct TuneRequest: Sendable {
  /// How the logs (and the catalog and users) are read, with the config, the swipe logs tuned
  /// on ("-" is standard input), the catalog's path, the seed and the deck rules.
  package var settings: RunSettings
  /// The users file whose profiles the validation's diners get (`--users`, else the config's).
  package var usersPath: String?
  /// The split of the later comparison, and the validation carved before it.
  package var split: LogSplit
  package var cut: ValidationCut
  /// The ranking metric that chooses the winner, and the cut-offs the decks are judged at.
  package var metric: String
  package var cutoffs: [Int]
  /// The strategy tuned, the settings of its options tried, and how many `--random` draws
  /// repeated a setting already drawn.
  package var named: NamedStrategy
  package var candidates: [[OptionSetting]]
  package var duplicates = 0
  /// The name of the tuned configuration in `out`.
  package var name: String
  /// Threads that build each setting's decks; the output is the same for every number.
  package var jobs = 1
  package var format = TuningFormat.table
  /// The grid (standard output when not given) and the winner as a named configuration, under
  /// the keys `results` and `out`; what no output may replace: the logs, the config's files
  /// (but the included file that `out` renews), the catalog and users given; `--wait`.
  package var outputs: OutputPlan
  package var results: OutputKey
  package var out: OutputKey

  package init(
    settings: RunSettings, split: LogSplit, cut: ValidationCut, metric: String, cutoffs: [Int],
    named: NamedStrategy, candidates: [[OptionSetting]], name: String,
    results: RequestedOutput, out: RequestedOutput, plan: OutputPlan = OutputPlan()
  ) {
    self.settings = settings
    self.split = split
    self.cut = cut
    self.metric = metric
    self.cutoffs = cutoffs
    self.named = named
    self.candidates = candidates
    self.name = name
    outputs = plan.writing([results, out], standardOutput: results.key)
    self.results = results.key
    self.out = out.key
  }

  package var config: MenuDeckConfig { settings.config }
  package var logs: [String] { settings.historyPaths }
  package var catalogPath: String { settings.catalogPath }
  package var rules: DeckRules { settings.rules }
  package var seed: UInt64 { settings.seed }

  /// What the validation is, for people.
  package var validationText: String { Tuning.describe(cut, split: split) }
}

/// Runs a `TuneRequest`: lock the outputs, load the catalog and users, read the logs into the
/// validation split (the evaluation side unread), evaluate every setting, write the grid and
/// the winner, commit.
package enum TuneJob {
  package struct Outcome {
    package var result: TuningResult
    /// The candidate chosen, and the one whose options are the strategy's as configured (when
    /// the grid holds it).
    package var winner: Int
    package var configured: Int?
  }

  /// What reading the logs found is said on `io` (`HistorySummary`), and `read` is told it,
  /// before anything is tuned.
  package static func run(
    _ request: TuneRequest, _ io: JobIO, strategies: any StrategyMaking,
    read told: (EventReadStats) -> Void = { _ in }
  ) throws -> Outcome {
    // The outputs, locked before anything is read. `out` may replace a file the config
    // includes: that is how a tuning is renewed, and its other configurations are kept.
    let outputs = try RunOutputs(request.outputs, io: io)
    defer { outputs.abort() }
    let loaded = try load(request, io)
    let outPath = request.outputs.path(request.out)
    let existing = try outPath.flatMap { $0 == "-" ? nil : try ConfigFragment.existing($0, io) }
    guard
      var sink = ValidationSplitSink(
        catalog: loaded.catalog, split: request.split, cut: request.cut, seed: request.seed,
        keepsTest: false)
    else { throw Tuning.validationBeforeTime }
    let read = try CompareLogs.read(
      request.logs, split: request.split, request.settings, io, into: &sink, file: { _, _ in },
      told: { read in
        CompareLogs.tell(io)(read)
        told(read)
      })
    RunInputs.tell(loaded.inputs + RunInputs.history(read), io)
    let validation = try self.validation(sink.validation, request, loaded, io)
    io.diagnostics.info(
      "set aside \(TextLayout.plural(sink.setAside, "event")) of the evaluation side "
        + "(\(request.split.describe(sink.validation.deckDate))) unread", code: "tune_unread",
      location: nil)
    let start = monotonicSeconds()
    let result = try Tuning.run(
      request.named, settings: request.candidates, validation: validation,
      metric: request.metric, name: request.name, strategies: strategies, io)
    io.diagnostics.info(
      "evaluated \(TextLayout.plural(result.candidates.count, "setting")) on "
        + "\(TextLayout.plural(validation.diners.count, "diner")) in "
        + "\(formatSeconds(monotonicSeconds() - start)) on "
        + TextLayout.plural(validation.jobs, "thread"), code: "timing", location: nil)
    guard let winner = result.selected else {
      throw JobError(
        .dataError,
        "no setting has a defined \(request.metric) on the validation "
          + "(\(request.validationText)); choose another --metric or a longer validation")
    }
    let title =
      "tune \(request.named.name) on the \(what(request, result)); chosen by \(request.metric)"
    try outputs.write(
      Array(TuningWriter.render(result, format: request.format, title: title).utf8),
      to: request.results)
    if outPath != nil {
      let tuned = Tuning.candidate(request.named, result.candidates[winner]).named
      let entry = ConfigFragment.entry(tuned, io)
      try outputs.write(
        Array(ConfigFragment.render(name: request.name, entry: entry, existing: existing).utf8),
        to: request.out)
    }
    try outputs.commit()
    return Outcome(
      result: result, winner: winner, configured: configuredIndex(request.named, result))
  }

  /// "validation: the last 7 days before 2026-11-24 (...), 40 diners".
  package static func what(_ request: TuneRequest, _ result: TuningResult) -> String {
    "validation: \(request.validationText), \(TextLayout.plural(result.diners, "diner"))"
  }

  /// The catalog, the diners' profiles and the run header's inputs read so far.
  struct Loaded {
    var catalog: Catalog
    var profiles: [IDKey: UserProfile] = [:]
    var builder: DeckBuilder
    var inputs: [RunInput]
  }

  static func load(_ request: TuneRequest, _ io: JobIO) throws -> Loaded {
    let (catalog, profiles, inputs) = try Inputs.catalogAndProfiles(
      request.config, catalogPath: request.catalogPath, usersPath: request.usersPath,
      request.settings.delimiters, io)
    let builder = try Inputs.deckBuilder(catalog, request.rules, request.config)
    return Loaded(catalog: catalog, profiles: profiles, builder: builder, inputs: inputs)
  }

  /// The validation's history and judged diners, or a data error saying how to get some.
  static func validation(
    _ sink: LogSplitSink, _ request: TuneRequest, _ loaded: Loaded, _ io: JobIO
  ) throws -> TuningValidation {
    try TuningValidation(
      sink, cut: request.cut, validationText: request.validationText, catalog: loaded.catalog,
      profiles: loaded.profiles, builder: loaded.builder, cutoffs: request.cutoffs,
      runSeed: request.seed, jobs: request.jobs, io)
  }

  /// The candidate whose options are the strategy's as configured, if the grid holds it: the
  /// same value for every option, whether given or the default (`prior=fitted` is the default).
  static func configuredIndex(_ named: NamedStrategy, _ result: TuningResult) -> Int? {
    func typed(_ options: [String: String]) -> [String]? {
      guard named.plugin == nil, let d = StrategyRegistry.description(of: named.use),
        let typed = try? StrategyOptions(raw: options, for: d)
      else { return nil }
      return typed.all.map { "\($0.0)=\($0.1)" }
    }
    let configured = typed(named.options)
    return result.candidates.firstIndex { setting in
      let options = Tuning.candidate(named, setting).named.options
      if let configured { return typed(options) == configured }
      return options == named.options
    }
  }

  /// Whether two paths as written name one file (the same inode, or the same path when either
  /// is missing).
  package static func sameFile(_ a: String, _ b: String, _ io: JobIO) -> Bool {
    let (pa, pb) = (Paths.open(a, io), Paths.open(b, io))
    if let ia = FileIdentity(path: pa), let ib = FileIdentity(path: pb) { return ia == ib }
    return URL(fileURLWithPath: pa).standardizedFileURL.path
      == URL(fileURLWithPath: pb).standardizedFileURL.path
  }
}
