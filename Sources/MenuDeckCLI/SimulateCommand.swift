import DeckCommandLine
import DeckJobs
import DeckSimulation

let simulateCommand = CommandSpec(
  name: "simulate",
  abstract: "Simulate diners swiping day by day and report deck stats.",
  discussion: """
    Builds a seeded population of synthetic diners over the catalog (hidden tastes per category \
    and tag, price sensitivity, pickiness, diets and allergens), then runs day by day: each \
    day's decks are built by the same deck builder, rules and strategy code as 'menudeck deck', \
    the diners swipe them, and the strategy learns from the day's swipes before the next day. \
    Prints the stats of every strategy per day and overall, with the ground truth only a \
    simulation knows (true utility of picks, regret against an oracle deck, NDCG@k).

    Several --strategy options run the same population with the same random numbers, one run \
    per strategy. Population parameters live under "simulation" in the config.

    Examples:
      menudeck simulate --users 1000 --days 30 --strategy random --strategy affinity
      menudeck simulate --users Data/users.json --days 14 --events sim.jsonl
    """,
  options: [
    InputOptions.config.spec,
    InputOptions.catalog.spec,
    SimulationOptions.users.spec,
    InputOptions.delimiter.with(
      help: "What separates the fields of CSV inputs (catalog, users file): ',' (default), ';' "
        + "or tab (config: csv_delimiter)."
    ).spec,
    SimulationOptions.days.spec,
    SimulationOptions.start.spec,
    SimulationOptions.strategies.spec,
    InputOptions.option.with(help: "Strategy option.").spec,
    InputOptions.size.spec,
    InputOptions.seed.spec,
    InputOptions.jobs.spec,
    SimulationOptions.mode.spec,
    SimulationOptions.drags.spec,
    SimulationOptions.events.spec,
    SimulationOptions.format.spec,
    SimulationOptions.out.spec,
    OutputOptions.wait.spec,
    InputOptions.fallback.with(
      help: "If a strategy (a plugin) fails, give the affected diners this strategy's decks."
    ).spec,
  ],
  run: { args, context in
    let request = try SimulateRequest(args, context)
    let outcome = try SimulateJob.run(
      request, context.job, strategies: RunStrategies(context.job)
    ) { context.warnAlways($0, code: "fallback") }
    let setup = outcome.setup
    context.note(
      "simulated \(plural(setup.population.count, "diner")) x \(plural(setup.days, "day")) from \(setup.start)"
        + " with seed \(setup.seed): \(plural(outcome.sessions, "session")), \(plural(outcome.swipes, "swipe"))"
        + " over \(plural(request.names.count, "strategy", "strategies"))", code: "summary")
    return .success
  })

/// The options of a simulation, shared by `simulate` and `compare` (which words their help
/// differently: `key.with(help:)`).
enum SimulationOptions {
  static let users = Option<String>(
    "users", valueName: "n|file",
    help: "How many synthetic diners, or a users file whose diners to simulate (default 1000).")
  static let days = Option<Int>("days", valueName: "n", help: "Days to simulate (default 30).")
  static let newDishDays = Option<Int>(
    "new-dish-days", valueName: "days",
    help:
      "Also report new_dish_like_rate: the like rate of the cards of dishes in their first DAYS"
      + " days on the menu (from the catalog's available.from), for cold start.")
  static let start = Option<String>(
    "start", valueName: "date", help: "First simulated day: \(DateArgument.forms) (default: today)."
  )
  static let strategies = Repeatable(
    "strategy", short: "s", valueName: "name",
    help: "Strategy or named configuration to simulate (default: the config's)."
  ).with { $0.completions = InputOptions.strategyCompletions }
  static let mode = Option<String>(
    "mode", valueName: "mode", choices: ["pick", "all"],
    help: "Session mode: pick ends at the first right swipe, all swipes the whole deck.")
  static let drags = Flag(
    "drags", help: "Log each swipe as the raw drag (dx, width) the app would have seen.")
  static let events = Option<String>(
    "events", valueName: "file",
    help: "Write the simulated swipes as a log (.jsonl or .csv), one strategy only.")
  static let format = Option<String>(
    "format", short: "f", valueName: "format", default: "table",
    choices: ["table", "json", "jsonl", "csv"],
    help:
      "Format of the stats: json has the run header, jsonl and csv are tidy (a row per strategy, day and metric)."
  )
  static let out = Option<String>(
    "out", valueName: "file", help: "Write the stats to this file atomically.")
}
