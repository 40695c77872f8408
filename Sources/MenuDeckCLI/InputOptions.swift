import DeckBase
import DeckCommandLine
import DeckIO
import DeckJobs
import DeckStrategies

/// Options shared by the commands that read the inputs. Code shared by several commands reads
/// an option through these keys; a command whose help words one differently declares
/// `key.with(help:)`, the same name and type.
enum InputOptions {
  static let config = Option<String>(
    "config", short: "c", valueName: "file", default: "Config/menudeck.json",
    help: "The config file; paths inside it are relative to its directory.")
  static let catalog = Option<String>(
    "catalog", valueName: "file", help: "Catalog file (.json or .csv), instead of the config's.")
  static let users = Option<String>(
    "users", valueName: "file", help: "Users file (.json or .csv), instead of the config's.")
  static let history = Repeatable(
    "history", valueName: "file",
    help:
      "Swipe log (.jsonl or .csv; '-' reads standard input, JSON Lines or CSV); replaces the "
      + "config's logs.")
  static let skipBadLines = Flag(
    "skip-bad-lines",
    help: "Skip malformed event lines instead of stopping (exit 65); counts them on stderr.")
  static let rejects = Option<String>(
    "rejects", valueName: "file",
    help:
      "With --skip-bad-lines, write each skipped line (file, line, reason, text) here: JSON Lines "
      + "for a .jsonl or .ndjson name or '-', CSV for a .csv name.")
  static let date = Option<String>(
    "date", short: "d", valueName: "date",
    help: "Deck date: \(DateArgument.forms) (default: today).")
  static let strategy = Option<String>(
    "strategy", short: "s", valueName: "name", help: "Strategy or named configuration."
  ).with { $0.completions = strategyCompletions }
  static let option = Repeatable(
    "option", short: "o", valueName: "key=value", help: "Strategy option, over the config's.")
  static let size = Option<Int>(
    "size", short: "n", valueName: "n", help: "Cards per deck (config: deck.size).")
  static let seed = Option<UInt64>("seed", valueName: "n", help: "Random seed (config: seed).")
  static let jobs = Option<Int>(
    "jobs", short: "j", valueName: "n",
    help:
      "Threads to use (default: the cores available to the process, after its CPU affinity and "
      + "cgroup quota); the output is the same for every number.")

  /// `--jobs`, range-checked, or the cores available.
  static func jobs(_ args: ParsedArguments) throws -> Int {
    try Limits.value(args, jobs, in: Limits.jobs, "threads") ?? Parallel.availableCores()
  }
  static let format = Option<String>(
    "format", short: "f", valueName: "format", choices: DeckFormat.allCases.map(\.rawValue),
    help: "Output format (config: format; default json).")
  static let fallback = Option<String>(
    "fallback", valueName: "name",
    help: "If the strategy (a plugin) fails, give the affected diners this strategy's decks."
  ).with { $0.completions = strategyCompletions }

  /// What shell completion offers for a strategy's name: the built-ins. The named
  /// configurations of a config are left out: the script is generated once, without a config,
  /// and asking menudeck on every TAB would read one each time.
  static var strategyCompletions: [String] { StrategyRegistry.identifiers }

  static let columns = Option<String>(
    "columns", valueName: "map",
    help:
      "Read foreign CSV logs: field=column pairs, e.g. user=userId,item=movieId,at=timestamp,"
      + "rating=rating (fields: user, item, swipe, at, position, deck, propensity, "
      + "prefix_propensity, dx, width, rating).")
  static let right = Option<String>(
    "right", valueName: "rule",
    help: "Ratings that are right swipes, e.g. 'rating>=4' (operators >=, >, <=, <, =).")
  static let left = Option<String>(
    "left", valueName: "rule",
    help: "Ratings that are left swipes, e.g. 'rating<=2.5'; ratings matching neither are neutral.")
  static let csvHeader = Option<String>(
    "csv-header", valueName: "columns",
    help:
      "The header of CSV logs that have none (the parts of a split log), e.g. "
      + "user,item,swipe,at: each log's first line is then data, and '-' is read as CSV.")
  /// `--columns`, `--right`, `--left`, `--csv-header`: for every command that reads swipe logs.
  static let mapping = [columns.spec, right.spec, left.spec, csvHeader.spec]
  static let delimiter = Option<CSVDelimiter>(
    "delimiter", valueName: "char",
    help:
      "What separates the fields of every CSV input: ',' (default), ';' or tab (config: "
      + "csv_delimiter).",
    expected: CSVDelimiter.expected, { CSVDelimiter(spelling: $0) }
  ).with {
    // The words: a completed ';' would end the shell's command.
    $0.completions = ["comma", "semicolon", "tab"]
  }

  static let all =
    [config.spec, catalog.spec, users.spec, history.spec, skipBadLines.spec, rejects.spec]
    + mapping + [delimiter.spec]

  /// The delimiter of each kind of CSV input: `--delimiter` (every kind) when the command
  /// declares it and it is given, else the config's `csv_delimiter`.
  static func delimiters(_ args: ParsedArguments, _ config: MenuDeckConfig) throws
    -> CSVDelimiters
  {
    guard args.declares(delimiter), let given = try args.value(delimiter) else {
      return config.csvDelimiters
    }
    return .all(given)
  }

  /// Checks `--rejects`: it needs `--skip-bad-lines`, and its name must say its format
  /// (`RejectsWriter.format(path:)`), as a log's does, so that what is written is what the
  /// name says. Both are usage errors, before anything is read or written.
  static func checkRejects(_ path: String?, skipBadLines: Bool) throws(UsageError) {
    guard let path else { return }
    if !skipBadLines {
      throw UsageError("'--rejects' needs '--skip-bad-lines' (without it a bad line stops the run)")
    }
    if RejectsWriter.format(path: path) == nil {
      let why =
        path.lowercased().hasSuffix(".json")
        ? "a .json name says one JSON document, but the rejects are one record per line"
        : "the name must say the format"
      throw UsageError(
        "'--rejects \(path)': \(why); name it .jsonl or .ndjson (JSON Lines) or .csv (CSV), or "
          + "give '-' for standard output (JSON Lines)")
    }
  }

  /// The rejects file's writer on `output`, in the format its name `path` says.
  static func rejectsWriter(_ path: String, output: any ByteOutput) -> RejectsWriter {
    RejectsWriter(output: output, format: RejectsWriter.format(path: path) ?? .jsonLines)
  }

  /// The header of `--csv-header`, checked as the reader checks a log's header (with the
  /// mapping of `settings`): a header the logs could not be read with is a usage error.
  static func csvHeader(_ args: ParsedArguments, _ settings: RunSettings) throws -> [UInt8]? {
    guard args.declares(csvHeader), let text = args.value(csvHeader) else { return nil }
    let header = Array(text.utf8)
    guard !header.contains(0x0A), !header.contains(0x0D), !header.isEmpty else {
      throw UsageError(
        "'--csv-header' takes one line of column names, e.g. user,item,swipe,at")
    }
    var options = settings.readerOptions
    options.csvHeader = nil
    var sink = NoEvents()
    do {
      _ = try EventReader(options: options).read(
        bytes: header + [0x0A], name: "--csv-header", format: .csv, into: &sink)
    } catch {
      var message = "\(error)"
      if case .malformed(_, let m) = error { message = m }
      throw UsageError("'--csv-header \(text)': \(message)")
    }
    return header
  }

  /// A sink for checking a header: there are no events.
  private struct NoEvents: EventSink {
    mutating func event(_ e: RawEvent) -> EventDisposition { .accepted }
    mutating func finish() {}
  }

  /// The column mapping of `--columns`/`--right`/`--left`, each over the config's `columns`
  /// part of the same name; nil when neither gives one. Bad specs are usage errors (exit 64)
  /// that name the option. For commands that declare `InputOptions.mapping`.
  static func columnMapping(_ args: ParsedArguments, config: MenuDeckConfig) throws
    -> ColumnMapping?
  {
    let given = [columns, right, left].filter { args.declares($0) && args.isGiven($0) }
    guard !given.isEmpty else { return config.columns }
    let labels = ColumnMapping.Labels.commandLine
    do {
      var map = config.columns?.columns ?? [:]
      if let spec = args.value(InputOptions.columns) {
        map = try ColumnMapping.parseColumns(spec, label: labels.columns)
      }
      var right = config.columns?.right
      if let text = args.value(InputOptions.right) {
        right = try RatingRule.parse(text, label: labels.right)
      }
      var left = config.columns?.left
      if let text = args.value(InputOptions.left) {
        left = try RatingRule.parse(text, label: labels.left)
      }
      return try ColumnMapping(columns: map, right: right, left: left, labels: labels)
    } catch {
      throw UsageError(error.message)
    }
  }
}

extension InputOptions {
  /// The swipe logs of `stats`, `compare`, `tune` and `ingest`: the repeating positional
  /// `log ...` ('-' reads standard input), with the command's own help.
  static func logs(help: String, isOptional: Bool = false) -> CommandArgument {
    CommandArgument("log", help: help, isOptional: isOptional, isRepeating: true)
  }

  /// The swipe logs the command line gives (`logs(help:)`), in order.
  static func logs(_ args: ParsedArguments) -> [String] { args.arguments("log") }
}
