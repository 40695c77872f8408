import DeckBase
import DeckCore

/// Settings of an off-policy evaluation.
package struct OffPolicyOptions: Sendable, Equatable {
  /// The last position evaluated (P); nil: the largest logged position, at most
  /// `OffPolicy.maxPositions`. Cards logged at higher positions are left out of every estimator.
  package var positions: Int?
  /// m, the pseudo-cards of the reward model's prior (see `OffPolicyRewardModel`).
  package var priorStrength: Double
  /// λ of the clipped estimators (`ips_clip`, `dr_clip`) and of switch-DR (`switch_dr`), which
  /// are computed only when it is set: weights above λ are cut to λ, or (switch-DR) the card
  /// falls back to the direct method.
  package var clip: Double?
  /// K of the cross-fitted estimators (`dm_cf`, `dr_cf`), computed only when it is set: the
  /// diners are split into K folds and each fold's cards are scored by a reward model fitted on
  /// the other folds.
  package var crossFitFolds: Int?
  /// Whether to compute the slate estimators (`iips`, `rips`, `sips`, `cascade_dr`), which
  /// need every evaluated card's prefix propensity (`LoggedCard.prefixPropensity`) and positions
  /// 1...L without gaps in every session.
  package var slates: Bool

  /// The range of K.
  package static let folds = 2...20

  package init(
    positions: Int? = nil, priorStrength: Double = 10, clip: Double? = nil,
    crossFitFolds: Int? = nil, slates: Bool = false
  ) {
    precondition((positions ?? 1) >= 1, "the last position evaluated must be 1 or more")
    precondition(priorStrength >= 0 && priorStrength.isFinite, "the prior strength is 0 or more")
    precondition(clip.map { $0 > 0 && $0.isFinite } ?? true, "λ is a positive number")
    precondition(
      crossFitFolds.map { OffPolicyOptions.folds.contains($0) } ?? true, "K is 2 to 20")
    self.positions = positions
    self.priorStrength = priorStrength
    self.clip = clip
    self.crossFitFolds = crossFitFolds
    self.slates = slates
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

  /// The model fitted on the cards of `log` at positions 1...`positions`, of the sessions
  /// `include` accepts (all by default; cross-fitting leaves a fold of diners out).
  package init(
    log: OffPolicyLog, positions: Int, priorStrength: Double,
    include: (LoggedSession) -> Bool = { _ in true }
  ) {
    self.positions = positions
    self.priorStrength = priorStrength
    var counts: [UInt64: (likes: Int, shows: Int)] = [:]
    var likes = [Int](repeating: 0, count: positions)
    var shows = [Int](repeating: 0, count: positions)
    for session in log.sessions where include(session) {
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

  /// The key of an (item, position) pair in the evaluation's tables.
  @inline(__always)
  package static func key(_ item: Int32, _ position: Int) -> UInt64 {
    UInt64(UInt32(bitPattern: item)) << 32 | UInt64(position)
  }

  /// The (likes, shows) the model counted for the item at the position, nil when never shown.
  package func counts(item: Int32, position: Int) -> (likes: Int, shows: Int)? {
    counts[OffPolicyRewardModel.key(item, position)]
  }

  /// A logged card's share in the direct method's sampling error, the diner-level bootstrap's
  /// way of seeing that the model is fitted on the same diners it resamples: W/(S + m) · (r −
  /// L/S) for a card of reward r at an (item, position) shown S times with L likes, on which
  /// the target puts total probability W over the evaluated slots. It is the linearised change
  /// of Σ W r̂ when the card's swipe changes (∂r̂/∂L = 1/(S + m)), centred on the pair's raw
  /// like rate so that the shares of all cards sum to 0 and the estimate does not move. The
  /// position rate ρ_p's own error (which alone moves r̂ of pairs never shown) is left out.
  package func errorShare(item: Int32, position: Int, reward: Double, mass: Double) -> Double {
    guard mass != 0, let c = counts(item: item, position: position), c.shows > 0 else { return 0 }
    return mass / (Double(c.shows) + priorStrength) * (reward - Double(c.likes) / Double(c.shows))
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
/// - with `clip` λ (Open Bandit Pipeline's `lambda_`): IPS and DR with clipped weights
///   min(w, λ) (`ips_clip`, `dr_clip`: lower variance, biased towards 0 by the cut mass), and
///   switch-DR (`switch_dr`) = (1 / n_p) Σ [Σ_b π_s(b, p) r̂(b, p) + 1[w ≤ λ] w (r − r̂(a, p))]:
///   DR where the weight is at most λ, the direct method where it is larger.
/// - with `crossFitFolds` K: DM and DR (`dm_cf`, `dr_cf`) with a cross-fitted reward model:
///   the diners are split into K folds (by a stable hash of their ids), and a diner's cards are
///   scored by the model fitted on the other folds' cards, so that no card's own swipe is in
///   the model that corrects it (the in-sample model's bias of order 1 / shows goes).
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

  /// The estimators of a position block (and of the overall one), in metric order.
  package enum Estimator: String, Sendable, CaseIterable {
    case replay, ips, snips, dm, dr
    case ipsClip = "ips_clip"
    case drClip = "dr_clip"
    case switchDR = "switch_dr"
    case dmCrossFit = "dm_cf"
    case drCrossFit = "dr_cf"
    case iips, rips, sips
    case cascadeDR = "cascade_dr"
    case replayMatches = "replay_matches"

    /// A slate estimator: its unit is the session (the logged deck), not the card.
    var isSlate: Bool { [.iips, .rips, .sips, .cascadeDR].contains(self) }

    /// What the overall metric measures.
    func definition(_ options: OffPolicyOptions) -> String {
      let lambda = options.clip.map { Text.roundTrip($0) } ?? "λ"
      let folds = options.crossFitFolds.map { "\($0)" } ?? "K"
      switch self {
      case .replay:
        return "like rate of the logged cards that are the target's card at their position"
          + " (replay; deterministic targets only)"
      case .ips:
        return "inverse propensity scoring: sum over logged cards of w x like, divided by the"
          + " cards; w = target's probability of the logged card at its position / propensity"
      case .snips: return "self-normalised IPS: sum of w x like over sum of w"
      case .dm:
        return "direct method: mean over logged cards of the model's like rate of the target's"
          + " cards at that position (weighted by the target's probabilities); model = smoothed"
          + " like rate per item and position, fitted on the evaluation log"
      case .dr:
        return "doubly robust: mean over logged cards of the direct method's term + w x (like -"
          + " model(logged card))"
      case .ipsClip: return "IPS with weights clipped at \(lambda): min(w, \(lambda))"
      case .drClip: return "doubly robust with weights clipped at \(lambda)"
      case .switchDR:
        return "switch doubly robust: DR where w <= \(lambda), the direct method's term alone"
          + " where w > \(lambda)"
      case .dmCrossFit:
        return "direct method with a cross-fitted model: each of \(folds) folds of diners"
          + " scored by the model fitted on the other folds"
      case .drCrossFit: return "doubly robust with the cross-fitted model of dm_cf"
      case .iips:
        return "independent slate IPS: likes per logged deck, each logged card weighted by its"
          + " own w (sum over a deck's cards of w x like, mean over decks)"
      case .rips:
        return "reward-interaction (cascade) slate IPS: likes per logged deck, the card at k"
          + " weighted by the target's probability of the logged cards 1..k over the logging"
          + " policy's (prefix propensity)"
      case .sips:
        return "standard slate IPS: likes per logged deck, weighted by the target's probability"
          + " of the whole logged deck over the logging policy's"
      case .cascadeDR:
        return "cascade doubly robust: likes per logged deck, sum over k of w(1..k) x (like -"
          + " model) + w(1..k-1) x the model's like rate of the target's card at k given the"
          + " logged cards above"
      case .replayMatches:
        return "logged cards that are the target's card at their position (for a stochastic"
          + " target, the expected number)"
      }
    }
  }

  /// The estimators computed under `options`, in metric order.
  package static func estimators(_ options: OffPolicyOptions) -> [Estimator] {
    var kinds: [Estimator] = [.replay, .ips, .snips, .dm, .dr]
    if options.clip != nil { kinds += [.ipsClip, .drClip, .switchDR] }
    if options.crossFitFolds != nil { kinds += [.dmCrossFit, .drCrossFit] }
    if options.slates { kinds += [.iips, .rips, .sips, .cascadeDR] }
    return kinds + [.replayMatches]
  }

  /// The metrics of an evaluation up to position `positions`, in table order: the overall
  /// estimators of `estimators(options)` (`replay`, `ips`, `snips`, `dm`, `dr`, with `--clip`
  /// `ips_clip`, `dr_clip`, `switch_dr`, with cross-fitting `dm_cf`, `dr_cf`, then
  /// `replay_matches`), `evaluated_cards`, then for p = 1...positions the same estimators named
  /// `<name>_pP`.
  package static func metrics(positions: Int, options: OffPolicyOptions = OffPolicyOptions())
    -> [MetricSpec]
  {
    let kinds = estimators(options)
    func spec(_ kind: Estimator, _ suffix: String, _ definition: String) -> MetricSpec {
      MetricSpec(
        name: kind.rawValue + suffix, definition: definition,
        form: kind == .replayMatches ? .total : .ratio)
    }
    var specs = kinds.map { spec($0, "", $0.definition(options)) }
    specs.append(
      MetricSpec(
        name: "evaluated_cards",
        definition:
          "logged cards evaluated (every logged card up to the last position; the same for"
          + " every target)",
        form: .total))
    for p in stride(from: 1, through: positions, by: 1) {
      specs += kinds.map { kind in
        spec(
          kind, "_p\(p)",
          kind == .replayMatches
            ? "logged cards at position \(p) that are the target's card there"
            : kind.isSlate
              ? "\(kind.rawValue)'s term for the card at position \(p), per logged deck (the"
                + " positions' terms sum to \(kind.rawValue))"
              : "\(kind.rawValue) at position \(p)")
      }
    }
    return specs
  }

  /// The fold (0..<K) of a diner for cross-fitting: from a stable hash of the id's bytes, so
  /// that a diner keeps its fold whatever else the log holds.
  package static func fold(of diner: String, folds: Int) -> Int {
    var h = StableHash()
    h.combine("ope-fold")
    h.combine(bytes: diner.utf8)
    return Int(h.finalized % UInt64(folds))
  }

  /// Evaluates each target on the log: a `UnitTable` with one arm per target (in order) and
  /// the metrics of `metrics(positions:options:)` for P = `options.positions`, or else the
  /// largest logged position. Its units are `units` when given (say, every diner of the
  /// evaluation period, to line up with other tables; it must hold every diner of the log, and
  /// diners without logged cards get rows of zeros), or else the log's diners, in their order.
  ///
  /// Every target covers every session of the log, with valid catalog indices.
  package static func evaluate(
    _ log: OffPolicyLog, targets: [OffPolicyTarget], units: [String]? = nil,
    options: OffPolicyOptions = OffPolicyOptions()
  ) -> UnitTable {
    let unitNames = units ?? log.diners
    let unitOfDiner = unitIndex(log, units: units)
    let positions = options.positions ?? min(log.maxPosition, maxPositions)
    let model = OffPolicyRewardModel(
      log: log, positions: positions, priorStrength: options.priorStrength)
    let (foldOfDiner, foldModels) = crossFitModels(log, positions: positions, options: options)
    let specs = metrics(positions: positions, options: options)
    let kinds = estimators(options)
    let block = kinds.count
    let overall = block + 1
    let lambda = options.clip ?? .infinity
    let arms = targets.map { target in
      check(target, log: log)
      let deterministic = target.isDeterministic
      let (mass, foldMass) = targetMass(
        target, log: log, positions: positions, foldOfDiner: foldOfDiner,
        folds: foldModels.count)
      let cascadeMass =
        options.slates && target.hasPrefixProbabilities
        ? Self.cascadeMass(target, log: log, positions: positions, model: model) : [:]
      var arm = ArmUnits(arm: target.name, units: unitNames.count, metrics: specs.count)
      for (s, session) in log.sessions.enumerated() {
        let u = unitOfDiner[session.diner]
        let foldModel = foldModels.isEmpty ? nil : foldModels[foldOfDiner[session.diner]]
        for card in session.cards {
          let p = Int(card.position)
          guard p <= positions else { continue }
          let term = slotTerms(target, session: s, card: card, model: model)
          let r = card.reward
          let w = term.probability / card.propensity
          let residual = r - model.predict(item: card.item, position: p)
          let key = OffPolicyRewardModel.key(card.item, p)
          let dmShare = model.errorShare(
            item: card.item, position: p, reward: r, mass: mass[key] ?? 0)
          var crossFit = (direct: 0.0, dr: 0.0, share: 0.0)
          if let foldModel {
            let direct = slotTerms(target, session: s, card: card, model: foldModel).direct
            // The card is in the models of the other folds: its share in each of their errors.
            var share = 0.0
            let own = foldOfDiner[session.diner]
            for f in foldModels.indices where f != own {
              share += foldModels[f].errorShare(
                item: card.item, position: p, reward: r, mass: foldMass[f][key] ?? 0)
            }
            crossFit = (
              direct, direct + w * (r - foldModel.predict(item: card.item, position: p)), share
            )
          }
          let card = CardTerms(
            reward: r, weight: w, residual: residual, probability: term.probability,
            direct: term.direct, dmShare: dmShare, crossFit: crossFit)
          // The overall block, then position p's block.
          for base in [0, overall + (p - 1) * block] {
            addCardTerms(
              card, kinds: kinds, base: base, unit: u, deterministic: deterministic,
              clip: lambda, to: &arm)
          }
          arm.add(unit: u, metric: block, numerator: 1)
        }
        if options.slates {
          addSlateTerms(
            target, session: s, log: log, positions: positions, model: model,
            cascadeMass: cascadeMass, kinds: kinds, unit: u, to: &arm)
        }
      }
      return arm
    }
    return UnitTable(metrics: specs, units: unitNames, arms: arms)
  }

  /// The unit of each diner of `log`: its index in `units`, or its own index without them.
  private static func unitIndex(_ log: OffPolicyLog, units: [String]?) -> [Int] {
    guard let units else { return Array(log.diners.indices) }
    var index: [[UInt8]: Int] = [:]
    for (u, name) in units.enumerated() { index[Array(name.utf8)] = u }
    return log.diners.map { name in
      guard let u = index[Array(name.utf8)] else {
        preconditionFailure("diner \(name) is not a unit")
      }
      return u
    }
  }

  /// Cross-fitting: each diner's fold and the model of each fold, fitted on the other folds'
  /// diners; both empty without `options.crossFitFolds`.
  private static func crossFitModels(
    _ log: OffPolicyLog, positions: Int, options: OffPolicyOptions
  ) -> (foldOfDiner: [Int], models: [OffPolicyRewardModel]) {
    guard let k = options.crossFitFolds else { return ([], []) }
    let foldOfDiner = log.diners.map { fold(of: $0, folds: k) }
    let models = (0..<k).map { f in
      OffPolicyRewardModel(
        log: log, positions: positions, priorStrength: options.priorStrength,
        include: { foldOfDiner[$0.diner] != f })
    }
    return (foldOfDiner, models)
  }

  /// The target's probability on each (item, position) over the evaluated slots, all and per
  /// fold of diners (`folds` of them, 0 without cross-fitting): the weights of the direct
  /// method's error shares.
  private static func targetMass(
    _ target: OffPolicyTarget, log: OffPolicyLog, positions: Int, foldOfDiner: [Int], folds: Int
  ) -> (mass: [UInt64: Double], foldMass: [[UInt64: Double]]) {
    var mass: [UInt64: Double] = [:]
    var foldMass = [[UInt64: Double]](repeating: [:], count: folds)
    for (s, session) in log.sessions.enumerated() {
      for card in session.cards where Int(card.position) <= positions {
        let p = Int(card.position)
        func add(_ item: Int32, _ probability: Double) {
          let key = OffPolicyRewardModel.key(item, p)
          mass[key, default: 0] += probability
          if folds > 0 {
            foldMass[foldOfDiner[session.diner]][key, default: 0] += probability
          }
        }
        if case .rankings(let rankings) = target.policy {
          // A deterministic target: its card there, if any, with probability 1.
          if p <= rankings[s].count { add(rankings[s][p - 1], 1) }
        } else {
          let slot = target.slot(session: s, position: p)
          for (item, probability) in zip(slot.items, slot.probabilities) where probability > 0 {
            add(item, probability)
          }
        }
      }
    }
    return (mass, foldMass)
  }

  /// What a logged card gives the per-card estimators: its reward, importance weight
  /// π / μ, residual against the model, the target's probability of it, the target's direct
  /// term, its share of the model's error and its cross-fitted terms.
  private struct CardTerms {
    var reward: Double
    var weight: Double
    var residual: Double
    var probability: Double
    var direct: Double
    var dmShare: Double
    var crossFit: (direct: Double, dr: Double, share: Double)
  }

  /// Adds a card's terms of the per-card estimators to the block of metrics from `base`
  /// (`kinds` in order; the slate estimators are per session, added elsewhere).
  @inline(__always)
  private static func addCardTerms(
    _ c: CardTerms, kinds: [Estimator], base: Int, unit u: Int, deterministic: Bool,
    clip lambda: Double, to arm: inout ArmUnits
  ) {
    let (r, w, residual) = (c.reward, c.weight, c.residual)
    for (k, kind) in kinds.enumerated() {
      let m = base + k
      switch kind {
      case .replay:
        if deterministic {
          let match = c.probability
          arm.add(unit: u, metric: m, numerator: match * r, denominator: match)
        }
      case .ips: arm.add(unit: u, metric: m, numerator: w * r, denominator: 1)
      case .snips: arm.add(unit: u, metric: m, numerator: w * r, denominator: w)
      case .dm:
        arm.add(unit: u, metric: m, numerator: c.direct + c.dmShare, denominator: 1)
      case .dr:
        arm.add(unit: u, metric: m, numerator: c.direct + w * residual, denominator: 1)
      case .ipsClip:
        arm.add(unit: u, metric: m, numerator: min(w, lambda) * r, denominator: 1)
      case .drClip:
        arm.add(
          unit: u, metric: m, numerator: c.direct + min(w, lambda) * residual, denominator: 1)
      case .switchDR:
        arm.add(
          unit: u, metric: m, numerator: c.direct + (w <= lambda ? w * residual : 0),
          denominator: 1)
      case .dmCrossFit:
        arm.add(
          unit: u, metric: m, numerator: c.crossFit.direct + c.crossFit.share, denominator: 1)
      case .drCrossFit:
        arm.add(unit: u, metric: m, numerator: c.crossFit.dr, denominator: 1)
      case .replayMatches:
        arm.add(unit: u, metric: m, numerator: c.probability)
      case .iips, .rips, .sips, .cascadeDR:
        break  // per session, below
      }
    }
  }

  /// Adds session `s`'s terms of the slate estimators to `arm` (overall and per position; every
  /// position's denominator counts the session, so the positions' terms sum to the overall
  /// estimate). With w_k = π(a_k, k) / μ(a_k, k) the card's own weight, c_k = π(a_1..a_k) /
  /// μ(a_1..a_k) the prefix weight (c_0 = 1), L the last logged position (at most P):
  /// iips Σ_k w_k r_k, rips Σ_k c_k r_k, sips Σ_k c_L r_k, cascade_dr Σ_k [c_k (r_k − r̂(a_k,
  /// k)) + c_(k-1) Σ_b π(b at k | a_1..a_(k-1)) r̂(b, k)]. A target without prefix
  /// probabilities adds only iips.
  ///
  /// cascade_dr's bootstrap error shares: the estimate depends on r̂ through Σ_(b,p) M(b, p)
  /// r̂(b, p) with M(b, p) = Σ_s [c_(p-1) π(b at p | a_1..a_(p-1)) − c_p 1[a_p = b]]
  /// (`cascadeMass`), so each card adds `OffPolicyRewardModel.errorShare` with that mass, as
  /// the direct method's cards do: the diner-level bootstrap then sees that r̂ is fitted on the
  /// diners it resamples (the shares sum to 0; the estimate does not move).
  private static func addSlateTerms(
    _ target: OffPolicyTarget, session s: Int, log: OffPolicyLog, positions: Int,
    model: OffPolicyRewardModel, cascadeMass: [UInt64: Double], kinds: [Estimator], unit u: Int,
    to arm: inout ArmUnits
  ) {
    let session = log.sessions[s]
    let cards = session.cards.prefix { Int($0.position) <= positions }
    let items = cards.map(\.item)
    let block = kinds.count
    let overall = block + 1
    let prefixes = target.hasPrefixProbabilities
    // Per logged card k: w_k, c_k and the cascade-DR term.
    var own = [Double](repeating: 0, count: cards.count)
    var cascade = [Double](repeating: 0, count: cards.count)
    var weights = [Double](repeating: 0, count: cards.count)
    var previous = 1.0
    for (j, card) in cards.enumerated() {
      let k = j + 1
      precondition(
        Int(card.position) == k, "the slate estimators need positions 1...L in every session")
      let term = slotTerms(target, session: s, card: card, model: model)
      own[j] = term.probability / card.propensity
      guard prefixes, let logged = card.prefixPropensity else { continue }
      let path = target.path(session: s, position: k, logged: items)
      let c = path.prefix / logged
      weights[j] = c
      let expected =
        previous == 0
        ? 0 : path.conditional.expectation { model.predict(item: $0, position: k) }
      let share = model.errorShare(
        item: card.item, position: k, reward: card.reward,
        mass: cascadeMass[OffPolicyRewardModel.key(card.item, k)] ?? 0)
      cascade[j] =
        c * (card.reward - model.predict(item: card.item, position: k)) + previous * expected
        + share
      previous = c
    }
    let whole = weights.last ?? 0
    for (k, kind) in kinds.enumerated() where kind.isSlate {
      if kind != .iips && !prefixes { continue }
      var total = 0.0
      for p in 1...positions {
        var value = 0.0
        if p <= cards.count {
          let r = cards[p - 1].reward
          switch kind {
          case .iips: value = own[p - 1] * r
          case .rips: value = weights[p - 1] * r
          case .sips: value = whole * r
          default: value = cascade[p - 1]
          }
        }
        total += value
        arm.add(unit: u, metric: overall + (p - 1) * block + k, numerator: value, denominator: 1)
      }
      arm.add(unit: u, metric: k, numerator: total, denominator: 1)
    }
  }

  /// M(b, p) of cascade_dr's error shares (see `addSlateTerms`) over every session of the log.
  private static func cascadeMass(
    _ target: OffPolicyTarget, log: OffPolicyLog, positions: Int, model: OffPolicyRewardModel
  ) -> [UInt64: Double] {
    var mass: [UInt64: Double] = [:]
    for (s, session) in log.sessions.enumerated() {
      let cards = session.cards.prefix { Int($0.position) <= positions }
      let items = cards.map(\.item)
      var previous = 1.0
      for (j, card) in cards.enumerated() {
        let k = j + 1
        guard let logged = card.prefixPropensity else { break }
        let path = target.path(session: s, position: k, logged: items)
        if previous != 0 {
          for (b, probability) in zip(path.conditional.items, path.conditional.probabilities)
          where probability > 0 {
            mass[OffPolicyRewardModel.key(b, k), default: 0] += previous * probability
          }
        }
        let c = path.prefix / logged
        if c != 0 { mass[OffPolicyRewardModel.key(card.item, k), default: 0] -= c }
        previous = c
      }
    }
    return mass
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
    case .distributions, .policies:
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
