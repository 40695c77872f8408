import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

/// The evaluation steps of `compare` on logs that are not I/O: the decks each strategy ranks for
/// the evaluated diners, the off-policy targets and their effective sample sizes, and the notes
/// and parameters these put in the report. The caller reads the logs, checks limits and writes.
package enum LogEvaluation {
  /// A strategy under comparison: its name (a strategy or a named configuration) and itself.
  package typealias Arm = (name: String, strategy: any RankingStrategy)

  /// The seed the compared strategies rank with, derived from the run's seed and never the seed
  /// itself: a log written by `simulate` with that seed would otherwise be replayed card for card
  /// by the seeded strategy that wrote it, and every estimate would be flattered.
  package static func targetSeed(runSeed: UInt64) -> UInt64 {
    var derived = StableHash()
    derived.combine(runSeed)
    derived.combine("compare-target")
    return derived.finalized
  }

  /// Each strategy's deck for every diner on one date, as catalog indices in position order
  /// (`rankings[arm][diner]`), and how many decks each dish was ranked in (`shown[arm][item]`).
  /// Each strategy learns the history first. The decks are built on up to `jobs` threads
  /// (`DeckPipeline.build(users:jobs:)`: the same decks for every number).
  package static func rankDecks(
    _ arms: [Arm], diners: [UserProfile], catalog: Catalog, history: History,
    builder: DeckBuilder, seed: UInt64, date: DeckDate, jobs: Int = 1
  ) throws -> (rankings: [[[Int32]]], shown: [[Int]]) {
    var rankings: [[[Int32]]] = []
    var shown: [[Int]] = []
    for (_, strategy) in arms {
      try strategy.learn(catalog: catalog, history: history)
      let pipeline = DeckPipeline(
        builder: builder, strategy: strategy, history: history, seed: seed, date: date)
      var lists: [[Int32]] = []
      lists.reserveCapacity(diners.count)
      var counts = [Int](repeating: 0, count: catalog.count)
      try pipeline.build(users: diners, jobs: jobs) { deck in
        let items = deck.cards.map(\.item)
        for i in items { counts[Int(i)] += 1 }
        lists.append(items)
      }
      rankings.append(lists)
      shown.append(counts)
    }
    return (rankings, shown)
  }

  /// Each strategy's deck for every logged session, built as on the session's day (sessions are
  /// grouped by day). `builder` deals as many cards as the positions evaluated; the strategies
  /// have learned already (see `rankDecks`).
  package static func offPolicyTargets(
    _ arms: [Arm], log: OffPolicyLog, profiles: [IDKey: UserProfile], history: History,
    builder: DeckBuilder, seed: UInt64, jobs: Int = 1
  ) throws -> [OffPolicyTarget] {
    var byDay: [DeckDate: [Int]] = [:]
    for (i, session) in log.sessions.enumerated() { byDay[session.day, default: []].append(i) }
    var targets: [OffPolicyTarget] = []
    for (name, strategy) in arms {
      var rankings = [[Int32]](repeating: [], count: log.sessions.count)
      for day in byDay.keys.sorted() {
        let indices = byDay[day]!
        let pipeline = DeckPipeline(
          builder: builder, strategy: strategy, history: history, seed: seed, date: day)
        let diners = indices.map { i in
          let id = log.diners[log.sessions[i].diner]
          return profiles[IDKey(id)] ?? UserProfile(id: id)
        }
        var next = 0
        try pipeline.build(users: diners, jobs: jobs) { deck in
          rankings[indices[next]] = deck.cards.map(\.item)
          next += 1
        }
      }
      targets.append(OffPolicyTarget(name: name, rankings: rankings))
    }
    return targets
  }

  /// The effective sample size of a target's importance weights w = match / μ over the logged
  /// cards: (Σw)² / Σw², 0 when no logged card matches. Few effective cards make IPS, SNIPS and
  /// DR noisy beyond what a bootstrap over diners can show.
  package static func effectiveSampleSize(_ target: OffPolicyTarget, log: OffPolicyLog) -> Double {
    var sum = 0.0
    var squares = 0.0
    for (s, session) in log.sessions.enumerated() {
      let ranking = target.rankings[s]
      for card in session.cards {
        let p = Int(card.position) - 1
        guard p >= 0 && p < ranking.count && ranking[p] == card.item else { continue }
        let w = 1 / card.propensity
        sum += w
        squares += w * w
      }
    }
    return squares > 0 ? sum * sum / squares : 0
  }

  /// The positions the off-policy estimates cover (the largest logged one, capped at
  /// `OffPolicy.maxPositions`) and how many logged cards lie beyond them.
  package static func positions(of log: OffPolicyLog) -> (positions: Int, beyond: Int) {
    let positions = min(log.maxPosition, OffPolicy.maxPositions)
    let beyond = log.sessions.reduce(0) { n, s in
      n + s.cards.filter { Int($0.position) > positions }.count
    }
    return (positions, beyond)
  }

  /// The off-policy part of a logs report.
  package struct OffPolicyPart {
    package var table: UnitTable
    package var notes: [String]
    package var parameters: [ReportParameter]
  }

  /// The off-policy estimates of `targets` over `log` with their notes (positions left out,
  /// effective samples too small to trust, the estimators' assumptions) and parameters.
  package static func offPolicy(
    _ targets: [OffPolicyTarget], log: OffPolicyLog, from date: DeckDate
  ) -> OffPolicyPart {
    let (positions, beyond) = Self.positions(of: log)
    var notes: [String] = []
    if beyond > 0 {
      notes.append(
        "\(plural(beyond, "logged card")) at positions above \(positions) (the last at "
          + "\(log.maxPosition)) \(beyond == 1 ? "is" : "are") left out of the off-policy "
          + "estimates, which cover positions 1 to \(OffPolicy.maxPositions)")
    }
    var effective: [String] = []
    for target in targets {
      let value = effectiveSampleSize(target, log: log)
      let ess = TextLayout.fixed(value, decimals: 1)
      effective.append("\(target.name) \(ess)")
      if value < 100 {
        notes.append(
          "the off-policy estimates of \(target.name) rest on an effective sample of"
            + " \(ess) logged cards ((Σw)²/Σw² of its importance"
            + " weights): too few for IPS, SNIPS or DR to be trusted, whatever their intervals say"
        )
      }
    }
    let table = OffPolicy.evaluate(
      log, targets: targets, options: OffPolicyOptions(positions: positions))
    notes.append(
      "off-policy estimates (replay, ips, snips, dr and per position) resample the"
        + " \(log.diners.count) diners of the \(plural(log.sessions.count, "logged session"))"
        + " from \(date) on; they assume a card's right-swipe chance depends only on the diner,"
        + " the dish and the position and that reaching a position does not depend on the cards"
        + " above it (not exact in pick mode), and that each logged propensity is the logging"
        + " strategy's probability of that dish at that position (deck rules that move cards, such"
        + " as a category cap or the no-adjacent rule, break it)")
    let parameters = [
      ReportParameter(name: "ope_sessions", value: "\(log.sessions.count)"),
      ReportParameter(name: "ope_diners", value: "\(log.diners.count)"),
      ReportParameter(name: "ope_positions", value: "\(positions)"),
      ReportParameter(name: "ope_effective_cards", value: effective.joined(separator: ", ")),
    ]
    return OffPolicyPart(table: table, notes: notes, parameters: parameters)
  }

  /// The `limit` dishes each strategy showed most (ties by catalog order).
  package static func topDishes(
    names: [String], counts: [[Int]], catalog: Catalog, limit: Int = 10
  ) -> [TopDishes] {
    zip(names, counts).map { name, c in
      let order = c.indices.filter { c[$0] > 0 }.sorted { c[$0] != c[$1] ? c[$0] > c[$1] : $0 < $1 }
      return TopDishes(
        arm: name,
        dishes: order.prefix(limit).map { i in
          let item = catalog.items[i]
          return TopDishes.Dish(id: item.id, name: item.name, category: item.category, count: c[i])
        })
    }
  }

  private static func plural(_ n: Int, _ noun: String) -> String { RealData.plural(n, noun) }
}
