import DeckCore
import DeckIO
import DeckTestSupport
import Testing

@testable import DeckEvaluation
@testable import DeckSimulation

/// The simulator, `stats` and `play` share one session model: DeckCore's `DeckState`, whose ends
/// `stats` counts through `SessionEnd`. Replaying every simulated session through a `DeckState`
/// gives the simulator's own record of it, and `stats` on the simulated log counts the same ends.
@Suite("One session model")
struct SessionModelTests {
  static let configs: [(String, SimulationConfig)] = {
    var pick = SimulationConfig()
    pick.mode = .pick
    var all = SimulationConfig()
    all.mode = .all
    var allImpatient = all
    allImpatient.patience = 2
    allImpatient.giveUpProbability = 0.2
    var pickPatient = pick
    pickPatient.patience = nil
    pickPatient.giveUpProbability = 0
    return [
      ("pick", pick), ("all", all), ("all, impatient", allImpatient),
      ("pick, never gives up", pickPatient),
    ]
  }()

  @Test(
    "a simulated session replayed through DeckState is the simulator's record of it",
    arguments: 0..<configs.count)
  func replay(config index: Int) throws {
    let (_, config) = Self.configs[index]
    let run = try simulate("popularity", config: config, users: 80, days: 5)
    var checked = 0
    for s in run.sessions where !s.cards.isEmpty {
      var state = DeckState(
        cards: s.cards.map(\.item), mode: config.mode == .pick ? .pickOne : .all)
      let swiped = s.cards.prefix { $0.swipe != nil }
      // The swiped cards are a prefix of the deck: the session took them from the top.
      #expect(s.cards.dropFirst(swiped.count).allSatisfy { $0.swipe == nil })
      for card in swiped {
        let result = state.swipe(card.swipe!)
        if case .ignored = result { Issue.record("a swipe after the session's end: \(s.user)") }
      }
      if s.abandoned {
        let ended = state.abandon()
        #expect(ended)
      }
      #expect(state.firstRight == s.picked)
      switch state.status {
      case .picked(let item):
        #expect(config.mode == .pick && item == s.cards[s.picked!].item && !s.abandoned)
      case .abandoned: #expect(s.abandoned)
      case .finishedSwiping:
        #expect(!s.abandoned && swiped.count == s.cards.count)
        #expect(config.mode == .all || s.picked == nil)
      case .inProgress, .noCards: Issue.record("session of \(s.user) not over: \(state.status)")
      }
      #expect(s.finishedWithoutPick == (state.end == .finishedWithoutPick))
      checked += 1
    }
    #expect(checked > 200)
  }

  @Test("stats counts the sessions' ends as SessionEnd defines them", arguments: 0..<configs.count)
  func statsCountsTheEnds(config index: Int) throws {
    let (_, config) = Self.configs[index]
    let rules = DeckRules()
    let run = try simulate("popularity", config: config, users: 80, days: 5, rules: rules)
    var stats = StatsAccumulator(
      catalog: simulationCatalog,
      options: StatsOptions(
        deckSize: rules.size, days: simulationStart...simulationStart.adding(days: 4)))
    for e in run.events {
      _ = stats.add(
        SwipeEvent(
          user: e.user, item: e.item, swipe: e.swipe!, at: e.at, position: e.position,
          deck: e.deck, propensity: e.propensity))
    }
    var picked = 0
    var abandoned = 0
    var finished = 0
    var fullDecks = 0
    for s in run.sessions where !s.cards.isEmpty {
      var state = DeckState(
        cards: s.cards.map(\.item), mode: config.mode == .pick ? .pickOne : .all)
      for card in s.cards { if let d = card.swipe { state.swipe(d) } }
      if s.abandoned { state.abandon() }
      // As a log tells it: the deck size stands for the deck's length.
      let logged = SessionEnd(
        swiped: state.swiped.count, deckSize: rules.size,
        firstRightPlace: state.firstRight.map { $0 + 1 })
      if s.cards.count == rules.size {
        #expect(state.end == logged)
        fullDecks += 1
      }
      switch logged {
      case .picked: picked += 1
      case .abandoned: abandoned += 1
      case .finishedWithoutPick: finished += 1
      }
    }
    #expect(fullDecks > 200)
    let all = try #require(stats.report().rows.last)
    #expect(all.day == nil)
    let decks = try #require(all[.decks])
    #expect(Int(decks) == picked + abandoned + finished)
    #expect(all[.pickRate] == Double(picked) / decks)
    #expect(all[.abandonRate] == Double(abandoned) / decks)
    #expect(all[.finishedWithoutPickRate] == Double(finished) / decks)
    #expect(abandoned > 0 || config.giveUpProbability == 0)
  }
}

@Suite("Simulation on several threads")
struct ParallelSimulationTests {
  @Test(
    "the same events and sessions for 1, 2, 3 and 7 threads",
    arguments: ["popularity", "thompson", "plackett-luce"])
  func sameRun(strategy: String) throws {
    var config = SimulationConfig()
    config.drags = true
    let one = try simulate(strategy, config: config, users: 90, days: 4, batchSize: 8)
    for jobs in [2, 3, 7] {
      let run = try simulate(
        strategy, config: config, users: 90, days: 4, jobs: jobs, batchSize: 8)
      #expect(try run.log() == one.log(), "jobs \(jobs)")
      #expect(run.sessions == one.sessions, "jobs \(jobs)")
    }
  }
}
