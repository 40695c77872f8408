import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

/// `menudeck deck`: every chosen diner's deck for a date, under the deck rules, with the
/// strategy learnt from the history before that date.
package struct DeckRequest: Sendable {
  /// The config with the command line's paths, strategy, date, format, rules and log reading
  /// over it.
  package var settings: RunSettings
  package var diners: DinerChoice = .everyone
  package var shard: DinerShard?
  /// The decks (`{date}` already the deck date; standard output when not given) and the
  /// skipped lines (`--rejects`), under the keys `out` and `rejects`; the files the run reads,
  /// `--wait` and `--dry-run`.
  package var outputs: OutputPlan
  package var out: OutputKey
  package var rejects: OutputKey
  /// Fail (exit 65, nothing written) when the history is empty or stale.
  package var strict = false
  /// Scores in the shortest digits that read back exactly.
  package var exactScores = false
  /// The strategy that takes over for the diners whose plugin fails (`--fallback`'s name).
  package var fallback: String?
  /// Each card with why it is where it is (`--explain`; `DeckExplainWriter`).
  package var explain = false
  /// Threads that read big logs and build the decks; the decks are the same for every number.
  package var jobs: Int
  /// menudeck's version, for the run header.
  package var version: String

  package init(
    settings: RunSettings, out: RequestedOutput, rejects: RequestedOutput,
    plan: OutputPlan = OutputPlan(), jobs: Int, version: String
  ) {
    self.settings = settings
    outputs = plan.writing([out, rejects], standardOutput: out.key)
    self.out = out.key
    self.rejects = rejects.key
    self.jobs = jobs
    self.version = version
  }
}

/// Runs a `DeckRequest`: declare and lock the outputs, load the inputs (`DeckInputs.load`),
/// choose the diners, build their decks through the strategy pipeline into the deck writer,
/// and commit the outputs together.
package enum DeckJob {
  package struct Outcome {
    /// How many decks were built, and how many of them were short of the deck size.
    package var decks: Int
    package var shortDecks: Int
    /// The warning of each short deck or left-out pin, "user 'u01': ...", in diner order.
    package var warningLines: [String]
    /// What reading the history found, and its events on or after the deck date.
    package var read: EventReadStats
    package var future: Int
    /// What is wrong with the history when it is empty or stale (told, not thrown).
    package var freshness: HistoryFreshness?
    /// The one warning of a run whose plugin failed for some diners (`--fallback`).
    package var fallbackWarning: String?
    /// Whether the outputs were only counted (`--dry-run`).
    package var dryRun: Bool
    /// What each of the restaurant's rules did over the decks.
    package var ruleCounts: RuleCounts
  }

  package static func run(_ request: DeckRequest, _ io: JobIO) throws -> Outcome {
    let settings = request.settings
    let outputs = try RunOutputs(request.outputs, io: io)
    defer { outputs.abort() }

    var rejects: RejectsWriter?
    if let path = request.outputs.path(request.rejects), outputs.isGiven(request.rejects) {
      rejects = RejectsWriter(
        output: try outputs.output(request.rejects),
        format: RejectsWriter.format(path: path) ?? .jsonLines)
    }
    var clock = PhaseClock()
    let inputs = try DeckInputs.load(
      settings, fallback: request.fallback, jobs: request.jobs, version: request.version, io,
      rejects: rejects)
    try rejects?.finish()
    // Under --strict an empty or stale history fails the run before anything is written;
    // otherwise the command tells it with the history's other messages, before its summary.
    let freshness = inputs.freshness
    if request.strict, let problem = freshness { throw problem }
    RunInputs.tell(inputs.header.inputs, io)
    let threads = TextLayout.plural(request.jobs, "thread")
    if io.diagnostics.showsInfo {
      io.diagnostics.info(
        "read the inputs and learnt '\(settings.strategyName)' in \(clock.lap()) on \(threads)",
        code: "timing", location: nil)
    }
    let (diners, listed) = try self.diners(
      request.diners, shard: request.shard, users: inputs.users, history: inputs.history, io)
    var header = inputs.header
    if let listed {
      header.inputs.append(listed)
      RunInputs.tell([listed], io)
    }
    header.arguments = io.arguments
    var pipeline = inputs.pipeline
    pipeline.replicas = try Strategies.replicas(
      of: settings.strategy, fallback: request.fallback != nil, for: diners.count,
      batch: pipeline.batchSize, jobs: request.jobs, inputs: inputs, io)
    let written = try io.diagnostics.withProgress(
      "deck", unit: .items("diners"), total: diners.count
    ) { counter in
      try write(diners, pipeline, request, inputs.catalog, header, outputs, counter)
    }
    io.diagnostics.info(
      "built \(TextLayout.plural(diners.count, "deck")) in \(clock.lap()) on \(threads)"
        + (pipeline.replicas.isEmpty ? "" : " (\(pipeline.replicas.count + 1) plugin processes)"),
      code: "timing", location: nil)
    return Outcome(
      decks: diners.count, shortDecks: written.shortDecks, warningLines: written.warningLines,
      read: inputs.stats, future: inputs.future, freshness: freshness,
      fallbackWarning: Strategies.fallbackWarning(inputs.strategy), dryRun: outputs.dryRun,
      ruleCounts: written.ruleCounts)
  }

  /// Every diner's deck written to the request's output (stdout, or a temporary file renamed
  /// over it only when everything succeeded), then the outputs committed. Returns the warning
  /// of each short deck or left-out pin, how many decks were short, and what the restaurant's
  /// rules did.
  static func write(
    _ diners: [UserProfile], _ pipeline: DeckPipeline, _ request: DeckRequest, _ catalog: Catalog,
    _ header: RunHeader, _ outputs: RunOutputs, _ progress: ProgressCounter?
  ) throws -> (shortDecks: Int, warningLines: [String], ruleCounts: RuleCounts) {
    let output = try outputs.output(request.out)
    var ruleCounts = RuleCounts(rules: request.settings.rules.restaurantRules.count)
    var shortDecks = 0
    var warningLines: [String] = []
    // `--explain` writes the explained decks (`DeckExplainWriter`); otherwise the decks.
    var plain: DeckWriter?
    var explaining: DeckExplainWriter?
    if request.explain {
      explaining = DeckExplainWriter(
        format: request.settings.format, output: output, catalog: catalog,
        rules: pipeline.builder.rules, header: header, exactScores: request.exactScores)
      try explaining?.begin()
    } else {
      plain = DeckWriter(
        format: request.settings.format, output: output, catalog: catalog, header: header)
      plain?.exactScores = request.exactScores
      try plain?.begin()
    }
    var pipeline = pipeline
    pipeline.explains = request.explain
    func count(_ deck: DeckNote) {
      if deck.short { shortDecks += 1 }
      for w in deck.warnings { warningLines.append("user '\(deck.user)': \(w)") }
      ruleCounts.add(applications: deck.ruleApplications)
      progress?.add(1)
    }
    if let plain, plain.format == .json || plain.format == .jsonl {
      let encoder = plain.jsonEncoder
      // JSON decks are laid out by the workers that build them (their text is much of a run's
      // work); this thread writes the texts in order.
      try pipeline.build(users: diners, jobs: request.jobs) { deck, text in
        let note = DeckNote(deck)
        encoder.append(deck, warnings: note.warnings, to: &text)
        return note
      } emit: { note, text in
        count(note)
        try plain.write(json: text)
      }
    } else {
      try pipeline.build(users: diners, jobs: request.jobs) { deck, _, explained in
        let note = DeckNote(deck)
        count(note)
        if let explained {
          try explaining?.write(explained, warnings: note.warnings)
        } else {
          try plain?.write(deck, warnings: note.warnings)
        }
      }
    }
    try plain?.end()
    try explaining?.end()
    try pipeline.strategy.finish()
    for replica in pipeline.replicas { try replica.finish() }
    try outputs.commit()
    return (shortDecks, warningLines, ruleCounts)
  }

  /// What a run's summary counts of a deck, made on the worker that built it (beside the
  /// deck's text).
  struct DeckNote: Sendable {
    /// Set only with warnings.
    var user = ""
    var short: Bool
    var warnings: [String]
    var ruleApplications: [RuleApplication]

    init(_ deck: Deck) {
      short = deck.shortfall != nil
      warnings = DeckJob.warnings(deck)
      ruleApplications = deck.ruleApplications
      if !warnings.isEmpty { user = deck.user }
    }
  }

  /// A deck's warnings: short of the deck size, pins left out.
  static func warnings(_ deck: Deck) -> [String] {
    var warnings: [String] = []
    if let s = deck.shortfall { warnings.append(s.description) }
    if !deck.skippedPins.isEmpty {
      warnings.append(
        "pinned " + deck.skippedPins.map { "'\($0)'" }.joined(separator: ", ")
          + " left out (diet, allergen, availability or dislike)")
    }
    return warnings
  }
}

/// The time since the start of a run's phase, for `--verbose`'s timings.
package struct PhaseClock {
  private var start = monotonicSeconds()

  package init() {}

  /// "1.25 s" since the last lap (or the start); the next lap starts now.
  package mutating func lap() -> String {
    let now = monotonicSeconds()
    defer { start = now }
    return formatSeconds(now - start)
  }
}
