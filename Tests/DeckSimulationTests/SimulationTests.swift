import DeckCore
import DeckIO
import DeckStrategies
import DeckTestSupport
import Foundation
import Testing

@testable import DeckSimulation

/// Everything one small run produced.
struct SimulationRun {
  var events: [LogEvent] = []
  var sessions: [SimulatedSession] = []
  var result: SimulationResult
  var simulator: Simulator

  /// The run's log as JSON Lines (drags included).
  func log(_ format: EventFormat = .jsonLines) throws -> String {
    let out = MemoryOutput()
    let writer = EventWriter(format: format, output: out, drags: true)
    for e in events { try writer.write(e) }
    try writer.finish()
    return out.text
  }
}

/// Runs `strategy` ("oracle" or a built-in) over a small population.
func simulate(
  _ strategy: String = "random", config: SimulationConfig = SimulationConfig(), users: Int = 120,
  days: Int = 8, seed: UInt64 = 7, rules: DeckRules = DeckRules(), jobs: Int = 1,
  batchSize: Int = 512
) throws -> SimulationRun {
  let population = Population(catalog: simulationCatalog, count: users, config: config, seed: seed)
  let builder = try DeckBuilder(catalog: simulationCatalog, rules: rules)
  let simulator = Simulator(
    population: population, builder: builder, seed: seed, start: simulationStart, days: days)
  simulator.jobs = jobs
  simulator.batchSize = batchSize
  let ranking: any RankingStrategy =
    strategy == "oracle" ? simulator.makeOracle() : try StrategyRegistry.make(strategy)
  var events: [LogEvent] = []
  var sessions: [SimulatedSession] = []
  let result = try simulator.run(
    strategy: ranking, events: { events.append($0) }, sessions: { sessions.append($0) })
  return SimulationRun(events: events, sessions: sessions, result: result, simulator: simulator)
}

/// Ground-truth metrics as the stats define them, computed here independently.
struct Truth {
  var meanPickUtility: Double
  /// Mean over decks of (DCG of the oracle deck - DCG of the shown deck), gains logistic(u).
  var regret: Double
  /// Mean over decks of DCG(shown) / DCG(oracle).
  var ndcg: Double
  var likeRate: Double

  init(_ sessions: [SimulatedSession]) {
    func dcg(_ utilities: [Double]) -> Double {
      var sum = 0.0
      for (k, u) in utilities.enumerated() {
        sum += SimulationMath.logistic(u) / Foundation.log2(Double(k + 2))
      }
      return sum
    }
    let picks = sessions.compactMap(\.pickedUtility)
    meanPickUtility = picks.reduce(0, +) / Double(max(1, picks.count))
    let decks = sessions.filter { !$0.cards.isEmpty }
    var regret = 0.0
    var ndcg = 0.0
    for s in decks {
      let shown = dcg(s.cards.map(\.trueUtility))
      let ideal = dcg(s.oracleUtilities)
      regret += ideal - shown
      ndcg += shown / ideal
    }
    self.regret = regret / Double(decks.count)
    self.ndcg = ndcg / Double(decks.count)
    let swiped = sessions.flatMap(\.cards).filter { $0.swipe != nil }
    likeRate = Double(swiped.filter { $0.swipe == .right }.count) / Double(swiped.count)
  }
}

@Suite("simulation: the day-by-day loop")
struct SimulatorTests {
  @Test("a fixed seed gives byte-identical logs and identical sessions; another seed does not")
  func deterministic() throws {
    var config = SimulationConfig()
    config.drags = true
    config.hesitationProbability = 0.1
    let a = try simulate("affinity", config: config, users: 60, days: 5)
    let b = try simulate("affinity", config: config, users: 60, days: 5)
    let c = try simulate("affinity", config: config, users: 60, days: 5, seed: 8)
    #expect(a.events.count > 500)
    #expect(try a.log() == b.log())
    #expect(try a.log(.csv) == b.log(.csv))
    #expect(a.sessions == b.sessions)
    #expect(try a.log() != c.log())
  }

  @Test("with a history-blind strategy a diner's events do not depend on the other diners")
  func dinersAreIndependent() throws {
    let small = try simulate("random", users: 30, days: 4)
    let large = try simulate("random", users: 60, days: 4)
    let firstThirty = Set((1...30).map { Population.dinerID($0, of: 30) })
    #expect(!small.events.isEmpty)
    #expect(large.events.filter { firstThirty.contains($0.user) } == small.events)
  }

  @Test("a run continued from an earlier run's history equals one longer run")
  func resumable() throws {
    var config = SimulationConfig()
    config.satiationStrength = 0  // satiation is not in the history: switch it off
    let population = Population(catalog: simulationCatalog, count: 40, config: config, seed: 7)
    let builder = try DeckBuilder(catalog: simulationCatalog, rules: DeckRules())
    func run(_ start: DeckDate, _ days: Int, _ history: HistoryBuilder?) throws -> (
      [LogEvent], SimulationResult
    ) {
      var events: [LogEvent] = []
      let simulator = Simulator(
        population: population, builder: builder, seed: 7, start: start, days: days)
      let result = try simulator.run(
        strategy: try StrategyRegistry.make("affinity"), history: history,
        events: { events.append($0) })
      return (events, result)
    }
    let (whole, _) = try run(simulationStart, 4, nil)
    let (first, firstResult) = try run(simulationStart, 2, nil)
    let (second, _) = try run(simulationStart.adding(days: 2), 2, firstResult.history)
    #expect(!first.isEmpty && !second.isEmpty)
    #expect(first + second == whole)
  }

  @Test("sessions carry the deck: positions, dates, propensities, swipes as logged")
  func sessionsMatchEvents() throws {
    let run = try simulate("random", users: 40, days: 3)
    let logged = run.sessions.flatMap { s in
      s.cards.compactMap { card in
        card.swipe.map { swipe in
          LogEvent(
            user: s.user, item: simulationCatalog[card.item].id, swipe: swipe, at: 0,
            position: card.position, deck: s.date, propensity: card.propensity)
        }
      }
    }
    var events = run.events
    for k in events.indices { events[k].at = 0 }
    #expect(events == logged)
    // Under the default rules, which can move cards, the random strategy's cards carry no
    // propensity (1 / candidates would be wrong for their slots) ...
    for s in run.sessions {
      for card in s.cards { #expect(card.propensity == nil) }
      #expect(s.date == simulationStart.adding(days: s.day))
      #expect(
        s.cards.map(\.position) == Array(stride(from: 1, through: s.cards.count, by: 1))
      )
      #expect(s.strategy == "random")
    }
    // ... and under rules that keep the shuffle's order, exactly 1 / candidates.
    var keeping = DeckRules()
    keeping.maxPerCategory = nil
    keeping.avoidAdjacentCategory = false
    keeping.reshowDays = 0
    let kept = try simulate("random", users: 40, days: 3, rules: keeping)
    #expect(!kept.sessions.isEmpty)
    for s in kept.sessions {
      for card in s.cards { #expect(card.propensity == 1 / Double(s.candidateCount)) }
    }
    // Every event happens on the day of its deck.
    for e in run.events { #expect(DeckDate(daysSinceEpoch: Int32(e.at / 86_400)) == e.deck) }
    #expect(run.result.sessions == run.sessions.count)
    #expect(run.result.swipes == run.events.count)
  }

  @Test("the oracle beats random on every ground-truth metric")
  func oracleBeatsRandom() throws {
    let oracle = Truth(try simulate("oracle", users: 150, days: 8).sessions)
    let random = Truth(try simulate("random", users: 150, days: 8).sessions)
    #expect(oracle.meanPickUtility > random.meanPickUtility)
    #expect(oracle.regret < random.regret)
    #expect(oracle.ndcg > random.ndcg)
    #expect(oracle.likeRate > random.likeRate)
    // The oracle's deck is the oracle deck: no regret at all, NDCG exactly 1.
    #expect(oracle.regret == 0)
    #expect(oracle.ndcg == 1)
    #expect(random.ndcg < 0.95)
  }

  @Test("the oracle scores by hidden utility and refuses diners it does not know")
  func oracleStrategy() throws {
    let run = try simulate("oracle", users: 5, days: 1)
    let oracle = run.simulator.makeOracle()
    #expect(oracle.description.identifier == "oracle")
    #expect(!StrategyRegistry.identifiers.contains("oracle"))
    var batch = [
      ScoringContext(
        user: UserProfile(id: "s00002"), userHistory: nil, date: simulationStart,
        candidates: [0, 3], seed: 7)
    ]
    let scores = try oracle.score(&batch)
    let truth = run.simulator.truth
    #expect(
      scores[0].values == [
        truth.utility(diner: 1, item: 0, day: simulationStart.daysSinceEpoch),
        truth.utility(diner: 1, item: 3, day: simulationStart.daysSinceEpoch),
      ])
    batch = [
      ScoringContext(
        user: UserProfile(id: "nobody"), userHistory: nil, date: simulationStart, candidates: [0],
        seed: 7)
    ]
    #expect(
      throws: StrategyError.failed(
        strategy: "oracle", message: "user 'nobody' is not in the simulated population")
    ) {
      try oracle.score(&batch)
    }
  }

  @Test("satiation lowers repeat picks (same category on consecutive days)")
  func satiation() throws {
    func repeatRate(_ strength: Double) throws -> Double {
      var config = SimulationConfig()
      config.openProbability = 1
      config.satiationStrength = strength
      config.satiationHalfLifeDays = 3
      let run = try simulate("random", config: config, users: 200, days: 10)
      var lastPick: [String: (day: Int, category: Int32)] = [:]
      var pairs = 0
      var repeats = 0
      for s in run.sessions {
        guard let p = s.picked else { continue }
        let category = simulationCatalog.itemCategory[Int(s.cards[p].item)]
        if let last = lastPick[s.user], last.day == s.day - 1 {
          pairs += 1
          if last.category == category { repeats += 1 }
        }
        lastPick[s.user] = (s.day, category)
      }
      #expect(pairs > 300)
      return Double(repeats) / Double(pairs)
    }
    let without = try repeatRate(0)
    let with = try repeatRate(3)
    #expect(with < without * 0.7)
  }

  @Test("satiation: fullness halves with the half-life and resets between runs")
  func satiationState() throws {
    var config = SimulationConfig()
    config.satiationStrength = 2
    config.satiationHalfLifeDays = 2
    let population = Population(catalog: simulationCatalog, count: 2, config: config, seed: 1)
    let truth = GroundTruth(population: population)
    let base = population.baseUtility(diner: 0, item: 0)
    #expect(truth.utility(diner: 0, item: 0, day: 100) == base)
    let c = Int(simulationCatalog.itemCategory[0])
    truth.eat(diner: 0, category: c, day: 100)
    #expect(
      truth.fullness(diner: 0, category: c, day: 101)
        == SimulationMath.exp(-0.5 * 0.693_147_180_559_945_3))
    #expect(abs(truth.fullness(diner: 0, category: c, day: 102) - 0.5) < 1e-15)
    #expect(abs(truth.utility(diner: 0, item: 0, day: 102) - (base - 1)) < 1e-12)
    truth.eat(diner: 0, category: c, day: 102)
    #expect(abs(truth.fullness(diner: 0, category: c, day: 104) - 0.75) < 1e-15)
    #expect(truth.fullness(diner: 1, category: c, day: 104) == 0)
    #expect(
      truth.fullness(diner: 0, category: (c + 1) % simulationCatalog.categories.count, day: 104)
        == 0)
    truth.reset()
    #expect(truth.fullness(diner: 0, category: c, day: 104) == 0)
  }

  @Test("lower patience lowers swipes per session")
  func patience() throws {
    func swipesPerSession(_ patience: Int?) throws -> (Double, [SimulatedSession]) {
      var config = SimulationConfig()
      config.mode = .all
      config.patience = patience
      config.giveUpProbability = 0
      let run = try simulate("random", config: config, users: 80, days: 4)
      let decks = run.sessions.filter { !$0.cards.isEmpty }
      return (Double(decks.reduce(0) { $0 + $1.swipes }) / Double(decks.count), decks)
    }
    let (one, impatient) = try swipesPerSession(1)
    let (three, _) = try swipesPerSession(3)
    let (unlimited, patient) = try swipesPerSession(nil)
    #expect(one < three)
    #expect(three < unlimited)
    #expect(patient.allSatisfy { !$0.abandoned && $0.swipes == $0.cards.count })
    // Patience 1: the first left swipe before the last card ends the session.
    for s in impatient {
      let swiped = s.cards.prefix(s.swipes)
      #expect(swiped.dropLast().allSatisfy { $0.swipe == .right })
      #expect(s.abandoned == (s.swipes < s.cards.count))
      if s.abandoned { #expect(swiped.last?.swipe == .left) }
    }
  }

  @Test("give-up probability 1 abandons at the first left swipe that is not the last card")
  func giveUp() throws {
    var config = SimulationConfig()
    config.giveUpProbability = 1
    config.patience = nil
    let run = try simulate("random", config: config, users: 40, days: 3)
    for s in run.sessions where !s.cards.isEmpty {
      let last = s.cards[s.swipes - 1]
      if s.abandoned {
        #expect(last.swipe == .left && s.swipes < s.cards.count)
      } else {
        #expect(last.swipe == .right || s.swipes == s.cards.count)
      }
    }
  }

  @Test("pick mode ends at the first right swipe; all mode swipes every card unless it abandons")
  func modes() throws {
    let pick = try simulate("popularity", users: 80, days: 4)
    var picks = 0
    for s in pick.sessions {
      let swiped = s.cards.prefix { $0.swipe != nil }
      #expect(swiped.count == s.swipes)  // swipes are a prefix of the deck
      if let p = s.picked {
        picks += 1
        #expect(p == s.swipes - 1)
        #expect(s.cards[p].swipe == .right)
        #expect(!s.abandoned)
      }
      #expect(swiped.filter { $0.swipe == .right }.count == (s.picked == nil ? 0 : 1))
      if s.finishedWithoutPick { #expect(s.swipes == s.cards.count) }
    }
    #expect(picks > 100)
    var config = SimulationConfig()
    config.mode = .all
    let all = try simulate("popularity", config: config, users: 80, days: 4)
    var multiple = 0
    for s in all.sessions {
      #expect(s.cards.prefix { $0.swipe != nil }.count == s.swipes)
      if !s.abandoned { #expect(s.swipes == s.cards.count) }
      let rights = s.cards.indices.filter { s.cards[$0].swipe == .right }
      #expect(s.picked == rights.first)
      if rights.count > 1 { multiple += 1 }
    }
    #expect(multiple > 10)
  }

  @Test(
    "drags decided by the core's swipe rule give back exactly the simulated swipes",
    arguments: [
      SwipeRule.foodMenu, .cardDeck, .relative(commit: 0.3, hint: 0.05), .absolute(threshold: 40),
    ])
  func drags(rule: SwipeRule) throws {
    var config = SimulationConfig()
    config.drags = true
    config.dragRule = rule
    config.hesitationProbability = 0.2
    config.cardWidth = 343
    let run = try simulate("random", config: config, users: 40, days: 3)
    var committed: [SwipeDirection] = []
    var hesitations = 0
    for e in run.events {
      #expect(e.swipe == nil)
      let drag = try #require(e.drag)
      if case .absolute = rule { #expect(drag.width == nil) } else { #expect(drag.width == 343) }
      if let swipe = try rule.decide(dx: drag.dx, width: drag.width).swipe {
        committed.append(swipe)
      } else {
        hesitations += 1
      }
    }
    #expect(committed == run.sessions.flatMap { $0.cards.compactMap(\.swipe) })
    #expect(hesitations == run.result.hesitations)
    #expect(hesitations > 20)
    // The log reads back, with the same rule, to the same swipes and hesitations.
    var sink = SwipeEventCollector()
    let stats = try EventReader(options: EventReaderOptions(swipeRule: rule)).read(
      text: try run.log(), name: "sim.jsonl", format: .jsonLines, into: &sink)
    #expect(sink.events.map(\.swipe) == committed)
    #expect(stats.hesitations == hesitations)
  }

  @Test(
    "the history it learns from is what ingesting its own log gives",
    arguments: EventFormat.allCases)
  func historyEqualsIngest(format: EventFormat) throws {
    var config = SimulationConfig()
    config.drags = true
    let run = try simulate("affinity", config: config, users: 50, days: 4)
    var ingest = HistoryIngest(catalog: simulationCatalog)
    _ = try EventReader().read(
      text: try run.log(format), name: "sim", format: format, into: &ingest)
    let read = try ingest.build()
    let simulated = try run.result.history.build()
    #expect(read.users == simulated.users)
    #expect(read.itemRight == simulated.itemRight)
    #expect(read.itemLeft == simulated.itemLeft)
    #expect(read.positionShown == simulated.positionShown)
    #expect(read.positionRight == simulated.positionRight)
    #expect(read.events == run.result.swipes)
  }

  @Test("the decks are the decks `deck` builds from the same history, seed and date")
  func decksMatchPipeline() throws {
    let run = try simulate("affinity", users: 40, days: 3)
    let day = 2
    let date = simulationStart.adding(days: day)
    // The history before the day: the events of the earlier days.
    var builder = HistoryBuilder(itemCount: simulationCatalog.count)
    for e in run.events where e.deck! < date {
      builder.add(
        SwipeEvent(user: e.user, item: e.item, swipe: e.swipe!, at: e.at, position: e.position),
        item: simulationCatalog.index(of: e.item)!)
    }
    let strategy = try StrategyRegistry.make("affinity")
    let history = try builder.build()
    try strategy.learn(catalog: simulationCatalog, history: history)
    let sessions = run.sessions.filter { $0.day == day }
    let pipeline = DeckPipeline(
      builder: try DeckBuilder(catalog: simulationCatalog, rules: DeckRules()), strategy: strategy,
      history: history, seed: 7, date: date)
    var decks: [Deck] = []
    let population = run.simulator.population
    let profiles = sessions.map { population.diners[population.index(of: $0.user)!].profile }
    #expect(profiles.contains { !$0.diets.isEmpty || !$0.allergens.isEmpty })
    try pipeline.build(users: profiles) { decks.append($0) }
    #expect(sessions.count > 20)
    #expect(decks.map { $0.cards.map(\.item) } == sessions.map { $0.cards.map(\.item) })
  }
}
