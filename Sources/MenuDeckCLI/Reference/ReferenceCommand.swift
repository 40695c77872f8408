import DeckBase
import DeckCommandLine
import DeckJobs
import Foundation

enum ReferenceOptions {
  static let out = Option<String>(
    "out", valueName: "dir", default: "docs", help: "The docs directory.")
  static let check = Flag("check", help: "Only compare; name each stale page and exit 1.")
}

let referenceCommand = CommandSpec(
  name: "reference",
  abstract: "Regenerate the command and strategy reference and the man page (for developers).",
  discussion: """
    Writes DIR/commands/NAME.md for every command, the generated block of DIR/strategies.md and \
    DIR/man/menudeck.1 from the command specs and the strategy descriptions. Text outside the \
    generated blocks is kept. With --check, writes nothing and exits 1 when a page differs.
    """,
  options: [ReferenceOptions.out.spec, ReferenceOptions.check.spec, OutputOptions.wait.spec],
  isHidden: true,
  run: { args, context in try ReferenceRun.run(args, context) })

enum ReferenceRun {
  static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let given = args.value(ReferenceOptions.out) ?? "docs"
    let directory = context.io.resolvePath(given)
    let check = args.flag(ReferenceOptions.check)
    let pages = try Reference.pages(in: directory)
    let stale = pages.filter { page in
      (try? String(contentsOfFile: directory + "/" + page.path, encoding: .utf8)) != page.content
    }
    if check {
      for page in stale { context.note("\(page.path) is stale") }
      if !stale.isEmpty {
        context.note("run '\(Reference.regenerateCommand)'")
        return .failure
      }
      return .success
    }
    // The stale pages are replaced together, under their locks, like every command's outputs.
    try RunOutputs.writeFolder(
      stale.map { (FileSystem.join(given, $0.path), $0.content) },
      key: .out, plan: OutputPlan(args), io: context.job)
    context.note("\(pages.count) reference pages, \(stale.count) rewritten, in \(given)")
    return .success
  }
}
