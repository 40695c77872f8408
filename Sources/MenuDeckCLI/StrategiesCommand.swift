import DeckBase
import DeckCommandLine
import DeckIO
import DeckJobs
import DeckStrategies

let strategiesCommand = CommandSpec(
  name: "strategies",
  abstract: "List the ranking strategies with their options.",
  discussion: """
    Lists every built-in strategy with its one-line summary and its options (type, default, \
    the values 'tune' and 'compare --tune' try, meaning), and the named configurations of the \
    config file (with those it includes), if there is one.
    """,
  options: [InputOptions.config.spec, StrategiesOptions.format.spec],
  run: { args, context in
    let request = try StrategiesRequest(args, context)
    let outcome = StrategiesJob.run(request, context.job)
    context.io.stdout.write(
      StrategyListing.render(
        request.format, outcome, run: RunRecord(context, inputs: outcome.inputs)))
    return .success
  })

/// The options of `menudeck strategies`.
enum StrategiesOptions {
  static let format = InputOptions.format.with {
    $0.defaultValue = "table"
    $0.choices = ["table", "json", "jsonl"]
    $0.help =
      "Output format: json has the run header and the named configurations; jsonl is one"
      + " strategy object per line."
  }
}
