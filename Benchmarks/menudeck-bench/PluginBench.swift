import DeckCore
import DeckPlugins
import DeckStrategies

/// Deck building through an external plugin: the whole round trip (encoding each batch, the
/// plugin's work, decoding and checking its reply, building the decks), in wall-clock seconds
/// because half of the work happens in the plugin's process.
///
/// The default plugin is Tests/Fixtures/plugins/misbehave.py without a fault: every candidate scores 0,
/// so the figure is menudeck's and the protocol's cost plus Python's JSON, not a model's.
enum PluginBench {
  struct Result {
    var users: Int
    var items: Int
    var startSeconds: Double
    var learnSeconds: Double
    var buildSeconds: Double
    var cards: Int
  }

  static func run(
    users userCount: Int, items itemCount: Int, eventsPerUser: Int,
    plugin: String = "Tests/Fixtures/plugins/misbehave.py", batchSize: Int = 512
  ) throws -> Result {
    let catalog = SyntheticData.catalog(count: itemCount)
    let users = SyntheticData.users(count: userCount)
    let date = DeckDate(year: 2026, month: 11, day: 30)!
    var builder = HistoryBuilder(itemCount: itemCount, cutoff: date)
    var random = RandomStream(seed: 5)
    for u in users {
      let slot = builder.userSlot(u.id)
      for _ in 0..<eventsPerUser {
        builder.add(
          user: slot, item: Int32(random.nextInt(below: itemCount)),
          swipe: random.nextDouble() < 0.2 ? .right : .left,
          day: date.daysSinceEpoch - Int32(1 + random.nextInt(below: 14)))
      }
    }
    let history = try builder.build()
    var rules = DeckRules()
    rules.size = 10
    let deckBuilder = try DeckBuilder(catalog: catalog, rules: rules)

    let t0 = Clock.now()
    let strategy = try PluginStrategy(
      .init(name: "bench", executable: plugin, timeout: 60), log: { _ in })
    let t1 = Clock.now()
    try strategy.learn(catalog: catalog, history: history)
    let t2 = Clock.now()
    var pipeline = DeckPipeline(
      builder: deckBuilder, strategy: strategy, history: history, seed: 42, date: date)
    pipeline.batchSize = batchSize
    var cards = 0
    try pipeline.build(users: users) { deck in
      cards += deck.cards.count
    }
    try strategy.finish()
    let t3 = Clock.now()
    return Result(
      users: userCount, items: itemCount, startSeconds: t1 - t0,
      learnSeconds: t2 - t1, buildSeconds: t3 - t2, cards: cards)
  }
}
