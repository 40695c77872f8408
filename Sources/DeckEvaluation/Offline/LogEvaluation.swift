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
  /// Each strategy learns the history first, told the diners' `profiles` (every diner of the
  /// users file, for a strategy of diner features; the `diners` when not given). The decks are
  /// built on up to `jobs` threads (`DeckPipeline.build(users:jobs:)`: the same decks for every
  /// number).
  package static func rankDecks(
    _ arms: [Arm], diners: [UserProfile], profiles: [UserProfile]? = nil, catalog: Catalog,
    history: History, builder: DeckBuilder, seed: UInt64, date: DeckDate, jobs: Int = 1,
    progress: ProgressCounter? = nil
  ) throws -> (rankings: [[[Int32]]], shown: [[Int]]) {
    var rankings: [[[Int32]]] = []
    var shown: [[Int]] = []
    for (_, strategy) in arms {
      strategy.prepare(seed: seed, jobs: jobs)
      strategy.prepare(profiles: profiles ?? diners)
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
        progress?.add(1)
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
    try arms.map { name, strategy in
      let decks = try sessionDecks(
        strategy, log: log, profiles: profiles, history: history, builder: builder, seed: seed,
        jobs: jobs, wantsPolicy: false)
      return OffPolicyTarget(name: name, rankings: decks.rankings)
    }
  }

  /// `strategy`'s deck for every logged session, built as on the session's day (sessions are
  /// grouped by day), and with `wantsPolicy` the distribution it drew each from (when given);
  /// `moved` counts the sessions whose deck a restaurant rule boosted, buried or pinned cards
  /// of (`Deck.ruleApplications`).
  private static func sessionDecks(
    _ strategy: any RankingStrategy, log: OffPolicyLog, profiles: [IDKey: UserProfile],
    history: History, builder: DeckBuilder, seed: UInt64, jobs: Int, wantsPolicy: Bool
  ) throws -> (rankings: [[Int32]], policies: [DeckPolicy?], moved: Int) {
    var byDay: [DeckDate: [Int]] = [:]
    for (i, session) in log.sessions.enumerated() { byDay[session.day, default: []].append(i) }
    var rankings = [[Int32]](repeating: [], count: log.sessions.count)
    var policies = [DeckPolicy?](repeating: nil, count: log.sessions.count)
    var moved = 0
    for day in byDay.keys.sorted() {
      let indices = byDay[day]!
      var pipeline = DeckPipeline(
        builder: builder, strategy: strategy, history: history, seed: seed, date: day)
      pipeline.wantsPolicy = wantsPolicy
      let diners = indices.map { i in
        let id = log.diners[log.sessions[i].diner]
        return profiles[IDKey(id)] ?? UserProfile(id: id)
      }
      var next = 0
      try pipeline.build(users: diners, jobs: jobs) { deck, policy in
        rankings[indices[next]] = deck.cards.map(\.item)
        policies[indices[next]] = policy
        if deck.ruleApplications.contains(where: { $0.effect != .hidden }) { moved += 1 }
        next += 1
      }
    }
    return (rankings, policies, moved)
  }

  /// Draws per distinct Plackett-Luce distribution for its marginals after the first position
  /// (`RankingPolicy.marginals`) when `--ope-samples` does not say.
  package static let defaultMarginalDraws = 500

  /// Each strategy over the logged sessions as the distribution it draws its decks from, when
  /// it knows it (`Scores.policy`: random, epsilon-greedy, plackett-luce and plugins of minor
  /// version 1 that return one, where the deck rules keep their order): a target of `SessionPolicies`, whose slots are the exact marginals
  /// (Plackett-Luce's after position 1 estimated from `draws` rankings, seeded by the
  /// distribution itself so that equal distributions get equal estimates) and whose prefix
  /// probabilities and conditionals are exact. A session for which the strategy gave no
  /// distribution (deck rules that move cards for that diner) is its one drawn deck, counted in
  /// `oneDeck`. A strategy that gives none at all is the deterministic target of
  /// `offPolicyTargets`. `movedByRules` counts, per arm, the sessions whose deck the
  /// restaurant's rules boosted, buried or pinned cards of (for a stochastic arm, those are
  /// among its one-deck sessions: its propensities do not describe the changed order).
  package static func exactTargets(
    _ arms: [Arm], log: OffPolicyLog, profiles: [IDKey: UserProfile], history: History,
    builder: DeckBuilder, seed: UInt64, positions: Int, draws: Int, jobs: Int = 1
  ) throws -> (targets: [OffPolicyTarget], oneDeck: [Int], movedByRules: [Int]) {
    var targets: [OffPolicyTarget] = []
    var oneDeck: [Int] = []
    var movedByRules: [Int] = []
    for (name, strategy) in arms {
      let (rankings, policies, moved) = try sessionDecks(
        strategy, log: log, profiles: profiles, history: history, builder: builder, seed: seed,
        jobs: jobs, wantsPolicy: true)
      movedByRules.append(moved)
      guard policies.contains(where: { $0 != nil }) else {
        targets.append(OffPolicyTarget(name: name, rankings: rankings))
        oneDeck.append(0)
        continue
      }
      var entries: [SessionPolicies.Entry] = []
      var entryOf: [[UInt64]: Int32] = [:]
      var fallback = 0
      let sessionEntry = log.sessions.indices.map { s -> Int32 in
        let size = rankings[s].count
        let policy: RankingPolicy
        let candidates: [Int32]
        if let p = policies[s] {
          (policy, candidates) = (p.policy, p.candidates)
        } else {
          // One drawn deck: its cards in order, surely.
          fallback += 1
          (policy, candidates) = (.epsilonGreedy(greedy: Array(0..<size), epsilon: 0), rankings[s])
        }
        let key = policyKey(policy, candidates, size)
        if let e = entryOf[key] { return e }
        var hash = StableHash()
        hash.combine(seed)
        hash.combine("ope-marginals")
        for word in key { hash.combine(word) }
        var random = RandomStream(seed: hash.finalized)
        let marginals = policy.marginals(
          positions: min(size, positions), samples: draws, random: &random)
        let slots = marginals.map { row in
          SlotDistribution(
            row.indices.filter { row[$0] > 0 }.map { (candidates[$0], min(1, row[$0])) })
        }
        entries.append(
          SessionPolicies.Entry(policy: policy, candidates: candidates, size: size, slots: slots))
        entryOf[key] = Int32(entries.count - 1)
        return Int32(entries.count - 1)
      }
      targets.append(
        OffPolicyTarget(
          name: name, policies: SessionPolicies(entries: entries, sessionEntry: sessionEntry)))
      oneDeck.append(fallback)
    }
    return (targets, oneDeck, movedByRules)
  }

  /// The identity of a (distribution, candidates, deck size): equal keys, equal entries. The
  /// words read back unambiguously (a case tag, then parts whose lengths are n, the number of
  /// candidates, or are written before them), so different triples never share a key.
  static func policyKey(_ policy: RankingPolicy, _ candidates: [Int32], _ size: Int)
    -> [UInt64]
  {
    var key: [UInt64] = [UInt64(size)]
    switch policy {
    case .uniform(let n): key += [0, UInt64(n)]
    case .plackettLuce(let logits): key += [1] + logits.map(\.bitPattern)
    case .epsilonGreedy(let greedy, let epsilon):
      key += [2, epsilon.bitPattern] + greedy.map { UInt64($0) }
    case .rankings(let d):
      // The orders sorted (as the distribution keeps them), each as its length, its
      // candidates and its probability's bits.
      let orders = d.orders
      key += [3, UInt64(d.candidateCount), UInt64(orders.count)]
      for i in orders.all {
        key.append(UInt64(orders.orders[i].count))
        key += orders.orders[i].map { UInt64(UInt32(bitPattern: $0)) }
        key.append(orders.probability(at: i).bitPattern)
      }
    }
    return key + candidates.map { UInt64(UInt32(bitPattern: $0)) }
  }

  /// The largest `--ope-samples`: each sample is a deck per logged session and strategy.
  package static let maxSamples = 10_000

  /// The seed of sample `k` of `sampledTargets`: the run's target seed for sample 0 (so that
  /// the first sample is the deck the deterministic evaluation uses), a derived one after.
  package static func sampleSeed(_ seed: UInt64, _ k: Int) -> UInt64 {
    guard k > 0 else { return seed }
    var derived = StableHash()
    derived.combine(seed)
    derived.combine("ope-sample")
    derived.combine(UInt64(k))
    return derived.finalized
  }

  /// Each strategy as a stochastic policy (`--ope-samples N`): for every logged session, N
  /// decks built as `offPolicyTargets` builds one, each with the seed of its sample
  /// (`sampleSeed`), and π(dish, p) the share of the N decks that put the dish at p (a Monte
  /// Carlo estimate of the strategy's distribution, with standard error at most 0.5/√N per
  /// probability). Along each session's logged cards a_1..a_L the target also gets the share
  /// of the N decks that start with a_1..a_k (π(a_1..a_k)) and, among those that start with
  /// a_1..a_(k-1), the share with each dish at k (the conditional of cascade-DR), for the slate
  /// estimators. A strategy whose N decks are the same in every session (it does not
  /// randomise) stays a deterministic target, so replay is still defined for it.
  package static func sampledTargets(
    _ arms: [Arm], log: OffPolicyLog, profiles: [IDKey: UserProfile], history: History,
    builder: DeckBuilder, seed: UInt64, samples: Int, jobs: Int = 1
  ) throws -> [OffPolicyTarget] {
    precondition(samples >= 1 && samples <= maxSamples, "1 to \(maxSamples) samples")
    // counts[arm][session][p - 1]: item -> decks with it at p.
    var first: [OffPolicyTarget] = []
    var counts = [[[[Int32: Int]]]](
      repeating: log.sessions.map { _ in [] }, count: arms.count)
    // Along each session's logged cards a_1..a_L: matches[arm][session][k - 1], the decks that
    // start with a_1..a_k; next[arm][session][k - 1], item -> decks that start with
    // a_1..a_(k-1) and have it at k.
    let logged = log.sessions.map { $0.cards.map(\.item) }
    var matches = [[[Int]]](
      repeating: logged.map { [Int](repeating: 0, count: $0.count) }, count: arms.count)
    var next = [[[[Int32: Int]]]](
      repeating: logged.map { [[Int32: Int]](repeating: [:], count: $0.count) },
      count: arms.count)
    var varies = [Bool](repeating: false, count: arms.count)
    for k in 0..<samples {
      let targets = try offPolicyTargets(
        arms, log: log, profiles: profiles, history: history, builder: builder,
        seed: sampleSeed(seed, k), jobs: jobs)
      if k == 0 { first = targets }
      for (a, target) in targets.enumerated() {
        let rankings = target.rankings
        if k > 0 && rankings != first[a].rankings { varies[a] = true }
        for (s, ranking) in rankings.enumerated() {
          if counts[a][s].count < ranking.count {
            counts[a][s] += [[Int32: Int]](
              repeating: [:], count: ranking.count - counts[a][s].count)
          }
          for (p, item) in ranking.enumerated() { counts[a][s][p][item, default: 0] += 1 }
          for j in logged[s].indices {
            guard j < ranking.count else { break }
            next[a][s][j][ranking[j], default: 0] += 1
            guard ranking[j] == logged[s][j] else { break }
            matches[a][s][j] += 1
          }
        }
      }
    }
    let n = Double(samples)
    return arms.indices.map { a in
      guard varies[a] else { return first[a] }
      var slots: [SlotDistribution] = []
      let sessionSlots = counts[a].map { positions in
        positions.map { byItem -> Int32 in
          slots.append(SlotDistribution(byItem.map { ($0.key, Double($0.value) / n) }))
          return Int32(slots.count - 1)
        }
      }
      // π(a_1..a_k) = matches / N; the conditional at k over the decks that start with
      // a_1..a_(k-1) (those are matches[k - 2], or all N at k = 1).
      let paths = log.sessions.indices.map { s in
        SlatePath(
          prefix: matches[a][s].map { Double($0) / n },
          conditionals: next[a][s].indices.map { j in
            let base = Double(j == 0 ? samples : matches[a][s][j - 1])
            guard base > 0 else { return SlotDistribution(showing: nil) }
            return SlotDistribution(next[a][s][j].map { ($0.key, Double($0.value) / base) })
          })
      }
      return OffPolicyTarget(
        name: first[a].name, slots: slots, sessionSlots: sessionSlots, paths: paths)
    }
  }

  /// The target of a policy file (`--policy NAME=FILE`): every logged session takes the
  /// distribution of its group (`PolicyFile.group(diner:day:)`) at positions 1...`positions`
  /// (rows for positions beyond are not used). Sessions with the same group share its slots.
  /// A session no group covers is an error that names it and counts the others: a policy that
  /// says nothing about a session cannot be estimated over the same cards as the others.
  package static func policyTarget(
    name: String, file: PolicyFile, log: OffPolicyLog, positions: Int
  ) throws(DeckIOError) -> OffPolicyTarget {
    var slots: [SlotDistribution] = []
    var rowOfGroup: [PolicyFile.Key: [Int32]] = [:]
    var sessionSlots: [[Int32]] = []
    sessionSlots.reserveCapacity(log.sessions.count)
    var uncovered: [LoggedSession] = []
    for session in log.sessions {
      let diner = log.diners[session.diner]
      guard let key = file.groupKey(diner: diner, day: session.day) else {
        uncovered.append(session)
        sessionSlots.append([])
        continue
      }
      if let row = rowOfGroup[key] {
        sessionSlots.append(row)
        continue
      }
      var byPosition = [[(item: Int32, probability: Double)]](repeating: [], count: positions)
      for e in file.groups[key]! where Int(e.position) <= positions {
        byPosition[Int(e.position) - 1].append((e.item, e.probability))
      }
      let row = byPosition.map { pairs -> Int32 in
        guard !pairs.isEmpty else { return -1 }
        slots.append(SlotDistribution(pairs))
        return Int32(slots.count - 1)
      }
      rowOfGroup[key] = row
      sessionSlots.append(row)
    }
    var paths: [SlatePath]?
    if file.isDeckDistribution && uncovered.isEmpty {
      var tables: [PolicyFile.Key: DeckTable] = [:]
      paths = log.sessions.map { session in
        let key = file.groupKey(diner: log.diners[session.diner], day: session.day)!
        if tables[key] == nil { tables[key] = DeckTable(file.decks[key]!) }
        return tables[key]!.path(along: session.cards.prefix(positions).map(\.item))
      }
    }
    if let first = uncovered.first {
      let more = uncovered.count > 1 ? " and \(uncovered.count - 1) more logged sessions" : ""
      throw .invalid(
        path: file.file,
        message:
          "no probabilities for diner \(log.diners[first.diner]) on \(first.day)\(more) (no row"
          + " for that diner or day, nor for every diner and every day); give every logged"
          + " session from the split on a distribution, e.g. rows with empty diner and day")
    }
    return OffPolicyTarget(name: name, slots: slots, sessionSlots: sessionSlots, paths: paths)
  }

  /// A group's decks of a deck-distribution policy file, sorted (`PolicyFile.decks`), in the
  /// table of `SortedOrders` (as a plugin's `RankingPolicy.rankings`): the decks that begin
  /// with a prefix are consecutive, found by binary search, and their probability is a range
  /// sum. Conditionals are cached per prefix.
  final class DeckTable {
    let decks: SortedOrders
    var conditionals: [[Int32]: SlotDistribution] = [:]

    init(_ decks: [PolicyFile.Deck]) {
      self.decks = SortedOrders(sorted: decks.map(\.items), probabilities: decks.map(\.probability))
    }

    /// The slate path along the logged cards `items` (positions 1, 2, ...).
    func path(along items: [Int32]) -> SlatePath {
      var range = decks.all
      var prefix: [Double] = []
      var conditionals: [SlotDistribution] = []
      var mass = 1.0  // π(a_1..a_(k-1)); 1 at k = 1 (the rest is showing no deck)
      for (j, item) in items.enumerated() {
        let above = Array(items.prefix(j))
        if let cached = self.conditionals[above] {
          conditionals.append(cached)
        } else {
          let slot =
            mass > 0
            ? SlotDistribution(
              decks.following(range, at: j).map { ($0.key, min(1, $0.probability / mass)) })
            : SlotDistribution(showing: nil)
          self.conditionals[above] = slot
          conditionals.append(slot)
        }
        range = decks.narrow(range, at: j, to: item)
        mass = decks.mass(range)
        prefix.append(min(1, mass))
      }
      return SlatePath(prefix: prefix, conditionals: conditionals)
    }
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
    /// Notes a person running the command should also see on stderr (unsupported mass).
    package var warnings: [String]
    package var parameters: [ReportParameter]
    /// Each target's diagnostics, in target order.
    package var diagnostics: [OffPolicyDiagnostics]
  }

  /// The off-policy estimates of `targets` over `log` with their diagnostics, notes (positions
  /// left out, effective samples too small to trust, the estimators' assumptions), warnings
  /// (probability on cards the log never showed) and parameters.
  ///
  /// `options` says which estimators beyond replay, IPS, SNIPS, DM and DR to compute (`clip`,
  /// `crossFitFolds`); its positions are those of `positions(of:)`.
  package static func offPolicy(
    _ targets: [OffPolicyTarget], log: OffPolicyLog, from date: DeckDate,
    options: OffPolicyOptions = OffPolicyOptions()
  ) -> OffPolicyPart {
    let (positions, beyond) = Self.positions(of: log)
    var notes: [String] = []
    var warnings: [String] = []
    if beyond > 0 {
      notes.append(
        "\(plural(beyond, "logged card")) at positions above \(positions) (the last at "
          + "\(log.maxPosition)) \(beyond == 1 ? "is" : "are") left out of the off-policy "
          + "estimates, which cover positions 1 to \(OffPolicy.maxPositions)")
    }
    let slates = hasPrefixPropensities(log, positions: positions)
    let diagnostics = targets.map {
      OffPolicyDiagnostics($0, log: log, positions: positions, slates: slates)
    }
    diagnosticNotes(targets, diagnostics, notes: &notes, warnings: &warnings)
    var options = options
    options.positions = positions
    options.slates = slates
    if slates, let missing = targets.first(where: { !$0.hasPrefixProbabilities }) {
      notes.append(
        "\(missing.name) gives probabilities per position only (no probability of a whole"
          + " prefix of cards), so only iips of the slate estimators is defined for it")
    }
    let table = OffPolicy.evaluate(log, targets: targets, options: options)
    notes.append(
      "off-policy estimates (replay, ips, snips, dm, dr and per position) resample the"
        + " \(log.diners.count) diners of the \(plural(log.sessions.count, "logged session"))"
        + " from \(date) on, over the same \(plural(log.cardCount - beyond, "logged card")) for"
        + " every strategy (a position a strategy leaves empty counts as showing nothing, reward"
        + " 0); they assume a card's right-swipe chance depends only on the diner,"
        + " the dish and the position and that reaching a position does not depend on the cards"
        + " above it (not exact in pick mode), and that each logged propensity is the logging"
        + " strategy's probability of that dish at that position (deck rules that move cards, such"
        + " as a category cap or the no-adjacent rule, break it)")
    func each(_ value: (OffPolicyDiagnostics) -> Double?) -> [(arm: String, value: Double?)] {
      zip(targets, diagnostics).map { ($0.name, value($1)) }
    }
    var models = rewardModelDescription
    if let k = options.crossFitFolds {
      models += "; dm_cf and dr_cf: the same model cross-fitted over \(k) folds of diners"
    }
    var parameters = [
      ReportParameter.integer("ope_sessions", log.sessions.count),
      .integer("ope_diners", log.diners.count),
      .integer("ope_positions", positions),
      ReportParameter(name: "ope_reward_model", value: models),
      .perArm(
        "ope_effective_cards", each { $0.effectiveCards },
        shown: { Text.fixed($0, decimals: 1) }),
      .perArm("ope_largest_weight", each { $0.largestWeight }),
      .perArm("ope_unsupported_mass", each { $0.unsupportedMass }),
    ]
    if let lambda = options.clip {
      parameters.append(.number("ope_clip", lambda))
    }
    if slates {
      parameters.append(
        .perArm(
          "ope_slate_effective_decks",
          each { $0.slateEffectiveDecks.map { ($0 * 10).rounded() / 10 } }))
      parameters.append(.perArm("ope_largest_slate_weight", each { $0.largestSlateWeight }))
      notes.append(
        "slate estimates (iips, rips, sips, cascade_dr) are likes per logged deck, not per card:"
          + " rips and sips weigh each card by the target's probability of the logged cards"
          + " above it (rips) or of the whole logged deck (sips) over the logged prefix"
          + " propensity, which stays unbiased when a swipe decides whether the diner goes on"
          + " (pick mode); iips uses each card's own weight and assumes it does not")
    } else if log.cardCount > 0 {
      notes.append(
        "no slate estimates (iips, rips, sips, cascade_dr): they need a prefix_propensity (the"
          + " logging policy's probability of the logged cards from position 1 to each one) on"
          + " every evaluated card, with positions 1, 2, ... in every session")
    }
    return OffPolicyPart(
      table: table, notes: notes, warnings: warnings, parameters: parameters,
      diagnostics: diagnostics)
  }

  /// The notes (and warnings) `diagnostics` call for, target by target: an effective sample
  /// too small to trust (per card and per deck), and probability on cards the log never showed.
  private static func diagnosticNotes(
    _ targets: [OffPolicyTarget], _ diagnostics: [OffPolicyDiagnostics], notes: inout [String],
    warnings: inout [String]
  ) {
    for (target, d) in zip(targets, diagnostics) {
      let ess = Text.fixed(d.effectiveCards, decimals: 1)
      if d.effectiveCards < OffPolicyDiagnostics.effectiveCardsWarning {
        notes.append(
          "the off-policy estimates of \(target.name) rest on an effective sample of"
            + " \(ess) logged cards ((Σw)²/Σw² of its importance"
            + " weights): too few for IPS, SNIPS or DR to be trusted, whatever their intervals say"
        )
      }
      if let decks = d.slateEffectiveDecks, decks < OffPolicyDiagnostics.effectiveCardsWarning {
        notes.append(
          "the slate estimates of \(target.name) rest on an effective sample of"
            + " \(Text.fixed(decks, decimals: 1)) logged decks ((Σc)²/Σc² of its whole-deck"
            + " weights): too few for sips, rips or cascade_dr to be trusted, whatever their"
            + " intervals say")
      }
      if d.unsupportedMass > OffPolicyDiagnostics.unsupportedWarning {
        let share = Text.fixed(d.unsupportedMass * 100, decimals: 1)
        let warning =
          "\(target.name) puts \(share)% of its probability on dishes at positions the log never"
          + " showed there: no logged swipe speaks for them (IPS and SNIPS count them as 0, DM"
          + " and DR as the reward model's position rate)"
        warnings.append(warning)
        notes.append(warning)
      }
    }
  }

  /// Whether every evaluated card (positions 1...`positions`) carries a prefix propensity, so
  /// that the slate estimators can be computed (the reader has checked that such sessions
  /// hold positions 1, 2, ... without gaps).
  package static func hasPrefixPropensities(_ log: OffPolicyLog, positions: Int) -> Bool {
    log.cardCount > 0
      && log.sessions.allSatisfy { session in
        session.cards.allSatisfy { Int($0.position) > positions || $0.prefixPropensity != nil }
      }
  }

  /// The reward model of DM and DR, as the report names it.
  package static let rewardModelDescription =
    "dm and dr: in-sample, the smoothed like rate per dish and position, (likes + 10 x position"
    + " rate) / (shows + 10), fitted on the evaluation log"

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

  private static func plural(_ n: Int, _ noun: String) -> String { TextLayout.plural(n, noun) }
}
