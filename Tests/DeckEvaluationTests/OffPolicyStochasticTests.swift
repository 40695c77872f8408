import DeckCore
import DeckIO
import Testing

@testable import DeckEvaluation

/// Stochastic targets (a distribution over dishes per position), the direct method, empty
/// positions as "show nothing", policy files and their coverage of the logged sessions.
@Suite("Off-policy evaluation: stochastic targets and policy files")
struct OffPolicyStochasticTests {
  static let day0 = DeckDate(year: 2026, month: 11, day: 2)!

  static func card(_ item: Int32, _ position: Int32, _ liked: Bool, _ propensity: Double)
    -> LoggedCard
  {
    LoggedCard(item: item, position: position, liked: liked, propensity: propensity)
  }

  /// The hand-computed log of OffPolicyTests: items 0...3, two diners, three sessions.
  /// - s0 u1: 0 right @1 (μ 0.5), 1 left @2 (μ 0.25)
  /// - s1 u1: 2 right @1 (μ 0.2), 0 right @2 (μ 0.4)
  /// - s2 u2: 0 left @1 (μ 0.5), 3 right @2 (μ 0.5), 1 right @3 (μ 0.8)
  static let log = OffPolicyLog(
    diners: ["u1", "u2"],
    sessions: [
      LoggedSession(diner: 0, day: day0, cards: [card(0, 1, true, 0.5), card(1, 2, false, 0.25)]),
      LoggedSession(
        diner: 0, day: day0.adding(days: 1),
        cards: [card(2, 1, true, 0.2), card(0, 2, true, 0.4)]),
      LoggedSession(
        diner: 1, day: day0,
        cards: [card(0, 1, false, 0.5), card(3, 2, true, 0.5), card(1, 3, true, 0.8)]),
    ], itemCount: 4)

  /// Every session: position 1 dish 0 or dish 2 with 0.5 each, position 2 dish 3, position 3
  /// nothing.
  static let mixed = OffPolicyTarget(
    name: "mixed", slots: [SlotDistribution([(0, 0.5), (2, 0.5)]), SlotDistribution([(3, 1)])],
    sessionSlots: [[0, 1], [0, 1], [0, 1]])

  static func value(_ table: UnitTable, arm: Int = 0, _ name: String) -> Double? {
    table.value(arm: arm, metric: table.metrics.firstIndex { $0.name == name }!)
  }

  /// With m = 2 (r̂ as in OffPolicyTests): the slot at 1 has model term
  /// 0.5 · 7/12 + 0.5 · 7/9 = 49/72, the slot at 2 r̂(3, 2) = 7/9, the slot at 3 is empty.
  /// Weights w = π(a, p)/μ: 1, 0, 2.5, 0, 1, 2, 0.
  @Test func handComputedEstimatesOfAStochasticTarget() {
    let table = OffPolicy.evaluate(
      Self.log, targets: [Self.mixed], options: OffPolicyOptions(priorStrength: 2))
    #expect(Self.value(table, "evaluated_cards") == 7)
    #expect(abs(Self.value(table, "ips")! - 11.0 / 14) < 1e-15)
    #expect(abs(Self.value(table, "snips")! - 11.0 / 13) < 1e-15)
    #expect(abs(Self.value(table, "dm")! - 5.0 / 8) < 1e-15)
    // DR terms: 79/72, 7/9, 89/72, 7/9, 7/72, 11/9, 0.
    #expect(abs(Self.value(table, "dr")! - 125.0 / 168) < 1e-15)
    // Replay needs a deterministic target; the matches are the expected number.
    #expect(Self.value(table, "replay") == nil)
    #expect(Self.value(table, "replay_matches") == 2.5)
    // Per position: at 1, w = 1, 2.5, 1 with rewards 1, 1, 0.
    #expect(abs(Self.value(table, "ips_p1")! - 3.5 / 3) < 1e-15)
    #expect(abs(Self.value(table, "snips_p1")! - 3.5 / 4.5) < 1e-15)
    #expect(abs(Self.value(table, "dm_p1")! - 49.0 / 72) < 1e-15)
    #expect(Self.value(table, "ips_p3") == 0 && Self.value(table, "dm_p3") == 0)
    #expect(Self.value(table, "snips_p3") == nil)
  }

  /// With λ = 2 the weight 2.5 of s1@1 is cut to 2 (clipped IPS and DR) or its card falls
  /// back to the direct method (switch-DR); the other weights are at most 2.
  @Test func clippedAndSwitchEstimatesByHand() {
    let table = OffPolicy.evaluate(
      Self.log, targets: [Self.mixed], options: OffPolicyOptions(priorStrength: 2, clip: 2))
    #expect(abs(Self.value(table, "ips_clip")! - 5.0 / 7) < 1e-15)
    // DR terms with s1@1's 89/72 replaced by 49/72 + 2 · 2/9 = 81/72 (clipped) or 49/72.
    #expect(abs(Self.value(table, "dr_clip")! - 367.0 / 504) < 1e-15)
    #expect(abs(Self.value(table, "switch_dr")! - 335.0 / 504) < 1e-15)
    // A λ above every weight changes nothing.
    let wide = OffPolicy.evaluate(
      Self.log, targets: [Self.mixed], options: OffPolicyOptions(priorStrength: 2, clip: 100))
    #expect(Self.value(wide, "ips_clip") == Self.value(wide, "ips"))
    #expect(Self.value(wide, "dr_clip") == Self.value(wide, "dr"))
    #expect(Self.value(wide, "switch_dr") == Self.value(wide, "dr"))
  }

  /// Cross-fitting over two folds that split the two diners: each diner's cards are scored by
  /// the model fitted on the other diner's log alone.
  @Test func crossFittingScoresADinerWithTheOtherFoldsModel() throws {
    // Names whose folds differ (the fold is a stable hash of the id).
    let names = (0..<50).map { "d\($0)" }
    let first = names[0]
    let second = try #require(
      names.first { OffPolicy.fold(of: $0, folds: 2) != OffPolicy.fold(of: first, folds: 2) })
    let diners = [first, second].sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    let log = OffPolicyLog(diners: diners, sessions: Self.log.sessions, itemCount: 4)
    let options = OffPolicyOptions(priorStrength: 2, crossFitFolds: 2)
    let table = OffPolicy.evaluate(log, targets: [Self.mixed], options: options)
    let dmCF = table.metrics.firstIndex { $0.name == "dm_cf" }!
    let drCF = table.metrics.firstIndex { $0.name == "dr_cf" }!
    var totalDirect = 0.0
    for u in 0..<2 {
      // The other diner's sessions alone, and the direct and DR terms of u's cards under it.
      let others = OffPolicyLog(
        diners: diners, sessions: log.sessions.filter { $0.diner != u }, itemCount: 4)
      let model = OffPolicyRewardModel(log: others, positions: 3, priorStrength: 2)
      var direct = 0.0
      var dr = 0.0
      for (s, session) in log.sessions.enumerated() where session.diner == u {
        for card in session.cards {
          let slot = Self.mixed.slot(session: s, position: Int(card.position))
          let term = slot.expectation { model.predict(item: $0, position: Int(card.position)) }
          let w = slot.probability(of: card.item) / card.propensity
          direct += term
          dr +=
            term + w * (card.reward - model.predict(item: card.item, position: Int(card.position)))
        }
      }
      totalDirect += direct
      #expect(abs(table.arms[0].numerator(unit: u, metric: drCF) - dr) < 1e-12, "dr_cf of \(u)")
      // dm_cf adds each card's share in the other fold's model error; the shares sum to 0.
      let shares = table.arms[0].numerator(unit: u, metric: dmCF) - direct
      #expect(abs(shares) < 1, "dm_cf of \(u): shares \(shares)")
    }
    let total = (0..<2).reduce(0.0) { $0 + table.arms[0].numerator(unit: $1, metric: dmCF) }
    #expect(abs(total - totalDirect) < 1e-12)
  }

  /// The direct method's error shares move the per-diner sums, never the estimate.
  @Test func errorSharesSumToZero() {
    let with = OffPolicy.evaluate(
      Self.log, targets: [Self.mixed], options: OffPolicyOptions(priorStrength: 2))
    let dm = with.metrics.firstIndex { $0.name == "dm" }!
    let direct = [49.0 / 72 + 7.0 / 9 + 49.0 / 72 + 7.0 / 9, 49.0 / 72 + 7.0 / 9]
    var shares = 0.0
    for u in 0..<2 { shares += with.arms[0].numerator(unit: u, metric: dm) - direct[u] }
    #expect(abs(shares) < 1e-12)
    #expect(with.arms[0].numerator(unit: 0, metric: dm) != direct[0])
  }

  /// The fast path for rankings and the general path for distributions give the same sums for
  /// a deterministic target written both ways (replay aside, which only the first defines).
  @Test func aRankingAsADistributionGivesTheSameEstimates() {
    let rankings: [[Int32]] = [[0, 2, 1], [2, 1, 3], [0, 3]]
    var slots: [SlotDistribution] = []
    let sessionSlots = rankings.map { ranking in
      ranking.map { item -> Int32 in
        slots.append(SlotDistribution([(item, 1)]))
        return Int32(slots.count - 1)
      }
    }
    let table = OffPolicy.evaluate(
      Self.log,
      targets: [
        OffPolicyTarget(name: "ranked", rankings: rankings),
        OffPolicyTarget(name: "spread", slots: slots, sessionSlots: sessionSlots),
      ], options: OffPolicyOptions(priorStrength: 2))
    for (m, metric) in table.metrics.enumerated() where !metric.name.hasPrefix("replay_p") {
      guard metric.name != "replay" else { continue }
      for u in table.units.indices {
        #expect(
          table.arms[0].numerator(unit: u, metric: m)
            == table.arms[1].numerator(unit: u, metric: m), "\(metric.name)")
        #expect(
          table.arms[0].denominator(unit: u, metric: m)
            == table.arms[1].denominator(unit: u, metric: m), "\(metric.name)")
      }
    }
  }

  /// A shorter deck shows nothing below it: every target is estimated over the same cards, and
  /// a target that keeps only its best card does not look better for showing less.
  @Test func everyTargetIsEstimatedOverTheSameCards() {
    let full = OffPolicyTarget(name: "full", rankings: [[0, 1], [2, 0], [0, 3, 1]])
    let short = OffPolicyTarget(name: "short", rankings: [[0], [2], [0]])
    let table = OffPolicy.evaluate(
      Self.log, targets: [full, short], options: OffPolicyOptions(priorStrength: 2))
    #expect(Self.value(table, "evaluated_cards") == 7)
    #expect(Self.value(table, arm: 1, "evaluated_cards") == 7)
    // full matches every card (w r: 2, 0, 5, 2.5, 0, 2, 1.25); short only the first ones.
    #expect(abs(Self.value(table, "ips")! - 12.75 / 7) < 1e-15)
    #expect(abs(Self.value(table, arm: 1, "ips")! - 7.0 / 7) < 1e-15)
    #expect(Self.value(table, arm: 1, "ips")! < Self.value(table, "ips")!)
  }

  // MARK: - Policy files

  static let catalog = try! Catalog(items: [
    MenuItem(id: "d0", name: "D0", category: "x"), MenuItem(id: "d1", name: "D1", category: "x"),
    MenuItem(id: "d2", name: "D2", category: "y"), MenuItem(id: "d3", name: "D3", category: "y"),
  ])

  static func parse(_ text: String) throws(DeckIOError) -> PolicyFile {
    try PolicyFile.parse(Array(text.utf8), file: "p.csv", catalog: catalog)
  }

  static func failure(_ text: String) -> String {
    do {
      _ = try parse(text)
      return "no error"
    } catch { return error.description }
  }

  @Test func theMostSpecificGroupCoversASession() throws {
    let file = try Self.parse(
      """
      diner,day,item,position,probability
      ,,d0,1,0.5
      ,,d2,1,0.5
      ,,d3,2,1
      u2,,d1,1,1
      u1,2026-11-03,d3,1,0.25

      """)
    #expect(file.rows == 5)
    let target = try LogEvaluation.policyTarget(
      name: "p", file: file, log: Self.log, positions: 3)
    // s0: u1 on 11-02: every diner; s1: u1 on 11-03: its own group; s2: u2's group.
    #expect(target.slot(session: 0, position: 1) == SlotDistribution([(0, 0.5), (2, 0.5)]))
    #expect(target.slot(session: 0, position: 2) == SlotDistribution([(3, 1)]))
    #expect(target.slot(session: 1, position: 1) == SlotDistribution([(3, 0.25)]))
    #expect(target.slot(session: 1, position: 2) == SlotDistribution(showing: nil))
    #expect(target.slot(session: 2, position: 1) == SlotDistribution([(1, 1)]))
    #expect(target.slot(session: 2, position: 3) == SlotDistribution(showing: nil))
    // Sessions of one group share its slots.
    guard case .distributions(let slots, let rows) = target.policy else {
      Issue.record("a policy file is a stochastic target")
      return
    }
    #expect(slots.count == 4)
    #expect(rows[0].count == 3)
  }

  @Test func thePolicyFileOfTheHandTargetGivesItsEstimates() throws {
    let file = try Self.parse("item,position,probability\nd0,1,0.5\nd2,1,0.5\nd3,2,1\n")
    let target = try LogEvaluation.policyTarget(
      name: "mixed", file: file, log: Self.log, positions: 3)
    let options = OffPolicyOptions(priorStrength: 2)
    #expect(
      OffPolicy.evaluate(Self.log, targets: [target], options: options)
        == OffPolicy.evaluate(Self.log, targets: [Self.mixed], options: options))
  }

  @Test func aSessionNoGroupCoversIsAnError() throws {
    let file = try Self.parse("diner,item,position,probability\nu1,d0,1,1\n")
    #expect(throws: DeckIOError.self) {
      try LogEvaluation.policyTarget(name: "p", file: file, log: Self.log, positions: 3)
    }
    do {
      _ = try LogEvaluation.policyTarget(name: "p", file: file, log: Self.log, positions: 3)
    } catch {
      #expect(
        error.description.hasPrefix(
          "p.csv: no probabilities for diner u2 on 2026-11-02 (no row for that diner or day"))
    }
  }

  @Test func badRowsAreRefusedWithTheirLocation() {
    let header = "diner,day,item,position,probability\n"
    #expect(
      Self.failure(header + ",,d9,1,0.5\n")
        == "p.csv:2:3: item: 'd9' is not a dish of the catalog (did you mean 'd0'?); a policy can"
        + " only show catalog dishes")
    #expect(
      Self.failure(header + ",,d0,0,0.5\n")
        == "p.csv:2:6: position: '0' is not a position; expected a whole number from 1 to 10000")
    #expect(
      Self.failure(header + ",,d0,1,1.5\n")
        == "p.csv:2:8: probability: '1.5' is not a probability; expected a number from 0 to 1")
    #expect(
      Self.failure(header + ",,d0,1,nan\n")
        == "p.csv:2:8: probability: 'nan' is not a probability; expected a number from 0 to 1")
    #expect(
      Self.failure(header + ",2026-13-01,d0,1,0.5\n")
        == "p.csv:2:2: day: '2026-13-01' is not a date; expected YYYY-MM-DD or empty (every day)")
    #expect(
      Self.failure(header + ",,d0,1,0.5\n,,d0,1,0.25\n")
        == "p.csv:3:3: item: 'd0' at position 1 is given twice for every diner on every day; give"
        + " each dish once per position")
    #expect(
      Self.failure(header + "u1,,d0,1,0.75\nu1,,d1,1,0.5\n")
        == "p.csv:3:10: probability: the probabilities at position 1 for diner u1 on every day sum"
        + " to 1.25, above 1; a position holds one dish at a time, so they sum to at most 1")
    #expect(
      Self.failure(header)
        == "p.csv: no probabilities (only a header); the policy needs at least one row")
    #expect(
      Self.failure("diner,item,probability\n,d0,1\n").hasPrefix(
        "p.csv:1: missing column 'position'"))
    // Rounding in a file may take a sum a little above 1.
    #expect(Self.failure(header + ",,d0,1,0.7\n,,d1,1,0.3000000000001\n") == "no error")
  }
}
