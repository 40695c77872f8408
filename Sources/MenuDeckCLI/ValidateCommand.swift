import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import DeckStrategies

let validateCommand = CommandSpec(
  name: "validate",
  abstract: "Check the config, catalog, users and swipe logs without building decks.",
  discussion: """
    Reads every input the deck job would read and reports what it holds, or every problem it \
    finds: all malformed event lines (not only the first), unknown items in the logs, deck \
    rules naming unknown items, and diners whose diets or allergens no dish mentions (a likely \
    typo that would leave them unprotected or with empty decks).

    With --date, the history is also checked against that deck date as 'deck' checks it: a \
    warning when it holds no swipes, or when its last swipe is more than the config's \
    stale_history_days before the date ('validate --date today --strict' before a nightly job).

    Exits 0 when everything is valid, 65 on bad data, 66 when an input is missing, 74 when one \
    cannot be read; with --strict, warnings also fail the check (exit 1).

    --format json writes one JSON document instead, for scripts and log shippers: \
    {"run", "valid", "exit_code", "inputs": [{"input", "path", "status"}], "errors": [{"level", \
    "code", "exit_code", "message", "file", "line", "column", "field"}], "warnings": [{"level", \
    "code", "message", "file", "line"}]}, with null for a location part an error or warning does not \
    have; their codes are the ones --log-format json gives them. The diagnostics still go to \
    stderr.
    """,
  options: InputOptions.all.filter {
    $0 != InputOptions.skipBadLines.spec && $0 != InputOptions.rejects.spec
  } + [
    InputOptions.date.with(
      help:
        "Check that the history reaches close enough to this deck date: YYYY-MM-DD, or today, "
        + "tomorrow, yesterday, +N or -N days from today, in the config's time zone."
    ).spec,
    InputOptions.strategy.with(help: "Also check this strategy's options.").spec,
    InputOptions.option.with(help: "Strategy option to check.").spec,
    Validation.strict.spec, Validation.format.spec,
  ],
  run: { args, context in try Validation.run(args, context) })

enum Validation {
  static let strict = Flag("strict", help: "Treat warnings as failures (exit 1).")
  static let format = Option<String>(
    "format", valueName: "format", choices: ["text", "json"],
    help:
      "The report: text rows (default), or one JSON document with each error's file, line and column."
  )

  /// A warning of validate: what looks wrong, and the input it is about when it is about one
  /// (a line of it when one line is where to look: the first event naming an unknown dish).
  struct Warning {
    var message: String
    var location: SourceLocation?
    /// The code of its JSON diagnostic, the same in the report.
    var code = "validation_warning"
  }

  /// What validate found: the report rows (stdout), the errors with their exit codes and the
  /// warnings (stderr).
  struct Findings {
    var lines: [Row] = []
    var errors: [(ExitCode, String)] = []
    var warnings: [Warning] = []
    /// Per error, its location.
    var locations: [(location: SourceLocation?, message: String)] = []
    /// The inputs read whole, with the SHA-256 of their bytes, in the order read.
    var hashed: [RunInput] = []
    /// Per error, the code of its JSON diagnostic.
    var codes: [String] = []

    mutating func fail(_ error: any Error) {
      errors.append((ExitCode.for(error), String(describing: error)))
      locations.append(Validation.located(error))
      codes.append(ExitCode.code(for: error))
    }
  }

  /// Where an error is and what it says without the location (`DiagnosticDescribing`, as the
  /// JSON diagnostics say it).
  static func located(_ error: any Error) -> (location: SourceLocation?, message: String) {
    guard let described = error as? any DiagnosticDescribing,
      let location = described.sourceLocation
    else { return (nil, String(describing: error)) }
    return (location, described.diagnosticMessage)
  }

  static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let io = context.io
    var found = Findings()

    // Config
    var config = MenuDeckConfig()
    var configFailed = false
    do {
      config = try Inputs.loadConfig(args, io)
      found.lines.append(row("config", config.path.isEmpty ? "(none)" : config.path, "ok"))
      found.hashed += RunInputs.config(config)
    } catch {
      found.fail(error)
      configFailed = true
      found.lines.append(row("config", args.value(InputOptions.config) ?? "", "invalid"))
    }
    let settings: RunSettings
    do {
      settings = try Inputs.settings(args, io, config: config)
    } catch let e as UsageError {
      throw e
    } catch let e as JobError where e.kind == .usage {
      throw e
    } catch {
      // Without its config the run has no inputs to check: what fails next ("no catalog") is a
      // consequence, and its code (66) would hide the config's own (74 for an unreadable one).
      if !configFailed { found.fail(error) }
      return finish(found, args, context)
    }

    let catalog = checkCatalog(settings, io, &found)
    let users = checkUsers(settings, io, &found)
    if let catalog {
      // Deck rules against the catalog.
      do {
        _ = try DeckBuilder(catalog: catalog, rules: settings.rules)
      } catch {
        found.errors.append((.dataError, "\(config.path): deck: \(error)"))
        found.locations.append(
          (SourceLocation(file: config.path, line: 0, field: "deck"), "\(error)"))
        found.codes.append("invalid_rules")
      }
      found.warnings += vocabularyWarnings(users: users, catalog: catalog).map {
        Warning(message: $0, location: settings.usersPath.map { .wholeFile($0) })
      }
    }

    // Strategy
    do {
      let strategy = try Strategies.make(settings.strategy, io)
      try strategy.finish()
      found.lines.append(row("strategy", settings.strategyName, "ok (\(settings.strategy.use))"))
    } catch {
      found.fail(error)
    }

    if let catalog, !settings.historyPaths.isEmpty {
      checkLogs(args, settings, catalog, io, &found)
    }
    return finish(found, args, context)
  }

  /// The catalog and every problem in it.
  static func checkCatalog(_ settings: RunSettings, _ io: CLIStreams, _ found: inout Findings)
    -> Catalog?
  {
    do {
      let (c, problems, hash) = try Inputs.checkCatalog(
        settings.catalogPath, io.job, delimiter: settings.delimiters.catalog)
      found.hashed.append(RunInput(role: "catalog", path: settings.catalogPath, sha256: hash))
      for problem in problems { found.fail(problem) }
      if let c {
        found.lines.append(
          row(
            "catalog", settings.catalogPath,
            "\(plural(c.count, "item")), \(plural(c.categories.count, "category", "categories")), \(plural(c.tags.count, "tag"))"
          ))
      } else {
        found.lines.append(row("catalog", settings.catalogPath, "invalid"))
      }
      return c
    } catch {
      found.fail(error)
      found.lines.append(row("catalog", settings.catalogPath, "invalid"))
      return nil
    }
  }

  /// The users file, when there is one, and every problem in it.
  static func checkUsers(_ settings: RunSettings, _ io: CLIStreams, _ found: inout Findings)
    -> [UserProfile]
  {
    guard let path = settings.usersPath else { return [] }
    var users: [UserProfile] = []
    do {
      let (checked, problems, hash) = try Paths.using(path, io.job) { opened throws(DeckIOError) in
        let bytes = try TextInput.readBytes(path: opened, what: "users file")
        let format = try DocumentFormat.resolve(nil, path: path, what: "users file")
        let (users, problems) = UsersReader.check(
          bytes, file: path, format: format, delimiter: settings.delimiters.users)
        return (users, problems, ContentHash.sha256(bytes))
      }
      found.hashed.append(RunInput(role: "users", path: path, sha256: hash))
      for problem in problems { found.fail(problem) }
      if let checked {
        users = checked
      } else {
        found.lines.append(row("users", path, "invalid"))
      }
      let diets = users.filter { !$0.diets.isEmpty }.count
      let allergic = users.filter { !$0.allergens.isEmpty }.count
      if checked != nil {
        found.lines.append(
          row(
            "users", path,
            "\(plural(users.count, "user")) (\(diets) with diets, \(allergic) with allergens)"))
      }
    } catch {
      found.fail(error)
      found.lines.append(row("users", path, "invalid"))
    }
    return users
  }

  /// The event logs: every bad line, not just the first.
  static func checkLogs(
    _ args: ParsedArguments, _ settings: RunSettings, _ catalog: Catalog, _ io: CLIStreams,
    _ found: inout Findings
  ) {
    var bad: [DeckIOError] = []
    var s = settings
    s.skipBadLines = true
    s.hashesHistory = true
    let collector = RejectCollector()
    do {
      let (history, stats, _) = try Inputs.loadHistory(
        s, catalog: catalog, cutoff: nil, io: io.job, rejects: nil, onReject: collector.add)
      bad = collector.errors
      found.hashed += RunInputs.history(stats)
      // Every swipe is in this history, those on or after the date too: the check asks only
      // whether the history reaches close enough to it.
      if args.isGiven(InputOptions.date),
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
        var text =
          "\(plural(file.lines, "line")), \(plural(file.events, "swipe")) (\(file.right) right, \(file.left) left)"
        if file.hesitations > 0 { text += ", \(plural(file.hesitations, "hesitation"))" }
        if file.unknownItemEvents > 0 {
          text += ", \(plural(file.unknownItemEvents, "event")) with unknown dishes"
        }
        if file.skippedLines > 0 { text += ", \(plural(file.skippedLines, "bad line"))" }
        found.lines.append(row("history", file.file, text))
      }
      if let (message, location) = Summary.unknownItems(stats) {
        found.warnings.append(
          Warning(
            message: message + " " + Summary.unknownItemsAdvice(stats),
            location: location))
      }
    } catch {
      found.fail(error)
    }
    for error in bad { found.fail(error) }
  }

  /// Diners' diets and allergens that no dish mentions: "peanuts" when the catalog says
  /// "peanut" would silently protect nobody.
  static func vocabularyWarnings(users: [UserProfile], catalog: Catalog) -> [String] {
    var allergens = Set<String>()
    var diets = Set<String>()
    for item in catalog.items {
      allergens.formUnion(item.allergens)
      diets.formUnion(item.diets)
    }
    // Categories by their bytes, as the catalog and the deck rules tell them apart (`IDKey`).
    let categories = Set(catalog.categories.map { IDKey($0) })
    var out: [String] = []
    for user in users {
      for a in user.allergens where !allergens.contains(a) {
        out.append(
          "user '\(user.id)' avoids allergen '\(a)', which no dish lists"
            + didYouMean(a, allergens.sorted()) + "; check the spelling")
      }
      for d in user.diets where !diets.contains(d) {
        out.append(
          "user '\(user.id)' follows diet '\(d)', which no dish satisfies"
            + didYouMean(d, diets.sorted()) + "; their decks will be empty")
      }
      for c in user.dislikedCategories where !categories.contains(IDKey(c)) {
        out.append(
          "user '\(user.id)' dislikes category '\(c)', which the catalog does not have"
            + didYouMean(c, catalog.categories))
      }
    }
    return out
  }

  /// The JSON document of `--format json`.
  static func report(_ found: Findings, exitCode: ExitCode, run: RunRecord) -> String {
    var w = JSONWriter()
    w.beginObject()
    w.key("run")
    run.write(to: &w)
    w.field("valid", bool: found.errors.isEmpty)
    w.field("exit_code", int: exitCode.rawValue)
    w.key("inputs")
    w.beginArray()
    for row in found.lines {
      w.beginObject()
      w.field("input", row.input)
      w.field("path", row.path)
      w.field("status", row.status)
      w.endObject()
    }
    w.endArray()
    w.key("errors")
    w.beginArray()
    for (n, ((exit, _), (location, message))) in zip(found.errors, found.locations).enumerated() {
      w.beginObject()
      w.field("level", "error")
      w.field("code", n < found.codes.count ? found.codes[n] : nil)
      w.field("exit_code", int: exit.rawValue)
      w.field("message", message)
      w.field("file", location?.file)
      w.field("line", int: location.flatMap { $0.line > 0 ? $0.line : nil })
      w.field("column", int: location?.column)
      w.field("field", location?.field)
      w.endObject()
    }
    w.endArray()
    w.key("warnings")
    w.beginArray()
    for warning in found.warnings {
      w.beginObject()
      w.field("level", "warning")
      w.field("code", warning.code)
      w.field("message", warning.message)
      w.field("file", warning.location?.file)
      w.field("line", int: warning.location.flatMap { $0.line > 0 ? $0.line : nil })
      w.endObject()
    }
    w.endArray()
    w.endObject()
    w.layout("\n")
    return w.text
  }

  /// A row of the report: the input, its path and what validate found.
  struct Row {
    var input: String
    var path: String
    var status: String

    /// The text form, in columns.
    var rendered: String {
      func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : s + String(repeating: " ", count: n - s.count)
      }
      return pad(input, 9) + pad(path, 26) + "  " + status
    }
  }

  static func row(_ what: String, _ path: String, _ text: String) -> Row {
    Row(input: what, path: path, status: text)
  }

  static func finish(_ found: Findings, _ args: ParsedArguments, _ context: CommandContext)
    -> ExitCode
  {
    RunInputs.tell(found.hashed, context.job)
    let (lines, errors, warnings) = (found.lines, found.errors, found.warnings)
    let json = args.value(format) == "json"
    if !json { for line in lines { context.io.stdout.write(line.rendered + "\n") } }
    for w in warnings {
      context.warn(w.message, code: w.code, location: w.location)
    }
    for (n, (_, text)) in errors.enumerated() {
      let (location, message) = found.locations[n]
      context.diagnostics.emit(
        Diagnostic(.error, code: found.codes[n], message, location: location), text: text)
    }
    if json {
      let code: ExitCode =
        errors.isEmpty
        ? (!warnings.isEmpty && args.flag(strict) ? .failure : .success)
        : errors.contains(where: { $0.0 == .dataError }) ? .dataError : errors[0].0
      context.io.stdout.write(
        report(found, exitCode: code, run: RunRecord(context, inputs: found.hashed)))
      return code
    }
    if !errors.isEmpty {
      context.io.stdout.write(
        "invalid: \(plural(errors.count, "error")), \(plural(warnings.count, "warning"))\n")
      // Bad data first; else the first failure, in the order the deck job reads its inputs, so
      // that validate exits as the job would (66 for a missing file, 74 for an unreadable one).
      if errors.contains(where: { $0.0 == .dataError }) { return .dataError }
      return errors[0].0
    }
    context.io.stdout.write(
      "valid" + (warnings.isEmpty ? "" : " with \(plural(warnings.count, "warning"))") + "\n")
    if !warnings.isEmpty && args.flag(strict) { return .failure }
    return .success
  }
}

final class RejectCollector {
  var errors: [DeckIOError] = []
  func add(_ reject: EventReject) throws(DeckIOError) {
    errors.append(reject.error)
  }
}
