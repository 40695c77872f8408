import DeckBase
import DeckCommandLine
import DeckCore
import DeckJobs

extension DeckRequest {
  /// The request of `menudeck deck ARGS`: the config with the options over it, the diners
  /// (`--user`, `--diners`, `--shard`), the outputs, and how the run goes (`--jobs`, `--wait`,
  /// `--dry-run`, `--strict`, `--fallback`). Usage errors come before any input is read.
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    let jobs = try InputOptions.jobs(args)
    let shard = try Self.shard(args)
    let listed = args.value(DeckRun.diners)
    let users = args.values(DeckRun.user)
    if listed != nil && !users.isEmpty {
      throw UsageError("give either '--user' or '--diners', not both")
    }
    let config = try Inputs.loadConfig(args, context.io)
    let settings = try Inputs.settings(args, context.io, config: config)
    // The file that is checked, locked and written is the one named for the date.
    let out = args.value(DeckRun.out).map {
      $0.replacingOccurrences(of: "{date}", with: settings.date.description)
    }
    self.init(
      settings: settings, out: RequestedOutput(.out, out),
      rejects: RequestedOutput(.rejects, settings.rejectsPath),
      plan: try OutputPlan(args, inputs: Inputs.files(args, settings)), jobs: jobs,
      version: menudeckVersion)
    diners = listed.map { .listed($0) } ?? (users.isEmpty ? .everyone : .ids(users))
    self.shard = shard
    strict = args.flag(DeckRun.strict)
    exactScores = args.flag(DeckRun.exactScores)
    explain = args.flag(DeckRun.explain)
    fallback = args.value(InputOptions.fallback)
  }

  /// `--shard K/N`, checked.
  static func shard(_ args: ParsedArguments) throws -> DinerShard? {
    guard let text = args.value(DeckRun.shard) else { return nil }
    guard let shard = DinerShard(text) else {
      let expected = "K/N with 1 <= K <= N <= \(DinerShard.maxCount), e.g. 2/8"
      let parts = text.split(separator: "/", omittingEmptySubsequences: false)
      // Two whole numbers that make no shard are out of range; anything else is no K/N.
      if parts.count == 2, parts.allSatisfy({ RangeText.isWholeNumber(String($0)) }) {
        throw Limits.outOfRange("shard", text, give: expected)
      }
      throw UsageError("'--shard': " + RangeText.not("K/N", text, give: expected))
    }
    return shard
  }
}
