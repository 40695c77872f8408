import DeckCommandLine
import DeckEvaluation
import DeckJobs

/// The options of `compare`; those it shares with `simulate` and `deck` are read through the
/// shared keys (`SimulationOptions`, `InputOptions`).
enum CompareOptions {
  static let strategies = SimulationOptions.strategies.with(
    help: "A strategy or named configuration to compare (two or more).")
  static let baseline = Option<String>(
    "baseline", short: "b", valueName: "name",
    help: "Report every other strategy's difference from this one."
  ).with { $0.completions = InputOptions.strategyCompletions }
  static let resamples = Option<Int>(
    "resamples", valueName: "n", help: "Bootstrap resamples of the intervals (default 1000).")
  static let permutations = Option<Int>(
    "permutations", valueName: "n",
    help:
      "Randomization-test permutations per difference (default: enough for the report's"
      + " family of tests to reach significance, \(PermutationCount.minimum) to"
      + " \(PermutationCount.cap)).")
  static let level = Option<Double>(
    "level", valueName: "p", help: "Confidence level of the intervals (default 0.95).")
  static let format = Option<String>(
    "format", short: "f", valueName: "format", default: "table",
    choices: ["table", "markdown", "json", "jsonl", "csv"],
    help: "Output format: json has the run header, jsonl and csv are tidy rows.")
  static let out = Option<String>(
    "out", valueName: "file", help: "Write the comparison to this file atomically.")
  static let report = Option<String>(
    "report", valueName: "file.html",
    help: "Also write a self-contained HTML report with charts, atomically.")
  static let users = SimulationOptions.users.with(
    help: "Simulation: how many synthetic diners, or a users file (default 1000). Logs: a users"
      + " file with diets and allergens.")
  static let split = Option<String>(
    "split", valueName: "date",
    help:
      "Logs: learn from events before this date, evaluate on events from it on: "
      + "\(DateArgument.forms).")
  static let holdout = Option<Double>(
    "holdout", valueName: "fraction",
    help:
      "Logs without times: evaluate on this share of the (diner, dish) pairs instead of --split.")
  static let k = Option<String>(
    "k", valueName: "k[,k...]",
    help:
      "Logs: the cut-offs of the ranking metrics, ascending, e.g. 1,5,10 (default: the deck"
      + " size); each metric at k is reported at every one, and the deck holds the largest.")
  static let ope = Flag("ope", help: "Logs: off-policy estimates from the logged propensities.")
  static let clip = Option<Double>(
    "clip", valueName: "weight",
    help:
      "Logs, with --ope: also IPS and DR with importance weights clipped at this value, and"
      + " switch-DR (DR up to it, the direct method above).")
  static let crossFit = Option<Int>(
    "cross-fit", valueName: "folds",
    help:
      "Logs, with --ope: also DM and DR with a reward model cross-fitted over this many folds"
      + " of diners (2 to 20).")
  static let opeSamples = Option<Int>(
    "ope-samples", valueName: "n",
    help:
      "Logs, with --ope: estimate each strategy that does not know its distribution (thompson,"
      + " or any under rules that move cards) from n seeded decks per logged session (the share"
      + " of decks with a dish at a position is its probability); plackett-luce's marginals"
      + " then use n draws (default 500). random, epsilon-greedy and plackett-luce are exact.")
  static let policy = Repeatable(
    "policy", valueName: "name=file",
    help:
      "Logs, with --ope: also estimate a policy given by its action probabilities, a CSV of"
      + " diner,day,item,position,probability (empty diner or day: every one), or JSON Lines of"
      + " whole decks {\"diner\",\"day\",\"deck\":[ids],\"probability\"} (every slate"
      + " estimator then applies).")
  static let run = Repeatable(
    "run", valueName: "[name=]file",
    help:
      "Logs: also evaluate a TREC run file (diner Q0 dish rank score tag, ordered as trec_eval"
      + " orders it) by the ranking metrics, beside the strategies; named by NAME= or by its"
      + " first line's tag.")
  static let trec = Option<String>(
    "trec", valueName: "dir",
    help:
      "Logs: also write the judgements and each strategy's decks as TREC qrels and runs, and the"
      + " training swipes the strategies learned from as train.csv.")
  static let perDiner = Option<String>(
    "per-diner", valueName: "file.csv",
    help:
      "Also write every metric of every strategy for every diner (as trec_eval -q), as CSV "
      + "rows strategy,diner,metric,value,numerator,denominator, atomically.")

  /// Options that only a comparison on logs reads.
  static let logsOnly: [any OptionKey] =
    [
      split, holdout, k, ope, clip, crossFit, opeSamples, policy, run, trec,
      InputOptions.skipBadLines, InputOptions.columns,
      InputOptions.right, InputOptions.left, CompareTuning.flag,
    ] + CompareTuning.options
  /// Options that only a simulated comparison reads.
  static let simulationOnly: [any OptionKey] = [
    SimulationOptions.days, SimulationOptions.start, SimulationOptions.mode,
    SimulationOptions.newDishDays,
  ]
}

/// The options of `compare --tune`.
extension CompareTuning {
  static let flag = Flag(
    "tune",
    help:
      "Logs: tune every strategy first on a validation carved from the training swipes (the"
      + " --grid values, else each strategy's own grid) and compare the winners.")
  static let grid = TuneOptions.grid.with(
    help:
      "With --tune: STRATEGY.KEY=V1,V2 (or STRATEGY.KEY=LOW..HIGH with --random) for the"
      + " strategies named or using STRATEGY, instead of their own grid; repeated.")

  /// The options that only a tuning reads.
  static let options: [any OptionKey] = [
    grid, TuneOptions.random, TuneOptions.metric, TuneOptions.validationDays,
    TuneOptions.validationFraction,
  ]
}
