import DeckBase
import DeckCommandLine
import DeckIO
import DeckJobs

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
  run: { args, context in
    let request = try ValidateRequest(args, context)
    let found = ValidateJob.run(request, context.job, strategies: RunStrategies(context.job))
    return Validation.finish(found, json: request.json, strict: request.strict, context)
  })

enum Validation {
  static let strict = Flag("strict", help: "Treat warnings as failures (exit 1).")
  static let format = Option<String>(
    "format", valueName: "format", choices: ["text", "json"],
    help:
      "The report: text rows (default), or one JSON document with each error's file, line and column."
  )

  /// Each error found, as the command line tells it: its exit code, codes and location.
  static func reported(_ problem: ValidateJob.Problem) -> ValidateJob.ReportedError {
    switch problem {
    case .error(let error):
      let (location, message) = located(error)
      return ValidateJob.ReportedError(
        exitCode: ExitCode.for(error).rawValue, code: ExitCode.code(for: error),
        text: String(describing: error), message: message, location: location)
    case .rules(let config, let error):
      return ValidateJob.ReportedError(
        exitCode: ExitCode.dataError.rawValue, code: "invalid_rules",
        text: "\(config): deck: \(error)", message: "\(error)",
        location: SourceLocation(file: config, line: 0, field: "deck"))
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

  /// The report (rows and a verdict, or the JSON document) on stdout, the warnings and errors
  /// on stderr, and the exit code: bad data first; else the first failure, in the order the
  /// deck job reads its inputs, so that validate exits as the job would (66 for a missing file,
  /// 74 for an unreadable one); 1 for warnings with --strict.
  static func finish(
    _ found: ValidateJob.Findings, json: Bool, strict: Bool, _ context: CommandContext
  ) -> ExitCode {
    RunInputs.tell(found.hashed, context.job)
    let errors = found.problems.map(reported)
    let warnings = found.warnings
    if !json { for row in found.rows { context.io.stdout.write(row.rendered + "\n") } }
    for w in warnings {
      context.warn(w.message, code: w.code, location: w.location)
    }
    for error in errors {
      context.diagnostics.emit(
        Diagnostic(.error, code: error.code, error.message, location: error.location),
        text: error.text)
    }
    let code: ExitCode =
      errors.isEmpty
      ? (!warnings.isEmpty && strict ? .failure : .success)
      : errors.contains(where: { $0.exitCode == ExitCode.dataError.rawValue })
        ? .dataError : ExitCode(errors[0].exitCode)
    if json {
      context.io.stdout.write(
        ValidateJob.report(
          found, errors: errors, exitCode: code.rawValue,
          run: RunRecord(context, inputs: found.hashed)))
    } else if !errors.isEmpty {
      context.io.stdout.write(
        "invalid: \(plural(errors.count, "error")), \(plural(warnings.count, "warning"))\n")
    } else {
      context.io.stdout.write(
        "valid" + (warnings.isEmpty ? "" : " with \(plural(warnings.count, "warning"))") + "\n")
    }
    return code
  }
}
