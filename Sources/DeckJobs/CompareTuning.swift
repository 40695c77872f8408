import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckStrategies

/// `compare --tune`: every strategy is tuned on a validation carved from the training side of
/// the split (as `tune` does) and compared with its winning setting, so that no arm is compared
/// untuned. The arms keep their names; the report says which setting each one won with.
package struct CompareTuning: Sendable {
  /// One strategy arm's search.
  package struct Arm: Sendable {
    package var named: NamedStrategy
    package var settings: [[OptionSetting]]
    /// Why it has nothing to tune (a strategy without tuning values), or nil.
    package var untunable: String?

    package init(named: NamedStrategy, settings: [[OptionSetting]], untunable: String?) {
      self.named = named
      self.settings = settings
      self.untunable = untunable
    }
  }

  var cut: ValidationCut
  var validationText: String
  var metric: String
  /// The cut-offs of the validation: the metric's, or the comparison's.
  var cutoffs: [Int]
  var arms: [Arm]

  /// A validation that would start before 0001-01-01.
  package init(
    cut: ValidationCut, validationText: String, metric: String, cutoffs: [Int], arms: [Arm]
  ) {
    self.cut = cut
    self.validationText = validationText
    self.metric = metric
    self.cutoffs = cutoffs
    self.arms = arms
  }

  /// Tunes every arm on `validation` (the validation split of the training side) and returns
  /// the tuned strategies in the order of the arms, what the run header records of them, and
  /// the report's parameters.
  func tune(
    _ validation: LogSplitSink, _ setup: CompareLogs.Setup, _ config: MenuDeckConfig,
    fallback: NamedStrategy?, _ io: JobIO
  ) throws -> (
    arms: [LogEvaluation.Arm], named: [NamedStrategy], parameters: [ReportParameter]
  ) {
    var rules = setup.builder.rules
    rules.size = max(rules.size, cutoffs[cutoffs.count - 1])
    let check = try TuningValidation(
      validation, cut: cut, validationText: validationText, prefix: "--tune: ",
      catalog: setup.catalog, profiles: setup.profiles,
      builder: Inputs.deckBuilder(setup.catalog, rules, config), cutoffs: cutoffs,
      runSeed: setup.seed, jobs: setup.jobs, io)
    var tunedArms: [LogEvaluation.Arm] = []
    var tunedNamed: [NamedStrategy] = []
    var won: [(arm: String, text: String)] = []
    var values: [(arm: String, value: Double?)] = []
    var counts: [(arm: String, count: Int)] = []
    for (arm, search) in zip(setup.arms, arms) {
      let result = try Tuning.run(
        search.named, settings: search.settings, validation: check, metric: metric,
        name: search.named.name, strategies: setup.maker, io)
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
        tunedArms.append((arm.name, try setup.maker.make(named, fallback: fallback)))
        tunedNamed.append(named)
      } else {
        tunedArms.append(arm)
        tunedNamed.append(search.named)
      }
      io.diagnostics.note(
        "--tune: \(arm.name): \(won.last!.text)"
          + (search.untunable == nil
            ? " won of \(TextLayout.plural(result.candidates.count, "setting")) by \(metric) on the validation"
              + " (\(values.last!.value.map { Text.fixed($0, decimals: 4) } ?? "undefined"))"
            : ""),
        code: "tuned", location: nil)
    }
    let parameters = [
      ReportParameter(
        name: "tuning",
        value:
          "\(metric) on the validation, \(validationText), \(TextLayout.plural(check.diners.count, "diner"))"
      ),
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
