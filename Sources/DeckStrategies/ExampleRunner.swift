import DeckCore

/// Runs a `StrategyExample`: builds its tiny catalog and history, asks a strategy to score every
/// dish for the example's diner and orders them as a deck would (score descending, then catalog
/// order). Used by the tests, which run every registered strategy's examples
/// (`ExampleTests`); `menudeck strategies` only counts them.
///
/// A malformed example (a bad item or event string, an unknown item, a bad date, an expected list
/// that is not the items) is an error, never a silently different example.
package enum ExampleRunner {
  /// What an example describes, ready for a strategy.
  package struct Fixture: Sendable {
    package let catalog: Catalog
    /// The events before the example date, aggregated (the deck date itself is not learned).
    package let history: History
    package let user: UserProfile
    package let date: DeckDate
    package let seed: UInt64
  }

  /// The result of one example run.
  package struct Outcome: Sendable, Equatable {
    /// Item ids, best first.
    package let order: [String]
    /// The strategy's score of each entry of `order`.
    package let scores: [Double]
    package let expected: [String]

    package var passed: Bool { order == expected }

    /// "expected a, b, c; got b, a, c", or nil when the example passed.
    package var mismatch: String? {
      passed
        ? nil
        : "expected " + expected.joined(separator: ", ") + "; got " + order.joined(separator: ", ")
    }
  }

  /// Runs `example` with the strategy registered as `identifier` and the example's options.
  package static func run(_ example: StrategyExample, strategy identifier: String)
    throws(StrategyError) -> Outcome
  {
    let fixture = try fixture(example, strategy: identifier)
    let strategy = try StrategyRegistry.make(identifier, options: example.options)
    return try run(strategy, on: fixture, expected: example.expected, example: example.summary)
  }

  /// Runs an already created strategy on a fixture.
  package static func run(
    _ strategy: any BuiltinStrategy, on fixture: Fixture, expected: [String], example: String
  ) throws(StrategyError) -> Outcome {
    let identifier = strategy.description.identifier
    let catalog = fixture.catalog
    strategy.prepare(seed: fixture.seed, jobs: 1)
    try strategy.learn(catalog: catalog, history: fixture.history)
    var context = ScoringContext(
      user: fixture.user, userHistory: fixture.history.users[fixture.user.id], date: fixture.date,
      candidates: (0..<Int32(catalog.count)).map { $0 }, seed: fixture.seed)
    let scores = strategy.score(&context).values
    guard scores.count == catalog.count else {
      throw .failed(
        strategy: identifier,
        message: "example '\(example)': \(scores.count) scores for \(catalog.count) items")
    }
    if let bad = scores.indices.first(where: { !scores[$0].isFinite }) {
      throw .failed(
        strategy: identifier,
        message: "example '\(example)': item '\(catalog.items[bad].id)' scored \(scores[bad])")
    }
    let order = scores.indices.sorted { a, b in
      scores[a] != scores[b] ? scores[a] > scores[b] : a < b
    }
    return Outcome(
      order: order.map { catalog.items[$0].id }, scores: order.map { scores[$0] },
      expected: expected)
  }

  /// Parses an example into its catalog, history (cut off at the example date), diner and date.
  /// `strategy` only names the strategy in error messages.
  package static func fixture(_ example: StrategyExample, strategy: String) throws(StrategyError)
    -> Fixture
  {
    func fail(_ message: String) -> StrategyError {
      .failed(strategy: strategy, message: "example '\(example.summary)': \(message)")
    }
    guard let date = DeckDate.parse(example.date) else {
      throw fail("date '\(example.date)' is not a YYYY-MM-DD date")
    }
    guard !example.user.isEmpty, !example.user.contains(" ") else {
      throw fail("user '\(example.user)' must be a non-empty id without spaces")
    }

    var items: [MenuItem] = []
    for (n, text) in example.items.enumerated() {
      let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
      let tags =
        parts.count == 3
        ? parts[2].split(separator: "|", omittingEmptySubsequences: false).map(String.init) : []
      guard (2...3).contains(parts.count), !parts[0].isEmpty, !parts[1].isEmpty,
        !tags.contains(where: \.isEmpty)
      else {
        throw fail("item \(n + 1) '\(text)' is not 'id:category' or 'id:category:tag1|tag2'")
      }
      items.append(MenuItem(id: parts[0], name: parts[0], category: parts[1], tags: tags))
    }
    let catalog: Catalog
    do {
      catalog = try Catalog(items: items)
    } catch {
      throw fail("items: \(error)")
    }

    var builder = HistoryBuilder(itemCount: catalog.count, cutoff: date)
    for (n, text) in example.events.enumerated() {
      let fields = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
      let shape = "is not 'user item right|left YYYY-MM-DD'"
      guard fields.count == 4, !fields[0].isEmpty else {
        throw fail("event \(n + 1) '\(text)' \(shape)")
      }
      guard let item = catalog.index(of: fields[1]) else {
        throw fail("event \(n + 1) '\(text)': no item '\(fields[1])' in the example's items")
      }
      guard let swipe = SwipeDirection(name: fields[2]) else {
        throw fail("event \(n + 1) '\(text)': swipe '\(fields[2])' is not right or left")
      }
      guard let day = DeckDate.parse(fields[3]) else {
        throw fail("event \(n + 1) '\(text)': date '\(fields[3])' is not a YYYY-MM-DD date")
      }
      let user = builder.userSlot(fields[0])
      builder.add(user: user, item: item, swipe: swipe, day: day.daysSinceEpoch)
    }

    let ids = catalog.items.map(\.id)
    // Ids by their bytes (`IDKey`), as the catalog tells them apart.
    let keys = { (list: [String]) in list.map { IDKey($0) }.sorted() }
    if keys(example.expected) != keys(ids) {
      let missing = ids.filter { id in !example.expected.contains { IDKey.same($0, id) } }
      let extra = example.expected.filter { catalog.index(of: $0) == nil }
      var problems: [String] = []
      if !missing.isEmpty { problems.append("missing " + missing.joined(separator: ", ")) }
      if !extra.isEmpty { problems.append("unknown " + extra.joined(separator: ", ")) }
      if problems.isEmpty { problems.append("repeats an item") }
      throw fail(
        "expected must list every item exactly once (" + problems.joined(separator: "; ") + ")")
    }

    let history: History
    do { history = try builder.build() } catch { throw fail("history: \(error)") }
    return Fixture(
      catalog: catalog, history: history, user: UserProfile(id: example.user), date: date,
      seed: example.seed)
  }
}
