import DeckCore

/// A target strategy of an off-policy evaluation: a deterministic ranking for every session of
/// the evaluation log.
package struct OffPolicyTarget: Sendable, Equatable {
  /// The arm's name (a strategy name or a named configuration).
  package var name: String
  /// `rankings[s]`: the deck the target would have shown in `OffPolicyLog.sessions[s]`, as
  /// catalog indices in position order (first card first).
  package var rankings: [[Int32]]

  package init(name: String, rankings: [[Int32]]) {
    self.name = name
    self.rankings = rankings
  }
}

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

/// Off-policy evaluation of deterministic target rankings on a log that carries the logging
/// policy's propensities: replay, inverse propensity scoring (IPS), self-normalised IPS (SNIPS)
/// and doubly robust (DR), per position and overall, as per-diner sums for the diner-level
/// bootstrap (`UnitTable`).
///
/// Notation. Session s of the log (one diner on one deck day) has logged cards (a, p, r, μ):
/// item a at position p, reward r (right swipe 1, left 0) and propensity μ = μ_s(a, p), the
/// logging policy's probability of putting a at p in that session (the marginal probability,
/// not the probability given the cards above). π_s(p) is the target's card at p in session s.
/// A card is *matched* when π_s(p) = a. Only cards with p ≤ P and p ≤ the length of π_s are
/// evaluated (the target shows nothing beyond its ranking); n_p is the number of evaluated
/// cards at p, n the number over all positions.
///
/// Assumptions (a position-based model):
/// 1. the chance of a right swipe depends only on the session (the diner and the day), the item
///    and the position: P(r = 1 | a at p in session s, whatever else the deck holds) = q_s(a, p);
/// 2. whether the diner reaches position p (a card at p is logged) does not depend on the cards
///    above it, so the card logged at p is a draw from μ_s(·, p);
/// 3. μ_s(π_s(p), p) > 0 in every slot the diner reached (the logging policy could have shown
///    the target's card there; a Plackett-Luce policy always can).
///
/// Estimand: the target's like rate in the slots diners reached,
///
///     V_p = (1 / n_p) Σ over evaluated slots (s, p) of q_s(π_s(p), p),
///     V   = (1 / n)   Σ over all evaluated slots of q_s(π_s(p), p) = Σ_p n_p V_p / n,
///
/// the like rate the target's cards would have had had they been shown where the logging
/// policy's cards were swiped. Under 1 to 3, E[1[π_s(p) = a] · r / μ] = q_s(π_s(p), p) in each
/// slot, which makes IPS and DR unbiased for V_p and V.
///
/// The assumptions do not hold exactly in `pick` mode, where a right swipe ends the session,
/// nor when diners give up after a run of left swipes: then reaching p depends on the cards
/// above it (a diner reaches p only after passing on them). The estimates are then the like
/// rate in the slots diners reached under the logging policy, not where they would have
/// stopped under the target; read the per-position ones as like rates given the slot is
/// reached, and the overall one as approximate.
///
/// Estimators, per position (sums over the evaluated cards at p) and overall (the same sums
/// over every evaluated card):
/// - replay = Σ 1[match] r / Σ 1[match]: the like rate of the matched cards; undefined with no
///   match. Unbiased when μ_s(π_s(p), p) is the same in every session (a uniform logging
///   policy); otherwise it weighs sessions by how likely the logging policy was to match.
/// - IPS = (1 / n_p) Σ 1[match] r / μ: unbiased, high variance when propensities are small.
/// - SNIPS = Σ 1[match] r / μ over Σ 1[match] / μ: consistent, slightly biased, lower variance.
/// - DR = (1 / n_p) Σ [r̂(π_s(p), p) + 1[match] (r − r̂(a, p)) / μ] with the reward model
///   r̂ of `OffPolicyRewardModel`: unbiased for any fixed r̂, with lower variance the closer r̂
///   is to q. Here r̂ is fitted on the evaluation log itself, which adds a bias of the order of
///   1 / (shows of the item at p + m).
///
/// Per-diner sums (numerator / denominator) of each `.ratio` metric: replay Σ 1[match] r /
/// Σ 1[match]; IPS Σ 1[match] r / μ / cards; SNIPS Σ 1[match] r / μ / Σ 1[match] / μ; DR
/// Σ [r̂ + 1[match] (r − r̂) / μ] / cards. The ratio of the totals over diners is the estimate;
/// resampling diners gives intervals that respect the correlation of a diner's sessions.
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
  private static let perPosition = ["replay", "ips", "snips", "dr", "replay_matches"]
  /// Metrics before the first position block.
  private static let overallCount = 6

  /// The metrics of an evaluation up to position `positions`, in table order: `replay`, `ips`,
  /// `snips`, `dr`, `replay_matches`, `evaluated_cards`, then for p = 1...positions `replay_pP`,
  /// `ips_pP`, `snips_pP`, `dr_pP`, `replay_matches_pP`.
  package static func metrics(positions: Int) -> [MetricSpec] {
    var specs = [
      MetricSpec(
        name: "replay",
        definition:
          "like rate of the logged cards that are the target's card at their position (replay)",
        form: .ratio),
      MetricSpec(
        name: "ips",
        definition:
          "inverse propensity scoring: sum over logged cards of [target's card] x like / "
          + "propensity, divided by the cards",
        form: .ratio),
      MetricSpec(
        name: "snips",
        definition:
          "self-normalised IPS: sum of [target's card] x like / propensity over sum of "
          + "[target's card] / propensity",
        form: .ratio),
      MetricSpec(
        name: "dr",
        definition:
          "doubly robust: mean over logged cards of model(target's card) + [target's card] x "
          + "(like - model) / propensity; model = smoothed like rate per item and position",
        form: .ratio),
      MetricSpec(
        name: "replay_matches",
        definition: "logged cards that are the target's card at their position",
        form: .total),
      MetricSpec(
        name: "evaluated_cards",
        definition: "logged cards evaluated: at a position the target's ranking fills",
        form: .total),
    ]
    for p in stride(from: 1, through: positions, by: 1) {
      specs += [
        MetricSpec(
          name: "replay_p\(p)", definition: "replay at position \(p)", form: .ratio),
        MetricSpec(name: "ips_p\(p)", definition: "IPS at position \(p)", form: .ratio),
        MetricSpec(name: "snips_p\(p)", definition: "SNIPS at position \(p)", form: .ratio),
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
  /// Every target needs one ranking per session of the log, of valid catalog indices.
  package static func evaluate(
    _ log: OffPolicyLog, targets: [OffPolicyTarget], units: [String]? = nil,
    options: OffPolicyOptions = OffPolicyOptions()
  ) -> UnitTable {
    let unitNames = units ?? log.diners
    var unitOfDiner = Array(log.diners.indices)
    if let units {
      var index: [String: Int] = [:]
      for (u, name) in units.enumerated() { index[name] = u }
      unitOfDiner = log.diners.map { name in
        guard let u = index[name] else { preconditionFailure("diner \(name) is not a unit") }
        return u
      }
    }
    let positions = options.positions ?? min(log.maxPosition, maxPositions)
    let model = OffPolicyRewardModel(
      log: log, positions: positions, priorStrength: options.priorStrength)
    let specs = metrics(positions: positions)
    let arms = targets.map { target in
      precondition(
        target.rankings.count == log.sessions.count,
        "\(target.name): \(target.rankings.count) rankings for \(log.sessions.count) sessions")
      var arm = ArmUnits(arm: target.name, units: unitNames.count, metrics: specs.count)
      for (s, session) in log.sessions.enumerated() {
        let ranking = target.rankings[s]
        let u = unitOfDiner[session.diner]
        for card in session.cards {
          let p = Int(card.position)
          guard p <= positions && p <= ranking.count else { continue }
          let shown = ranking[p - 1]
          precondition(
            shown >= 0 && Int(shown) < log.itemCount,
            "\(target.name): catalog index \(shown) outside the catalog")
          let match: Double = shown == card.item ? 1 : 0
          let r = card.reward
          let weight = match / card.propensity
          let rHat = model.predict(item: shown, position: p)
          let dr = rHat + weight * (r - rHat)
          // The overall block (metrics 0...4), then position p's block.
          for base in [0, overallCount + (p - 1) * perPosition.count] {
            arm.add(unit: u, metric: base, numerator: match * r, denominator: match)
            arm.add(unit: u, metric: base + 1, numerator: weight * r, denominator: 1)
            arm.add(unit: u, metric: base + 2, numerator: weight * r, denominator: weight)
            arm.add(unit: u, metric: base + 3, numerator: dr, denominator: 1)
            arm.add(unit: u, metric: base + 4, numerator: match)
          }
          arm.add(unit: u, metric: 5, numerator: 1)
        }
      }
      return arm
    }
    return UnitTable(metrics: specs, units: unitNames, arms: arms)
  }
}
