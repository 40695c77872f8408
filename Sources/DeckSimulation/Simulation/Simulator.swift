import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

/// One card of a simulated session, with its ground truth.
package struct SimulatedCard: Sendable, Equatable {
  /// Catalog index.
  package var item: Int32
  /// 1-based position in the deck.
  package var position: Int
  /// The diner's true utility for the dish on the deck date.
  package var trueUtility: Double
  /// How the diner swiped it; nil when the session ended before this card.
  package var swipe: SwipeDirection?
  /// The strategy's propensity for the card, when it gives one.
  package var propensity: Double?
  /// The strategy's prefix propensity for the card (its probability of the deck's cards from
  /// position 1 up to and including this one, in order), when it gives one.
  package var prefixPropensity: Double?
}

/// One deck shown to one diner on one day, what the diner did with it and the ground truth that
/// the stats need (mean true utility of picks, regret against the oracle deck, NDCG@k).
package struct SimulatedSession: Sendable, Equatable {
  package var user: String
  /// 0-based day of the run.
  package var day: Int
  /// The deck date.
  package var date: DeckDate
  /// The identifier of the strategy that ranked the deck.
  package var strategy: String
  /// Every card of the deck in deck order, swiped or not.
  package var cards: [SimulatedCard]
  /// Index in `cards` of the first right swipe (the pick), if any.
  package var picked: Int?
  /// The diner gave up with cards left unswiped.
  package var abandoned: Bool
  /// True utilities of the oracle deck's cards, in its order: the deck that
  /// `DeckBuilder.assemble` makes under the same rules from the same candidates when the scores
  /// are the true utilities.
  package var oracleUtilities: [Double]
  /// How many candidates the deck rules left for this diner and date.
  package var candidateCount: Int

  /// Cards swiped (right or left).
  package var swipes: Int { cards.reduce(0) { $0 + ($1.swipe == nil ? 0 : 1) } }
  /// The true utility of the pick, if any.
  package var pickedUtility: Double? { picked.map { cards[$0].trueUtility } }
  /// Every card was swiped and none right.
  package var finishedWithoutPick: Bool { picked == nil && !abandoned }
}

/// What a run produced besides the events and sessions it streamed.
package struct SimulationResult: Sendable {
  /// The history after the last day (the initial one plus every simulated swipe).
  package var history: HistoryBuilder
  /// Decks shown (one session each).
  package var sessions: Int
  /// Committed swipes logged.
  package var swipes: Int
  /// Drags that sprang back (logged only with `drags`).
  package var hesitations: Int
}

/// The day-by-day simulation loop.
///
/// For each day d of `days`, with date = start + d:
/// 1. `history = builder.build()`; `strategy.learn(catalog:history:)`, the interface `deck` uses;
/// 2. each diner opens the app with probability `open_probability` (one draw from the stream
///    (seed, "sim-open", diner, date));
/// 3. `DeckPipeline` builds the decks of the diners who opened it, with the run's seed, exactly as
///    `menudeck deck` would for that date and history;
/// 4. each deck is swiped (`Simulator.session` documents the rules), events go to the `events`
///    sink and into the history builder, the ground truth to the `sessions` sink;
/// 5. the day's swipes are in the history before the next day, as a nightly ingest would do.
///
/// Everything random comes from streams derived from (seed, purpose, diner, date), so a run is
/// reproducible from its seed and a diner's sessions do not depend on the order of diners.
package final class Simulator {
  package let population: Population
  package let builder: DeckBuilder
  package let seed: UInt64
  package let start: DeckDate
  package let days: Int
  /// The hidden state shared with `makeOracle()`'s strategy.
  package let truth: GroundTruth
  /// Diners per strategy call (see `DeckPipeline.batchSize`).
  package var batchSize = 512
  /// Threads that build a day's decks (`DeckPipeline.build(users:jobs:)`); the sessions are
  /// swiped in diner order on the calling thread, so the run is the same for every number.
  package var jobs = 1
  /// Counts each day simulated (the progress line of the command line).
  package var progress: ProgressCounter?

  package init(
    population: Population, builder: DeckBuilder, seed: UInt64, start: DeckDate, days: Int
  ) {
    precondition(days >= 1, "a simulation runs for at least one day")
    precondition(
      builder.catalog.count == population.catalog.count,
      "the deck builder and the population must share the catalog")
    self.population = population
    self.builder = builder
    self.seed = seed
    self.start = start
    self.days = days
    self.truth = GroundTruth(population: population)
  }

  /// A strategy that ranks by this simulation's hidden true utilities.
  package func makeOracle() -> OracleStrategy { OracleStrategy(truth: truth) }

  /// Runs every day. `history` is where the run starts from (default: empty; its cutoff, if any,
  /// must be after the last day); satiation always starts empty. Events are streamed to `events`
  /// (committed swipes and, with drags, hesitations) in session order: day by day, diners in
  /// population order, cards in deck order (so times are ordered within a session, not across
  /// diners). Each deck's record goes to `sessions`, also for a diner whose deck came out empty
  /// (no cards, no pick, not abandoned). Errors from the strategy or the sinks stop the run.
  package func run(
    strategy: any RankingStrategy, history initial: HistoryBuilder? = nil,
    events: (LogEvent) throws -> Void = { _ in },
    sessions: (SimulatedSession) throws -> Void = { _ in }
  ) throws -> SimulationResult {
    truth.reset()
    let catalog = population.catalog
    var history = initial ?? HistoryBuilder(itemCount: catalog.count)
    precondition(history.itemCount == catalog.count, "the history is for another catalog")
    precondition(
      history.cutoff.map { $0 > start.adding(days: days - 1) } ?? true,
      "the history's cutoff would drop simulated swipes")
    var slots = [Int32](repeating: -1, count: population.count)
    var result = SimulationResult(history: history, sessions: 0, swipes: 0, hesitations: 0)
    let name = strategy.description.identifier
    let openProbability = population.config.openProbability
    var openers: [Int] = []
    var profiles: [UserProfile] = []
    for day in 0..<days {
      let date = start.adding(days: day)
      let snapshot = try history.build()
      strategy.prepare(seed: seed, jobs: jobs)
      strategy.prepare(profiles: population.diners.map(\.profile))
      try strategy.learn(catalog: catalog, history: snapshot)
      openers.removeAll(keepingCapacity: true)
      profiles.removeAll(keepingCapacity: true)
      for (d, diner) in population.diners.enumerated() {
        var stream = Population.stream(seed: seed, purpose: "sim-open", user: diner.id, day: date)
        if stream.nextDouble() < openProbability {
          openers.append(d)
          profiles.append(diner.profile)
        }
      }
      var pipeline = DeckPipeline(
        builder: builder, strategy: strategy, history: snapshot, seed: seed, date: date)
      pipeline.batchSize = batchSize
      let deckDay = builder.day(date)
      var k = 0
      try pipeline.build(users: profiles, jobs: jobs) { deck in
        let d = openers[k]
        k += 1
        let diner = population.diners[d]
        // The oracle deck: the same candidates and rules, scored by true utility.
        let set = builder.candidates(
          for: diner.profile, history: snapshot.users[diner.id], day: deckDay)
        let today = date.daysSinceEpoch
        let truthScores = set.items.map { truth.utility(diner: d, item: $0, day: today) }
        let oracle = builder.assemble(
          user: diner.id, date: date, candidates: set, scores: truthScores)
        var session = try self.session(
          deck: deck, diner: d, day: day, strategy: name, result: &result,
          history: &history, slot: &slots[d], events: events)
        session.oracleUtilities = oracle.cards.map(\.score)
        session.candidateCount = set.items.count
        result.sessions += 1
        try sessions(session)
      }
      progress?.add(1)
    }
    result.history = history
    return result
  }

  /// Simulates one session over `deck`. The diner's stream is (seed, "sim-session", diner, date).
  ///
  /// The session starts at `session_start_minute` plus a uniform number of seconds within
  /// `session_window_minutes`; each card takes 2 to 9 seconds. For the card at position p with
  /// true utility u:
  /// - swipe right with probability `logistic(u / temperature) / (1 + attention_decay * (p - 1))`
  ///   (one uniform draw), else left;
  /// - with drags, first a hesitation with probability `hesitation_probability` (a drag that does
  ///   not commit under the rule, 1 to 3 seconds), then the swipe logged as a drag that commits
  ///   in its direction (see `Simulator.drag`);
  /// - after a right swipe: the first one is the pick (the diner eats its category: satiation);
  ///   in `pick` mode the session ends;
  /// - after a left swipe with cards left: the run of left swipes grows; the diner gives up when
  ///   it reaches `patience`, or else with probability `give_up_probability` (abandon).
  ///
  /// The session itself is a ``DeckState`` (pick mode: `.pickOne`, ending at the first right
  /// swipe; all mode: `.all`, ending at "Finished Swiping"; giving up is `abandon()`), so the
  /// simulator, `play` and `stats` (``SessionEnd``) share one definition of a session.
  private func session(
    deck: Deck, diner d: Int, day: Int, strategy: String, result: inout SimulationResult,
    history: inout HistoryBuilder, slot: inout Int32, events: (LogEvent) throws -> Void
  ) throws -> SimulatedSession {
    let config = population.config
    let catalog = population.catalog
    let id = population.diners[d].id
    let date = deck.date
    let today = date.daysSinceEpoch
    var stream = Population.stream(seed: seed, purpose: "sim-session", user: id, day: date)
    var clock =
      Int64(today) * 86_400 + Int64(config.sessionStartMinute) * 60
      + Int64(stream.nextInt(below: config.sessionWindowMinutes * 60 + 1))
    var cards = try simulatedCards(deck, diner: d, day: today, strategy: strategy)
    // The session is DeckCore's DeckState, the one model of a session (`play` drives it too).
    var state = DeckState(
      cards: Array(cards.indices), mode: config.mode == .pick ? .pickOne : .all)
    var run = 0
    while let k = state.top {
      let position = k + 1
      let item = cards[k].item
      let itemID = catalog[item].id
      let p =
        SimulationMath.logistic(cards[k].trueUtility / config.temperature)
        / (1 + config.attentionDecay * Double(k))
      let direction: SwipeDirection = stream.nextDouble() < p ? .right : .left
      clock += Int64(2 + stream.nextInt(below: 8))
      if config.drags {
        if stream.nextDouble() < config.hesitationProbability {
          try events(
            LogEvent(
              user: id, item: itemID, swipe: nil,
              drag: hesitation(toward: direction, &stream), at: clock, position: position,
              deck: date, propensity: cards[k].propensity,
              prefixPropensity: cards[k].prefixPropensity))
          result.hesitations += 1
          clock += Int64(1 + stream.nextInt(below: 3))
        }
        try events(
          LogEvent(
            user: id, item: itemID, swipe: nil, drag: drag(direction, &stream), at: clock,
            position: position, deck: date, propensity: cards[k].propensity,
            prefixPropensity: cards[k].prefixPropensity))
      } else {
        try events(
          LogEvent(
            user: id, item: itemID, swipe: direction, at: clock, position: position, deck: date,
            propensity: cards[k].propensity, prefixPropensity: cards[k].prefixPropensity))
      }
      if slot < 0 { slot = history.userSlot(id) }
      history.add(user: slot, item: item, swipe: direction, day: today, position: Int32(position))
      result.swipes += 1
      cards[k].swipe = direction
      let isFirstRight = direction == .right && state.firstRight == nil
      // Pick mode: the first right swipe ends the session (the deck's top becomes nil).
      state.swipe(direction)
      if direction == .right {
        run = 0
        if isFirstRight {
          truth.eat(diner: d, category: Int(catalog.itemCategory[Int(item)]), day: today)
        }
      } else if state.top != nil {
        run += 1
        if let patience = config.patience, run >= patience {
          state.abandon()
        } else if config.giveUpProbability > 0 && stream.nextDouble() < config.giveUpProbability {
          state.abandon()
        }
      }
    }
    let picked = state.firstRight
    let abandoned = state.status == .abandoned
    return SimulatedSession(
      user: id, day: day, date: date, strategy: strategy, cards: cards, picked: picked,
      abandoned: abandoned, oracleUtilities: [], candidateCount: 0)
  }

  /// The cards of `deck` with diner `d`'s true utility of each on `today`; throws when the
  /// strategy gave a shown card a propensity or prefix propensity outside (0, 1].
  private func simulatedCards(_ deck: Deck, diner d: Int, day today: Int32, strategy: String)
    throws -> [SimulatedCard]
  {
    let catalog = population.catalog
    let id = population.diners[d].id
    var cards: [SimulatedCard] = []
    cards.reserveCapacity(deck.cards.count)
    for (k, card) in deck.cards.enumerated() {
      // A card the deck shows had a chance to be there, and a log cannot carry a propensity
      // outside (0, 1] (the reader refuses it; the event writer would stop the program).
      if let p = card.propensity, !(p > 0 && p <= 1) {
        throw StrategyError.failed(
          strategy: strategy,
          message:
            "gave dish '\(catalog[card.item].id)', which the deck shows diner '\(id)' at position "
            + "\(k + 1), the propensity \(p); a shown card's propensity is above 0 and at most 1")
      }
      if let p = card.prefixPropensity, !(p > 0 && p <= 1) {
        throw StrategyError.failed(
          strategy: strategy,
          message:
            "gave dish '\(catalog[card.item].id)', which the deck shows diner '\(id)' at position "
            + "\(k + 1), the prefix propensity \(p); the probability of the cards shown up to a "
            + "card is above 0 and at most 1")
      }
      cards.append(
        SimulatedCard(
          item: card.item, position: k + 1,
          trueUtility: truth.utility(diner: d, item: card.item, day: today), swipe: nil,
          propensity: card.propensity, prefixPropensity: card.prefixPropensity))
    }
    return cards
  }

  /// A drag that commits in `direction` under the configured rule: |dx| beyond the threshold by
  /// 2% to 52% of the card width (relative rule: dx = ±(commit + 0.02 + 0.5 u) * width, logged
  /// with the width; absolute rule: dx = ±(threshold + (0.02 + 0.5 u) * card_width), no width),
  /// rounded to a tenth of a point when the rounded value still commits.
  func drag(_ direction: SwipeDirection, _ stream: inout RandomStream) -> LoggedDrag {
    let config = population.config
    let u = stream.nextDouble()
    let sign = Double(direction.rawValue)
    let raw: Double
    let width: Double?
    switch config.dragRule {
    case .relative(let commit, _):
      raw = sign * (commit + 0.02 + 0.5 * u) * config.cardWidth
      width = config.cardWidth
    case .absolute(let threshold):
      raw = sign * (threshold + (0.02 + 0.5 * u) * config.cardWidth)
      width = nil
    }
    let rounded = (raw * 10).rounded() / 10
    let outcome = try? config.dragRule.decide(dx: rounded, width: width)
    return LoggedDrag(dx: outcome?.swipe == direction ? rounded : raw, width: width)
  }

  /// A drag that springs back: toward `direction` with probability 0.6, else away from it, with
  /// |dx| a uniform share of the commit distance (relative: u * commit * width; absolute:
  /// u * threshold), rounded to a tenth of a point when the rounded value still does not commit.
  func hesitation(toward direction: SwipeDirection, _ stream: inout RandomStream) -> LoggedDrag {
    let config = population.config
    let u = stream.nextDouble()
    let sign: Double =
      stream.nextDouble() < 0.6 ? Double(direction.rawValue) : -Double(direction.rawValue)
    let raw: Double
    let width: Double?
    switch config.dragRule {
    case .relative(let commit, _):
      raw = sign * u * commit * config.cardWidth
      width = config.cardWidth
    case .absolute(let threshold):
      raw = sign * u * threshold
      width = nil
    }
    let rounded = (raw * 10).rounded() / 10
    let outcome = try? config.dragRule.decide(dx: rounded, width: width)
    return LoggedDrag(dx: outcome != nil && outcome?.swipe == nil ? rounded : raw, width: width)
  }
}
