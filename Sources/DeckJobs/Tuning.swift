import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckStrategies

/// A tuning: the validation, the metric, the search space of each strategy, and the evaluation
/// of the candidates. `tune` tunes one strategy and writes the grid; `compare --tune` tunes each
/// arm before comparing. What reads them from the command line is MenuDeckCLI's
/// (`TuneRequests.swift`).
package enum Tuning {
  package static let defaultValidationDays = 7

  /// A validation that would start before 0001-01-01.
  package static let validationBeforeTime = JobError.usage(
    "'--validation-days' reaches before 0001-01-01; give fewer days or a later --split")

  /// What the validation is, for people: "the last 7 days before 2026-11-24 (2026-11-17 to
  /// 2026-11-23)", "a hold-out of 0.2 of the training pairs".
  package static func describe(_ cut: ValidationCut, split: LogSplit) -> String {
    switch (cut, split) {
    case (.days(let days), .date(let date)):
      return
        "the last \(TextLayout.plural(days, "day")) before \(date) (\(date.adding(days: -days)) to"
        + " \(date.adding(days: -1)))"
    case (.fraction(let f), _):
      return "a hold-out of \(f) of the training (diner, dish) pairs"
    default:
      return "\(cut)"
    }
  }

  // MARK: - The metric

  /// Ranking metrics that are reported at every cut-off, by the stem of their names.
  package static let perCutoffStems = OfflineMetric.allCases.filter(\.isPerCutoff).map {
    String($0.name(k: 1).dropLast("_at_1".count))
  }

  /// `--metric` as a metric name, and the cut-off it is at (nil for mrr and the metrics at the
  /// largest cut-off): `ndcg@10` and `ndcg_at_10` are `ndcg_at_10` at 10.
  package static func metric(_ text: String) throws -> (name: String, k: Int?) {
    var name = text.lowercased()
    if let at = name.firstIndex(of: "@") {
      name = name[..<at] + "_at_" + name[name.index(after: at)...]
    }
    if let range = name.range(of: "_at_", options: .backwards) {
      let stem = String(name[..<range.lowerBound])
      let digits = name[range.upperBound...]
      guard perCutoffStems.contains(stem), !digits.isEmpty,
        digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
      else { throw unknownMetric(text) }
      guard let k = Int(digits), Limits.deckSize.contains(k) else {
        throw Limits.outOfRange("metric", String(digits), give: Limits.span(Limits.deckSize))
      }
      return ("\(stem)_at_\(k)", k)
    }
    guard
      OfflineMetric.allCases.contains(where: { !$0.isPerCutoff && $0.name(k: 1) == name })
    else { throw unknownMetric(text) }
    guard MetricMeaning.of(name)?.direction != .neither else {
      throw JobError.usage(
        "'--metric \(text)': \(name) has no better direction (its right amount is the analyst's"
          + " choice), so it cannot choose a winner; give an accuracy metric such as ndcg@10,"
          + " recall@10 or mrr")
    }
    return (name, nil)
  }

  private static func unknownMetric(_ text: String) -> JobError {
    let names = perCutoffStems.map { "\($0)@K" } + ["mrr"]
    return JobError.usage(
      "'--metric \(text)': no such ranking metric\(didYouMean(text, names)); give one of "
        + names.joined(separator: ", ") + " (K a cut-off, e.g. ndcg@10)")
  }

  // MARK: - The search space

  /// One `--grid` value: `[SCOPE.]KEY=VALUES`. `scoped`: the value names the strategy it is for
  /// (`compare --tune`), as `SCOPE.KEY`.
  package struct GridArgument {
    package var text: String
    package var scope: String?
    package var key: String
    package var values: String
  }

  package static func gridArgument(_ text: String, scoped: Bool) throws -> GridArgument {
    guard let eq = text.firstIndex(of: "="), eq != text.startIndex,
      text.index(after: eq) != text.endIndex
    else {
      throw JobError.usage(
        "'--grid \(text)': give "
          + (scoped ? "STRATEGY.KEY=VALUES" : "KEY=VALUES")
          + ", e.g. \(scoped ? "itemknn." : "")neighbours=20,50,100 or"
          + " \(scoped ? "itemknn." : "")neighbours=10..200 with --random N")
    }
    var key = String(text[..<eq])
    var scope: String?
    if scoped {
      guard let dot = key.lastIndex(of: "."), dot != key.startIndex,
        key.index(after: dot) != key.endIndex
      else {
        throw JobError.usage(
          "'--grid \(text)': compare tunes every strategy: name the one this option is for,"
            + " STRATEGY.KEY=VALUES (e.g. itemknn.\(key)=...)")
      }
      scope = String(key[..<dot])
      key = String(key[key.index(after: dot)...])
    }
    return GridArgument(
      text: text, scope: scope, key: key, values: String(text[text.index(after: eq)...]))
  }

  /// The values of a list: separated by commas; a value holding a comma is quoted ("a,b"), a
  /// quote in it escaped (\").
  package static func listValues(_ text: String, option: String) throws -> [String] {
    var values: [String] = []
    var chars = Array(text)[...]
    while true {
      var value = ""
      if chars.first == "\"" {
        chars = chars.dropFirst()
        var closed = false
        while let c = chars.first {
          chars = chars.dropFirst()
          if c == "\"" {
            closed = true
            break
          }
          if c == "\\", let next = chars.first, next == "\"" || next == "\\" {
            value.append(next)
            chars = chars.dropFirst()
            continue
          }
          value.append(c)
        }
        guard closed, chars.isEmpty || chars.first == "," else {
          throw JobError.usage("'--grid \(option)': a quoted value is not closed before a comma")
        }
      } else {
        while let c = chars.first, c != "," {
          value.append(c)
          chars = chars.dropFirst()
        }
        guard !value.isEmpty else {
          throw JobError.usage(
            "'--grid \(option)': an empty value (two commas, or one at an end); give"
              + " KEY=V1,V2,V3")
        }
      }
      if values.contains(value) {
        throw JobError.usage("'--grid \(option)': '\(value)' is given twice; give each value once")
      }
      values.append(value)
      guard chars.first == "," else { break }
      chars = chars.dropFirst()
      if chars.isEmpty {
        throw JobError.usage("'--grid \(option)': ends with a comma; give KEY=V1,V2,V3")
      }
    }
    return values
  }

  /// The search space `grids` give for `named` (checked against its options when it is a
  /// built-in; a plugin checks its own when it starts).
  /// `pinned`: options the command line fixes for every strategy (`--option`), which a grid may
  /// not name.
  package static func space(_ grids: [GridArgument], for named: NamedStrategy, pinned: Set<String>)
    throws -> TuningGrid
  {
    let description = named.plugin == nil ? StrategyRegistry.description(of: named.use) : nil
    var dimensions: [TuningGrid.Dimension] = []
    for g in grids {
      if dimensions.contains(where: { $0.key == g.key }) {
        throw JobError.usage(
          "'--grid \(g.text)': '\(g.key)' has a grid already; give each option one --grid")
      }
      if let fixed = named.variant[g.key] {
        throw JobError.usage(
          "'--grid \(g.text)': '\(g.key)' is fixed at \(fixed) by the strategy '\(named.name)';"
            + " tune it or fix it, not both")
      }
      if pinned.contains(g.key) {
        throw JobError.usage(
          "'--grid \(g.text)': '\(g.key)' is fixed by --option; tune it or fix it, not both")
      }
      let spec = description?.options.first { $0.name == g.key }
      if let description, spec == nil {
        throw JobError.usage(
          "'--grid \(g.text)': "
            + StrategyError.unknownOption(
              strategy: description.identifier, key: g.key,
              known: description.options.map(\.name)
            ).description)
      }
      func check(_ value: String) throws {
        guard let description else { return }
        do {
          _ = try StrategyOptions(raw: [g.key: value], for: description)
        } catch {
          throw JobError.usage("'--grid \(g.text)': \(error)")
        }
      }
      if let range = try self.range(g, spec: spec) {
        try check(bound(range.low, spec))
        try check(bound(range.high, spec))
        dimensions.append(TuningGrid.Dimension(key: g.key, values: range.values))
      } else {
        let values = try listValues(g.values, option: g.text)
        for v in values { try check(v) }
        dimensions.append(TuningGrid.Dimension(key: g.key, values: .list(values)))
      }
    }
    return TuningGrid(dimensions)
  }

  private static func bound(_ x: Double, _ spec: OptionSpec?) -> String {
    spec?.type == .int ? String(Int(x)) : Text.number(x)
  }

  /// `LOW..HIGH` or `LOW..HIGH:log`, as a range of the option's kind; nil when the values are
  /// not a range.
  private static func range(_ g: GridArgument, spec: OptionSpec?) throws -> (
    low: Double, high: Double, values: TuningGrid.Values
  )? {
    var text = Substring(g.values)
    guard !text.hasPrefix("\""), let dots = text.range(of: "..") else { return nil }
    var logScale = false
    if text.hasSuffix(":log") {
      logScale = true
      text = text.dropLast(4)
    }
    let lowText = String(text[..<dots.lowerBound])
    let highText = String(text[dots.upperBound..<text.endIndex])
    let expected = "LOW..HIGH (e.g. 10..200, or 0.001..10:log for a log scale)"
    guard let low = Double(lowText), let high = Double(highText), low.isFinite, high.isFinite
    else {
      throw JobError.usage("'--grid \(g.text)': a range is two numbers, \(expected)")
    }
    if let spec, spec.type != .int && spec.type != .double {
      throw JobError.usage(
        "'--grid \(g.text)': '\(g.key)' is a \(spec.type.rawValue) option: list its values"
          + " (KEY=V1,V2) instead of a range")
    }
    let integer =
      spec.map { $0.type == .int }
      ?? (RangeText.isWholeNumber(lowText) && RangeText.isWholeNumber(highText))
    if integer && (low != low.rounded() || high != high.rounded()) {
      throw JobError.usage(
        "'--grid \(g.text)': '\(g.key)' takes whole numbers; give a range of whole numbers")
    }
    guard low < high else {
      throw JobError.usage(
        "'--grid \(g.text)': the range's low end must be below its high end; give \(expected)")
    }
    if logScale && low <= 0 {
      throw JobError.usage(
        "'--grid \(g.text)': a log-scale range must stay above 0; give a low end above 0")
    }
    return (low, high, .range(low: low, high: high, integer: integer, logScale: logScale))
  }

  /// The default search space of `named`: every option of its built-in with tuning values
  /// (`OptionSpec.tuning`) that neither its spelling nor `pinned` (`--option`) fixes, each with its default and its
  /// configured value among the values tried (so the strategy as configured is a candidate).
  /// Empty for a plugin and a built-in with nothing to tune.
  package static func defaultSpace(for named: NamedStrategy, pinned: Set<String>) -> TuningGrid {
    guard named.plugin == nil, let description = StrategyRegistry.description(of: named.use)
    else { return TuningGrid([]) }
    let configured = try? StrategyOptions(raw: named.options, for: description)
    var dimensions: [TuningGrid.Dimension] = []
    for spec in description.options
    where !spec.tuning.isEmpty && named.variant[spec.name] == nil && !pinned.contains(spec.name)
      && !impliedByTheConfiguration(spec, named, pinned: pinned)
    {
      var values = spec.defaultGrid
      if let current = configured?.all.first(where: { $0.0 == spec.name })?.1,
        !values.contains(current)
      {
        values.append(current)
        let numbers = values.compactMap(\.number)
        if numbers.count == values.count {
          values = zip(numbers, values).sorted { $0.0 < $1.0 }.map(\.1)
        }
      }
      dimensions.append(
        TuningGrid.Dimension(key: spec.name, values: .list(values.map(optionText))))
    }
    return TuningGrid(dimensions)
  }

  /// Whether the configuration chose an option's value by giving one that implies it (a
  /// configured `prior_likes` makes `prior` fixed): tuning it would contradict the configuration
  /// (`prior=fitted` beside `prior_likes` is refused), so it is left as configured.
  package static func impliedByTheConfiguration(
    _ spec: OptionSpec, _ named: NamedStrategy, pinned: Set<String>
  ) -> Bool {
    guard let implied = spec.implied, named.options[spec.name] == nil else { return false }
    return implied.keys.contains {
      named.options[$0] != nil || named.variant[$0] != nil || pinned.contains($0)
    }
  }

  /// An option value as `--option` would give it: whole numbers without a point.
  package static func optionText(_ value: OptionValue) -> String {
    switch value {
    case .double(let d): return Text.number(d)
    case .int(let i): return String(i)
    case .bool(let b): return b ? "true" : "false"
    case .string(let s): return s
    }
  }

  /// The settings to evaluate: the whole grid, or `random` seeded draws from it; refused when
  /// the grid is too large or holds a range without `random`.
  package static func settings(_ grid: TuningGrid, random: Int?, seed: UInt64, what: String) throws
    -> (
      settings: [[OptionSetting]], duplicates: Int
    )
  {
    if let random {
      return grid.draw(random, seed: TuningGrid.searchSeed(runSeed: seed))
    }
    guard grid.isEnumerable else {
      throw JobError.usage(
        "\(what): a range (LOW..HIGH) is drawn from, not enumerated; give --random N, or list"
          + " the values")
    }
    guard let size = grid.size, size <= TuningGrid.maxCandidates else {
      throw JobError.usage(
        "\(what): the grid holds \(grid.size.map(String.init) ?? "too many") settings, more than"
          + " \(TuningGrid.maxCandidates); give fewer values, or draw --random N of them")
    }
    return (grid.settings(), 0)
  }

  /// `named` with `setting`'s options over its own, and its spelling (`base:key=value,...`),
  /// which `-s` takes: the options its own spelling fixed first, then the setting's.
  package static func candidate(_ named: NamedStrategy, _ setting: [OptionSetting]) -> (
    named: NamedStrategy, spelling: String
  ) {
    var candidate = named
    for s in setting { candidate.options[s.key] = s.value }
    var base = named.name
    var fixed: [(key: String, value: String)] = []
    if !named.variant.isEmpty, let spelling = try? StrategySpelling.parse(named.name) {
      base = spelling.base
      fixed = spelling.options
    }
    let spelling = StrategySpelling.spell(base, fixed + setting.map { ($0.key, $0.value) })
    return (candidate, spelling)
  }

  /// The base name of a spelling: `itemknn` of `itemknn:neighbours=50`.
  package static func baseName(_ named: NamedStrategy) -> String {
    guard !named.variant.isEmpty, let spelling = try? StrategySpelling.parse(named.name) else {
      return named.name
    }
    return spelling.base
  }

  /// Evaluates every setting of `named` on `validation` and chooses the best by `metric`; the
  /// candidates are made by `strategies`, their decks counted on `io`'s progress line.
  package static func run(
    _ named: NamedStrategy, settings: [[OptionSetting]], validation: TuningValidation,
    metric: String, name: String, strategies: any StrategyMaking, _ io: JobIO
  ) throws -> TuningResult {
    var metrics: [MetricSpec] = []
    var values: [[Double?]] = []
    var spellings: [String] = []
    try io.diagnostics.withProgress(
      "tune", unit: .items("decks"), total: settings.count * validation.diners.count
    ) { counter in
      for setting in settings {
        let (candidate, spelling) = self.candidate(named, setting)
        spellings.append(spelling)
        let strategy = try strategies.make(candidate, fallback: nil)
        let evaluated = try validation.evaluate(strategy, progress: counter)
        metrics = evaluated.metrics
        values.append(evaluated.values)
      }
    }
    guard let index = metrics.firstIndex(where: { $0.name == metric }) else {
      preconditionFailure("the metric \(metric) is not among the evaluation's")
    }
    return TuningResult(
      strategy: named.name, name: name, candidates: settings, spellings: spellings,
      metrics: metrics, values: values, metric: index, diners: validation.diners.count)
  }
}
