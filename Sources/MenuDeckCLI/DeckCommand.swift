import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import DeckStrategies

let deckCommand = CommandSpec(
  name: "deck",
  abstract: "Build every diner's deck for a date.",
  discussion: """
    Reads the config, the catalog, the users and the swipe logs; learns the strategy from the \
    history before the deck date; builds one deck per diner under the deck rules and writes \
    them in the chosen format to standard output, or atomically to --out.

    Diners are those of the users file plus everyone in the history, unless --user or \
    --diners names them, in the byte order of their ids. Output is byte-identical for the same \
    inputs, seed and date, whatever the order of users and events in the inputs and whatever \
    --jobs.

    A history that holds no swipe before the deck date, or whose last swipe is more than the \
    config's stale_history_days (default 2) before it, is warned about with its dates and \
    counts; --strict makes it an error (exit 65) and writes nothing, for cron. {date} in --out \
    is the deck date that --date resolved to (YYYY-MM-DD), so that a job run with --date today \
    writes each day's decks to a file of that day, and a failed day leaves no file of its name.

    Many machines: --shard K/N keeps the diners whose shard is K (the first 8 bytes of the \
    SHA-256 of the id, big-endian, modulo N, plus 1). The JSON Lines outputs of shards 1 to N, \
    concatenated and sorted stably by diner id (bytes), are the one-machine output; so are the \
    CSV outputs with every header but the first dropped. --diners FILE builds exactly the \
    diners listed, one id per line, for a scheduler that splits by another rule.

    Examples:
      menudeck deck --date 2026-11-30 --format table
      menudeck deck --strategy popularity --option prior_passes=4 --out decks.json
      zcat today.jsonl.gz | menudeck deck --history Data/swipes.jsonl --history -
      menudeck deck --shard 3/8 --format jsonl --out decks-3.jsonl
      menudeck deck --date tomorrow --out decks-{date}.json
      menudeck deck --user u01 --explain --format table
    """,
  options: InputOptions.all + [
    InputOptions.date.spec,
    DeckRun.user.spec,
    DeckRun.diners.spec,
    DeckRun.shard.spec,
    InputOptions.strategy.spec,
    InputOptions.option.spec,
    InputOptions.size.spec,
    InputOptions.seed.spec,
    InputOptions.format.spec,
    DeckRun.out.spec,
    OutputOptions.wait.spec,
    OutputOptions.dryRun.spec,
    DeckRun.strict.spec,
    DeckRun.exactScores.spec,
    DeckRun.explain.spec,
    InputOptions.fallback.spec,
    InputOptions.jobs.with(
      help:
        "Threads that read big swipe logs and build the decks (default: the cores available); "
        + "the output is the same for every number. A plugin runs one process per thread."
    ).spec,
  ],
  run: { args, context in
    let request = try DeckRequest(args, context)
    let outcome = try DeckJob.run(request, context.job)
    // The fallback's warning is the one line a cron operator must see, even with --quiet.
    if let warning = outcome.fallbackWarning { context.warnAlways(warning, code: "fallback") }
    let limit = 20
    for line in outcome.warningLines.prefix(limit) { context.warn(line, code: "deck_warning") }
    if outcome.warningLines.count > limit {
      context.warn(
        "\(outcome.warningLines.count - limit) more warnings (each deck carries its own)",
        code: "deck_warning")
    }
    let settings = request.settings
    HistorySummary.tell(outcome.read, future: outcome.future, date: settings.date, context.job)
    HistoryFreshness.tell(outcome.freshness, context.job)
    for line in RuleSummary.lines(
      outcome.ruleCounts, rules: settings.rules.restaurantRules, decks: outcome.decks)
    {
      context.note(line, code: "rules")
    }
    // "48 decks (1 short of 10 cards) for 2026-11-25 with 'affinity' written to decks.json".
    let short =
      outcome.shortDecks > 0
      ? " (\(outcome.shortDecks) short of \(plural(settings.rules.size, "card")))" : ""
    context.note(
      "\(plural(outcome.decks, "deck"))\(short) for \(settings.date) with "
        + "'\(settings.strategyName)'"
        + (outcome.dryRun
          ? " would be built (dry run)"
          : (request.outputs.path(request.out).flatMap { $0 == "-" ? nil : " written to \($0)" }
            ?? "")),
      code: "summary")
    return .success
  })

/// The options of `deck` that no other command words the same way.
enum DeckRun {
  static let user = Repeatable(
    "user", short: "u", valueName: "id", help: "Build only this diner's deck.")
  static let out = Option<String>(
    "out", valueName: "file",
    help:
      "Write to this file atomically instead of stdout; {date} in it is the deck date "
      + "(YYYY-MM-DD), e.g. decks/{date}.json.")
  static let diners = Option<String>(
    "diners", valueName: "file",
    help: "Build exactly the diners listed in this file, one id per line.")
  static let strict = Flag(
    "strict",
    help:
      "Fail (exit 65, nothing written) instead of warning when the history is empty or ends "
      + "more than the config's stale_history_days before the deck date: for cron.")
  /// For developers checking a strategy against a reference implementation: scores in the
  /// shortest digits that read back as the same double (docs/output-formats.md).
  static let exactScores = Flag(
    "exact-scores",
    help: "Write scores in full precision (the shortest digits that read back exactly).",
    isHidden: true)
  static let explain = Flag(
    "explain",
    help:
      "Say why each card is where it is: its score's parts, its rank before the rules, the "
      + "rules that moved it or the dishes above it, and the dishes held back (in every "
      + "format; see docs/deck-building.md). For a few diners: use with --user.")
  static let shard = Option<String>(
    "shard", valueName: "K/N",
    help: "Build only the diners of shard K of N (by a stable hash of the id; see above).")
}
