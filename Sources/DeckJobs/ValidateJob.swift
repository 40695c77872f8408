import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

/// `menudeck validate`: every input the deck job would read, checked, with every problem found
/// (not only the first). The config and the settings come loaded, or with what failed: a
/// failure is a finding, not the end of the run.
package struct ValidateRequest: Sendable {
  /// The config, or why it could not be read.
  package var config: Result<MenuDeckConfig, any Error>
  /// The config's path as the command line gave it, for the report when it could not be read.
  package var configGiven: String
  /// The run's settings over the config, or why there are none (the catalog is missing...).
  package var settings: Result<RunSettings, any Error>
  /// Whether `--date` asks whether the history reaches close enough to the deck date.
  package var checksDate = false
  /// Whether warnings fail the check too (`--strict`, exit 1).
  package var strict = false
  /// Whether the report is one JSON document (`--format json`) rather than text rows.
  package var json = false

  package init(
    config: Result<MenuDeckConfig, any Error>, configGiven: String,
    settings: Result<RunSettings, any Error>
  ) {
    self.config = config
    self.configGiven = configGiven
    self.settings = settings
  }
}

/// Runs a `ValidateRequest`: the config, the catalog, the users, the deck rules against the
/// catalog, the diners' words against the catalog's, the strategy, and every line of the logs.
package enum ValidateJob {
  /// A row of the report: the input, its path and what validate found.
  package struct Row: Sendable {
    package var input: String
    package var path: String
    package var status: String

    package init(_ input: String, _ path: String, _ status: String) {
      self.input = input
      self.path = path
      self.status = status
    }

    /// The text form, in columns.
    package var rendered: String {
      func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : s + String(repeating: " ", count: n - s.count)
      }
      return pad(input, 9) + pad(path, 26) + "  " + status
    }
  }

  /// A warning of validate: what looks wrong, and the input it is about when it is about one
  /// (a line of it when one line is where to look: the first event naming an unknown dish).
  package struct Warning: Sendable {
    package var message: String
    package var location: SourceLocation?
    /// The code of its JSON diagnostic, the same in the report.
    package var code = "validation_warning"

    package init(message: String, location: SourceLocation?, code: String = "validation_warning") {
      self.message = message
      self.location = location
      self.code = code
    }
  }

  /// An error validate found: an input's own error, or deck rules the catalog refuses (the
  /// config's, at its "deck").
  package enum Problem: Sendable {
    case error(any Error)
    case rules(config: String, any Error)
  }

  /// What validate found: the report rows, the errors and warnings in the order found, and the
  /// inputs read whole with the SHA-256 of their bytes.
  package struct Findings: Sendable {
    package var rows: [Row] = []
    package var problems: [Problem] = []
    package var warnings: [Warning] = []
    package var hashed: [RunInput] = []
    /// What reading the logs found, when they were read.
    package var history: EventReadStats?

    mutating func fail(_ error: any Error) { problems.append(.error(error)) }
  }

  /// Checks everything the request names; `strategies` makes the strategy the deck job would
  /// run (a plugin is started, and ended).
  package static func run(
    _ request: ValidateRequest, _ io: JobIO, strategies: any StrategyMaking
  ) -> Findings {
    var found = Findings()
    var configFailed = false
    switch request.config {
    case .success(let config):
      found.rows.append(Row("config", config.path.isEmpty ? "(none)" : config.path, "ok"))
      found.hashed += RunInputs.config(config)
    case .failure(let error):
      found.fail(error)
      configFailed = true
      found.rows.append(Row("config", request.configGiven, "invalid"))
    }
    let settings: RunSettings
    switch request.settings {
    case .success(let s): settings = s
    case .failure(let error):
      // Without its config the run has no inputs to check: what fails next ("no catalog") is a
      // consequence, and its code (66) would hide the config's own (74 for an unreadable one).
      if !configFailed { found.fail(error) }
      return found
    }
    let catalog = checkCatalog(settings, io, &found)
    let users = checkUsers(settings, io, &found)
    if let catalog {
      do {
        _ = try DeckBuilder(catalog: catalog, rules: settings.rules)
      } catch {
        if case .invalidRestaurantRule = error {
          found.fail(Inputs.configRulesError(error, catalog: catalog, settings.config))
        } else {
          found.problems.append(.rules(config: settings.config.path, error))
        }
      }
      found.warnings += vocabularyWarnings(users: users, catalog: catalog).map {
        Warning(message: $0, location: settings.usersPath.map { .wholeFile($0) })
      }
    }
    do {
      let strategy = try strategies.make(settings.strategy, fallback: nil)
      try strategy.finish()
      found.rows.append(Row("strategy", settings.strategyName, "ok (\(settings.strategy.use))"))
    } catch {
      found.fail(error)
    }
    if let catalog, !settings.historyPaths.isEmpty {
      checkLogs(request, settings, catalog, io, &found)
    }
    if let stats = found.history, let (message, location) = HistorySummary.unknownItems(stats) {
      found.warnings.append(
        Warning(
          message: message + " " + HistorySummary.unknownItemsAdvice(stats), location: location))
    }
    return found
  }

  /// The catalog and every problem in it.
  static func checkCatalog(_ settings: RunSettings, _ io: JobIO, _ found: inout Findings)
    -> Catalog?
  {
    let path = settings.catalogPath
    do {
      let (c, problems, hash) = try Inputs.checkCatalog(
        path, io, delimiter: settings.delimiters.catalog)
      found.hashed.append(RunInput(role: "catalog", path: path, sha256: hash))
      for problem in problems { found.fail(problem) }
      guard let c else {
        found.rows.append(Row("catalog", path, "invalid"))
        return nil
      }
      found.rows.append(
        Row(
          "catalog", path,
          "\(TextLayout.plural(c.count, "item")), "
            + "\(TextLayout.plural(c.categories.count, "category", "categories")), "
            + TextLayout.plural(c.tags.count, "tag")))
      return c
    } catch {
      found.fail(error)
      found.rows.append(Row("catalog", path, "invalid"))
      return nil
    }
  }

  /// The users file, when there is one, and every problem in it.
  static func checkUsers(_ settings: RunSettings, _ io: JobIO, _ found: inout Findings)
    -> [UserProfile]
  {
    guard let path = settings.usersPath else { return [] }
    do {
      let (checked, problems, hash) = try Paths.using(path, io) { opened throws(DeckIOError) in
        let bytes = try TextInput.readBytes(path: opened, what: "users file")
        let format = try DocumentFormat.resolve(nil, path: path, what: "users file")
        let (users, problems) = UsersReader.check(
          bytes, file: path, format: format, delimiter: settings.delimiters.users)
        return (users, problems, ContentHash.sha256(bytes))
      }
      found.hashed.append(RunInput(role: "users", path: path, sha256: hash))
      for problem in problems { found.fail(problem) }
      guard let users = checked else {
        found.rows.append(Row("users", path, "invalid"))
        return []
      }
      let diets = users.filter { !$0.diets.isEmpty }.count
      let allergic = users.filter { !$0.allergens.isEmpty }.count
      found.rows.append(
        Row(
          "users", path,
          "\(TextLayout.plural(users.count, "user")) (\(diets) with diets, \(allergic) with "
            + "allergens)"))
      return users
    } catch {
      found.fail(error)
      found.rows.append(Row("users", path, "invalid"))
      return []
    }
  }

  /// The event logs: every bad line, not just the first.
  static func checkLogs(
    _ request: ValidateRequest, _ settings: RunSettings, _ catalog: Catalog, _ io: JobIO,
    _ found: inout Findings
  ) {
    var s = settings
    s.skipBadLines = true
    s.hashesHistory = true
    let rejects = RejectCollector()
    do {
      let (history, stats, _) = try Inputs.loadHistory(
        s, catalog: catalog, cutoff: nil, io: io, rejects: nil, onReject: rejects.handler)
      found.hashed += RunInputs.history(stats)
      // Every swipe is in this history, those on or after the date too: the check asks only
      // whether the history reaches close enough to it.
      if request.checksDate,
        let problem = HistoryFreshness.check(
          history, stats: stats, future: 0, paths: settings.historyPaths, date: settings.date,
          config: settings.config)
      {
        found.warnings.append(
          Warning(
            message: problem.message, location: problem.file.map { .wholeFile($0) },
            code: problem.code))
      }
      for file in stats.files {
        found.rows.append(Row("history", file.file, describe(file)))
      }
      found.history = stats
    } catch {
      rejects.errors.removeAll()
      found.fail(error)
    }
    for error in rejects.errors { found.fail(error) }
  }

  /// A log's row: its lines and swipes, and what in it is amiss.
  static func describe(_ file: EventFileStats) -> String {
    var text =
      "\(TextLayout.plural(file.lines, "line")), \(TextLayout.plural(file.events, "swipe")) "
      + "(\(file.right) right, \(file.left) left)"
    if file.hesitations > 0 { text += ", \(TextLayout.plural(file.hesitations, "hesitation"))" }
    if file.unknownItemEvents > 0 {
      text += ", \(TextLayout.plural(file.unknownItemEvents, "event")) with unknown dishes"
    }
    if file.skippedLines > 0 { text += ", \(TextLayout.plural(file.skippedLines, "bad line"))" }
    return text
  }

  /// The rejected lines of the logs, each one error of the report: the reader's reject sink.
  final class RejectCollector: @unchecked Sendable {
    var errors: [DeckIOError] = []

    var handler: (EventReject) throws(DeckIOError) -> Void {
      { reject throws(DeckIOError) in self.errors.append(reject.error) }
    }
  }
}
