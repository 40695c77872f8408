@testable import DeckCore

/// Small builders for deck tests. The deck date is Sunday 2026-11-29 unless a test says otherwise.
enum Fixture {
  static let date = DeckDate(year: 2026, month: 11, day: 29)!

  static func item(
    _ id: String, _ category: String, allergens: [String] = [], diets: [String] = [],
    availability: Availability = .always
  ) -> MenuItem {
    MenuItem(
      id: id, name: "Dish \(id)", category: category, allergens: allergens, diets: diets,
      availability: availability)
  }

  /// Items named by category letter and number: "a1", "b2"... (category = the letter).
  static func items(_ ids: String...) -> [MenuItem] {
    ids.map { item($0, String($0.prefix(1))) }
  }

  static func rules(_ configure: (inout DeckRules) -> Void = { _ in }) -> DeckRules {
    var r = DeckRules()
    configure(&r)
    return r
  }

  /// Builds one deck. Scores default to catalog order descending (first item scores highest).
  static func deck(
    _ items: [MenuItem], rules: DeckRules = DeckRules(), user: UserProfile = UserProfile(id: "u"),
    history: UserHistory? = nil, date: DeckDate = Fixture.date, scores: [String: Double] = [:]
  ) throws -> (ids: [String], deck: Deck, candidates: CandidateSet) {
    let catalog = try Catalog(items: items)
    let builder = try DeckBuilder(catalog: catalog, rules: rules)
    let candidates = builder.candidates(for: user, history: history, date: date)
    let s = candidates.items.map { i in scores[catalog[i].id] ?? Double(items.count - Int(i)) }
    let deck = builder.assemble(user: user.id, date: date, candidates: candidates, scores: s)
    return (deck.cards.map { catalog[$0.item].id }, deck, candidates)
  }

  /// A one-diner history from (item id, swipe, days before `date`).
  static func history(
    _ items: [MenuItem], _ events: [(String, SwipeDirection, Int)], date: DeckDate = Fixture.date,
    user: String = "u"
  ) throws -> UserHistory {
    let catalog = try Catalog(items: items)
    var b = HistoryBuilder(itemCount: catalog.count, cutoff: date)
    let slot = b.userSlot(user)
    for (id, swipe, ago) in events {
      b.add(
        user: slot, item: catalog.index(of: id)!, swipe: swipe,
        day: date.adding(days: -ago).daysSinceEpoch)
    }
    return try b.build().users[user]!
  }
}
