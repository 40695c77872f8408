import DeckJobs
import Testing

@Suite struct JobErrorTests {
  @Test func describesItselfByItsMessageAlone() {
    let error = JobError(.dataError, "Config/x.json: unknown time zone 'Mars/Base'")
    #expect(error.description == "Config/x.json: unknown time zone 'Mars/Base'")
    #expect(error.code == nil)
  }

  @Test func usageIsARequestThatCannotRun() {
    #expect(JobError.usage("give --k") == JobError(.usage, "give --k"))
    #expect(JobError.usage("give --k") != JobError(.dataError, "give --k"))
  }

  @Test func silentDiagnosticsDrawNoProgress() {
    let silent = SilentJobDiagnostics()
    let counted = silent.withProgress("reading", unit: .bytes, total: 10) { $0 == nil }
    #expect(counted)
    #expect(!silent.showsInfo && !silent.showsProgress)
  }
}
