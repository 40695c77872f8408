import DeckCore

/// Settings of an off-policy evaluation.
package struct OffPolicyOptions: Sendable, Equatable {
  /// The last position evaluated (P); nil: the largest logged position, at most
  /// `OffPolicy.maxPositions`. Cards logged at higher positions are left out of every estimator.
  package var positions: Int?
  /// m, the pseudo-cards of the reward model's prior (see `OffPolicyRewardModel`).
  package var priorStrength: Double

  package init(positions: Int? = nil, priorStrength: Double = 10) {
    precondition((positions ?? 1) >= 1, "the last position evaluated must be 1 or more")
    precondition(priorStrength >= 0 && priorStrength.isFinite, "the prior strength is 0 or more")
    self.positions = positions
    self.priorStrength = priorStrength
  }
}

/// The reward model of the doubly robust estimator: a smoothed like rate per item and position,
///
///     r̂(a, p) = (likes(a, p) + m · ρ_p) / (shows(a, p) + m),   ρ_p = likes at p / cards at p,
///
/// counted over the logged cards of the evaluation log at positions 1...P. It is the posterior
/// mean of the item's like rate at p under a Beta(m · ρ_p, m · (1 − ρ_p)) prior: m pseudo-cards
/// at the position's like rate, so an item seldom shown at p stays near ρ_p and one shown often
/// moves to its own rate. An item never shown at p (or any item when m is 0 and it has no shows)
/// gets ρ_p; a position with no logged cards has ρ_p = 0 (it is never used: no card there is
/// evaluated).
package struct OffPolicyRewardModel: Sendable {
  package let positions: Int
  package let priorStrength: Double
  /// ρ_p at index p − 1.
  package let positionRates: [Double]
  /// (likes, shows) per position and item, keyed by `key(_:_:)`; only pairs that were shown.
  private let counts: [UInt64: (likes: Int, shows: Int)]

  package init(log: OffPolicyLog, positions: Int, priorStrength: Double) {
    self.positions = positions
    self.priorStrength = priorStrength
    var counts: [UInt64: (likes: Int, shows: Int)] = [:]
    var likes = [Int](repeating: 0, count: positions)
    var shows = [Int](repeating: 0, count: positions)
    for session in log.sessions {
      for card in session.cards where card.position <= positions {
        let p = Int(card.position)
        let l = card.liked ? 1 : 0
        likes[p - 1] += l
        shows[p - 1] += 1
        let k = OffPolicyRewardModel.key(card.item, p)
        let c = counts[k] ?? (0, 0)
        counts[k] = (c.likes + l, c.shows + 1)
      }
    }
    positionRates = (0..<positions).map {
      shows[$0] == 0 ? 0 : Double(likes[$0]) / Double(shows[$0])
    }
    self.counts = counts
  }

  @inline(__always)
  private static func key(_ item: Int32, _ position: Int) -> UInt64 {
    UInt64(UInt32(bitPattern: item)) << 32 | UInt64(position)
  }

  /// r̂(item, position) for a position in 1...positions.
  package func predict(item: Int32, position: Int) -> Double {
    let rate = positionRates[position - 1]
    guard let c = counts[OffPolicyRewardModel.key(item, position)] else { return rate }
    let shows = Double(c.shows) + priorStrength
    return shows == 0 ? rate : (Double(c.likes) + priorStrength * rate) / shows
  }
}

/// Off-policy evaluation of target policies, deterministic (a ranking per session) or
/// stochastic (a distribution over items per position and session), on a log that carries the
/// logging policy's propensities: replay, inverse propensity scoring (IPS), self-normalised IPS
/// (SNIPS), the direct method (DM) and doubly robust (DR), per position and overall, as
/// per-diner sums for the diner-level bootstrap (`UnitTable`).
///
/// Notation. Session s of the log (one diner on one deck day) has logged cards (a, p, r, μ):
/// item a at position p, reward r (right swipe 1, left 0) and propensity μ = μ_s(a, p), the
/// logging policy's probability of putting a at p in that session (the marginal probability,
/// not the probability given the cards above). π_s(b, p) is the target's probability of putting
/// item b at p in session s (for a deterministic target 1 for its card at p, 0 otherwise); the
/// rest of the slot's probability, 1 − Σ_b π_s(b, p), is the target leaving p empty ("show
/// nothing"), whose reward is 0: a target with a shorter deck shows nothing below it. Every
/// logged card with p ≤ P is evaluated, whatever the target: n_p is the number of logged cards at
/// p, n the number over all positions, the same for every target. The importance weight of a
/// card is w = π_s(a, p) / μ.
///
/// Assumptions (a position-based model):
/// 1. the chance of a right swipe depends only on the session (the diner and the day), the item
///    and the position: P(r = 1 | a at p in session s, whatever else the deck holds) = q_s(a, p);
/// 2. whether the diner reaches position p (a card at p is logged) does not depend on the cards
///    above it, so the card logged at p is a draw from μ_s(·, p);
/// 3. μ_s(b, p) > 0 wherever π_s(b, p) > 0 in a slot the diner reached (the logging policy could
///    have shown the target's card there; a Plackett-Luce policy always can).
///
/// Estimand: the target's like rate in the slots diners reached,
///
///     V_p = (1 / n_p) Σ over evaluated slots (s, p) of Σ_b π_s(b, p) q_s(b, p),
///     V   = (1 / n)   Σ over all evaluated slots of the same = Σ_p n_p V_p / n,
///
/// the like rate the target's cards would have had had they been shown where the logging
/// policy's cards were swiped (an empty slot counts 0). Under 1 to 3, E[w r] = Σ_b π_s(b, p)
/// q_s(b, p) in each slot, which makes IPS and DR unbiased for V_p and V.
///
/// The assumptions do not hold exactly in `pick` mode, where a right swipe ends the session,
/// nor when diners give up after a run of left swipes: then reaching p depends on the cards
/// above it (a diner reaches p only after passing on them). The estimates are then the like
/// rate in the slots diners reached under the logging policy, not where they would have
/// stopped under the target; read the per-position ones as like rates given the slot is
/// reached, and the overall one as approximate.
///
/// Estimators, per position (sums over the logged cards at p) and overall (the same sums over
/// every evaluated card), as Open Bandit Pipeline defines them with `action_dist` = π:
/// - replay (deterministic targets only) = Σ 1[match] r / Σ 1[match], match: π_s(a, p) = 1; the
///   like rate of the matched cards; undefined with no match. Unbiased when μ_s(π_s(p), p) is
///   the same in every session (a uniform logging policy); otherwise it weighs sessions by how
///   likely the logging policy was to match.
/// - IPS = (1 / n_p) Σ w r: unbiased, high variance when weights are large.
/// - SNIPS = Σ w r / Σ w: consistent, slightly biased, lower variance.
/// - DM = (1 / n_p) Σ Σ_b π_s(b, p) r̂(b, p) with the reward model r̂ of
///   `OffPolicyRewardModel`: no variance from the weights, biased as far as r̂ is from q.
/// - DR = (1 / n_p) Σ [Σ_b π_s(b, p) r̂(b, p) + w (r − r̂(a, p))]: unbiased for any fixed r̂,
///   with lower variance the closer r̂ is to q. Here r̂ is fitted on the evaluation log itself,
///   which adds a bias of the order of 1 / (shows of the item at p + m).
/// - replay_matches = Σ 1[match] for a deterministic target, Σ π_s(a, p) (the expected number
///   of matched cards) for a stochastic one.
///
/// Per-diner sums (numerator / denominator) of each `.ratio` metric: replay Σ 1[match] r /
/// Σ 1[match]; IPS Σ w r / cards; SNIPS Σ w r / Σ w; DM Σ Σ_b π r̂ / cards; DR Σ [Σ_b π r̂ +
/// w (r − r̂)] / cards. The ratio of the totals over diners is the estimate; resampling diners
/// gives intervals that respect the correlation of a diner's sessions.
package enum OffPolicy {
  /// The most positions evaluated by default: each adds five metrics per strategy (and a deck of
  /// that many cards per logged session), and a swipe deck is read well before its 100th card.
  package static let maxPositions = 100

  /// The smallest propensity the estimators use. A card's weight is 1 / propensity: below one
  /// in a million, one matched card outweighs a million evaluated ones, and weights (and the
  /// squares of the effective sample size) soon stop being finite numbers. Open Bandit Pipeline
  /// only requires propensities above 0 and clips weights only when asked (`lambda_`); clipping
  /// would change the estimates it agrees with, so a log below the floor is refused instead
  /// (`LoggedSessions.check()`).
  package static let minimumPropensity = 1e-6

  /// The estimator kinds of a position block, in metric order.
  private static let perPosition = ["replay", "ips", "snips", "dm", "dr", "replay_matches"]
  /// Metrics before the first position block.
  private static let overallCount = 7

  /// The metrics of an evaluation up to position `positions`, in table order: `replay`, `ips`,
  /// `snips`, `dm`, `dr`, `replay_matches`, `evaluated_cards`, then for p = 1...positions
  /// `replay_pP`, `ips_pP`, `snips_pP`, `dm_pP`, `dr_pP`, `replay_matches_pP`.
  package static func metrics(positions: Int) -> [MetricSpec] {
    var specs = [
      MetricSpec(
        name: "replay",
        definition:
          "like rate of the logged cards that are the target's card at their position (replay;"
          + " deterministic targets only)",
        form: .ratio),
      MetricSpec(
        name: "ips",
        definition:
          "inverse propensity scoring: sum over logged cards of w x like, divided by the cards;"
          + " w = target's probability of the logged card at its position / propensity",
        form: .ratio),
      MetricSpec(
        name: "snips",
        definition: "self-normalised IPS: sum of w x like over sum of w",
        form: .ratio),
      MetricSpec(
        name: "dm",
        definition:
          "direct method: mean over logged cards of the model's like rate of the target's cards"
          + " at that position (weighted by the target's probabilities); model = smoothed like"
          + " rate per item and position",
        form: .ratio),
      MetricSpec(
        name: "dr",
        definition:
          "doubly robust: mean over logged cards of the direct method's term + w x (like -"
          + " model(logged card))",
        form: .ratio),
      MetricSpec(
        name: "replay_matches",
        definition:
          "logged cards that are the target's card at their position (for a stochastic target,"
          + " the expected number)",
        form: .total),
      MetricSpec(
        name: "evaluated_cards",
        definition:
          "logged cards evaluated (every logged card up to the last position; the same for"
          + " every target)",
        form: .total),
    ]
    for p in stride(from: 1, through: positions, by: 1) {
      specs += [
        MetricSpec(
          name: "replay_p\(p)", definition: "replay at position \(p)", form: .ratio),
        MetricSpec(name: "ips_p\(p)", definition: "IPS at position \(p)", form: .ratio),
        MetricSpec(name: "snips_p\(p)", definition: "SNIPS at position \(p)", form: .ratio),
        MetricSpec(name: "dm_p\(p)", definition: "direct method at position \(p)", form: .ratio),
        MetricSpec(
          name: "dr_p\(p)", definition: "doubly robust at position \(p)", form: .ratio),
        MetricSpec(
          name: "replay_matches_p\(p)",
          definition: "logged cards at position \(p) that are the target's card there",
          form: .total),
      ]
    }
    return specs
  }

  /// Evaluates each target on the log: a `UnitTable` with one arm per target (in order) and
  /// the metrics of `metrics(positions:)` for P = `options.positions`, or else the largest
  /// logged position. Its units are `units` when given (say, every diner of the evaluation
  /// period, to line up with other tables; it must hold every diner of the log, and diners
  /// without logged cards get rows of zeros), or else the log's diners, in their order.
  ///
  /// Every target covers every session of the log, with valid catalog indices.
  package static func evaluate(
    _ log: OffPolicyLog, targets: [OffPolicyTarget], units: [String]? = nil,
    options: OffPolicyOptions = OffPolicyOptions()
  ) -> UnitTable {
    let unitNames = units ?? log.diners
    var unitOfDiner = Array(log.diners.indices)
    if let units {
      var index: [[UInt8]: Int] = [:]
      for (u, name) in units.enumerated() { index[Array(name.utf8)] = u }
      unitOfDiner = log.diners.map { name in
        guard let u = index[Array(name.utf8)] else {
          preconditionFailure("diner \(name) is not a unit")
        }
        return u
      }
    }
    let positions = options.positions ?? min(log.maxPosition, maxPositions)
    let model = OffPolicyRewardModel(
      log: log, positions: positions, priorStrength: options.priorStrength)
    let specs = metrics(positions: positions)
    let arms = targets.map { target in
      check(target, log: log)
      let deterministic = target.isDeterministic
      var arm = ArmUnits(arm: target.name, units: unitNames.count, metrics: specs.count)
      for (s, session) in log.sessions.enumerated() {
        let u = unitOfDiner[session.diner]
        for card in session.cards {
          let p = Int(card.position)
          guard p <= positions else { continue }
          let term = slotTerms(target, session: s, card: card, model: model)
          let r = card.reward
          let w = term.probability / card.propensity
          let dr = term.direct + w * (r - model.predict(item: card.item, position: p))
          // The overall block, then position p's block.
          for base in [0, overallCount + (p - 1) * perPosition.count] {
            if deterministic {
              let match = term.probability
              arm.add(unit: u, metric: base, numerator: match * r, denominator: match)
            }
            arm.add(unit: u, metric: base + 1, numerator: w * r, denominator: 1)
            arm.add(unit: u, metric: base + 2, numerator: w * r, denominator: w)
            arm.add(unit: u, metric: base + 3, numerator: term.direct, denominator: 1)
            arm.add(unit: u, metric: base + 4, numerator: dr, denominator: 1)
            arm.add(unit: u, metric: base + 5, numerator: term.probability)
          }
          arm.add(unit: u, metric: 6, numerator: 1)
        }
      }
      return arm
    }
    return UnitTable(metrics: specs, units: unitNames, arms: arms)
  }

  /// The target's probability of the logged card at its position, π_s(a, p), and the direct
  /// method's term there, Σ_b π_s(b, p) r̂(b, p) (0 for an empty position).
  @inline(__always)
  static func slotTerms(
    _ target: OffPolicyTarget, session s: Int, card: LoggedCard, model: OffPolicyRewardModel
  ) -> (probability: Double, direct: Double) {
    let p = Int(card.position)
    switch target.policy {
    case .rankings(let rankings):
      // A deterministic target: no slot to build, one card or none.
      let ranking = rankings[s]
      guard p <= ranking.count else { return (0, 0) }
      let shown = ranking[p - 1]
      return (shown == card.item ? 1 : 0, model.predict(item: shown, position: p))
    case .distributions:
      let slot = target.slot(session: s, position: p)
      return (
        slot.probability(of: card.item),
        slot.expectation { model.predict(item: $0, position: p) }
      )
    }
  }

  /// A target must cover every session of the log with catalog indices of its catalog.
  private static func check(_ target: OffPolicyTarget, log: OffPolicyLog) {
    precondition(
      target.sessionCount == log.sessions.count,
      "\(target.name): \(target.sessionCount) sessions for \(log.sessions.count)")
    if let largest = target.largestItem {
      precondition(
        largest < log.itemCount, "\(target.name): catalog index \(largest) outside the catalog")
    }
    if case .rankings(let rankings) = target.policy {
      precondition(rankings.allSatisfy { $0.allSatisfy { $0 >= 0 } }, "catalog indices are >= 0")
    }
  }
}
