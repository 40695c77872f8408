import DeckCore
import DeckIO
import DeckStrategies

/// Deck building for many diners over a large catalog with the default rules and `affinity`.
enum DeckBench {
  struct Result {
    var users: Int
    var items: Int
    var events: Int
    var learnSeconds: Double
    var buildSeconds: Double
    var writeSeconds: Double
    var cards: Int
  }

  static func run(users userCount: Int, items itemCount: Int, eventsPerUser: Int) throws -> Result {
    let catalog = SyntheticData.catalog(count: itemCount)
    let users = SyntheticData.users(count: userCount)
    // A history of `eventsPerUser` swipes per diner over the 14 days before the deck date.
    let date = DeckDate(year: 2026, month: 11, day: 30)!
    var builder = HistoryBuilder(itemCount: itemCount, cutoff: date)
    var random = RandomStream(seed: 3)
    for u in users {
      let slot = builder.userSlot(u.id)
      let favourite = random.nextInt(below: 25)
      for _ in 0..<eventsPerUser {
        let item = Int32(random.nextInt(below: itemCount))
        let liked = Int(catalog.itemCategory[Int(item)]) == favourite
        let right = random.nextDouble() < (liked ? 0.4 : 0.08)
        builder.add(
          user: slot, item: item, swipe: right ? .right : .left,
          day: date.daysSinceEpoch - Int32(1 + random.nextInt(below: 14)),
          position: Int32(1 + random.nextInt(below: 10)))
      }
    }
    let history = try builder.build()
    var rules = DeckRules()
    rules.size = 10
    let deckBuilder = try DeckBuilder(catalog: catalog, rules: rules)
    let strategy = try StrategyRegistry.make("affinity")

    let t0 = Clock.cpuNow()
    try strategy.learn(catalog: catalog, history: history)
    let t1 = Clock.cpuNow()
    let pipeline = DeckPipeline(
      builder: deckBuilder, strategy: strategy, history: history, seed: 42, date: date)
    var cards = 0
    try pipeline.build(users: users) { deck in cards += deck.cards.count }
    let t2 = Clock.cpuNow()
    // The same again, written as JSON to memory, to show the cost of output.
    let sink = DiscardOutput()
    let writer = DeckWriter(
      format: .json, output: sink, catalog: catalog,
      header: RunHeader(
        version: "bench", date: date, strategy: "affinity", options: [], seed: 42, size: 10,
        inputs: []))
    try writer.begin()
    try pipeline.build(users: users) { deck in try writer.write(deck, warnings: []) }
    try writer.end()
    let t3 = Clock.cpuNow()
    return Result(
      users: userCount, items: itemCount, events: history.events, learnSeconds: t1 - t0,
      buildSeconds: t2 - t1, writeSeconds: (t3 - t2) - (t2 - t1), cards: cards)
  }
}

final class DiscardOutput: ByteOutput {
  var bytes = 0
  func write(_ bytes: [UInt8]) throws(DeckIOError) { self.bytes += bytes.count }
}
