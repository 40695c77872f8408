import DeckStrategies

/// One position of a target policy in one session: the probability of each item it may put
/// there, π(item, p). The probabilities sum to at most 1; the rest is the probability that the
/// target leaves the position empty ("show nothing", reward 0).
package struct SlotDistribution: Sendable, Equatable {
  /// Catalog indices, ascending, each once.
  package private(set) var items: [Int32]
  /// `probabilities[i]`: π(items[i], p), in [0, 1].
  package private(set) var probabilities: [Double]

  /// The slot of a deterministic target that shows `item` (π = 1), or nothing (nil).
  package init(showing item: Int32?) {
    items = item.map { [$0] } ?? []
    probabilities = item == nil ? [] : [1]
  }

  /// A slot from (item, probability) pairs with distinct items, probabilities in [0, 1].
  package init(_ pairs: [(item: Int32, probability: Double)]) {
    let sorted = pairs.sorted { $0.item < $1.item }
    precondition(
      zip(sorted, sorted.dropFirst()).allSatisfy { $0.item < $1.item },
      "an item appears once in a slot")
    precondition(
      sorted.allSatisfy { $0.probability >= 0 && $0.probability <= 1 },
      "a probability is in [0, 1]")
    items = sorted.map(\.item)
    probabilities = sorted.map(\.probability)
  }

  /// π(item, p): 0 for an item the slot does not list.
  package func probability(of item: Int32) -> Double {
    var low = 0
    var high = items.count
    while low < high {
      let mid = (low + high) / 2
      if items[mid] < item { low = mid + 1 } else { high = mid }
    }
    return low < items.count && items[low] == item ? probabilities[low] : 0
  }

  /// Σ over the slot's items of π(item) · f(item): the expectation of f under the slot, with
  /// "show nothing" counting 0.
  package func expectation(_ f: (Int32) -> Double) -> Double {
    var sum = 0.0
    for (item, p) in zip(items, probabilities) where p > 0 { sum += p * f(item) }
    return sum
  }
}

/// What the slate estimators need of a stochastic target along one logged session, whose
/// cards lie at positions 1...L (in position order): for each k in 1...L, the target's
/// probability π(a_1..a_k) of putting the session's logged cards 1...k at positions 1...k (in
/// that order), and its distribution at position k given that its cards above are the logged
/// ones a_1..a_(k-1) (the rest of the slot's probability is the target's deck ending there).
/// A conditional is only used where π(a_1..a_(k-1)) > 0, and may be empty elsewhere.
package struct SlatePath: Sendable, Equatable {
  /// `prefix[k - 1]` = π(a_1..a_k), non-increasing in k, in [0, 1].
  package var prefix: [Double]
  /// `conditionals[k - 1]`: π(· at k | a_1..a_(k-1) above).
  package var conditionals: [SlotDistribution]

  package init(prefix: [Double], conditionals: [SlotDistribution]) {
    precondition(prefix.count == conditionals.count, "one conditional per prefix")
    precondition(prefix.allSatisfy { $0 >= 0 && $0 <= 1 + 1e-9 }, "a probability is in [0, 1]")
    self.prefix = prefix
    self.conditionals = conditionals
  }
}

/// The exact distributions of a randomising strategy's decks over the sessions of a log: for
/// each session, the distribution its ranking is drawn from (`RankingPolicy`, over the
/// session's candidates) and how many of the ranking's first cards the deck shows. Sessions
/// with the same (distribution, candidates, deck size) share an entry, computed once.
package struct SessionPolicies: Sendable, Equatable {
  package struct Entry: Sendable, Equatable {
    package var policy: RankingPolicy
    /// The catalog index of each candidate of the policy.
    package var candidates: [Int32]
    /// Cards the deck shows: the ranking's first `size`.
    package var size: Int
    /// `slots[p - 1]` = π(·, p) for p in 1...min(size, the positions evaluated).
    package var slots: [SlotDistribution]
    /// Candidate index of each catalog index the policy ranks.
    let candidateOf: [Int32: Int]

    package init(policy: RankingPolicy, candidates: [Int32], size: Int, slots: [SlotDistribution]) {
      precondition(policy.candidateCount == candidates.count, "one catalog index per candidate")
      precondition(size <= candidates.count && slots.count <= size, "a deck of its candidates")
      self.policy = policy
      self.candidates = candidates
      self.size = size
      self.slots = slots
      var index: [Int32: Int] = [:]
      for (c, item) in candidates.enumerated() { index[item] = c }
      candidateOf = index
    }

    /// π(a_1..a_k) and the distribution at k given a_1..a_(k-1) above, along the logged
    /// catalog indices `items` (at least k of them).
    func path(position k: Int, logged items: [Int32]) -> (
      prefix: Double, conditional: SlotDistribution
    ) {
      guard k <= size else { return (0, SlotDistribution(showing: nil)) }
      var placed: [Int] = []
      placed.reserveCapacity(k)
      for item in items.prefix(k - 1) {
        guard let c = candidateOf[item] else { return (0, SlotDistribution(showing: nil)) }
        placed.append(c)
      }
      let next = policy.next(after: placed)
      let conditional = SlotDistribution(
        next.indices.filter { next[$0] > 0 }.map { (candidates[$0], min(1, next[$0])) })
      guard let c = candidateOf[items[k - 1]], next[c] > 0 else { return (0, conditional) }
      let prefix = policy.prefixProbabilities(placed + [c])[k - 1]
      return (prefix, conditional)
    }
  }

  package var entries: [Entry]
  /// Per session of the log, its entry.
  package var sessionEntry: [Int32]

  package init(entries: [Entry], sessionEntry: [Int32]) {
    precondition(sessionEntry.allSatisfy { $0 >= 0 && Int($0) < entries.count }, "an entry")
    self.entries = entries
    self.sessionEntry = sessionEntry
  }
}

/// A target strategy of an off-policy evaluation: for every session of the evaluation log,
/// what it would have put at each position. Deterministic (one ranking per session, as a
/// built-in strategy's deck) or stochastic (a distribution per position, as an action
/// distribution computed elsewhere; Open Bandit Pipeline's `action_dist`).
package struct OffPolicyTarget: Sendable, Equatable {
  /// The arm's name (a strategy name, a named configuration or a policy file's name).
  package var name: String
  package var policy: Policy
  /// For a stochastic target, `paths[s]` along the logged cards of `OffPolicyLog.sessions[s]`
  /// (positions 1...min(L, P)), for the slate estimators; nil when the target's probabilities
  /// of whole prefixes are not known (a policy file of per-position probabilities), which
  /// leaves those estimators undefined. A deterministic target needs none: its prefix
  /// probabilities are 1 while the logged cards are its deck's, 0 after.
  package var paths: [SlatePath]?

  package enum Policy: Sendable, Equatable {
    /// `rankings[s]`: the deck the target would have shown in `OffPolicyLog.sessions[s]`, as
    /// catalog indices in position order (first card first); positions beyond it are empty.
    case rankings([[Int32]])
    /// `slots[sessionSlots[s][p - 1]]`: the target's distribution at position p of session s
    /// (sessions with the same distributions share them); a position beyond
    /// `sessionSlots[s].count`, or whose index is -1, is empty.
    case distributions(slots: [SlotDistribution], sessionSlots: [[Int32]])
    /// A randomising strategy's exact distributions, session by session.
    case policies(SessionPolicies)
  }

  package init(name: String, rankings: [[Int32]]) {
    self.name = name
    policy = .rankings(rankings)
  }

  package init(
    name: String, slots: [SlotDistribution], sessionSlots: [[Int32]], paths: [SlatePath]? = nil
  ) {
    precondition(
      sessionSlots.allSatisfy { $0.allSatisfy { $0 >= -1 && Int($0) < slots.count } },
      "a session's slot index is -1 or a slot")
    precondition(paths.map { $0.count == sessionSlots.count } ?? true, "one path per session")
    self.name = name
    policy = .distributions(slots: slots, sessionSlots: sessionSlots)
    self.paths = paths
  }

  package init(name: String, policies: SessionPolicies) {
    self.name = name
    policy = .policies(policies)
  }

  /// Whether the slate estimators that need the probabilities of whole prefixes (`sips`,
  /// `rips`, `cascade_dr`) are defined for the target.
  package var hasPrefixProbabilities: Bool {
    if case .distributions = policy { return paths != nil }
    return true
  }

  /// π(a_1..a_k) and the conditional distribution at position k along the logged `items`
  /// (the session's cards at positions 1...k, in order) of session `session`.
  package func path(session: Int, position k: Int, logged items: [Int32]) -> (
    prefix: Double, conditional: SlotDistribution
  ) {
    switch policy {
    case .rankings(let rankings):
      let ranking = rankings[session]
      let conditional = SlotDistribution(showing: k <= ranking.count ? ranking[k - 1] : nil)
      guard k <= ranking.count else { return (0, conditional) }
      for j in 0..<k where ranking[j] != items[j] { return (0, conditional) }
      return (1, conditional)
    case .distributions:
      let path = paths![session]
      return (path.prefix[k - 1], path.conditionals[k - 1])
    case .policies(let table):
      return table.entries[Int(table.sessionEntry[session])].path(position: k, logged: items)
    }
  }

  /// The deterministic target's rankings ([] for a stochastic one).
  package var rankings: [[Int32]] {
    if case .rankings(let r) = policy { return r }
    return []
  }

  /// Whether the target puts one item at each position with probability 1 (replay is defined
  /// for it).
  package var isDeterministic: Bool {
    if case .rankings = policy { return true }
    return false
  }

  /// Sessions the target covers.
  package var sessionCount: Int {
    switch policy {
    case .rankings(let r): return r.count
    case .distributions(_, let sessionSlots): return sessionSlots.count
    case .policies(let table): return table.sessionEntry.count
    }
  }

  /// The target's distribution at position `position` (1-based) of session `session`.
  package func slot(session: Int, position: Int) -> SlotDistribution {
    switch policy {
    case .rankings(let rankings):
      let ranking = rankings[session]
      return SlotDistribution(showing: position <= ranking.count ? ranking[position - 1] : nil)
    case .distributions(let slots, let sessionSlots):
      let row = sessionSlots[session]
      guard position <= row.count, row[position - 1] >= 0 else {
        return SlotDistribution(showing: nil)
      }
      return slots[Int(row[position - 1])]
    case .policies(let table):
      let entry = table.entries[Int(table.sessionEntry[session])]
      return position <= entry.slots.count
        ? entry.slots[position - 1] : SlotDistribution(showing: nil)
    }
  }

  /// The largest catalog index the target may show in some session (to check it against the
  /// catalog), nil when it shows nothing.
  package var largestItem: Int32? {
    switch policy {
    case .rankings(let r): return r.lazy.compactMap { $0.max() }.max()
    case .distributions(let slots, _): return slots.lazy.compactMap { $0.items.last }.max()
    case .policies(let table): return table.entries.lazy.compactMap { $0.candidates.max() }.max()
    }
  }
}
