import DeckCommandLine
import DeckJobs
import DeckSimulation

extension ImportRequest {
  /// The request of `menudeck import DATASET DIR --out OUT`.
  init(_ dataSet: RealDataSet, _ args: ParsedArguments, _ context: CommandContext) throws {
    guard let out = args.value(RealDataImportRun.out) else {
      throw UsageError(
        "missing '--out <dir>': the directory to write catalog.csv and menudeck.json")
    }
    guard let dir = args.argument("dir") else {
      throw UsageError("give the data set's directory")
    }
    self.init(
      dataSet: dataSet, directory: dir, out: out, outKey: .out, plan: try OutputPlan(args))
  }
}
