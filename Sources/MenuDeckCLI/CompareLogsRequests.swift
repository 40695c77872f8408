import DeckBase
import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckStrategies

extension CompareLogsRequest {
  /// The request of `menudeck compare --split DATE LOG...` (or `--holdout`): the catalog and
  /// users, the split, the deck and cut-offs, the strategies, the TREC runs, the off-policy
  /// options and the tuning, checked in the order the command has always reported their
  /// mistakes.
  init(_ args: ParsedArguments, _ config: MenuDeckConfig, _ logs: [String], _ io: CLIStreams)
    throws
  {
    guard let catalogPath = args.value(InputOptions.catalog) ?? config.catalog else {
      throw CommandFailure(
        .noInput, "no catalog: set \"catalog\" in the config or give --catalog FILE")
    }
    let split = try CompareLogs.split(args) { TimeZones.today(in: try Inputs.timeZone(config)) }
    let usersPath = args.value(CompareOptions.users) ?? config.users
    if let path = usersPath, Int(path) != nil {
      throw UsageError("'--users' takes a users file when comparing on logs, got '\(path)'")
    }
    let (rules, cutoffs) = try CompareLogs.rules(args, config)
    let zone = try Inputs.timeZone(config)
    let seed = try args.value(InputOptions.seed) ?? config.seed
    // The tuning's mistakes before any plugin starts.
    let tuning = try CompareTuning.setup(
      args, config, split: split, rules: rules, cutoffs: cutoffs, seed: seed)
    let runs = try CompareLogs.runs(args)
    var settings = RunSettings.readingLogs(
      config, zone: zone, catalogPath: catalogPath, logs: logs, seed: seed, rules: rules,
      skipBadLines: args.flag(InputOptions.skipBadLines))
    try settings.readLogs(as: args, io)
    settings.hashesHistory = true
    let ope = args.flag(CompareOptions.ope)
    if ope, case .holdout = split {
      throw UsageError(
        "'--ope' needs --split DATE: off-policy estimates replay whole logged sessions")
    }
    let policies = try CompareLogs.policies(args)
    for option in [
      CompareOptions.policy.spec, CompareOptions.clip.spec, CompareOptions.crossFit.spec,
      CompareOptions.opeSamples.spec,
    ]
    where args.isGiven(option.name) && !ope {
      throw UsageError(
        "'--\(option.name)' is for off-policy estimates: add --ope (and the logged propensities"
          + " it needs)")
    }
    self.init(settings: settings, usersPath: usersPath, split: split, cutoffs: cutoffs)
    self.runs = runs
    self.ope = ope
    self.policies = policies
    estimators = try CompareLogs.estimators(args)
    samples = try Limits.value(
      args, CompareOptions.opeSamples, in: 1...LogEvaluation.maxSamples, "decks per session")
    jobs = try InputOptions.jobs(args)
    self.tuning = tuning
    trec = args.value(CompareOptions.trec)
  }
}

/// The options of a comparison on logs (`tune` reads its split and deck the same way).
extension CompareLogs {
  /// `--clip WEIGHT` and `--cross-fit FOLDS`, range-checked.
  static func estimators(_ args: ParsedArguments) throws -> OffPolicyOptions {
    let clip = try Limits.value(
      args, CompareOptions.clip,
      give: "a weight above 0 (e.g. 100: no card counts for more than 100)"
    ) { $0 > 0 }
    let folds = try Limits.value(
      args, CompareOptions.crossFit, in: OffPolicyOptions.folds, "folds")
    return OffPolicyOptions(clip: clip, crossFitFolds: folds)
  }

  /// `--policy NAME=FILE` values, each a name and a file (the job checks that the names are
  /// distinct and none is a strategy's or a run's).
  static func policies(_ args: ParsedArguments) throws -> [(name: String, path: String)] {
    try args.values(CompareOptions.policy).map { value in
      guard let eq = value.firstIndex(of: "="), eq != value.startIndex,
        value.index(after: eq) != value.endIndex
      else {
        throw UsageError(
          "'--policy' takes NAME=FILE (a name for the report and a CSV of probabilities),"
            + " got '\(value)'")
      }
      return (String(value[..<eq]), String(value[value.index(after: eq)...]))
    }
  }

  /// `--split DATE` or `--holdout FRACTION`, exactly one of them.
  static func split(_ args: ParsedArguments, today: () throws -> DeckDate) throws -> LogSplit {
    let holdout = try Limits.value(
      args, CompareOptions.holdout, give: "a fraction above 0 and below 1 (e.g. 0.2)"
    ) { $0 > 0 && $0 < 1 }
    switch (args.value(CompareOptions.split), holdout) {
    case (let text?, nil):
      return .date(try DateArgument.parse(text, option: "--split", today: today()))
    case (nil, let fraction?):
      return .holdout(fraction)
    case (nil, nil):
      throw UsageError(
        "give --split DATE (learn before it, evaluate from it on) or, for logs without times,"
          + " --holdout FRACTION")
    case (_?, _?):
      throw UsageError("give either --split or --holdout, not both")
    }
  }

  /// The config's deck rules with the deck size, and the cutoffs of the ranking metrics. The
  /// deck is `--size` when given (it must hold the largest `--k`), else the largest `--k`, else
  /// the config's deck size; without `--k` the one cutoff is the deck size.
  /// `impliedK`: the cut-offs when `--k` is not given (`tune --metric ndcg@5` implies 5).
  static func rules(_ args: ParsedArguments, _ config: MenuDeckConfig, impliedK: String? = nil)
    throws -> (DeckRules, [Int])
  {
    var rules = config.rules
    if let n = try Limits.value(args, InputOptions.size, in: Limits.deckSize, "cards") {
      rules.size = n
    }
    guard let text = args.value(CompareOptions.k) ?? impliedK else {
      return (rules, [rules.size])
    }
    let cutoffs = try self.cutoffs(text)
    let largest = cutoffs[cutoffs.count - 1]
    if args.isGiven(InputOptions.size) {
      guard rules.size >= largest else {
        throw UsageError(
          "'--size' \(rules.size) is smaller than the largest '--k' \(largest): the deck must hold"
            + " the top \(largest) cards; give --size \(largest) or more, or leave it out")
      }
    } else {
      rules.size = largest
    }
    return (rules, cutoffs)
  }

  /// The `--run [NAME=]FILE` values, each a name (nil: the job names it by its tag) and a file.
  static func runs(_ args: ParsedArguments) throws -> [(name: String?, path: String)] {
    try args.values(CompareOptions.run).map { value in
      let (given, path) = runArgument(value)
      guard !path.isEmpty, !value.hasPrefix("=") else {
        throw UsageError(
          "'--run' takes [NAME=]FILE (a TREC run: diner Q0 dish rank score tag), got '\(value)'")
      }
      return (given, path)
    }
  }
}

extension CompareTuning {
  /// The tuning `--tune` asks for, checked before the logs are read; nil without it (and a
  /// usage error for a tuning option given without it).
  static func setup(
    _ args: ParsedArguments, _ config: MenuDeckConfig, split: LogSplit, rules: DeckRules,
    cutoffs: [Int], seed: UInt64
  ) throws -> CompareTuning? {
    guard args.flag(flag) else {
      for option in options where args.isGiven(option) {
        throw UsageError("'--\(option.spec.name)' is for --tune; add --tune to tune the strategies")
      }
      return nil
    }
    let cut = try Tuning.cut(args, split: split)
    var metric = "ndcg_at_\(cutoffs[cutoffs.count - 1])"
    var validationCutoffs = cutoffs
    if let text = args.value(TuneOptions.metric) {
      let given = try Tuning.metric(text)
      metric = given.name
      if let k = given.k {
        guard k <= rules.size else {
          throw UsageError(
            "'--metric \(text)' is at k = \(k), beyond the deck of \(rules.size) cards; give"
              + " --size \(k) or --k with \(k)")
        }
        validationCutoffs = [k]
      }
    }
    let named = try SimulationOptions.namedStrategies(args, config)
    let grids = try args.values(grid).map { try Tuning.gridArgument($0, scoped: true) }
    for g in grids
    where !named.contains(where: { matches(g.scope!, $0) }) {
      throw UsageError(
        "'--grid \(g.text)': '\(g.scope!)' is none of the compared strategies (by name or by the"
          + " built-in they use)\(didYouMean(g.scope!, named.map(\.name))); compared: "
          + named.map(\.name).joined(separator: ", "))
    }
    let random = try Limits.value(
      args, TuneOptions.random, in: 1...TuningGrid.maxCandidates, "settings")
    let pinned = try Tuning.pinned(args)
    var arms: [Arm] = []
    for n in named {
      let own = grids.filter { matches($0.scope!, n) }
      let space =
        own.isEmpty
        ? Tuning.defaultSpace(for: n, pinned: pinned)
        : try Tuning.space(own, for: n, pinned: pinned)
      if space.dimensions.isEmpty {
        if n.plugin != nil {
          throw UsageError(
            "--tune: '\(n.name)' is a plugin, whose options menudeck cannot tune by itself; give"
              + " --grid \(n.name).KEY=V1,V2, or compare without --tune")
        }
        arms.append(
          Arm(named: n, settings: [[]], untunable: "nothing to tune"))
        continue
      }
      let (settings, _) = try Tuning.settings(
        space, random: random, seed: seed, what: "--tune '\(n.name)'")
      arms.append(Arm(named: n, settings: settings, untunable: nil))
    }
    return CompareTuning(
      cut: cut, validationText: Tuning.describe(cut, split: split), metric: metric,
      cutoffs: validationCutoffs, arms: arms)
  }
}
