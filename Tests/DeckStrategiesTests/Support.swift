import DeckCore
import DeckStrategies

/// A fixture from example-style strings (the same format as `StrategyExample`).
func fixture(
  items: [String], events: [String] = [], user: String = "u1", date: String = "2026-01-10",
  seed: UInt64 = 42
) throws -> ExampleRunner.Fixture {
  let ids = items.map { String($0.split(separator: ":")[0]) }
  let example = StrategyExample(
    "test", items: items, events: events, user: user, date: date, seed: seed, expected: ids)
  return try ExampleRunner.fixture(example, strategy: "test")
}

/// A strategy from the registry, learned on `fixture`.
func learned(
  _ identifier: String, _ options: [String: String] = [:], on fixture: ExampleRunner.Fixture
) throws -> any BuiltinStrategy {
  let strategy = try StrategyRegistry.make(identifier, options: options)
  try strategy.learn(catalog: fixture.catalog, history: fixture.history)
  return strategy
}

/// Scores of `strategy` for one diner over `candidates` (default: every item).
func scores(
  _ strategy: any BuiltinStrategy, _ fixture: ExampleRunner.Fixture, user: String? = nil,
  date: String? = nil, seed: UInt64? = nil, candidates: [Int32]? = nil
) -> [Double] {
  let id = user ?? fixture.user.id
  var context = ScoringContext(
    user: UserProfile(id: id), userHistory: fixture.history.users[id],
    date: date.flatMap { DeckDate.parse($0) } ?? fixture.date,
    candidates: candidates ?? (0..<Int32(fixture.catalog.count)).map { $0 },
    seed: seed ?? fixture.seed)
  return strategy.score(&context).values
}

/// Item ids by score descending, then catalog order (the deck builder's order).
func ranking(_ values: [Double], _ fixture: ExampleRunner.Fixture, candidates: [Int32]? = nil)
  -> [String]
{
  let items = candidates ?? (0..<Int32(fixture.catalog.count)).map { $0 }
  return values.indices
    .sorted { values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1 }
    .map { fixture.catalog[items[$0]].id }
}

/// The description of a thrown error, or nil when nothing was thrown.
func message(_ body: () throws -> Void) -> String? {
  do {
    try body()
    return nil
  } catch {
    return String(describing: error)
  }
}
