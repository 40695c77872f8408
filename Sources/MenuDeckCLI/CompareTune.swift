import DeckBase
import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckStrategies

/// `compare --tune`: every strategy is tuned on a validation carved from the training side of
/// the split (as `tune` does) and compared with its winning setting, so that no arm is compared
/// untuned. The arms keep their names; the report says which setting each one won with.
struct CompareTuning {
  /// One strategy arm's search.
  struct Arm {
    var named: NamedStrategy
    var settings: [[OptionSetting]]
    /// Why it has nothing to tune (a strategy without tuning values), or nil.
    var untunable: String?
  }

  var cut: ValidationCut
  var validationText: String
  var metric: String
  /// The cut-offs of the validation: the metric's, or the comparison's.
  var cutoffs: [Int]
  var arms: [Arm]

  static let flag = Flag(
    "tune",
    help:
      "Logs: tune every strategy first on a validation carved from the training swipes (the"
      + " --grid values, else each strategy's own grid) and compare the winners.")
  static let grid = TuneOptions.grid.with(
    help:
      "With --tune: STRATEGY.KEY=V1,V2 (or STRATEGY.KEY=LOW..HIGH with --random) for the"
      + " strategies named or using STRATEGY, instead of their own grid; repeated.")

  /// The options that only a tuning reads.
  static let options: [any OptionKey] = [
    grid, TuneOptions.random, TuneOptions.metric, TuneOptions.validationDays,
    TuneOptions.validationFraction,
  ]

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
    let named = try Simulate.namedStrategies(args, config)
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

  /// Whether `--grid SCOPE.KEY=...` is for `named`: its name, its base name, or the built-in
  /// it uses.
  static func matches(_ scope: String, _ named: NamedStrategy) -> Bool {
    scope == named.name || scope == Tuning.baseName(named)
      || (named.plugin == nil && scope == named.use)
  }

  /// Tunes every arm on `validation` (the validation split of the training side) and returns
  /// the tuned strategies in the order of the arms, what the run header records of them, and
  /// the report's parameters.
  func tune(
    _ validation: LogSplitSink, _ setup: CompareLogs.Setup, _ config: MenuDeckConfig,
    fallback: NamedStrategy?, context: CommandContext
  ) throws -> (
    arms: [LogEvaluation.Arm], named: [NamedStrategy], parameters: [ReportParameter]
  ) {
    let history = try validation.training.build()
    let judged = validation.heldOut.judged
    guard !judged.isEmpty else {
      let advice: String
      switch cut {
      case .days: advice = "give more --validation-days, or a later --split"
      case .fraction: advice = "give a larger --validation-fraction"
      }
      throw CommandFailure(
        .dataError,
        "--tune: no diner swiped right in the validation (\(validationText)): nothing to tune on;"
          + " \(advice)")
    }
    if validation.trainingEvents == 0 {
      context.warn(
        "--tune: no training event before the validation (\(validationText)): every setting"
          + " learned nothing; give fewer --validation-days",
        code: "no_training_events")
    }
    var rules = setup.builder.rules
    rules.size = max(rules.size, cutoffs[cutoffs.count - 1])
    let builder = try Inputs.deckBuilder(setup.catalog, rules, config)
    let check = TuningValidation(
      catalog: setup.catalog,
      diners: judged.map { setup.profiles[IDKey($0.user)] ?? UserProfile(id: $0.user) },
      relevant: judged.map(\.relevant), history: history, builder: builder, cutoffs: cutoffs,
      seed: LogEvaluation.targetSeed(runSeed: setup.seed), date: validation.deckDate,
      jobs: setup.jobs)
    var tunedArms: [LogEvaluation.Arm] = []
    var tunedNamed: [NamedStrategy] = []
    var won: [(arm: String, text: String)] = []
    var values: [(arm: String, value: Double?)] = []
    var counts: [(arm: String, count: Int)] = []
    for (arm, search) in zip(setup.arms, arms) {
      let result = try Tuning.run(
        search.named, settings: search.settings, validation: check, metric: metric,
        name: search.named.name, context: context)
      let index = result.selected ?? 0
      let winner = Tuning.candidate(search.named, result.candidates[index]).named
      values.append((arm.name, result.values[index][result.metric]))
      counts.append((arm.name, result.candidates.count))
      won.append(
        (
          arm.name,
          search.untunable
            ?? (result.selected == nil
              ? "no setting defined \(metric); compared as configured"
              : result.candidates[index].map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        ))
      if search.untunable == nil {
        try arm.strategy.finish()
        var named = winner
        named.name = arm.name
        tunedArms.append((arm.name, try Strategies.make(named, fallback: fallback, context.io)))
        tunedNamed.append(named)
      } else {
        tunedArms.append(arm)
        tunedNamed.append(search.named)
      }
      context.note(
        "--tune: \(arm.name): \(won.last!.text)"
          + (search.untunable == nil
            ? " won of \(plural(result.candidates.count, "setting")) by \(metric) on the validation"
              + " (\(values.last!.value.map { Text.fixed($0, decimals: 4) } ?? "undefined"))"
            : ""),
        code: "tuned")
    }
    let parameters = [
      ReportParameter(
        name: "tuning",
        value: "\(metric) on the validation, \(validationText), \(plural(judged.count, "diner"))"),
      ReportParameter.perArm("tuned", texts: won),
      ReportParameter(
        name: "tuned_settings",
        value: counts.map { "\($0.arm) \($0.count)" }.joined(separator: ", "),
        json: JSONWriter.text { w in
          w.beginObject()
          for c in counts { w.field(c.arm, int: c.count) }
          w.endObject()
        }),
      ReportParameter.perArm("tuned_value", values),
    ]
    return (tunedArms, tunedNamed, parameters)
  }
}
