import DeckCommandLine
import DeckJobs

let compareCommand = CommandSpec(
  name: "compare",
  abstract: "Compare strategies with confidence intervals, on simulated diners or on real logs.",
  discussion: """
    Runs two or more strategies (built-ins, named configurations or variants \
    NAME:key=value,...) on the same work and prints \
    every metric per strategy with a bootstrap confidence interval (95% unless --level says \
    otherwise). With --baseline, every other strategy's paired difference from the baseline, \
    with its interval and a paired randomization-test p-value, that p-value adjusted for the \
    many tests of the report (Holm; Benjamini-Hochberg), and a paired t-test and a Wilcoxon \
    signed-rank test. The randomization test draws enough permutations for the smallest \
    Holm-adjusted p-value to reach a tenth of 1 - level (--permutations sets them), and every \
    output says when no difference can be significant. The unit of resampling is the diner: a \
    diner's sessions share tastes and history, so they are resampled together.

    Without logs it simulates: every strategy serves the same seeded population on the same \
    days with the same random numbers, so differences are paired diner by diner. The metrics \
    are those of 'menudeck stats' plus the simulation's ground truth, and the report carries \
    per-day curves.

    With logs and --split DATE, strategies learn from the events before the date and rank a deck \
    (of the largest k cards, or --size) for each diner who swiped right on or after it; the \
    ranking metrics (precision, recall, NDCG, MAP, hit rate at each k of --k 1,5,10; MRR; \
    coverage, novelty, diversity, popularity bias at the largest k) judge those decks against \
    the right swipes of the evaluation period. --run FILE evaluates a TREC run made elsewhere on \
    the same diners. The ranking metrics favour the strategy that wrote the log (it decided what \
    each diner could swipe), and a note says so. With --ope, off-policy estimates (replay, IPS, \
    SNIPS, doubly robust) of each strategy's like rate in the slots the logged diners reached, \
    from the propensities the logging strategy wrote, correct for that. With --tune, every \
    strategy is first tuned (as 'menudeck tune' does) on a validation carved from the training \
    side, and compared with its winning options.

    Examples:
      menudeck compare -s random -s popularity -s affinity --baseline random --users 1000 --days 14
      menudeck compare -s popularity -s affinity --baseline popularity --split 2026-11-24 \\
        Data/swipes.jsonl --report compare.html
    """,
  options: [
    InputOptions.config.spec,
    InputOptions.catalog.spec,
    CompareOptions.strategies.spec,
    InputOptions.option.with(help: "Strategy option, for all.").spec,
    CompareOptions.baseline.spec,
    CompareOptions.resamples.spec,
    CompareOptions.permutations.spec,
    CompareOptions.level.spec,
    InputOptions.seed.with(help: "Random seed of the simulation and the bootstrap.").spec,
    InputOptions.jobs.with(
      help:
        "Threads that build the strategies' decks (each simulated day's, or the logs' "
        + "diners'; default: the cores available); the output is the same for every number."
    ).spec,
    InputOptions.size.spec,
    CompareOptions.format.spec,
    CompareOptions.out.spec,
    CompareOptions.report.spec,
    CompareOptions.perDiner.spec,
    OutputOptions.wait.spec,
    CompareOptions.users.spec,
    SimulationOptions.days.with(help: "Simulation: days to simulate (default 30).").spec,
    SimulationOptions.newDishDays.with(
      help:
        "Simulation: also new_dish_like_rate, the like rate of the cards of dishes in their first"
        + " DAYS days on the menu (from the catalog's available.from), for cold start."
    ).spec,
    SimulationOptions.start.with(
      help: "Simulation: first day, \(DateArgument.forms) (default: today)."
    ).spec,
    SimulationOptions.mode.with(
      help: "Simulation: pick ends a session at the first right swipe, all swipes the whole deck."
    ).spec,
    CompareOptions.split.spec,
    CompareOptions.holdout.spec,
    CompareOptions.k.spec,
    CompareOptions.ope.spec,
    CompareOptions.clip.spec,
    CompareOptions.crossFit.spec,
    CompareOptions.opeSamples.spec,
    CompareOptions.policy.spec,
    CompareOptions.run.spec,
    CompareOptions.trec.spec,
    CompareTuning.flag.spec,
    CompareTuning.grid.spec,
    TuneOptions.random.spec,
    TuneOptions.metric.spec,
    TuneOptions.validationDays.spec,
    TuneOptions.validationFraction.spec,
    InputOptions.skipBadLines.spec,
  ] + InputOptions.mapping + [
    InputOptions.delimiter.spec,
    InputOptions.fallback.with(
      help: "If a strategy (a plugin) fails, give the affected diners this strategy's decks."
    ).spec,
  ],
  arguments: [
    InputOptions.logs(
      help: "Swipe logs to evaluate on ('-' reads standard input); none: simulate.",
      isOptional: true)
  ],
  run: { args, context in
    let request = try CompareRequest(args, context)
    _ = try CompareJob.run(request, context.job, strategies: RunStrategies(context.job)) {
      context.warnAlways($0, code: "fallback")
    }
    if case .logs(let logs) = request.mode, let dir = logs.trec {
      context.note("TREC qrels and runs written to \(dir)", code: "written")
    }
    if let path = request.outputs.path(request.report), path != "-" {
      context.note("report written to \(path)", code: "written")
    }
    return .success
  })
