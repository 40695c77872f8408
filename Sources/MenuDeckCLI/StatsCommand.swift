import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckReports

/// The options of `stats` that no other command words the same way.
enum StatsCommandOptions {
  static let size = InputOptions.size.with(
    help: "Deck size, for abandonment (config: deck.size).")
  static let repeatWindow = Option<Int>(
    "repeat-window", valueName: "days",
    help: "A repeat pick is one within this many days (default: any earlier day).")
  static let format = SimulationOptions.format.with(help: "Output format.")
}

let statsCommand = CommandSpec(
  name: "stats",
  abstract: "Deck stats of swipe logs: per day and overall.",
  discussion: """
    Reads swipe logs (JSON Lines or CSV) and prints, per day and overall: decks, cards shown, \
    right and left swipes, like rate, pick rate, mean swipes to pick, abandon rate, \
    finished-without-pick rate, catalog coverage, intra-deck diversity, novelty and repeat-pick \
    rate. A session is one diner's deck of one date. Every metric is defined in docs/metrics.md.

    Given history snapshots instead of logs, it prints the card-level metrics only (cards \
    shown, swipes, like rate, coverage, novelty): snapshots keep no sessions or days.
    """,
  options: [
    InputOptions.config.spec,
    InputOptions.catalog.spec,
    InputOptions.skipBadLines.spec,
    InputOptions.columns.spec,
    InputOptions.right.spec,
    InputOptions.left.spec,
    InputOptions.csvHeader.spec,
    InputOptions.delimiter.spec,
    StatsCommandOptions.size.spec,
    StatsCommandOptions.repeatWindow.spec,
    SimulationOptions.newDishDays.spec,
    StatsCommandOptions.format.spec,
    InputOptions.jobs.with(
      help:
        "Threads that read big log files and sum them up, by diner (default: the cores "
        + "available); the output is the same for every number."
    ).spec,
  ],
  arguments: [
    InputOptions.logs(
      help: "Swipe logs ('-' reads standard input; default: the config's history).",
      isOptional: true)
  ],
  run: { args, context in
    let request = try StatsRequest(args, context)
    let outcome = try StatsJob.run(request, context.job)
    RunInputs.tell(outcome.inputs, context.job)
    let run = RunRecord(context, inputs: outcome.inputs)
    context.io.stdout.write(bytes: outcome.report.render(request.format, run: run))
    guard let read = outcome.read else {
      context.note(
        "stats of a snapshot cover cards only: snapshots keep no sessions or days; "
          + "give the logs for the session metrics", code: "snapshot_stats")
      return .success
    }
    HistorySummary.tell(read, future: 0, date: DeckDate(daysSinceEpoch: 0), context.job)
    let rows = outcome.report.rows
    let decks = rows.filter { $0.day == nil }.reduce(0) { $0 + Int($1[.decks] ?? 0) }
    let days = Set(rows.compactMap(\.day)).count
    context.note(
      "stats of \(plural(request.logs.count, "log")) (\(plural(read.events, "swipe")), "
        + "\(plural(decks, "deck")) over \(plural(days, "day")))", code: "summary")
    return .success
  })
