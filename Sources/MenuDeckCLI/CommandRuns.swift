import DeckCommandLine
import DeckJobs

/// The run of a command that is its request, its job and one summary line (`ingest`, `merge`):
/// the request built from the arguments, the job run on it, the summary of its outcome noted.
func requestJobSummary<Request, Outcome>(
  _ request: @escaping @Sendable (ParsedArguments, CommandContext) throws -> Request,
  _ job: @escaping @Sendable (Request, JobIO) throws -> Outcome,
  summary: @escaping @Sendable (Outcome, Request) -> String
) -> CommandSpec.Run {
  { args, context in
    let request = try request(args, context)
    let outcome = try job(request, context.job)
    context.note(summary(outcome, request), code: "summary")
    return .success
  }
}
