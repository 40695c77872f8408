import DeckCore
import DeckStrategies
import Foundation

/// `ease`: the closed-form fit at a given number of dishes, and scoring many diners from the
/// fitted model, on right swipes given as (diner, dish) pairs: read from a file of `user,item`
/// lines (whole numbers; what Scripts/check-ease.py writes, so that numpy fits the same
/// matrix), or generated.
enum EASEBench {
  /// Pairs from a file of `user,item` lines, or nil when there is none.
  static func pairs(file: String) throws -> [(user: Int, item: Int)] {
    let text = try String(contentsOfFile: file, encoding: .utf8)
    var out: [(user: Int, item: Int)] = []
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: ",")
      guard fields.count == 2, let u = Int(fields[0]), let i = Int(fields[1]) else { continue }
      out.append((u, i))
    }
    return out
  }

  /// `users` diners with about `perUser` distinct dishes each, skewed towards the first dishes
  /// (a dish's chance falls with its index), from a fixed seed.
  static func synthetic(items: Int, users: Int, perUser: Int) -> [(user: Int, item: Int)] {
    var random = RandomStream(seed: 27)
    var out: [(user: Int, item: Int)] = []
    for u in 0..<users {
      var seen = Set<Int>()
      for _ in 0..<perUser {
        let x = random.nextDouble()
        seen.insert(min(items - 1, Int(x * x * Double(items))))
      }
      for i in seen.sorted() { out.append((u, i)) }
    }
    return out
  }

  static let date = DeckDate(year: 2026, month: 11, day: 30)!

  static func history(_ pairs: [(user: Int, item: Int)], items: Int) throws -> History {
    var builder = HistoryBuilder(itemCount: items, cutoff: date)
    var slots: [Int: Int32] = [:]
    for (u, i) in pairs {
      let slot: Int32
      if let s = slots[u] {
        slot = s
      } else {
        slot = builder.userSlot("user\(u)")
        slots[u] = slot
      }
      builder.add(user: slot, item: Int32(i), swipe: .right, day: date.daysSinceEpoch - 1)
    }
    return try builder.build()
  }

  /// CPU seconds of `learn` (best of `repeats`), and the dishes in the model.
  static func fit(pairs: [(user: Int, item: Int)], items: Int, lambda: Double, repeats: Int)
    throws -> (seconds: Double, dishes: Int)
  {
    let catalog = SyntheticData.catalog(count: items)
    let history = try history(pairs, items: items)
    var best = Double.infinity
    var dishes = 0
    for _ in 0..<repeats {
      let strategy = try EASEStrategy(
        options: StrategyOptions(raw: ["lambda": String(lambda)], for: EASEStrategy.description))
      let t0 = Clock.cpuNow()
      try strategy.learn(catalog: catalog, history: history)
      best = min(best, Clock.cpuNow() - t0)
      dishes = strategy.dishes
    }
    return (best, dishes)
  }

  /// Scores every diner of `pairs` over the dishes they have not swiped and keeps the best 10
  /// (the work of a numpy X @ B, masked, then a top-k); then the same diners' decks through the
  /// deck pipeline (default rules, 10 cards), as `menudeck deck` builds them.
  static func score(pairs: [(user: Int, item: Int)], items: Int, lambda: Double) throws
    -> (kernel: Double, decks: Double, users: Int, checksum: Double)
  {
    let catalog = SyntheticData.catalog(count: items)
    let history = try history(pairs, items: items)
    let strategy = try EASEStrategy(
      options: StrategyOptions(raw: ["lambda": String(lambda)], for: EASEStrategy.description))
    try strategy.learn(catalog: catalog, history: history)
    let ids = history.userIDs
    let profiles = ids.map { UserProfile(id: $0) }
    var checksum = 0.0
    let t0 = Clock.cpuNow()
    var seen = [Bool](repeating: false, count: items)
    for profile in profiles {
      let userHistory = history.users[profile.id]
      for r in userHistory?.records ?? [] { seen[Int(r.item)] = true }
      var candidates: [Int32] = []
      candidates.reserveCapacity(items)
      for i in 0..<items where !seen[i] { candidates.append(Int32(i)) }
      for r in userHistory?.records ?? [] { seen[Int(r.item)] = false }
      var context = ScoringContext(
        user: profile, userHistory: userHistory, date: date, candidates: candidates, seed: 42)
      let values = strategy.score(&context).values
      // The best 10 by score, then catalog order.
      var topScores = [Double](repeating: -.infinity, count: 10)
      var topItems = [Int32](repeating: -1, count: 10)
      for (k, v) in values.enumerated() where v > topScores[9] {
        var p = 9
        while p > 0 && topScores[p - 1] < v {
          topScores[p] = topScores[p - 1]
          topItems[p] = topItems[p - 1]
          p -= 1
        }
        topScores[p] = v
        topItems[p] = candidates[k]
      }
      checksum += topScores[0] + Double(topItems[0])
    }
    let t1 = Clock.cpuNow()
    var rules = DeckRules()
    rules.size = 10
    let pipeline = DeckPipeline(
      builder: try DeckBuilder(catalog: catalog, rules: rules), strategy: strategy,
      history: history, seed: 42, date: date)
    var cards = 0
    try pipeline.build(users: profiles) { deck in cards += deck.cards.count }
    let t2 = Clock.cpuNow()
    return (t1 - t0, t2 - t1, profiles.count, checksum + Double(cards))
  }
}
