import DeckCore
import DeckIO

/// The evaluation side of a temporal split: a `SwipeEventSink` that keeps, for every event on or after
/// the split date (its `deck` date, else the local day of its `at`), the diner and, for right
/// swipes, the dish: the relevance judgements of the offline ranking metrics.
///
/// Events before the split are ignored here (they are the training history, read by another
/// sink); so are events whose dish is not in the catalog (`.unknownItem`), as everywhere else.
/// Dishes and diners are their ids' UTF-8 bytes (`IDKey`), as in the training history: a log's
/// "cafe\u{301}" is not the catalog's "caf\u{E9}".
package struct HeldOutSwipes: SwipeEventSink {
  package let catalog: Catalog
  /// The first evaluated day.
  package let split: DeckDate
  private var users: [IDKey: Int] = [:]
  private var names: [String] = []
  private var right: [Set<Int32>] = []
  private var left: [Set<Int32>] = []
  /// Evaluated events (right and left).
  package private(set) var events = 0
  package private(set) var rightSwipes = 0

  package init(catalog: Catalog, split: DeckDate) {
    self.catalog = catalog
    self.split = split
  }

  package mutating func event(_ e: SwipeEvent) -> EventDisposition {
    let day = (e.deck ?? e.day).daysSinceEpoch
    guard day >= split.daysSinceEpoch else { return .accepted }
    guard let item = catalog.index(of: e.item) else { return .unknownItem }
    add(user: e.user, item: item, right: e.swipe == .right)
    return .accepted
  }

  /// Adds one evaluated swipe.
  package mutating func add(user: String, item: Int32, right isRight: Bool) {
    events += 1
    let u: Int
    let key = IDKey(user)
    if let known = users[key] {
      u = known
    } else {
      u = names.count
      users[key] = u
      names.append(user)
      right.append([])
      left.append([])
    }
    if isRight {
      rightSwipes += 1
      right[u].insert(item)
    } else {
      left[u].insert(item)
    }
  }

  /// The dishes `user` swiped left and never right in the evaluation period (ascending): judged
  /// not relevant (a dish swiped both ways counts as relevant).
  package func nonRelevant(for user: String) -> [Int32] {
    guard let u = users[IDKey(user)] else { return [] }
    return left[u].subtracting(right[u]).sorted()
  }

  /// Diners with at least one evaluated swipe.
  package var dinerCount: Int { names.count }

  /// The diners who swiped at least one dish right in the evaluation period, ascending by UTF-8
  /// bytes, each with the distinct dishes they swiped right (ascending): the units and relevance
  /// judgements of the ranking metrics.
  package var judged: [(user: String, relevant: [Int32])] {
    names.indices.filter { !right[$0].isEmpty }
      .map { (names[$0], right[$0].sorted()) }
      .sorted { $0.user.utf8.lexicographicallyPrecedes($1.user.utf8) }
  }
}
