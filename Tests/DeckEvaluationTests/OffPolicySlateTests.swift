import DeckCore
import DeckIO
import Testing

@testable import DeckEvaluation

/// The slate estimators (`iips`, `rips`, `sips`, `cascade_dr`): exact expectations over every
/// log of a small world against the target's true value, and hand-computed terms.
@Suite("Off-policy evaluation: slate estimators")
struct OffPolicySlateTests {
  static let day0 = DeckDate(year: 2026, month: 11, day: 2)!
  static let slate = OffPolicyOptions(priorStrength: 2, slates: true)

  /// Plackett-Luce with weights `w`: P(the ranking starts with `order`), per prefix.
  static func prefixes(_ w: [Double], _ order: [Int32]) -> [Double] {
    var left = w.reduce(0, +)
    var p = 1.0
    return order.map { a in
      p *= w[Int(a)] / left
      left -= w[Int(a)]
      return p
    }
  }

  /// Plackett-Luce: P(item a at position 1 or 2) over items 0..<w.count.
  static func marginal(_ w: [Double], _ a: Int32, _ position: Int) -> Double {
    let total = w.reduce(0, +)
    if position == 1 { return w[Int(a)] / total }
    return w.indices.filter { $0 != Int(a) }.reduce(0) { sum, b in
      sum + w[b] / total * w[Int(a)] / (total - w[b])
    }
  }

  /// Plackett-Luce: the distribution of the next item after `placed`.
  static func next(_ w: [Double], after placed: [Int32]) -> SlotDistribution {
    let left = w.indices.filter { !placed.contains(Int32($0)) }
    let total = left.reduce(0) { $0 + w[$1] }
    return SlotDistribution(left.map { (Int32($0), w[$0] / total) })
  }

  /// The ordered pairs of distinct items of 0..<3: every deck of two cards.
  static let decks: [[Int32]] = (0..<3).flatMap { a in
    (0..<3).filter { $0 != a }.map { [Int32(a), Int32($0)] }
  }

  /// A Plackett-Luce target with weights `w` over one session that logged `logged`.
  static func plTarget(_ w: [Double], logged: [Int32]) -> OffPolicyTarget {
    let prefix = prefixes(w, logged)
    let conditionals = logged.indices.map { k in next(w, after: Array(logged.prefix(k))) }
    let slots = (1...2).map { p in
      SlotDistribution((0..<3).map { (Int32($0), marginal(w, Int32($0), p)) })
    }
    return OffPolicyTarget(
      name: "pl", slots: slots, sessionSlots: [[0, 1]],
      paths: [SlatePath(prefix: Array(prefix.prefix(logged.count)), conditionals: conditionals)])
  }

  /// A like chance per (item, position) that falls with the position.
  static func like(_ a: Int32, _ position: Int) -> Double {
    [0.6, 0.3, 0.15][Int(a)] * (position == 1 ? 1 : 0.7)
  }

  /// Likes the deck `deck` gets in expectation (in pick mode the session ends at a like).
  static func expectedLikes(_ deck: [Int32], pick: Bool) -> Double {
    let q1 = like(deck[0], 1)
    return q1 + (pick ? 1 - q1 : 1) * like(deck[1], 2)
  }

  /// E over every log of one session under a Plackett-Luce logging policy (weights 1, 2, 3)
  /// of each estimator, for a Plackett-Luce target and a deterministic one, against the
  /// target's expected likes per deck. rips and sips are unbiased whether or not a like ends
  /// the session (the prefix weight is the likelihood ratio of what was seen); iips only when
  /// every card is swiped and likes do not depend on the cards above.
  @Test(arguments: [false, true])
  func slateIPSIsUnbiasedOverEveryLog(pick: Bool) {
    let logging = [1.0, 2, 3]
    let targetWeights = [3.0, 1, 0.5]
    let ranking: [Int32] = [2, 0]
    var expected = [String: (pl: Double, ranked: Double)]()
    for deck in Self.decks {
      let mu = Self.prefixes(logging, deck)
      let q1 = Self.like(deck[0], 1)
      // The outcomes: (rewards logged, their probability).
      let first: [([Bool], Double)] = [([true], q1), ([false], 1 - q1)]
      let outcomes = first.flatMap { rewards, p -> [([Bool], Double)] in
        if pick && rewards[0] { return [(rewards, p)] }
        let q2 = Self.like(deck[1], 2)
        return [(rewards + [true], p * q2), (rewards + [false], p * (1 - q2))]
      }
      for (rewards, p) in outcomes {
        let cards = rewards.indices.map { k in
          LoggedCard(
            item: deck[k], position: Int32(k + 1), liked: rewards[k],
            propensity: Self.marginal(logging, deck[k], k + 1), prefixPropensity: mu[k])
        }
        let log = OffPolicyLog(
          diners: ["u1"], sessions: [LoggedSession(diner: 0, day: Self.day0, cards: cards)],
          itemCount: 3)
        let logged = Array(deck.prefix(cards.count))
        let table = OffPolicy.evaluate(
          log,
          targets: [
            Self.plTarget(targetWeights, logged: logged),
            OffPolicyTarget(name: "ranked", rankings: [ranking]),
          ], options: Self.slate)
        for name in ["iips", "rips", "sips", "cascade_dr"] {
          let metric = table.metrics.firstIndex { $0.name == name }!
          let old = expected[name] ?? (0, 0)
          expected[name] = (
            old.pl + mu[1] * p * table.value(arm: 0, metric: metric)!,
            old.ranked + mu[1] * p * table.value(arm: 1, metric: metric)!
          )
        }
      }
    }
    let truth = Self.decks.reduce(0) { sum, deck in
      sum + Self.prefixes(targetWeights, deck)[1] * Self.expectedLikes(deck, pick: pick)
    }
    let rankedTruth = Self.expectedLikes(ranking, pick: pick)
    for name in ["rips", "sips"] {
      #expect(abs(expected[name]!.pl - truth) < 1e-12, "\(name) \(expected[name]!.pl) \(truth)")
      #expect(abs(expected[name]!.ranked - rankedTruth) < 1e-12, "\(name)")
    }
    if pick {
      // A like ends the session, so reaching position 2 depends on the card above it.
      #expect(abs(expected["iips"]!.pl - truth) > 1e-3)
    } else {
      #expect(abs(expected["iips"]!.pl - truth) < 1e-12)
      #expect(abs(expected["iips"]!.ranked - rankedTruth) < 1e-12)
    }
  }

  /// Two sessions by hand with m = 2. Items 0...2.
  /// - s0 u1: 0 right @1 (μ 0.5, prefix 0.5), 1 left @2 (μ 0.4, prefix 0.2)
  /// - s1 u2: 2 left @1 (μ 0.25, prefix 0.25), 0 right @2 (μ 0.5, prefix 0.1)
  /// r̂: ρ_1 = 1/2, ρ_2 = 1/2; r̂(0,1) = (1 + 1)/3 = 2/3, r̂(2,1) = (0 + 1)/3 = 1/3,
  /// r̂(1,2) = 1/3, r̂(0,2) = 2/3; pairs never shown get 1/2.
  /// The deterministic target ranks [0, 1] for u1 and [0, 2] for u2: s0 matches whole
  /// (prefix weights 2, 5), s1 does not at 1 (0, 0); its own weights w: s0 2, 2.5; s1 0, 0.
  @Test func handComputedTermsOfADeterministicTarget() {
    func card(_ a: Int32, _ p: Int32, _ liked: Bool, _ mu: Double, _ prefix: Double)
      -> LoggedCard
    {
      LoggedCard(item: a, position: p, liked: liked, propensity: mu, prefixPropensity: prefix)
    }
    let log = OffPolicyLog(
      diners: ["u1", "u2"],
      sessions: [
        LoggedSession(
          diner: 0, day: Self.day0,
          cards: [card(0, 1, true, 0.5, 0.5), card(1, 2, false, 0.4, 0.2)]
        ),
        LoggedSession(
          diner: 1, day: Self.day0,
          cards: [card(2, 1, false, 0.25, 0.25), card(0, 2, true, 0.5, 0.1)]),
      ], itemCount: 3)
    let table = OffPolicy.evaluate(
      log, targets: [OffPolicyTarget(name: "t", rankings: [[0, 1], [0, 2]])], options: Self.slate)
    func value(_ name: String) -> Double {
      table.value(arm: 0, metric: table.metrics.firstIndex { $0.name == name }!)!
    }
    // iips: s0 2 · 1 + 2.5 · 0 = 2, s1 0: mean 1. rips: s0 2 · 1 + 5 · 0 = 2: mean 1.
    #expect(value("iips") == 1)
    #expect(value("rips") == 1)
    // sips: s0 5 · (1 + 0) = 5, s1 0: mean 2.5.
    #expect(value("sips") == 2.5)
    #expect(value("sips_p1") == 2.5 && value("sips_p2") == 0)
    // cascade_dr, s0: k=1 2 (1 − 2/3) + 1 · r̂(0,1) = 2/3 + 2/3 = 4/3; k=2 5 (0 − 1/3) + 2 ·
    // r̂(1,2) = −5/3 + 2/3 = −1; s1: k=1 0 + 1 · r̂(0,1) = 2/3 (the target's card 0 at 1),
    // k=2 0 + 0 (no prefix weight left): total (4/3 − 1 + 2/3) / 2 = 1/2.
    #expect(abs(value("cascade_dr") - 0.5) < 1e-15)
    #expect(abs(value("cascade_dr_p1") - 1) < 1e-15)
    #expect(abs(value("cascade_dr_p2") - -0.5) < 1e-15)
    // The per-position terms sum to the estimate.
    #expect(abs(value("rips_p1") + value("rips_p2") - value("rips")) < 1e-15)
  }

  /// A stochastic target without prefix probabilities (a policy file) gets iips only.
  @Test func aTargetWithoutPrefixesGetsOnlyIndependentIPS() {
    let cards = [
      LoggedCard(item: 0, position: 1, liked: true, propensity: 0.5, prefixPropensity: 0.5)
    ]
    let log = OffPolicyLog(
      diners: ["u1"], sessions: [LoggedSession(diner: 0, day: Self.day0, cards: cards)],
      itemCount: 2)
    let target = OffPolicyTarget(
      name: "file", slots: [SlotDistribution([(0, 0.25), (1, 0.75)])], sessionSlots: [[0]])
    let table = OffPolicy.evaluate(log, targets: [target], options: Self.slate)
    func value(_ name: String) -> Double? {
      table.value(arm: 0, metric: table.metrics.firstIndex { $0.name == name }!)
    }
    #expect(value("iips") == 0.5)
    #expect(value("rips") == nil && value("sips") == nil && value("cascade_dr") == nil)
    // Without the option there are no slate metrics at all.
    let plain = OffPolicy.evaluate(log, targets: [target], options: OffPolicyOptions())
    #expect(!plain.metrics.contains { $0.name.hasPrefix("sips") || $0.name.hasPrefix("iips") })
  }
}

// MARK: - Coverage of the slate estimators

/// A Plackett-Luce logging policy (weights 5, 3, 2, 1, 0.5) dealing three cards to diners in
/// pick mode: the chance of a right swipe at p is f_u · base[a] · decay[p] (appetite f_u 0.6 or
/// 1.4), and the first right swipe ends the session, so whether a diner reaches p depends on
/// the cards above it: the case the slate estimators are for.
private struct CascadeWorld {
  let weights: [Double] = [5, 3, 2, 1, 0.5]
  let base: [Double] = [0.3, 0.5, 0.2, 0.6, 0.4]
  let decay: [Double] = [1, 0.8, 0.6]
  let positions = 3
  /// The deterministic target by diner parity, and the stochastic one's weights.
  let rankings: [[Int32]] = [[0, 1, 4], [1, 0, 2]]
  let targetWeights: [Double] = [0.5, 4, 1, 3, 2]

  func q(_ a: Int32, _ p: Int, _ appetite: Double) -> Double {
    appetite * base[Int(a)] * decay[p - 1]
  }

  /// Expected likes of a deck in pick mode for an appetite.
  func likes(_ deck: [Int32], _ appetite: Double) -> Double {
    var reach = 1.0
    var sum = 0.0
    for (k, a) in deck.enumerated() {
      let p = q(a, k + 1, appetite)
      sum += reach * p
      reach *= 1 - p
    }
    return sum
  }

  /// Every ordered deck of three distinct items.
  var decks: [[Int32]] {
    var out: [[Int32]] = []
    for a in 0..<5 {
      for b in 0..<5 where b != a {
        for c in 0..<5 where c != a && c != b { out.append([Int32(a), Int32(b), Int32(c)]) }
      }
    }
    return out
  }

  /// Population values (appetite averages over 0.6 and 1.4): the deterministic target's (half
  /// the diners of each parity) and the Plackett-Luce target's.
  var truths: (ranked: Double, pl: Double) {
    let appetites = [0.6, 1.4]
    let ranked =
      rankings.reduce(0) { s, r in s + appetites.reduce(0) { $0 + likes(r, $1) } } / 4
    let pl = decks.reduce(0) { s, deck in
      s + OffPolicySlateTests.prefixes(targetWeights, deck)[2]
        * appetites.reduce(0) { $0 + likes(deck, $1) } / 2
    }
    return (ranked, pl)
  }

  /// μ[p][a], exact.
  var marginals: [[Double]] {
    var mu = [[Double]](repeating: [Double](repeating: 0, count: 5), count: positions)
    for deck in decks {
      let p = OffPolicySlateTests.prefixes(weights, deck)[2]
      for (k, a) in deck.enumerated() { mu[k][Int(a)] += p }
    }
    return mu
  }

  /// The Plackett-Luce target's exact marginals (as slots) over the first three positions.
  var targetSlots: [SlotDistribution] {
    var pi = [[Double]](repeating: [Double](repeating: 0, count: 5), count: positions)
    for deck in decks {
      let p = OffPolicySlateTests.prefixes(targetWeights, deck)[2]
      for (k, a) in deck.enumerated() { pi[k][Int(a)] += p }
    }
    return pi.map { row in SlotDistribution(row.indices.map { (Int32($0), row[$0]) }) }
  }

  func simulate(diners: Int, sessions: Int, seed: UInt64) -> (
    log: OffPolicyLog, targets: [OffPolicyTarget]
  ) {
    let mu = marginals
    var random = RandomStream(seed: seed)
    var logged: [LoggedSession] = []
    var paths: [SlatePath] = []
    for d in 0..<diners {
      let appetite = random.nextInt(below: 2) == 0 ? 0.6 : 1.4
      for s in 0..<sessions {
        var left = Array(weights.indices)
        var deck: [Int32] = []
        for _ in 0..<positions {
          var x = random.nextDouble() * left.reduce(0) { $0 + weights[$1] }
          var k = 0
          while k < left.count - 1 && x >= weights[left[k]] {
            x -= weights[left[k]]
            k += 1
          }
          deck.append(Int32(left.remove(at: k)))
        }
        let prefix = OffPolicySlateTests.prefixes(weights, deck)
        var cards: [LoggedCard] = []
        for (k, a) in deck.enumerated() {
          let liked = random.nextDouble() < q(a, k + 1, appetite)
          cards.append(
            LoggedCard(
              item: a, position: Int32(k + 1), liked: liked, propensity: mu[k][Int(a)],
              prefixPropensity: prefix[k]))
          if liked { break }
        }
        let seen = cards.map(\.item)
        paths.append(
          SlatePath(
            prefix: Array(OffPolicySlateTests.prefixes(targetWeights, seen)),
            conditionals: seen.indices.map {
              OffPolicySlateTests.next(targetWeights, after: Array(seen.prefix($0)))
            }))
        logged.append(
          LoggedSession(diner: d, day: OffPolicySlateTests.day0.adding(days: s), cards: cards))
      }
    }
    let log = OffPolicyLog(
      diners: (0..<diners).map { "d" + String(1_000_000 + $0) }, sessions: logged, itemCount: 5)
    let ranked = OffPolicyTarget(
      name: "ranked", rankings: logged.map { rankings[$0.diner % 2] })
    let pl = OffPolicyTarget(
      name: "pl", slots: targetSlots, sessionSlots: logged.map { _ in [0, 1, 2] }, paths: paths)
    return (log, [ranked, pl])
  }
}

@Suite("Off-policy evaluation: slate estimators' intervals")
struct OffPolicySlateIntervalTests {
  /// Over 100 seeded pick-mode logs of 400 diners x 3 sessions, the 95% diner-level bootstrap
  /// intervals of rips, sips and cascade_dr cover the population value (expected likes per
  /// deck) of a deterministic and of a Plackett-Luce target at about the nominal rate; iips,
  /// which assumes that reaching a card does not depend on the cards above it, is biased
  /// here. The counts are printed; docs/metrics.md quotes them.
  @Test func slateIntervalsCoverTheTrueValueInPickMode() {
    let world = CascadeWorld()
    let names = ["iips", "rips", "sips", "cascade_dr"]
    let truths = world.truths
    let logs = 100
    var covered = [String: Int]()
    var means = [String: Double]()
    var values = [String: [Double]]()
    var widths = [String: [Double]]()
    for seed in 0..<logs {
      let (log, targets) = world.simulate(diners: 400, sessions: 3, seed: 7_000 + UInt64(seed))
      let full = OffPolicy.evaluate(
        log, targets: targets, options: OffPolicyOptions(slates: true))
      let picked = names.map { name in full.metrics.firstIndex { $0.name == name }! }
      let arms = full.arms.map { a in
        var out = ArmUnits(arm: a.arm, units: full.units.count, metrics: picked.count)
        for u in 0..<full.units.count {
          for (k, m) in picked.enumerated() {
            out.add(
              unit: u, metric: k, numerator: a.numerator(unit: u, metric: m),
              denominator: a.denominator(unit: u, metric: m))
          }
        }
        return out
      }
      let table = UnitTable(metrics: picked.map { full.metrics[$0] }, units: full.units, arms: arms)
      let (estimates, _) = Resampling.analyze(
        table, baseline: nil, options: ResamplingOptions(resamples: 200, seed: UInt64(seed)))
      for (m, name) in names.enumerated() {
        for (a, truth) in [(0, truths.ranked), (1, truths.pl)] {
          let e = estimates[a].estimates[m]
          let key = "\(a == 0 ? "ranked" : "pl") \(name)"
          if e.lower! <= truth && truth <= e.upper! { covered[key, default: 0] += 1 }
          means[key, default: 0] += e.value! / Double(logs)
          values[key, default: []].append(e.value!)
          widths[key, default: []].append((e.upper! - e.lower!) / 2 / 1.96)
        }
      }
    }
    print(
      "slate coverage over \(logs) logs (ranked/pl):",
      names.map {
        "\($0) \(covered["ranked \($0)", default: 0])/\(covered["pl \($0)", default: 0])"
      }
      .joined(separator: ", "),
      "truth \(truths.ranked)/\(truths.pl)")

    for name in ["rips", "sips", "cascade_dr"] {
      for label in ["ranked", "pl"] {
        let key = "\(label) \(name)"
        #expect(covered[key, default: 0] >= 88, "\(key) covered \(covered[key, default: 0])")
        // The intervals' widths match the spread of the estimates across logs.
        let x = values[key]!
        let mean = x.reduce(0, +) / Double(logs)
        let sd = (x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(logs - 1)).squareRoot()
        let se = widths[key]!.reduce(0, +) / Double(logs)
        #expect(se > 0.75 * sd && se < 1.33 * sd, "\(key): bootstrap se \(se), spread \(sd)")
      }
    }
    // In pick mode only a deck's last logged card can be liked, so rips and sips agree.
    #expect(means["pl rips"] == means["pl sips"])
    // iips over-counts the cards below a like (it weighs them as if every diner reached them).
    #expect(abs(means["pl iips"]! - truths.pl) > 0.02, "iips \(means["pl iips"]!) \(truths.pl)")
  }
}

// MARK: - Deck-distribution policy files

@Suite("Off-policy evaluation: deck-distribution policy files")
struct DeckDistributionPolicyTests {
  static let catalog = try! Catalog(items: [
    MenuItem(id: "d0", name: "D0", category: "x"), MenuItem(id: "d1", name: "D1", category: "x"),
    MenuItem(id: "d2", name: "D2", category: "y"),
  ])

  static func parse(_ text: String) throws(DeckIOError) -> PolicyFile {
    try PolicyFile.parse(Array(text.utf8), file: "p.jsonl", catalog: catalog)
  }

  static func failure(_ text: String) -> String {
    do {
      _ = try parse(text)
      return "no error"
    } catch { return error.description }
  }

  /// A Plackett-Luce policy over three dishes written as its six decks gives its marginals,
  /// and along any logged prefix the exact prefix probabilities and conditionals.
  @Test func aPlackettLuceDeckFileGivesItsExactProbabilities() throws {
    let weights = [3.0, 1, 0.5]
    let lines = OffPolicySlateTests.decks.map { deck in
      let p = OffPolicySlateTests.prefixes(weights, deck)[1]
      return "{\"deck\":[\"d\(deck[0])\",\"d\(deck[1])\"],\"probability\":\(p)}"
    }
    let file = try Self.parse(lines.joined(separator: "\n") + "\n")
    #expect(file.rows == 6 && file.isDeckDistribution)
    let logged: [Int32] = [1, 0]
    let log = OffPolicyLog(
      diners: ["u1"],
      sessions: [
        LoggedSession(
          diner: 0, day: OffPolicySlateTests.day0,
          cards: logged.indices.map {
            LoggedCard(
              item: logged[$0], position: Int32($0 + 1), liked: $0 == 1, propensity: 0.5,
              prefixPropensity: 0.25)
          })
      ], itemCount: 3)
    let target = try LogEvaluation.policyTarget(name: "pl", file: file, log: log, positions: 2)
    let exact = OffPolicySlateTests.plTarget(weights, logged: logged)
    for p in 1...2 {
      let a = target.slot(session: 0, position: p)
      let b = exact.slot(session: 0, position: p)
      #expect(a.items == b.items)
      for (x, y) in zip(a.probabilities, b.probabilities) { #expect(abs(x - y) < 1e-15) }
      let path = target.path(session: 0, position: p, logged: logged)
      let want = exact.path(session: 0, position: p, logged: logged)
      #expect(abs(path.prefix - want.prefix) < 1e-15)
      #expect(path.conditional.items == want.conditional.items)
      for (x, y) in zip(path.conditional.probabilities, want.conditional.probabilities) {
        #expect(abs(x - y) < 1e-15)
      }
    }
    let options = OffPolicyOptions(priorStrength: 2, slates: true)
    let fromFile = OffPolicy.evaluate(log, targets: [target], options: options)
    let byHand = OffPolicy.evaluate(log, targets: [exact], options: options)
    for name in ["iips", "rips", "sips", "cascade_dr"] {
      let m = fromFile.metrics.firstIndex { $0.name == name }!
      #expect(abs(fromFile.value(arm: 0, metric: m)! - byHand.value(arm: 0, metric: m)!) < 1e-14)
    }
  }

  /// Groups as in the CSV form; a deck's probability missing from a group is showing no deck.
  @Test func groupsAndTheRestOfTheMass() throws {
    let file = try Self.parse(
      """
      {"diner":"u1","day":"2026-11-02","deck":["d2","d0"],"probability":0.5}
      {"diner":null,"deck":["d0"],"probability":0.25}

      {"deck":["d0","d1","d2"],"probability":0.25}
      """)
    #expect(file.keys.count == 2 && file.rows == 3)
    let every = file.group(diner: "u9", day: OffPolicySlateTests.day0)!
    #expect(
      every.map { "\($0.item)@\($0.position)=\($0.probability)" }
        == ["0@1=0.5", "1@2=0.25", "2@3=0.25"])
    #expect(file.group(diner: "u1", day: OffPolicySlateTests.day0)!.count == 2)
  }

  @Test func crlfLineEndsReadAsLineEnds() throws {
    let lines = [
      "{\"deck\":[\"d0\",\"d1\"],\"probability\":0.5}", "{\"deck\":[\"d2\"],\"probability\":0.5}",
    ]
    #expect(
      try Self.parse(lines.joined(separator: "\r\n") + "\r\n")
        == Self.parse(lines.joined(separator: "\n") + "\n"))
  }

  @Test func badLinesAreRefusedWithTheirLocation() {
    #expect(
      Self.failure(
        "{\"deck\":[\"d0\"],\"probability\":0.5}\n{\"deck\":[\"d9\"],\"probability\":0.5}")
        == "p.jsonl:2:10: deck: 'd9' is not a dish of the catalog (did you mean 'd0'?); a policy"
        + " can only show catalog dishes")
    #expect(
      Self.failure("{\"deck\":[\"d0\",\"d0\"],\"probability\":0.5}").hasSuffix(
        "'d0' is twice in the deck; a deck shows a dish once"))
    #expect(
      Self.failure(
        "{\"deck\":[\"d0\"],\"probability\":0.5}\n{\"deck\":[\"d0\"],\"probability\":0.1}"
      )
      .hasPrefix("p.jsonl:2:9: deck: this deck is given twice for every diner on every day"))
    #expect(
      Self.failure(
        "{\"deck\":[\"d0\"],\"probability\":0.75}\n{\"deck\":[\"d1\"],\"probability\":0.5}"
      )
      .hasPrefix(
        "p.jsonl:2:30: probability: the decks' probabilities for every diner on every day sum to 1.25"
      ))
    #expect(
      Self.failure("{\"deck\":[\"d0\"],\"probability\":1.5}").hasPrefix(
        "p.jsonl:1:30: probability: '1.5' is not a probability"))
    #expect(
      Self.failure("{\"deck\":[\"d0\"],\"day\":\"2026-13-01\",\"probability\":1}").hasPrefix(
        "p.jsonl:1:22: day: '2026-13-01' is not a date"))
    #expect(
      Self.failure("{\"deck\":[\"d0\"],\"probabilty\":1}").hasPrefix(
        "p.jsonl:1:29: probabilty: unknown field 'probabilty' (did you mean 'probability'?)"))
    #expect(Self.failure("{\"deck\":[\"d0\"],}").hasPrefix("p.jsonl:1:"))
    #expect(
      Self.failure("{\"deck\":[\"d0\"]}").hasPrefix("p.jsonl:1:1: probability: no probability"))
  }
}
