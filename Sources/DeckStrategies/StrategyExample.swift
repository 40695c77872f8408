/// One worked example: a tiny catalog and log, a diner, and the order the strategy must give.
/// Every registered strategy's examples run as tests.
package struct StrategyExample: Sendable, Equatable {
  package let summary: String
  /// Items as "id:category" or "id:category:tag1|tag2".
  package let items: [String]
  /// Events as "user item right|left YYYY-MM-DD".
  package let events: [String]
  package let user: String
  package let date: String
  package let options: [String: String]
  package let seed: UInt64
  /// Expected item ids, best first (all candidates, ordered by score then catalog order).
  package let expected: [String]

  package init(
    _ summary: String, items: [String], events: [String] = [], user: String = "u1",
    date: String = "2026-01-10", options: [String: String] = [:], seed: UInt64 = 42,
    expected: [String]
  ) {
    self.summary = summary
    self.items = items
    self.events = events
    self.user = user
    self.date = date
    self.options = options
    self.seed = seed
    self.expected = expected
  }
}
