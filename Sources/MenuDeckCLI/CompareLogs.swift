import DeckBase
import DeckCore
import DeckIO
import DeckLab
import DeckStrategies
import Foundation

/// `compare` on real logs: a temporal split (or a seeded hold-out for logs without times),
/// offline ranking metrics and, with `--ope`, off-policy estimates.
enum CompareLogs {
  static func run(
    _ args: ParsedArguments, _ config: MenuDeckConfig, _ logs: [String],
    _ resampling: ResamplingOptions, _ context: CommandContext, outputs: RunOutputs
  ) throws -> ComparisonReport {
    let io = context.io
    guard let catalogPath = args.value("catalog") ?? config.catalog else {
      throw CommandFailure(
        .noInput, "no catalog: set \"catalog\" in the config or give --catalog FILE")
    }
    let split: Split
    switch (args.value("split"), try args.double("holdout")) {
    case (let text?, nil):
      guard let date = DeckDate.parse(text) else {
        throw UsageError("invalid date '\(text)' for '--split'; expected YYYY-MM-DD")
      }
      split = .date(date)
    case (nil, let fraction?):
      guard fraction > 0 && fraction < 1 else {
        throw UsageError("'--holdout' must be between 0 and 1 (e.g. 0.2), got \(fraction)")
      }
      split = .holdout(fraction)
    case (nil, nil):
      throw UsageError(
        "give --split DATE (learn before it, evaluate from it on) or, for logs without times,"
          + " --holdout FRACTION")
    case (_?, _?):
      throw UsageError("give either --split or --holdout, not both")
    }
    let (catalog, _) = try Inputs.loadCatalog(catalogPath, io)
    var profiles: [String: UserProfile] = [:]
    if let path = args.value("users") ?? config.users {
      guard Int(path) == nil else {
        throw UsageError("'--users' takes a users file when comparing on logs, got '\(path)'")
      }
      for u in try Inputs.loadUsers(path, io).0 { profiles[u.id] = u }
    }
    var rules = config.rules
    if args.isGiven("size") && args.isGiven("k") {
      throw UsageError(
        "give --k or --size, not both: on logs each strategy's deck of k cards is evaluated")
    }
    if let n = try args.int("size") {
      try Limits.check(n, option: "size", in: Limits.deckSize, "cards")
      rules.size = n
    }
    let k = try args.int("k") ?? rules.size
    guard Limits.deckSize.contains(k) else {
      throw UsageError(
        "'--k' must be between 1 and \(Limits.deckSize.upperBound), got \(k)")
    }
    rules.size = k
    let builder = try Inputs.deckBuilder(catalog, rules, config)
    let zone = try Inputs.timeZone(config)
    let (strategies, baseline) = try Compare.strategies(args, config, io)
    let names = strategies.map(\.0)
    let seed = try args.uint64("seed") ?? config.seed
    // The strategies' own random numbers come from a seed derived from the run's seed, never the
    // seed itself: a log written by `simulate` with that seed would otherwise be replayed card
    // for card by the seeded strategy that wrote it, and every estimate would be flattered.
    var derived = StableHash()
    derived.combine(seed)
    derived.combine("compare-target")
    let targetSeed = derived.finalized

    // One pass over the logs: training events into the history, evaluation events aside.
    var settings = RunSettings(
      config: config, catalogPath: catalogPath, usersPath: nil, historyPaths: logs,
      strategyName: "", strategy: NamedStrategy(name: "", use: "", options: [:]), seed: seed,
      date: DeckDate(daysSinceEpoch: 0), zone: zone, format: .json, rules: rules,
      skipBadLines: args.flag("skip-bad-lines"), rejectsPath: nil)
    settings.columns = try InputOptions.columnMapping(args, config: config)
    var seenLogs: [String: String] = [:]
    for path in logs where path != "-" {
      let resolved = URL(fileURLWithPath: Paths.open(path, io)).standardizedFileURL.path
      if let first = seenLogs[resolved] {
        throw UsageError(
          "the log '\(path)' is given twice (also as '\(first)'); its events would count twice")
      }
      seenLogs[resolved] = path
    }
    let ope = args.flag("ope")
    var sink = SplitSink(catalog: catalog, split: split, seed: seed)
    if ope {
      guard case .date(let date) = split else {
        throw UsageError(
          "'--ope' needs --split DATE: off-policy estimates replay whole logged sessions")
      }
      sink.sessions = LoggedSessions(catalog: catalog, start: date)
    }
    var read = EventReadStats()
    for path in logs {
      // The session sink names the file of an event without a propensity.
      sink.sessions?.file = path
      let one = try Inputs.readLogs([path], settings, io, into: &sink, onReject: nil)
      read.files += one.files
      for id in one.unknownItemIDs
      where read.unknownItemIDs.count < 5 && !read.unknownItemIDs.contains(id) {
        read.unknownItemIDs.append(id)
      }
    }
    Summary.history(read, future: 0, date: DeckDate(daysSinceEpoch: 0), context: context)
    if read.untimed, case .date = split {
      let files = read.files.filter(\.untimed).map(\.file)
      throw UsageError(
        "\(files.joined(separator: ", ")): the events carry no time (no 'at' column mapped), so"
          + " they cannot be split by date; use --holdout FRACTION")
    }
    let history = try sink.training.build()
    let deckDate: DeckDate
    switch split {
    case .date(let date): deckDate = date
    case .holdout: deckDate = DeckDate(daysSinceEpoch: sink.lastTrainingDay + 1)
    }
    let judged = sink.heldOut.judged
    guard !judged.isEmpty else {
      let last =
        sink.lastDay.map { " (the last event is dated \(DeckDate(daysSinceEpoch: $0)))" } ?? ""
      let advice: String
      switch split {
      case .date: advice = "choose an earlier --split\(last)"
      case .holdout: advice = "choose a larger --holdout"
      }
      throw CommandFailure(
        .dataError,
        "no diner swiped right in the evaluation period (\(split.describe(deckDate))):"
          + " nothing to evaluate; \(advice)")
    }
    var earlyNotes: [String] = []
    if sink.trainingEvents == 0 {
      let warning =
        "no event before the split: the strategies learned nothing and rank as for first visits"
      context.warn("warning: " + warning)
      earlyNotes.append(warning)
    }

    // Each strategy ranks a deck of k cards for every judged diner on the deck date.
    let diners = judged.map { profiles[$0.user] ?? UserProfile(id: $0.user) }
    var rankings: [[[Int32]]] = []
    var shownCounts: [[Int]] = []
    for (_, strategy) in strategies {
      try strategy.learn(catalog: catalog, history: history)
      let pipeline = DeckPipeline(
        builder: builder, strategy: strategy, history: history, seed: targetSeed, date: deckDate)
      var lists: [[Int32]] = []
      lists.reserveCapacity(diners.count)
      var counts = [Int](repeating: 0, count: catalog.count)
      try pipeline.build(users: diners) { deck in
        let items = deck.cards.map(\.item)
        for i in items { counts[Int(i)] += 1 }
        lists.append(items)
      }
      rankings.append(lists)
      shownCounts.append(counts)
    }
    if let dir = args.value("trec") {
      try writeTrec(
        dir: dir, users: judged.map(\.user), relevant: judged.map(\.relevant), names: names,
        rankings: rankings, catalog: catalog, outputs: outputs)
    }
    let evaluation = OfflineEvaluation(
      k: k, itemCategory: catalog.itemCategory, trainingPopularity: history.itemRight)
    let ranking = evaluation.evaluate(
      users: judged.map(\.user), relevant: judged.map(\.relevant),
      arms: zip(names, rankings).map { OfflineArm(name: $0, rankings: $1) }
    ).table
    try Limits.checkResampling(ranking, resamples: resampling.resamples)
    let (rankingArms, rankingDifferences) = Resampling.analyze(
      ranking, baseline: baseline, options: resampling)
    var notes: [String] = [Compare.coverageNote] + earlyNotes

    var metrics = ranking.metrics
    var arms = rankingArms
    var differences = rankingDifferences
    var opeParameters: [ReportParameter] = []
    if let sessions = sink.sessions {
      try sessions.check()
      let log = sessions.log()
      guard log.cardCount > 0 else {
        throw CommandFailure(
          .dataError,
          "no logged cards on or after \(deckDate): nothing for the off-policy estimates")
      }
      // Positions past the cap are left out of every estimator, and said so.
      let positions = min(log.maxPosition, OffPolicy.maxPositions)
      let beyond = log.sessions.reduce(0) { n, s in
        n + s.cards.filter { Int($0.position) > positions }.count
      }
      if beyond > 0 {
        notes.append(
          "\(plural(beyond, "logged card")) at positions above \(positions) (the last at "
            + "\(log.maxPosition)) \(beyond == 1 ? "is" : "are") left out of the off-policy "
            + "estimates, which cover positions 1 to \(OffPolicy.maxPositions)")
      }
      var opeRules = rules
      opeRules.size = positions
      let opeBuilder = try Inputs.deckBuilder(catalog, opeRules, config)
      // Each strategy's deck for every logged session: grouped by day, built as on that day.
      var byDay: [DeckDate: [Int]] = [:]
      for (i, session) in log.sessions.enumerated() { byDay[session.day, default: []].append(i) }
      var targets: [OffPolicyTarget] = []
      for (name, strategy) in strategies {
        var rankings = [[Int32]](repeating: [], count: log.sessions.count)
        for day in byDay.keys.sorted() {
          let indices = byDay[day]!
          let pipeline = DeckPipeline(
            builder: opeBuilder, strategy: strategy, history: history, seed: targetSeed, date: day)
          var next = 0
          try pipeline.build(
            users: indices.map { i in
              let id = log.diners[log.sessions[i].diner]
              return profiles[id] ?? UserProfile(id: id)
            }
          ) { deck in
            rankings[indices[next]] = deck.cards.map(\.item)
            next += 1
          }
        }
        targets.append(OffPolicyTarget(name: name, rankings: rankings))
      }
      // Effective sample size of each strategy's importance weights w = match / μ over the
      // logged cards: (Σw)² / Σw². Few effective cards make IPS, SNIPS and DR noisy beyond
      // what a bootstrap over diners can show.
      var effective: [String] = []
      for target in targets {
        var sum = 0.0
        var squares = 0.0
        for (s, session) in log.sessions.enumerated() {
          let ranking = target.rankings[s]
          for card in session.cards {
            let p = Int(card.position) - 1
            guard p >= 0 && p < ranking.count && ranking[p] == card.item else { continue }
            let w = 1 / card.propensity
            sum += w
            squares += w * w
          }
        }
        let ess = squares > 0 ? sum * sum / squares : 0
        effective.append("\(target.name) \(ReportNumber.text(ess, decimals: 1))")
        if ess < 100 {
          notes.append(
            "the off-policy estimates of \(target.name) rest on an effective sample of"
              + " \(ReportNumber.text(ess, decimals: 1)) logged cards ((Σw)²/Σw² of its importance"
              + " weights): too few for IPS, SNIPS or DR to be trusted, whatever their intervals say"
          )
        }
      }
      let table = OffPolicy.evaluate(
        log, targets: targets, options: OffPolicyOptions(positions: positions))
      try Limits.checkResampling(table, resamples: resampling.resamples)
      let (opeArms, opeDifferences) = Resampling.analyze(
        table, baseline: baseline, options: resampling)
      metrics += table.metrics
      for a in arms.indices { arms[a].estimates += opeArms[a].estimates }
      for d in differences.indices {
        differences[d].estimates += opeDifferences[d].estimates
        differences[d].pValues += opeDifferences[d].pValues
      }
      notes.append(
        "off-policy estimates (replay, ips, snips, dr and per position) resample the"
          + " \(log.diners.count) diners of the \(plural(log.sessions.count, "logged session"))"
          + " from \(deckDate) on; they assume a card's right-swipe chance depends only on the diner,"
          + " the dish and the position and that reaching a position does not depend on the cards"
          + " above it (not exact in pick mode), and that each logged propensity is the logging"
          + " strategy's probability of that dish at that position (deck rules that move cards, such"
          + " as a category cap or the no-adjacent rule, break it)")
      opeParameters = [
        ReportParameter(name: "ope_sessions", value: "\(log.sessions.count)"),
        ReportParameter(name: "ope_diners", value: "\(log.diners.count)"),
        ReportParameter(name: "ope_positions", value: "\(positions)"),
        ReportParameter(name: "ope_effective_cards", value: effective.joined(separator: ", ")),
      ]
    }

    for (_, strategy) in strategies { try strategy.finish() }
    let skipped = sink.heldOut.dinerCount - judged.count
    if skipped > 0 {
      notes.append(
        "\(plural(skipped, "diner")) with evaluation swipes but no right swipe cannot be scored"
          + " by ranking metrics and \(skipped == 1 ? "is" : "are") left out")
    }
    let parameters =
      [
        ReportParameter(name: "mode", value: "logs"),
        ReportParameter(name: "logs", value: logs.joined(separator: ", ")),
        ReportParameter(name: "split", value: split.describe(deckDate)),
        ReportParameter(name: "deck_date", value: "\(deckDate)"),
        ReportParameter(name: "k", value: "\(k)"),
        ReportParameter(name: "training_events", value: "\(sink.trainingEvents)"),
        ReportParameter(name: "evaluation_events", value: "\(sink.heldOut.events)"),
        ReportParameter(name: "evaluated_diners", value: "\(judged.count)"),
        ReportParameter(name: "seed", value: "\(seed)"),
      ] + opeParameters
    let top = topDishes(names: names, counts: shownCounts, catalog: catalog)
    var report = ComparisonReport(
      title: "logs: \(logs.joined(separator: ", ")), \(split.describe(deckDate)), k = \(k)",
      parameters: parameters, metrics: metrics, arms: arms,
      baseline: baseline.map { names[$0] }, differences: differences, daily: [],
      level: resampling.level, resamples: resampling.resamples, units: judged.count,
      notes: notes)
    report.topDishes = top
    return report
  }

  /// `DIR/qrels.txt` (the right swipes of the evaluation period) and `DIR/NAME.run` per strategy,
  /// so that `trec_eval -c -m P.10 ... DIR/qrels.txt DIR/NAME.run` recomputes the ranking
  /// metrics. The files are outputs of the run (see `trecFiles`), replaced with its others.
  static func writeTrec(
    dir: String, users: [String], relevant: [[Int32]], names: [String], rankings: [[[Int32]]],
    catalog: Catalog, outputs: RunOutputs
  ) throws {
    let ids = catalog.items.map(\.id)
    let files = trecFiles(dir: dir, names: names)
    do {
      let qrels = try TrecFiles.qrels(users: users, relevant: relevant, itemIDs: ids)
      try outputs.write(Array(qrels.utf8), to: "--trec", path: files[0])
      for (index, (name, lists)) in zip(names, rankings).enumerated() {
        let run = try TrecFiles.run(users: users, rankings: lists, itemIDs: ids, tag: name)
        try outputs.write(Array(run.utf8), to: "--trec", path: files[index + 1])
      }
    } catch let error as TrecIDError {
      throw CommandFailure(.dataError, "--trec: \(error)")
    }
  }

  /// The files `--trec DIR` writes: `DIR/qrels.txt`, then `DIR/NAME.run` for each strategy (a
  /// named configuration may hold characters a file name should not: they become `_`).
  static func trecFiles(dir: String, names: [String]) -> [String] {
    let base = dir.hasSuffix("/") ? dir : dir + "/"
    return [base + "qrels.txt"]
      + names.map { name in
        base
          + String(
            name.unicodeScalars.map { c in
              c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "-" || c == "."
                ? Character(c) : "_"
            }) + ".run"
      }
  }

  static func topDishes(names: [String], counts: [[Int]], catalog: Catalog, limit: Int = 10)
    -> [TopDishes]
  {
    zip(names, counts).map { name, c in
      let order = c.indices.filter { c[$0] > 0 }.sorted { c[$0] != c[$1] ? c[$0] > c[$1] : $0 < $1 }
      return TopDishes(
        arm: name,
        dishes: order.prefix(limit).map { i in
          let item = catalog.items[i]
          return TopDishes.Dish(id: item.id, name: item.name, category: item.category, count: c[i])
        })
    }
  }
}

/// How logs are cut into training and evaluation.
enum Split {
  /// Events before the date train, events on or after it are evaluated.
  case date(DeckDate)
  /// Each (diner, dish) pair is evaluated with this probability, decided by a stable hash of
  /// (seed, diner, dish): for logs without times.
  case holdout(Double)

  func describe(_ deckDate: DeckDate) -> String {
    switch self {
    case .date(let d): return "split at \(d)"
    case .holdout(let f):
      return "hold-out of \(f) of the (diner, dish) pairs, decks for \(deckDate)"
    }
  }
}

/// Routes each event of a log to the training history or to the evaluation.
struct SplitSink: EventSink {
  var training: HistoryIngest
  var heldOut: HeldOutSwipes
  /// With `--ope`: the logged sessions of the evaluation period.
  var sessions: LoggedSessions?
  let split: Split
  let seed: UInt64
  private let threshold: UInt64
  /// The last local day of a training event (hold-out decks are built the day after).
  private(set) var lastTrainingDay: Int32 = 0
  /// Events learned from.
  private(set) var trainingEvents = 0
  /// The latest deck day of any event (date splits).
  private(set) var lastDay: Int32?

  init(catalog: Catalog, split: Split, seed: UInt64) {
    self.split = split
    self.seed = seed
    switch split {
    case .date(let date):
      // The split decides by the event's deck date (else the local day of its `at`), the same
      // day on both sides: the history's own cutoff (by `at`) is not used.
      training = HistoryIngest(catalog: catalog, cutoff: nil)
      heldOut = HeldOutSwipes(catalog: catalog, split: date)
      threshold = 0
    case .holdout(let fraction):
      training = HistoryIngest(catalog: catalog, cutoff: nil)
      heldOut = HeldOutSwipes(catalog: catalog, split: DeckDate(daysSinceEpoch: 0))
      threshold = UInt64((fraction * 0x1p64).rounded(.down).clamped(to: 0...0x1.fffffffffffffp63))
    }
  }

  mutating func event(_ e: RawEvent) -> EventDisposition {
    switch split {
    case .date(let date):
      let day = e.deck?.daysSinceEpoch ?? e.day
      lastDay = max(lastDay ?? day, day)
      if day < date.daysSinceEpoch {
        let disposition = training.event(e)
        if disposition == .accepted { trainingEvents += 1 }
        return disposition
      }
      _ = sessions?.event(e)
      return heldOut.event(e.swipeEvent)
    case .holdout:
      var h = StableHash()
      h.combine(seed)
      h.combine(bytes: e.user)
      h.combine(UInt64(0xff))
      h.combine(bytes: e.item)
      if h.finalized < threshold {
        return heldOut.event(e.swipeEvent)
      }
      let disposition = training.event(e)
      if disposition == .accepted {
        trainingEvents += 1
        lastTrainingDay = max(lastTrainingDay, e.deck?.daysSinceEpoch ?? e.day)
      }
      return disposition
    }
  }

  mutating func finish() {
    training.finish()
    heldOut.finish()
  }
}

/// Fixed-decimal numbers in notes and parameters.
enum ReportNumber {
  static func text(_ x: Double, decimals: Int) -> String { TextLayout.fixed(x, decimals: decimals) }
}

extension Double {
  fileprivate func clamped(to range: ClosedRange<Double>) -> Double {
    Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
  }
}
