import DeckCore
import DeckIO
import DeckSimulation
import DeckStrategies

/// `menudeck simulate` at scale: diners x days over the sample menu with the default rules
/// (10 cards a deck) and the default population, every event written as JSON Lines (to a
/// counting sink) and every session's ground truth (oracle deck included) computed.
///
/// Hook in main.swift (child phases):
///     case "simulate": print(try SimulationBench.resultLine(quick: quick))
/// and in the parent, after the deck phase:
///     SimulationBench.report(try runChild("simulate"))
enum SimulationBench {
  struct Result {
    var users: Int
    var days: Int
    var sessions: Int
    var swipes: Int
    var bytes: Int
    var seconds: Double
  }

  static func run(users: Int, days: Int, strategy name: String = "affinity") throws -> Result {
    let catalog = try Catalog(items: SampleData.items)
    let population = Population(
      catalog: catalog, count: users, config: SimulationConfig(), seed: 42)
    let builder = try DeckBuilder(catalog: catalog, rules: DeckRules())
    let simulator = Simulator(
      population: population, builder: builder, seed: 42,
      start: DeckDate(year: 2026, month: 11, day: 1)!, days: days)
    let strategy = try StrategyRegistry.make(name)
    let sink = DiscardOutput()
    let writer = EventWriter(format: .jsonLines, output: sink)
    var truth = 0.0
    let t0 = Clock.cpuNow()
    let result = try simulator.run(
      strategy: strategy, events: { try writer.write($0) },
      sessions: { truth += $0.oracleUtilities.first ?? 0 })
    try writer.finish()
    let t1 = Clock.cpuNow()
    precondition(truth.isFinite)
    return Result(
      users: users, days: days, sessions: result.sessions, swipes: result.swipes,
      bytes: sink.bytes, seconds: t1 - t0)
  }

  /// Runs the phase (10,000 diners x 30 days; 2,000 with `quick`) and returns its RESULT line.
  static func resultLine(quick: Bool) throws -> String {
    let r = try run(users: quick ? 2_000 : 10_000, days: 30)
    return
      "RESULT users=\(r.users) days=\(r.days) sessions=\(r.sessions) swipes=\(r.swipes) bytes=\(r.bytes) seconds=\(r.seconds) peak=\(Clock.peakMemoryMiB())"
  }

  /// Prints the phase's figures.
  static func report(_ r: [String: Double]) {
    let users = Int(r["users"] ?? 0)
    let days = Int(r["days"] ?? 0)
    let seconds = r["seconds"] ?? 0
    print("")
    print(
      "Simulation: \(users) diners x \(days) days, sample menu, affinity, 10-card decks, JSON Lines log"
    )
    print(
      "  simulate           \(fmt(seconds, 2)) s   \(fmt((r["sessions"] ?? 0) / seconds, 0)) sessions/s   \(fmt((r["swipes"] ?? 0) / seconds, 0)) swipes/s"
    )
    print(
      "  sessions \(Int(r["sessions"] ?? 0)), swipes \(Int(r["swipes"] ?? 0)), log \(fmt(mb(Int(r["bytes"] ?? 0)), 1)) MB"
    )
    print("  peak memory        \(fmt(r["peak"] ?? 0, 0)) MiB")
  }
}
