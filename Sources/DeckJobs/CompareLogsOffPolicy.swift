import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckStrategies

/// `compare --ope`: the off-policy estimates, and the analysis that joins them to the ranking
/// metrics.
extension CompareLogs {
  /// `--ope`: each strategy's decks for the logged sessions and the off-policy estimates.
  static func offPolicy(
    _ sessions: LoggedSessions, _ setup: inout Setup, _ config: MenuDeckConfig, _ history: History,
    _ seed: UInt64, _ deckDate: DeckDate, _ io: JobIO
  ) throws -> LogEvaluation.OffPolicyPart {
    try sessions.check()
    let log = sessions.log()
    guard log.cardCount > 0 else {
      throw JobError(
        .dataError,
        "no logged cards on or after \(deckDate): nothing for the off-policy estimates")
    }
    var rules = setup.rules
    rules.size = LogEvaluation.positions(of: log).positions
    let builder = try Inputs.deckBuilder(setup.catalog, rules, config)
    // The strategies that know the distribution they draw from are that distribution; with
    // --ope-samples, the others are sampled.
    let draws = setup.samples ?? LogEvaluation.defaultMarginalDraws
    let exact = try LogEvaluation.exactTargets(
      setup.arms, log: log, profiles: setup.profiles, history: history, builder: builder,
      seed: seed, positions: rules.size, draws: draws, jobs: setup.jobs)
    var targets = exact.targets
    let known = targets.map { !$0.isDeterministic }
    if let samples = setup.samples {
      let others = setup.arms.indices.filter { !known[$0] }
      let sampled = try LogEvaluation.sampledTargets(
        others.map { setup.arms[$0] }, log: log, profiles: setup.profiles, history: history,
        builder: builder, seed: seed, samples: samples, jobs: setup.jobs)
      for (a, target) in zip(others, sampled) { targets[a] = target }
    }
    for (name, path) in setup.policies {
      let (file, hash) = try Paths.using(path, io) { opened throws(DeckIOError) in
        let bytes = try TextInput.readBytes(
          path: opened, what: "policy file", maxBytes: PolicyFile.maxBytes)
        return (
          try PolicyFile.parse(
            bytes, file: path, catalog: setup.catalog,
            delimiter: setup.settings.delimiters.policy),
          ContentHash.sha256(bytes)
        )
      }
      setup.inputs.append(RunInput(role: "policy", path: path, sha256: hash))
      targets.append(
        try LogEvaluation.policyTarget(
          name: name, file: file, log: log, positions: rules.size))
    }
    var part = LogEvaluation.offPolicy(
      targets, log: log, from: deckDate, options: setup.estimators)
    for (a, moved) in exact.movedByRules.enumerated() where moved > 0 {
      let sessions = TextLayout.plural(log.sessions.count, "logged session")
      part.notes.append(
        "\(setup.arms[a].name): the restaurant's rules boosted, buried or pinned cards in"
          + " \(moved) of \(sessions); each of those is evaluated as the one deck drawn, built"
          + " with the rules (a strategy's propensities do not describe an order the rules"
          + " changed)")
    }
    let exactNames = setup.arms.indices.filter { known[$0] }.map { setup.arms[$0].name }
    if !exactNames.isEmpty {
      part.notes.append(
        "\(exactNames.joined(separator: ", ")) evaluated as the distributions \(exactNames.count == 1 ? "it draws its decks" : "they draw their decks") from,"
          + " exactly (a Plackett-Luce distribution's probabilities after position 1 estimated"
          + " from \(draws) rankings per distinct distribution); replay is undefined for them")
      for (a, count) in exact.oneDeck.enumerated() where count > 0 {
        part.notes.append(
          "\(setup.arms[a].name): \(count) of \(log.sessions.count) logged sessions evaluated as"
            + " the one deck drawn for them: the deck rules move its cards for those diners, so"
            + " the distribution of the ranking is not the deck's")
      }
    }
    part.parameters.append(
      ReportParameter.perArm(
        "ope_targets",
        texts: setup.arms.indices.map { a in
          (
            setup.arms[a].name,
            known[a] ? "exact distribution" : targets[a].isDeterministic ? "one deck" : "sampled"
          )
        }))
    if let samples = setup.samples {
      let stochastic = setup.arms.indices.filter { !known[$0] && !targets[$0].isDeterministic }
        .map { setup.arms[$0].name }
      part.parameters.append(.integer("ope_samples", samples))
      part.notes.append(
        "--ope-samples \(samples): "
          + (stochastic.isEmpty
            ? "no other strategy varied across its \(samples) seeded decks; they are evaluated as"
              + " one deck"
            : "\(stochastic.joined(separator: ", ")) evaluated as stochastic policies, each"
              + " probability the share of \(samples) seeded decks (Monte Carlo error up to"
              + " \(Text.fixed(0.5 / Double(samples).squareRoot(), decimals: 4)) per"
              + " probability); replay is undefined for them"))
    }
    return part
  }

  /// The resampled estimates of the report: the ranking metrics, then the off-policy ones.
  struct Analysis {
    var metrics: [MetricSpec]
    var arms: [ArmSummary]
    var differences: [ArmDifference]

    /// The estimates of `table`, the resamples counted on the progress line.
    init(
      _ table: UnitTable, baseline: Int?, _ resampling: ResamplingOptions,
      _ io: JobIO
    ) throws {
      try Limits.checkResampling(table, resamples: resampling.resamples)
      (arms, differences) = CompareJob.resample(table, baseline: baseline, resampling, io)
      metrics = table.metrics
    }

    /// Adds the metrics of `table`, whose arms are matched to this analysis's by name. An arm
    /// only this analysis has (a `--run`: ranking metrics only) gets undefined estimates for
    /// the new metrics; an arm only `table` has (a `--policy`: off-policy estimates only) is
    /// appended with undefined estimates for the earlier ones. `baseline` is the baseline's
    /// name; when `table` does not hold it, its metrics have no differences.
    mutating func add(
      _ table: UnitTable, baseline: String?, _ resampling: ResamplingOptions,
      _ io: JobIO
    ) throws {
      let index = baseline.flatMap { name in table.arms.firstIndex { $0.arm == name } }
      let more = try Analysis(table, baseline: index, resampling, io)
      let none = Estimate(value: nil, lower: nil, upper: nil)
      let earlier = metrics.count
      let added = more.metrics.count
      metrics += more.metrics
      for a in arms.indices {
        let estimates = more.arms.first { $0.arm == arms[a].arm }?.estimates
        arms[a].estimates += estimates ?? [Estimate](repeating: none, count: added)
      }
      for arm in more.arms where !arms.contains(where: { $0.arm == arm.arm }) {
        arms.append(
          ArmSummary(
            arm: arm.arm,
            estimates: [Estimate](repeating: none, count: earlier) + arm.estimates))
      }
      for d in differences.indices {
        if let match = more.differences.first(where: { $0.arm == differences[d].arm }) {
          differences[d].estimates += match.estimates
          differences[d].pValues += match.pValues
          differences[d].pT += match.pT
          differences[d].pWilcoxon += match.pWilcoxon
        } else {
          let nothing = [Double?](repeating: nil, count: added)
          differences[d].estimates += [Estimate](repeating: none, count: added)
          differences[d].pValues += nothing
          differences[d].pT += nothing
          differences[d].pWilcoxon += nothing
        }
      }
      for more in more.differences
      where !differences.contains(where: { $0.arm == more.arm }) {
        let nothing = [Double?](repeating: nil, count: earlier)
        differences.append(
          ArmDifference(
            arm: more.arm, baseline: more.baseline,
            estimates: [Estimate](repeating: none, count: earlier) + more.estimates,
            pValues: nothing + more.pValues, pT: nothing + more.pT,
            pWilcoxon: nothing + more.pWilcoxon))
      }
    }
  }

}
